// RewriteTable: a table's live rows -> bucketed, key-sorted Parquet files in a lookup layout, and
// their RAP index from the writer's own locations.
#include "rap/index/rewrite.h"
#include "rap/io/crash_point.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>

#include "rap/columnar/take.h"
#include "index/rewrite_plan.h"
#include "index/rewrite_sort.h"
#include "rap/format/blob_column.h"
#include "rap/index/build.h"
#include "rap/index/index_writer.h"
#include "rap/read/file_reader.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/delta_commit.h"
#include "rap/table/delta_schema.h"
#include "rap/table/table.h"
#include "rap/table/pending_write.h"
#include "rap/table/table_format.h"
#include "rap/util/clock.h"

namespace rap::index {

Result<RewriteLayout> ParseRewriteLayout(const std::string& text) {
  if (text == "sorted") return RewriteLayout::kSorted;
  if (text == "page" || text == "page-per-key") return RewriteLayout::kPagePerKey;
  if (text == "frame" || text == "frame-per-key") return RewriteLayout::kFramePerKey;
  if (text == "interleaved") return RewriteLayout::kInterleaved;
  if (text == "blob") return RewriteLayout::kBlob;
  if (text == "zorder") return RewriteLayout::kZOrder;
  return Status::InvalidArgument("--layout '" + text + "': expected sorted, page, frame, interleaved, blob or zorder");
}

const char* RewriteLayoutName(RewriteLayout layout) {
  switch (layout) {
    case RewriteLayout::kSorted: return "sorted";
    case RewriteLayout::kPagePerKey: return "page";
    case RewriteLayout::kFramePerKey: return "frame";
    case RewriteLayout::kInterleaved: return "interleaved";
    case RewriteLayout::kBlob: return "blob";
    case RewriteLayout::kZOrder: return "zorder";
  }
  return "?";
}

namespace {

// The options of the index a rewrite writes beside its files: the plan's key and covered columns,
// the ETags of the output store.
IndexWriterOptions RewriteIndexOptions(const internal::RewritePlan& plan, const RewriteOptions& options,
                                       const internal::RewriteOutput& out) {
  IndexWriterOptions iwo;
  iwo.key = plan.key;
  iwo.buckets = options.buckets;
  iwo.kind = options.index_kind;
  iwo.cover = plan.cover;
  iwo.threads = options.threads;
  iwo.etag_source = out.store->endpoint();
  return iwo;
}

int LeafCount(const DataType& t) {
  if (!t.IsNested()) return 1;
  int n = 0;
  for (const Field& c : t.children) n += LeafCount(*c.type);
  return n;
}

bool IsLocal(const std::string& url) { return url.find("://") == std::string::npos || url.rfind("file://", 0) == 0; }

// An Iceberg table's files are read by field id (renamed columns, promoted types, name mapping,
// initial defaults), conformed to the table's schema: the table's schema is the input's.
bool ByFieldId(const table::TableSnapshot& snap) { return !snap.field_ids.empty() || snap.name_mapping != nullptr; }

// A Scanner's batches as a RecordBatchReader (one file of an Iceberg table, LiveRowsReader).
class ScannerBatches final : public columnar::RecordBatchReader {
 public:
  explicit ScannerBatches(std::unique_ptr<read::Scanner> scanner) : scanner_(std::move(scanner)) {}
  SchemaPtr schema() const override { return scanner_->schema(); }
  Result<std::optional<RecordBatch>> Next() override {
    RAP_ASSIGN_OR_RETURN(std::optional<read::ScanBatch> b, scanner_->Next());
    if (!b) return std::optional<RecordBatch>();
    return std::optional<RecordBatch>(std::move(b->batch));
  }

 private:
  std::unique_ptr<read::Scanner> scanner_;
};

// The first file's schema followed by the table's partition columns (a partitioned table's rows
// carry their partition values as ordinary columns in the output), and its blob column metadata
// (rap/format/blob_column.h), if any.
Result<SchemaPtr> InputSchema(const table::TableSnapshot& snap, std::optional<std::string>* blob_spec) {
  RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(snap.store, snap.files[0].path));
  RAP_ASSIGN_OR_RETURN(read::Projection proj, reader->Project({}));
  for (const parquet::KeyValue& kv : reader->metadata().key_value_metadata) {
    if (kv.key == parquet::kBlobMetadataKey) *blob_spec = kv.value;
  }
  if (ByFieldId(snap) && snap.schema) return snap.schema;
  if (snap.partition_columns.empty()) return proj.schema;
  auto s = std::make_shared<Schema>(*proj.schema);
  for (const Field& p : snap.partition_columns) {
    if (s->FieldIndex(p.name) >= 0) {
      return Status::NotSupported(snap.files[0].path + ": the data file also holds the partition column '" + p.name +
                                  "'");
    }
    Field f = p;
    f.nullable = true;
    s->fields.push_back(std::move(f));
  }
  return SchemaPtr(s);
}

// The live rows of some of the table's files (deletion vectors applied, partition values appended
// as columns), batch by batch, with the schema `schema` (the input schema, or only the key columns
// when `key_only`: then only those are read from the files). Shared by RewriteTable and the tasks of a
// distributed rewrite (ReadRewriteRows), so both read the same rows.
class LiveRowsReader final : public columnar::RecordBatchReader {
 public:
  LiveRowsReader(const table::TableSnapshot& snap, std::vector<size_t> files, SchemaPtr in_schema,
                 const RewriteOptions& options, std::vector<int> columns)
      : snap_(snap), files_(std::move(files)), in_schema_(std::move(in_schema)), options_(options),
        columns_(std::move(columns)) {
    if (columns_.empty()) {
      schema_ = in_schema_;
    } else {
      auto s = std::make_shared<Schema>();
      for (int c : columns_) s->fields.push_back(in_schema_->fields[static_cast<size_t>(c)]);
      schema_ = s;
    }
  }
  SchemaPtr schema() const override { return schema_; }
  int64_t files_done() const { return static_cast<int64_t>(next_file_) - (batches_ ? 1 : 0); }

  Result<std::optional<RecordBatch>> Next() override {
    while (true) {
      if (!batches_) {
        if (next_file_ >= files_.size()) return std::optional<RecordBatch>();
        RAP_RETURN_NOT_OK(OpenFile(snap_.files[files_[next_file_++]]));
      }
      const table::DataFile& f = snap_.files[files_[next_file_ - 1]];
      if (options_.cancel && options_.cancel->cancelled()) return Status::Cancelled("rewrite: cancelled at " + f.path);
      RAP_ASSIGN_OR_RETURN(std::optional<RecordBatch> b, batches_->Next());
      if (!b) {
        batches_.reset();
        reader_.reset();
        continue;
      }
      const int64_t n = b->num_rows;
      if (!deleted_.empty()) {
        std::vector<int64_t> keep;
        for (int64_t r = 0; r < n; ++r) {
          if (!std::binary_search(deleted_.begin(), deleted_.end(), static_cast<uint64_t>(file_row_ + r))) keep.push_back(r);
        }
        for (ArrayPtr& c : b->columns) {
          RAP_ASSIGN_OR_RETURN(c, TakeArray(c, keep));
        }
        b->num_rows = static_cast<int64_t>(keep.size());
      }
      file_row_ += n;
      const size_t data_columns = in_schema_->fields.size() - snap_.partition_columns.size();
      if (columns_.empty()) {
        for (size_t p = 0; p < snap_.partition_columns.size(); ++p) {
          RAP_ASSIGN_OR_RETURN(ArrayPtr part, PartitionColumn(f, p, b->num_rows));
          b->columns.push_back(std::move(part));
        }
      } else {
        std::vector<ArrayPtr> cols;
        for (int c : columns_) {
          if (static_cast<size_t>(c) < data_columns) {
            const int i = read_schema_->FieldIndex(in_schema_->fields[static_cast<size_t>(c)].name);
            if (i < 0) return Status::Internal(f.path + ": a projected column is missing");
            cols.push_back(b->columns[static_cast<size_t>(i)]);
          } else {
            RAP_ASSIGN_OR_RETURN(ArrayPtr part, PartitionColumn(f, static_cast<size_t>(c) - data_columns, b->num_rows));
            cols.push_back(std::move(part));
          }
        }
        b->columns = std::move(cols);
      }
      b->schema = schema_;
      return b;
    }
  }

 private:
  Result<ArrayPtr> PartitionColumn(const table::DataFile& f, size_t p, int64_t rows) {
    const Field& col = snap_.partition_columns[p];
    auto part = table::MakePartitionArray(col.name, *col.type, f.partition_values[p], rows);
    if (!part.ok()) return part.status().WithContext(f.path);
    return std::move(*part);
  }

  // A file of a table read by field id: through a one-file Scanner, which conforms its columns to
  // the table's schema and applies its deletes.
  Status OpenConformed(const table::DataFile& f) {
    if (!source_) {
      // The table's scan once, its files set apart by path: each file's Scanner copies the source
      // without them.
      RAP_ASSIGN_OR_RETURN(read::ScanSource src, table::ToScanSource(snap_));
      for (read::ScanFile& sf : src.files) scan_files_.emplace(sf.path, std::move(sf));
      src.files.clear();
      source_ = std::make_unique<read::ScanSource>(std::move(src));
    }
    auto sf = scan_files_.find(f.path);
    if (sf == scan_files_.end()) return Status::Internal(f.path + ": not in the table's scan");
    read::ScanSource one = *source_;
    one.files.push_back(std::move(sf->second));  // each file is read once
    scan_files_.erase(sf);
    read::ScanOptions so;
    so.batch_size = std::clamp<int64_t>(options_.memory >> 10, 256, 64 * 1024);
    so.cancel = options_.cancel;
    so.file_parallelism = 1;
    const size_t data_columns = in_schema_->fields.size() - snap_.partition_columns.size();
    for (int c : columns_) {
      if (static_cast<size_t>(c) < data_columns) so.columns.push_back(in_schema_->fields[static_cast<size_t>(c)].name);
    }
    RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(one), std::move(so)));
    read_schema_ = scanner->schema();
    batches_ = std::make_unique<ScannerBatches>(std::move(scanner));
    deleted_.clear();
    file_row_ = 0;
    return Status::OK();
  }

  Status OpenFile(const table::DataFile& f) {
    if (ByFieldId(snap_)) return OpenConformed(f);
    read::FileReaderOptions ro;
    ro.io.cancel = options_.cancel.get();
    // Input batches small against the memory budget (about budget / 1 KiB rows, 256..65536), so a
    // spill happens close to the budget.
    ro.batch_size = std::clamp<int64_t>(options_.memory >> 10, 256, 64 * 1024);
    RAP_ASSIGN_OR_RETURN(reader_, read::FileReader::Open(snap_.store, f.path, ro));
    RAP_ASSIGN_OR_RETURN(read::Projection all, reader_->Project({}));
    const Schema& schema = *in_schema_;
    const size_t data_columns = schema.fields.size() - snap_.partition_columns.size();
    bool same = all.schema->fields.size() == data_columns;
    for (size_t c = 0; same && c < data_columns; ++c) {
      same = all.schema->fields[c].name == schema.fields[c].name &&
             all.schema->fields[c].type->ToString() == schema.fields[c].type->ToString();
    }
    if (!same) {
      return Status::InvalidArgument(f.path + ": its schema differs from the first file's (" + snap_.files[0].path +
                                     "); rap rewrite needs one schema");
    }
    read::Projection proj = std::move(all);
    if (!columns_.empty()) {
      std::vector<std::string> names;
      for (int c : columns_) {
        if (static_cast<size_t>(c) < data_columns) names.push_back(schema.fields[static_cast<size_t>(c)].name);
      }
      RAP_ASSIGN_OR_RETURN(proj, reader_->Project(names));
    }
    read_schema_ = proj.schema;
    deleted_.clear();
    if (f.deletion_vector || f.format_deletes) {
      RAP_ASSIGN_OR_RETURN(deleted_, table::DeletedRows(snap_, f));
    }
    RAP_ASSIGN_OR_RETURN(batches_, reader_->NewBatchReader(std::nullopt, proj));
    file_row_ = 0;
    return Status::OK();
  }

  const table::TableSnapshot& snap_;
  std::vector<size_t> files_;
  SchemaPtr in_schema_, schema_;
  const RewriteOptions& options_;
  std::vector<int> columns_;  // in in_schema; empty: all
  size_t next_file_ = 0;
  std::shared_ptr<read::FileReader> reader_;
  SchemaPtr read_schema_;  // the projection's
  std::unique_ptr<columnar::RecordBatchReader> batches_;
  std::unique_ptr<read::ScanSource> source_;  // ByFieldId: the table's scan (without its files), loaded once
  std::map<std::string, read::ScanFile> scan_files_;  // ByFieldId: its files not read yet, by path
  std::vector<uint64_t> deleted_;
  int64_t file_row_ = 0;
};

// Every live row of the table into `sorter`, batch by batch (kZOrder: with the Z-value column
// appended).
Status ReadLiveRows(const table::TableSnapshot& snap, const RewriteOptions& options, const internal::RewritePlan& plan,
                    internal::BucketSorter& sorter, int64_t* rows) {
  std::vector<size_t> all(snap.files.size());
  std::iota(all.begin(), all.end(), size_t{0});
  LiveRowsReader reader(snap, std::move(all), plan.in_schema, options, {});
  int64_t reported = 0;
  while (true) {
    RAP_ASSIGN_OR_RETURN(std::optional<RecordBatch> b, reader.Next());
    if (options.progress) {
      for (; reported < reader.files_done(); ++reported) {
        options.progress(reported + 1, static_cast<int64_t>(snap.files.size()));
      }
    }
    if (!b) break;
    if (plan.zorder) {
      std::vector<ArrayPtr> cols;
      for (int c : plan.cluster_idx) cols.push_back(b->columns[static_cast<size_t>(c)]);
      RAP_ASSIGN_OR_RETURN(ArrayPtr z, plan.zorder->ZValues(cols, b->num_rows));
      b->columns.push_back(std::move(z));
      b->schema = plan.sort_schema;
    }
    *rows += b->num_rows;
    RAP_RETURN_NOT_OK(sorter.Add(std::move(*b)));
  }
  return sorter.Finish();
}

using internal::RewriteOutput;
using internal::RewritePlan;

// The key columns: their types and their places in the input schema.
Status PlanKey(const table::TableSnapshot& snap, const RewriteOptions& options, RewritePlan* plan) {
  const Schema& schema = *plan->in_schema;
  for (const std::string& k : options.key_columns) {
    const int i = schema.FieldIndex(k);
    if (i < 0) return Status::InvalidArgument("--key '" + k + "': no such column in " + snap.root);
    RAP_ASSIGN_OR_RETURN(KeyType t, KeyTypeOf(k, *schema.fields[static_cast<size_t>(i)].type));
    plan->key.push_back({k, t});
    plan->key_idx.push_back(i);
  }
  return Status::OK();
}

// The output schema: co-grouped, every non-key column becomes a list; the blob layout: keys + one
// JSON column (the input's own blob metadata, if any, no longer applies).
Status PlanOutputSchema(const table::TableSnapshot& snap, const RewriteOptions& options, RewritePlan* plan) {
  const Schema& schema = *plan->in_schema;
  plan->out_schema = plan->in_schema;
  if (options.cogroup) {
    auto s = std::make_shared<Schema>(schema);
    for (size_t i = 0; i < s->fields.size(); ++i) {
      if (std::find(plan->key_idx.begin(), plan->key_idx.end(), static_cast<int>(i)) != plan->key_idx.end()) continue;
      Field item = s->fields[i];
      item.name = "element";
      s->fields[i].type = MakeList(item);
      s->fields[i].nullable = false;
    }
    plan->out_schema = s;
  }
  if (options.layout == RewriteLayout::kBlob) {
    if (options.cogroup) return Status::InvalidArgument("--layout blob folds every row into one column; --cogroup excludes it");
    auto planned = parquet::PlanBlobLayout(schema, options.key_columns);
    if (!planned.ok()) return planned.status().WithContext(snap.root);
    plan->blob = std::move(*planned);
    plan->out_schema = plan->blob->schema;
    plan->blob_spec = parquet::BlobSpecToJson(plan->blob->spec);
  }
  return Status::OK();
}

// Covered columns and their leaf ordinals: columns of one leaf (flat, or a list of a primitive —
// every co-grouped flat column).
Status PlanCover(const RewriteOptions& options, RewritePlan* plan) {
  const Schema& out_schema = *plan->out_schema;
  plan->cover = options.cover;
  if (options.layout == RewriteLayout::kZOrder) {
    if (!plan->cover.empty()) return Status::InvalidArgument("--layout zorder builds no index; --cover does not apply");
    return Status::OK();
  }
  if (plan->cover.empty() && options.cover_all) {
    for (const Field& f : out_schema.fields) {
      if (LeafCount(*f.type) == 1 && std::find(options.key_columns.begin(), options.key_columns.end(), f.name) ==
                                     options.key_columns.end()) {
        plan->cover.push_back(f.name);
      }
    }
  }
  std::vector<int> leaf_of_field(out_schema.fields.size());
  for (size_t i = 0, leaf = 0; i < out_schema.fields.size(); ++i) {
    leaf_of_field[i] = static_cast<int>(leaf);
    leaf += static_cast<size_t>(LeafCount(*out_schema.fields[i].type));
  }
  for (const std::string& c : plan->cover) {
    const int i = out_schema.FieldIndex(c);
    if (i < 0) {
      return Status::InvalidArgument("--cover '" + c + "': no such column" +
                                     (plan->blob && plan->in_schema->FieldIndex(c) >= 0
                                          ? " (--layout blob folds it into 'blob')"
                                          : ""));
    }
    if (LeafCount(*out_schema.fields[static_cast<size_t>(i)].type) != 1) {
      return Status::NotSupported("--cover '" + c + "' has more than one leaf column" +
                                  (options.cogroup ? " (co-grouped)" : "") +
                                  "; covered columns are flat or lists of a primitive");
    }
    plan->cover_leaf.push_back(leaf_of_field[static_cast<size_t>(i)]);
  }
  return Status::OK();
}

// Writer options for the layout.
Status PlanWriter(const RewriteOptions& options, RewritePlan* plan) {
  parquet::WriterOptions& wo = plan->writer;
  wo = options.writer;
  switch (options.layout) {
    case RewriteLayout::kSorted: break;
    case RewriteLayout::kZOrder:
      // A box query reads a few pages of each clustering column: without a dictionary, none has to
      // fetch its chunk's dictionary page first (unless the caller chose otherwise per column).
      for (const std::string& c : options.cluster_by) {
        if (!wo.columns[c].dictionary) wo.columns[c].dictionary = false;
      }
      // Row groups are cut on the curve's boundaries (WriteZOrdered), between half the limit and it.
      plan->zorder_row_group_rows = wo.row_group_max_rows;
      wo.row_group_max_rows = 0;
      break;
    case RewriteLayout::kPagePerKey:
      // The page is the result: no dictionary page to fetch before it.
      wo.page_break_on = options.key_columns;
      wo.defaults.dictionary = false;
      break;
    case RewriteLayout::kInterleaved: wo.interleave = true; [[fallthrough]];
    case RewriteLayout::kBlob:
    case RewriteLayout::kFramePerKey:
      wo.frame_break_on = options.key_columns;
      wo.frame_align = options.align;
      break;
  }
  wo.write_page_index = true;
  // A blob column stays decodable (co-grouped, it becomes a list and no longer matches its metadata).
  if (plan->blob_spec && !options.cogroup) wo.key_value_metadata.push_back({parquet::kBlobMetadataKey, *plan->blob_spec});
  return wo.Validate();
}

// kZOrder: the clustering columns and the schema of the rows being sorted (the input's plus the
// Z-value). The curve itself needs the input's ranges (ZOrderRanges).
Status PlanCluster(const table::TableSnapshot& snap, const RewriteOptions& options, RewritePlan* plan) {
  const Schema& schema = *plan->in_schema;
  for (const std::string& c : options.cluster_by) {
    const int i = schema.FieldIndex(c);
    if (i < 0) return Status::InvalidArgument("--cluster-by '" + c + "': no such column in " + snap.root);
    if (std::find(plan->cluster_idx.begin(), plan->cluster_idx.end(), i) != plan->cluster_idx.end()) {
      return Status::InvalidArgument("--cluster-by '" + c + "' is named twice");
    }
    RAP_RETURN_NOT_OK(CheckZOrderType(c, *schema.fields[static_cast<size_t>(i)].type));
    plan->cluster_idx.push_back(i);
  }
  if (schema.FieldIndex(internal::kZOrderColumn) >= 0) {
    return Status::NotSupported(snap.root + ": the table has a column named '" + internal::kZOrderColumn +
                                "', the name rap rewrite sorts the Z-values by");
  }
  auto s = std::make_shared<Schema>(schema);
  s->fields.push_back(Field{internal::kZOrderColumn, columnar::MakeType(columnar::TypeId::kInt64), false});
  plan->sort_schema = s;
  return Status::OK();
}

// kZOrder: the ranges of the clustering columns' normalised values over every input row (a pass
// that reads only those columns; deleted rows count too, which only widens a range), and the curve.
Status PlanCurve(const table::TableSnapshot& snap, const RewriteOptions& options, RewritePlan* plan) {
  const Schema& schema = *plan->in_schema;
  const size_t data_columns = schema.fields.size() - snap.partition_columns.size();
  std::vector<ZRange> ranges(plan->cluster_idx.size());
  std::vector<std::string> read_cols;
  for (int c : plan->cluster_idx) {
    if (static_cast<size_t>(c) < data_columns) read_cols.push_back(schema.fields[static_cast<size_t>(c)].name);
  }
  for (const table::DataFile& f : snap.files) {
    if (options.cancel && options.cancel->cancelled()) return Status::Cancelled("rewrite: cancelled at " + f.path);
    for (size_t k = 0; k < plan->cluster_idx.size(); ++k) {
      const size_t c = static_cast<size_t>(plan->cluster_idx[k]);
      if (c < data_columns) continue;
      const size_t p = c - data_columns;
      auto part = table::MakePartitionArray(schema.fields[c].name, *schema.fields[c].type, f.partition_values[p], 1);
      if (!part.ok()) return part.status().WithContext(f.path);
      ranges[k].Add(ZNormalAt(**part, 0));
    }
    if (read_cols.empty()) continue;
    read::FileReaderOptions ro;
    ro.io.cancel = options.cancel.get();
    RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(snap.store, f.path, ro));
    RAP_ASSIGN_OR_RETURN(read::Projection proj, reader->Project(read_cols));
    RAP_ASSIGN_OR_RETURN(auto batches, reader->NewBatchReader(std::nullopt, proj));
    while (true) {
      RAP_ASSIGN_OR_RETURN(std::optional<RecordBatch> b, batches->Next());
      if (!b) break;
      for (size_t k = 0; k < plan->cluster_idx.size(); ++k) {
        const std::string& name = schema.fields[static_cast<size_t>(plan->cluster_idx[k])].name;
        const int i = proj.schema->FieldIndex(name);
        if (i < 0) continue;  // a partition column
        const ArrayData& a = *b->columns[static_cast<size_t>(i)];
        for (int64_t r = 0; r < b->num_rows; ++r) ranges[k].Add(ZNormalAt(a, r));
      }
    }
  }
  RAP_ASSIGN_OR_RETURN(ZOrderCurve curve, ZOrderCurve::Make(std::move(ranges)));
  plan->zorder = std::move(curve);
  return Status::OK();
}

Result<RewritePlan> PlanRewrite(const table::TableSnapshot& snap, const RewriteOptions& options) {
  RewritePlan plan;
  RAP_ASSIGN_OR_RETURN(plan.in_schema, InputSchema(snap, &plan.blob_spec));
  if (options.layout == RewriteLayout::kZOrder) RAP_RETURN_NOT_OK(PlanCluster(snap, options, &plan));
  RAP_RETURN_NOT_OK(PlanKey(snap, options, &plan));
  RAP_RETURN_NOT_OK(PlanOutputSchema(snap, options, &plan));
  RAP_RETURN_NOT_OK(PlanCover(options, &plan));
  RAP_RETURN_NOT_OK(PlanWriter(options, &plan));
  if (options.layout == RewriteLayout::kZOrder) RAP_RETURN_NOT_OK(PlanCurve(snap, options, &plan));
  return plan;
}

// The input, bucketed and sorted in bounded memory (spilled runs merged per bucket), written one
// file per bucket.
Status WriteBuckets(const table::TableSnapshot& snap, const RewriteOptions& options, const RewritePlan& plan,
                    RewriteOutput& out, IndexWriter* iw, std::vector<table::DeltaAddFile>* adds, RewriteResult* res) {
  internal::SorterOptions so;
  so.key = plan.key;
  so.key_index = plan.key_idx;
  if (plan.zorder) {
    so.key = {KeyColumn{internal::kZOrderColumn, KeyType::kInt64}};
    so.key_index = {static_cast<int>(plan.in_schema->fields.size())};
  }
  so.buckets = options.buckets;
  so.memory = options.memory;
  so.temp_dir = options.temp_dir.empty() ? (std::filesystem::temp_directory_path() / ("rap-rewrite-" + out.token)).string()
                                         : io::JoinPath(options.temp_dir, "rap-rewrite-" + out.token);
  RAP_ASSIGN_OR_RETURN(auto sorter, internal::BucketSorter::Make(plan.zorder ? plan.sort_schema : plan.in_schema, so));
  RAP_RETURN_NOT_OK(ReadLiveRows(snap, options, plan, *sorter, &res->rows));
  res->runs_spilled += sorter->runs_spilled();  // (summed over the partitions of WritePartitions)
  res->bytes_spilled += sorter->bytes_spilled();
  res->peak_buffered_bytes = std::max(res->peak_buffered_bytes, sorter->peak_buffered_bytes());
  for (int32_t b = 0; b < options.buckets; ++b) {
    RAP_ASSIGN_OR_RETURN(auto stream, sorter->OpenBucket(b));
    if (!stream) continue;
    RAP_RETURN_NOT_OK(internal::WriteBucket(plan, options, b, *stream, out, iw, adds, res));
  }
  return Status::OK();
}

// The Delta commit of the new files (and, in place, the removes of the old ones).
Status CommitDelta(const RewriteOptions& options, const RewritePlan& plan, std::vector<table::DeltaAddFile> adds,
                   RewriteOutput& out, IndexWriter* iw, RewriteResult* res) {
  table::DeltaCommitActions c;
  // In place, a schema change (blob) is an overwrite: the table's metaData with the new schema and
  // dataChange=true; otherwise the same rows in new files (OPTIMIZE, dataChange=false).
  const bool schema_change = out.in_place && plan.blob;
  c.operation = out.in_place && !schema_change ? "OPTIMIZE" : "WRITE";
  c.protocol = out.protocol;
  if (!out.in_place || schema_change) {
    table::DeltaMetadata m = out.metadata;
    m.schema_string = out.schema_string;
    c.metadata = std::move(m);
  }
  c.adds = std::move(adds);
  c.removes = out.removes;
  for (table::DeltaRemoveFile& r : c.removes) r.data_change = schema_change;
  c.data_change = !out.in_place || schema_change;
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  if (options.before_commit) options.before_commit();
  if (Status commit = table::WriteDeltaCommit(out.store, out.dir, out.version, table::DeltaCommitJson(c, now));
      !commit.ok()) {
    if (iw) iw->DiscardStaged(!out.in_place);
    return commit;
  }
  out.committed = true;
  res->table_version = out.version;
  res->table_format = "delta";
  return Status::OK();
}

// In place on an Iceberg table: the new files as a replace snapshot.
Status CommitIceberg(const table::TableSnapshot& snap, const RewriteOptions& options, RewriteOutput& out,
                     IndexWriter* iw, RewriteResult* res) {
  auto commit = table::iceberg::CommitReplace(snap, out.iceberg_files, out.token, options.before_commit);
  if (!commit.ok()) {
    if (iw) iw->DiscardStaged(false);
    return commit.status();
  }
  out.committed = true;
  res->table_version = commit->snapshot_id;
  res->table_format = "iceberg";
  return Status::OK();
}

// kZOrder: the rows sorted by Z-value into one file, committed (Delta output); no index.
Status RewriteZOrder(const table::TableSnapshot& snap, const RewriteOptions& options, const RewritePlan& plan,
                     RewriteOutput& out, RewriteResult* res) {
  if (out.delta && !out.in_place) {
    bool ntz = false;
    RAP_ASSIGN_OR_RETURN(out.schema_string, table::DeltaSchemaString(*plan.out_schema, &ntz));
    out.protocol = table::NewTableProtocol(ntz);
  }
  std::vector<table::DeltaAddFile> adds;
  RAP_RETURN_NOT_OK(WriteBuckets(snap, options, plan, out, nullptr, &adds, res));
  if (out.delta) RAP_RETURN_NOT_OK(CommitDelta(options, plan, std::move(adds), out, nullptr, res));
  return Status::OK();
}

Status Rewrite(const table::TableSnapshot& snap, const RewriteOptions& options, RewriteOutput& out, RewriteResult* res) {
  RAP_ASSIGN_OR_RETURN(const RewritePlan plan, PlanRewrite(snap, options));
  if (plan.zorder) return RewriteZOrder(snap, options, plan, out, res);
  // The index, built from the writer's locations.
  IndexWriterOptions iwo = RewriteIndexOptions(plan, options, out);
  res->index_url = DefaultIndexUrl(out.url);
  RAP_ASSIGN_OR_RETURN(auto iw, IndexWriter::Make(res->index_url, iwo, std::nullopt));
  // A new Delta table's schema and protocol, checked before anything is written.
  if (out.delta && (!out.in_place || plan.blob)) {
    bool ntz = false;
    RAP_ASSIGN_OR_RETURN(out.schema_string, table::DeltaSchemaString(*plan.out_schema, &ntz));
    if (!out.in_place) out.protocol = table::NewTableProtocol(ntz);
  }
  std::vector<table::DeltaAddFile> adds;
  RAP_RETURN_NOT_OK(internal::WritePartitions(
      snap, options, out, [&](const table::TableSnapshot& part, const RewriteOptions& part_options) {
        return WriteBuckets(part, part_options, plan, out, iw.get(), &adds, res);
      }));
  res->entries = iw->entries();
  // Until the table commit, a failure also removes what the index staged: its fragments, and its
  // schema files unless in place (there they may be the published index's too). The data files are
  // removed by the caller, from out.written.
  if (Status staged = iw->Stage(); !staged.ok()) {
    iw->DiscardStaged(!out.in_place);
    return staged;
  }
  if (out.delta) RAP_RETURN_NOT_OK(CommitDelta(options, plan, std::move(adds), out, iw.get(), res));
  if (out.iceberg) RAP_RETURN_NOT_OK(CommitIceberg(snap, options, out, iw.get(), res));
  const char* kind = out.iceberg ? "iceberg" : out.delta ? "delta" : "directory";
  auto published = iw->Publish("../..", kind, out.delta || out.iceberg ? res->table_version : -1);
  if (!published.ok() && !out.committed) iw->DiscardStaged(!out.in_place);  // a folder output: nothing is published
  if (!published.ok() && out.committed && out.final_path.empty()) {
    return published.status().WithContext(fmt::format(
        "{}: {} {} is committed, but its index was not published (run `rap index build`)", out.url,
        out.iceberg ? "Iceberg snapshot" : "Delta version", res->table_version));
  }
  RAP_ASSIGN_OR_RETURN(res->manifest, std::move(published));
  return Status::OK();
}

// --in-place on an Iceberg table: the new files go under its data/ folder; the commit is a replace
// snapshot of the snapshot that was read (checked before anything is written).
Status PrepareIcebergInPlace(const std::string& table_url, const std::string& output_url,
                             const RewriteOptions& options, const table::TableSnapshot& snap, const std::string& token,
                             RewriteOutput* out) {
  if (!output_url.empty() && output_url != table_url) {
    return Status::InvalidArgument("--in-place writes into the input table; give no OUTPUT (or the table itself)");
  }
  if (options.cogroup || options.layout == RewriteLayout::kBlob) {
    return Status::NotSupported(table_url + ": --in-place on an Iceberg table keeps the table's schema; --cogroup "
                                            "and --layout blob change it");
  }
  RAP_RETURN_NOT_OK(table::iceberg::CheckReplace(snap, table_url));
  RAP_ASSIGN_OR_RETURN(out->partitions, table::iceberg::ReplacePartitions(snap, table_url));
  out->in_place = true;
  out->iceberg = true;
  out->store = snap.store;
  out->dir = snap.root;
  out->url = table_url;
  while (out->url.size() > 1 && out->url.back() == '/') out->url.pop_back();
  out->name_prefix = "data/";
  out->name_suffix = "-rap-" + token;
  return Status::OK();
}

// --in-place: the new files go into the Delta table's root; the commit is the next version, removing
// every live file of the snapshot that was read.
Status PrepareInPlace(const std::string& table_url, const std::string& output_url, const RewriteOptions& options,
                      const table::TableSnapshot& snap, const std::string& token, RewriteOutput* out) {
  if (table::FormatName(snap) == "iceberg") return PrepareIcebergInPlace(table_url, output_url, options, snap, token, out);
  if (snap.kind != table::TableKind::kDelta) {
    return Status::InvalidArgument(table_url + ": --in-place needs a Delta table (this is a folder of Parquet files)");
  }
  if (!output_url.empty() && output_url != table_url) {
    return Status::InvalidArgument("--in-place writes into the input table; give no OUTPUT (or the table itself)");
  }
  if (options.cogroup) return Status::InvalidArgument("--in-place keeps the table's schema; --cogroup changes it");
  RAP_ASSIGN_OR_RETURN(table::DeltaLogSnapshot log, table::ReadDeltaLog(snap.store, snap.root));
  if (log.version != snap.version) {
    return Status::Changed(fmt::format("{}: the table moved from version {} to {} while it was read", table_url,
                                       snap.version, log.version));
  }
  RAP_RETURN_NOT_OK(table::CheckWriterSupport(log.protocol, table_url));
  for (const table::DeltaAddFile& f : log.files) {
    table::DeltaRemoveFile r;
    r.path = f.path;
    r.size = f.size;
    r.data_change = false;
    r.dv = f.dv;
    out->removes.push_back(std::move(r));
  }
  out->in_place = true;
  out->metadata = log.metadata;
  out->version = log.version + 1;
  out->store = snap.store;
  out->dir = snap.root;
  out->url = table_url;
  while (out->url.size() > 1 && out->url.back() == '/') out->url.pop_back();
  out->name_suffix = "-rap-" + token;
  return Status::OK();
}

}  // namespace

Result<RewriteResult> RewriteTable(const std::string& table_url, const std::string& output_url,
                                   const RewriteOptions& options) {
  const double t0 = NowSeconds();
  const bool zorder = options.layout == RewriteLayout::kZOrder;
  if (zorder) {
    if (options.cluster_by.empty()) return Status::InvalidArgument("--layout zorder needs --cluster-by a,b[,c]");
    if (!options.key_columns.empty()) {
      return Status::InvalidArgument("--layout zorder orders rows by --cluster-by and builds no index; give no --key "
                                     "(index the output with `rap index build`)");
    }
    if (options.buckets != 1) {
      return Status::InvalidArgument("--layout zorder writes one file; --buckets does not apply");
    }
    if (options.cogroup) return Status::InvalidArgument("--layout zorder keeps every row; --cogroup does not apply");
    if (options.in_place) {
      return Status::NotSupported("--layout zorder --in-place is not built yet (the table's index would go stale); "
                                  "write the rewrite to another folder");
    }
  } else if (!options.cluster_by.empty()) {
    return Status::InvalidArgument("--cluster-by applies to --layout zorder");
  }
  if (!zorder && (options.key_columns.empty() || options.key_columns.size() > 2)) {
    return Status::InvalidArgument("--key takes one or two columns, got " + std::to_string(options.key_columns.size()));
  }
  if (options.buckets < 1 || options.buckets > (1 << 20)) {
    return Status::InvalidArgument("--buckets must be in 1..1048576, got " + std::to_string(options.buckets));
  }
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(table_url));
  if (table::FormatName(snap) == "paimon") {
    return Status::NotSupported(table_url + ": rap rewrite does not rewrite Paimon tables yet (it reads data files "
                                            "whole, with Paimon's system columns); rap scan --format parquet writes "
                                            "the merged rows (docs/paimon.md)");
  }
  if (!snap.partition_columns.empty() && options.in_place) {
    return Status::NotSupported(table_url +
                                ": --in-place on a partitioned table: rap rewrite's files are bucketed by the key, not "
                                "partitioned, so they cannot be added to this table; write a new table instead");
  }
  for (size_t i = 0; i < snap.physical_names.size() && snap.schema && i < snap.schema->fields.size(); ++i) {
    if (snap.physical_names[i] != snap.schema->fields[i].name) {
      return Status::NotSupported(table_url + ": Delta column mapping is on; rap rewrite does not support it yet");
    }
  }
  if (snap.files.empty()) return Status::InvalidArgument(table_url + ": the table has no data files");
  RewriteResult res;
  res.output_url = output_url;
  res.input_files = static_cast<int64_t>(snap.files.size());
  RewriteOutput out;
  std::random_device rd;
  const std::string token = fmt::format("{:08x}", rd());
  out.token = token;
  // In place on an Iceberg table the commit is an Iceberg snapshot (PrepareIcebergInPlace).
  out.delta = (options.delta || options.in_place) && !(options.in_place && table::FormatName(snap) == "iceberg");
  if (options.in_place) {
    RAP_RETURN_NOT_OK(PrepareInPlace(table_url, output_url, options, snap, token, &out));
  } else if (IsLocal(output_url)) {
    namespace fs = std::filesystem;
    out.final_path = output_url.rfind("file://", 0) == 0 ? output_url.substr(7) : output_url;
    while (out.final_path.size() > 1 && out.final_path.back() == '/') out.final_path.pop_back();
    std::error_code ec;
    if (fs::exists(out.final_path, ec) && !(fs::is_directory(out.final_path, ec) && fs::is_empty(out.final_path, ec))) {
      return Status::InvalidArgument(out.final_path + ": the output exists and is not an empty folder");
    }
    out.url = out.final_path + ".rap-rewrite-" + token;
    fs::create_directories(out.url, ec);
    if (ec) return Status::IOError(out.url + ": cannot create the staging folder: " + ec.message());
  } else {
    out.url = output_url;
    while (out.url.size() > 1 && out.url.back() == '/') out.url.pop_back();
  }
  if (!options.in_place) {
    RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(out.url));
    out.store = r.store;
    out.dir = r.path;
  }
  if (out.final_path.empty() && !options.in_place) {
    RAP_ASSIGN_OR_RETURN(auto existing, out.store->List(out.dir + "/"));
    if (!existing.empty()) return Status::InvalidArgument(output_url + ": the output prefix already holds objects");
  }
  // A new table on a remote store is written in place, file by file: a marker first, deleted after
  // the commit, keeps a crash in between from reading as a folder of some of the files.
  const bool pending = out.final_path.empty() && !options.in_place;
  if (pending) RAP_RETURN_NOT_OK(table::BeginPendingWrite(*out.store, out.dir, "rap rewrite", token));
  Status st = Rewrite(snap, options, out, &res);
  if (st.ok() && !out.final_path.empty()) {
    std::error_code ec;
    std::filesystem::remove(out.final_path, ec);  // an empty folder, if any
    std::filesystem::rename(out.url, out.final_path, ec);
    if (ec) st = Status::IOError(out.url + ": cannot rename the staging folder to " + out.final_path + ": " + ec.message());
    if (!ec) io::CrashPoint("rename", out.final_path);
    if (!zorder) res.index_url = DefaultIndexUrl(out.final_path);
  }
  if (!st.ok()) {
    if (!out.final_path.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(out.url, ec);
    } else if (!out.committed) {
      for (const std::string& p : out.written) (void)out.store->Delete(p);
    }
    if (pending && !out.committed) (void)table::EndPendingWrite(*out.store, out.dir);  // last: the files are gone
    return st;
  }
  if (pending) {
    // A Delta table is committed whatever happens to the marker (its log is read first); a folder
    // output stays refused while the marker is there, so that is an error.
    if (Status end = table::EndPendingWrite(*out.store, out.dir); !end.ok() && !out.delta) {
      return end.WithContext(output_url + ": the table is written, but its marker " +
                             std::string(table::kPendingWriteMarker) + " could not be deleted (delete it)");
    }
  }
  res.output_url = out.final_path.empty() ? out.url : out.final_path;
  res.seconds = NowSeconds() - t0;
  return res;
}

// ---- A rewrite split over processes (rap.spark.rewrite) ----

namespace {

Status CheckJobOptions(const RewriteOptions& options) {
  if (options.layout == RewriteLayout::kZOrder) {
    return Status::NotSupported("a distributed rewrite does not write --layout zorder (one file); use rap rewrite");
  }
  if (options.in_place) return Status::NotSupported("a distributed rewrite writes a new table; in_place is not supported");
  if (!options.delta) return Status::NotSupported("a distributed rewrite writes a Delta table; delta=False is not supported");
  if (options.index_kind != IndexKind::kHash) {
    return Status::NotSupported("a distributed rewrite builds a hash index (a sorted index's partitions are chosen from "
                                "all entries at once); use rap rewrite");
  }
  if (options.key_columns.empty() || options.key_columns.size() > 2) {
    return Status::InvalidArgument("--key takes one or two columns, got " + std::to_string(options.key_columns.size()));
  }
  if (options.buckets < 1 || options.buckets > (1 << 20)) {
    return Status::InvalidArgument("--buckets must be in 1..1048576, got " + std::to_string(options.buckets));
  }
  return Status::OK();
}

// The input at the job's version, every planned file still there with its planned size.
Result<table::TableSnapshot> OpenJobTable(const RewriteJob& job) {
  table::OpenTableOptions to;
  if (job.table_version >= 0 && job.table_kind == "delta") to.version = job.table_version;
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(job.table_url, to));
  if (snap.files.size() != job.paths.size()) {
    return Status::Changed(fmt::format("{}: {} live files, the rewrite planned {}", job.table_url, snap.files.size(),
                                       job.paths.size()));
  }
  for (size_t i = 0; i < snap.files.size(); ++i) {
    if (snap.files[i].relative_path != job.paths[i] || snap.files[i].size != job.sizes[i]) {
      return Status::Changed(job.table_url + ": " + job.paths[i] + " is no longer the file of the planned table version");
    }
  }
  return snap;
}

Result<std::vector<size_t>> JobFiles(const RewriteJob& job, const std::vector<int32_t>& ordinals) {
  std::vector<size_t> files;
  for (int32_t o : ordinals) {
    if (o < 0 || static_cast<size_t>(o) >= job.paths.size()) {
      return Status::InvalidArgument("rewrite task: file ordinal " + std::to_string(o) + " is not in the plan");
    }
    files.push_back(static_cast<size_t>(o));
  }
  return files;
}

// The bucket of each row of `b` (key columns at `key_idx`), as BucketSorter computes it.
std::vector<int32_t> RowBuckets(const std::vector<KeyColumn>& key, const std::vector<int>& key_idx, const RecordBatch& b,
                                int32_t buckets) {
  std::vector<int32_t> out(static_cast<size_t>(b.num_rows), 0);
  Key k;
  k.parts.resize(key.size());
  for (int64_t r = 0; r < b.num_rows; ++r) {
    bool valid = true;
    for (size_t i = 0; i < key.size(); ++i) {
      if (!KeyPartAt(key[i].type, *b.columns[static_cast<size_t>(key_idx[i])], r, &k.parts[i])) valid = false;
    }
    out[static_cast<size_t>(r)] = valid ? BucketOf(key, k, buckets) : 0;
  }
  return out;
}

// ReadRewriteRows' reader: the live rows plus the bucket column; owns the snapshot.
class BucketedRowsReader final : public columnar::RecordBatchReader {
 public:
  static Result<std::unique_ptr<BucketedRowsReader>> Make(table::TableSnapshot snap, std::vector<size_t> files,
                                                          internal::RewritePlan plan, RewriteOptions options) {
    std::unique_ptr<BucketedRowsReader> r(new BucketedRowsReader());
    r->snap_ = std::move(snap);
    r->plan_ = std::move(plan);
    r->options_ = std::move(options);
    r->rows_ = std::make_unique<LiveRowsReader>(r->snap_, std::move(files), r->plan_.in_schema, r->options_,
                                                std::vector<int>{});
    auto s = std::make_shared<Schema>(*r->plan_.in_schema);
    if (s->FieldIndex(kRewriteBucketColumn) >= 0) {
      return Status::NotSupported(r->snap_.root + ": the table has a column named '" + kRewriteBucketColumn + "'");
    }
    s->fields.push_back(Field{kRewriteBucketColumn, columnar::MakeType(columnar::TypeId::kInt32), false});
    r->schema_ = s;
    return r;
  }
  SchemaPtr schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    RAP_ASSIGN_OR_RETURN(std::optional<RecordBatch> b, rows_->Next());
    if (!b) return b;
    std::vector<int32_t> buckets = RowBuckets(plan_.key, plan_.key_idx, *b, options_.buckets);
    auto col = std::make_shared<ArrayData>();
    col->type = columnar::MakeType(columnar::TypeId::kInt32);
    col->length = b->num_rows;
    col->buffers = {Buffer(), Buffer::Copy(buckets.data(), buckets.size() * sizeof(int32_t))};
    b->columns.push_back(std::move(col));
    b->schema = schema_;
    return b;
  }

 private:
  BucketedRowsReader() = default;
  table::TableSnapshot snap_;
  internal::RewritePlan plan_;
  RewriteOptions options_;
  std::unique_ptr<LiveRowsReader> rows_;
  SchemaPtr schema_;
};

bool ValidToken(const std::string& token) {
  return !token.empty() && token.size() <= 48 &&
         std::all_of(token.begin(), token.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

Result<RewriteJob> PlanRewriteJob(const std::string& table_url, const std::string& output_url,
                                  const RewriteOptions& options) {
  RAP_RETURN_NOT_OK(CheckJobOptions(options));
  if (output_url.empty()) return Status::InvalidArgument("a distributed rewrite needs an output folder");
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(table_url));
  if (table::FormatName(snap) == "paimon") {
    return Status::NotSupported(table_url + ": rap rewrite does not rewrite Paimon tables yet");
  }
  for (size_t i = 0; i < snap.physical_names.size() && snap.schema && i < snap.schema->fields.size(); ++i) {
    if (snap.physical_names[i] != snap.schema->fields[i].name) {
      return Status::NotSupported(table_url + ": Delta column mapping is on; rap rewrite does not support it yet");
    }
  }
  if (snap.files.empty()) return Status::InvalidArgument(table_url + ": the table has no data files");
  // Every planning check of RewriteTable (key, layout, cover, schema) before a task runs.
  RAP_ASSIGN_OR_RETURN(internal::RewritePlan plan, PlanRewrite(snap, options));
  if (plan.in_schema->FieldIndex(kRewriteBucketColumn) >= 0) {
    return Status::NotSupported(table_url + ": the table has a column named '" + kRewriteBucketColumn + "'");
  }
  bool ntz = false;
  RAP_RETURN_NOT_OK(table::DeltaSchemaString(*plan.out_schema, &ntz).status());
  RewriteJob job;
  job.table_url = table_url;
  job.table_kind = std::string(table::FormatName(snap));
  job.table_version = snap.version;
  for (const table::DataFile& f : snap.files) {
    job.paths.push_back(f.relative_path);
    job.sizes.push_back(f.size);
  }
  job.output_url = output_url;
  while (job.output_url.size() > 1 && job.output_url.back() == '/') job.output_url.pop_back();
  std::random_device rd;
  job.token = fmt::format("{:08x}", rd());
  if (IsLocal(job.output_url)) {
    namespace fs = std::filesystem;
    const std::string dir = job.output_url.rfind("file://", 0) == 0 ? job.output_url.substr(7) : job.output_url;
    std::error_code ec;
    if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec))) {
      return Status::InvalidArgument(dir + ": the output exists and is not an empty folder");
    }
    fs::create_directories(dir, ec);
    if (ec) return Status::IOError(dir + ": cannot create the output folder: " + ec.message());
  }
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(job.output_url));
  RAP_ASSIGN_OR_RETURN(auto existing, r.store->List(r.path + "/"));
  if (!existing.empty()) return Status::InvalidArgument(output_url + ": the output prefix already holds objects");
  // Until the commit the output is a folder of some files: the marker keeps readers from taking it
  // for a table of Parquet files.
  RAP_RETURN_NOT_OK(table::BeginPendingWrite(*r.store, r.path, "rap.spark.rewrite", job.token));
  return job;
}

Result<std::vector<int64_t>> CountRewriteBuckets(const RewriteJob& job, const std::vector<int32_t>& ordinals,
                                                 const RewriteOptions& options) {
  RAP_RETURN_NOT_OK(CheckJobOptions(options));
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, OpenJobTable(job));
  RAP_ASSIGN_OR_RETURN(std::vector<size_t> files, JobFiles(job, ordinals));
  RAP_ASSIGN_OR_RETURN(internal::RewritePlan plan, PlanRewrite(snap, options));
  LiveRowsReader reader(snap, std::move(files), plan.in_schema, options, plan.key_idx);
  std::vector<int> key_idx(plan.key.size());
  std::iota(key_idx.begin(), key_idx.end(), 0);
  std::vector<int64_t> counts(static_cast<size_t>(options.buckets), 0);
  while (true) {
    RAP_ASSIGN_OR_RETURN(std::optional<RecordBatch> b, reader.Next());
    if (!b) break;
    for (int32_t bucket : RowBuckets(plan.key, key_idx, *b, options.buckets)) ++counts[static_cast<size_t>(bucket)];
  }
  return counts;
}

Result<std::unique_ptr<columnar::RecordBatchReader>> ReadRewriteRows(const RewriteJob& job,
                                                                     const std::vector<int32_t>& ordinals,
                                                                     const RewriteOptions& options) {
  RAP_RETURN_NOT_OK(CheckJobOptions(options));
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, OpenJobTable(job));
  RAP_ASSIGN_OR_RETURN(std::vector<size_t> files, JobFiles(job, ordinals));
  RAP_ASSIGN_OR_RETURN(internal::RewritePlan plan, PlanRewrite(snap, options));
  RAP_ASSIGN_OR_RETURN(auto reader, BucketedRowsReader::Make(std::move(snap), std::move(files), std::move(plan), options));
  return std::unique_ptr<columnar::RecordBatchReader>(std::move(reader));
}

Result<RewriteTaskResult> WriteRewriteBuckets(const RewriteJob& job, const RewriteOptions& options,
                                              const std::vector<int32_t>& ordinal_of_bucket, const std::string& token,
                                              columnar::RecordBatchReader& rows) {
  RAP_RETURN_NOT_OK(CheckJobOptions(options));
  if (!ValidToken(token)) return Status::InvalidArgument("rewrite task: the token '" + token + "' is not 1 to 48 of [A-Za-z0-9_]");
  if (ordinal_of_bucket.size() != static_cast<size_t>(options.buckets)) {
    return Status::InvalidArgument("rewrite task: the ordinals of the buckets are not one per bucket");
  }
  int32_t num_files = 0;
  for (int32_t o : ordinal_of_bucket) {
    if (o >= 0 && o != num_files++) return Status::InvalidArgument("rewrite task: bucket ordinals are not 0, 1, ... in bucket order");
  }
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, OpenJobTable(job));
  RAP_ASSIGN_OR_RETURN(const internal::RewritePlan plan, PlanRewrite(snap, options));
  // The rows: the input schema plus the bucket column, whose values are checked.
  const Schema& in = *plan.in_schema;
  const Schema& got = *rows.schema();
  bool same = got.fields.size() == in.fields.size() + 1;
  for (size_t c = 0; same && c < in.fields.size(); ++c) {
    same = got.fields[c].name == in.fields[c].name && got.fields[c].type->ToString() == in.fields[c].type->ToString();
  }
  if (!same) {
    return Status::InvalidArgument("rewrite task: the rows' schema is not the input's plus " +
                                   std::string(kRewriteBucketColumn) + " (" + std::to_string(got.fields.size()) + " columns)");
  }
  RewriteOutput out;
  out.token = token;
  out.delta = true;
  out.name_suffix = "-" + token;
  out.url = job.output_url;
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(out.url));
  out.store = r.store;
  out.dir = r.path;
  internal::SorterOptions so;
  so.key = plan.key;
  so.key_index = plan.key_idx;
  so.buckets = options.buckets;
  so.memory = options.memory;
  so.temp_dir = options.temp_dir.empty() ? (std::filesystem::temp_directory_path() / ("rap-rewrite-" + token)).string()
                                         : io::JoinPath(options.temp_dir, "rap-rewrite-" + token);
  RAP_ASSIGN_OR_RETURN(auto sorter, internal::BucketSorter::Make(plan.in_schema, so));
  std::vector<int64_t> bucket_rows(static_cast<size_t>(options.buckets), 0);
  while (true) {
    RAP_ASSIGN_OR_RETURN(std::optional<RecordBatch> b, rows.Next());
    if (!b) break;
    if (b->num_rows == 0) continue;
    const std::vector<int32_t> want = RowBuckets(plan.key, plan.key_idx, *b, options.buckets);
    const ArrayData& given = *b->columns.back();
    if (given.type->id != columnar::TypeId::kInt32) return Status::InvalidArgument("rewrite task: the bucket ids are not int32");
    const int32_t* ids = given.values<int32_t>();
    for (size_t i = 0; i < want.size(); ++i) {
      if (given.IsNull(static_cast<int64_t>(i))) return Status::InvalidArgument("rewrite task: a NULL bucket id");
      if (ids[i] != want[i]) {
        return Status::InvalidArgument(fmt::format("rewrite task: a row's bucket id is {}, its key's bucket is {}", ids[i],
                                                   want[i]));
      }
      if (ordinal_of_bucket[static_cast<size_t>(want[i])] < 0) {
        return Status::Changed(fmt::format("rewrite task: bucket {} was counted empty but has rows", want[i]));
      }
      ++bucket_rows[static_cast<size_t>(want[i])];
    }
    b->columns.pop_back();
    b->schema = plan.in_schema;
    RAP_RETURN_NOT_OK(sorter->Add(std::move(*b)));
  }
  RewriteTaskResult res;
  // A task that got no rows (Spark's partition of no bucket) writes nothing.
  if (std::all_of(bucket_rows.begin(), bucket_rows.end(), [](int64_t n) { return n == 0; })) return res;
  RAP_RETURN_NOT_OK(sorter->Finish());
  IndexWriterOptions iwo = RewriteIndexOptions(plan, options, out);
  iwo.run = 1;
  iwo.token = token;
  RAP_ASSIGN_OR_RETURN(auto iw, IndexWriter::Make(DefaultIndexUrl(out.url), iwo, std::nullopt));
  // Buckets of other tasks keep their places in the file table (placeholders; the commit takes each
  // file from the task that wrote it).
  const auto fill_to = [&](int32_t end) {
    while (static_cast<int32_t>(iw->manifest().files.size()) < end) iw->AddFile(FileEntry{});
  };
  RewriteResult counts;
  Status st = [&]() -> Status {
    for (int32_t b = 0; b < options.buckets; ++b) {
      RAP_ASSIGN_OR_RETURN(auto stream, sorter->OpenBucket(b));
      if (!stream) continue;
      const int32_t ord = ordinal_of_bucket[static_cast<size_t>(b)];
      fill_to(ord);
      std::vector<table::DeltaAddFile> adds;
      RAP_RETURN_NOT_OK(internal::WriteBucket(plan, options, b, *stream, out, iw.get(), &adds, &counts));
      if (static_cast<int32_t>(iw->manifest().files.size()) != ord + 1) return Status::Internal("rewrite task: file ordinals out of order");
      res.ordinals.push_back(ord);
      res.buckets.push_back(b);
      res.rows.push_back(iw->manifest().files.back().num_rows);
      for (table::DeltaAddFile& a : adds) res.adds.push_back(std::move(a));
    }
    fill_to(num_files);
    return iw->Stage();
  }();
  if (!st.ok()) {
    iw->DiscardStaged(false);
    for (const std::string& p : out.written) (void)out.store->Delete(p);
    return st;
  }
  res.part = iw->manifest();
  res.part.table_root = "../..";
  res.part.table_kind = "delta";
  res.part.table_version = 0;
  res.entries = iw->entries();
  res.frames = counts.frames;
  return res;
}

Result<RewriteResult> CommitRewriteJob(const RewriteJob& job, const RewriteOptions& options,
                                       const std::vector<RewriteTaskResult>& tasks) {
  const double t0 = NowSeconds();
  RAP_RETURN_NOT_OK(CheckJobOptions(options));
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, OpenJobTable(job));
  RAP_ASSIGN_OR_RETURN(const internal::RewritePlan plan, PlanRewrite(snap, options));
  // The files by ordinal, each from exactly one task.
  size_t n = 0;
  for (const RewriteTaskResult& t : tasks) {
    if (t.ordinals.size() != t.adds.size() || t.ordinals.size() != t.rows.size()) {
      return Status::InvalidArgument("rewrite commit: a task's files, adds and rows differ in number");
    }
    for (int32_t o : t.ordinals) n = std::max(n, static_cast<size_t>(o) + 1);
  }
  std::vector<const table::DeltaAddFile*> adds(n, nullptr);
  BuildPlan bp;
  bp.index_url = DefaultIndexUrl(job.output_url);
  bp.table_root = "../..";
  bp.table_kind = "delta";
  bp.table_version = 0;
  bp.base_version = 0;
  bp.run = 1;
  bp.paths.resize(n);
  bp.sizes.resize(n);
  std::vector<BuildPartResult> parts;
  RewriteResult res;
  for (const RewriteTaskResult& t : tasks) {
    for (size_t i = 0; i < t.ordinals.size(); ++i) {
      const size_t o = static_cast<size_t>(t.ordinals[i]);
      if (adds[o]) return Status::InvalidArgument(fmt::format("rewrite commit: file ordinal {} was written twice", o));
      adds[o] = &t.adds[i];
      bp.paths[o] = t.adds[i].path;
      bp.sizes[o] = static_cast<uint64_t>(t.adds[i].size);
      res.rows += t.rows[i];
      res.bytes += static_cast<uint64_t>(t.adds[i].size);
    }
    res.entries += t.entries;
    res.frames += t.frames;
    if (!t.ordinals.empty()) parts.push_back({t.part, t.ordinals});
  }
  for (size_t o = 0; o < n; ++o) {
    if (!adds[o]) return Status::InvalidArgument(fmt::format("rewrite commit: no task wrote file ordinal {}", o));
  }
  if (parts.empty()) return Status::InvalidArgument("rewrite commit: no task wrote a file");
  RewriteOutput out;
  out.delta = true;
  out.url = job.output_url;
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(out.url));
  out.store = r.store;
  out.dir = r.path;
  out.version = 0;
  bool ntz = false;
  RAP_ASSIGN_OR_RETURN(out.schema_string, table::DeltaSchemaString(*plan.out_schema, &ntz));
  out.protocol = table::NewTableProtocol(ntz);
  bp.etag_source = out.store->endpoint();
  std::vector<table::DeltaAddFile> delta_adds;
  for (const table::DeltaAddFile* a : adds) {
    delta_adds.push_back(*a);
    res.files.push_back(a->path);
  }
  RAP_RETURN_NOT_OK(CommitDelta(options, plan, std::move(delta_adds), out, nullptr, &res));
  auto published = CommitBuild(bp, parts);
  if (!published.ok()) {
    return published.status().WithContext(fmt::format(
        "{}: Delta version 0 is committed, but its index was not published (run `rap index build`)", out.url));
  }
  RAP_RETURN_NOT_OK(table::EndPendingWrite(*out.store, out.dir));
  res.manifest = std::move(*published);
  res.output_url = job.output_url;
  res.index_url = bp.index_url;
  res.input_files = static_cast<int64_t>(job.paths.size());
  res.seconds = NowSeconds() - t0;
  return res;
}

}  // namespace rap::index
