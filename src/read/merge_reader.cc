// MergeReader: run cursors (one FileReader batch stream per run, files in order; an ORC file is read
// stripe by stripe through the OrcFileReader), the loser tree over their heads, keep-last
// deduplication and the output batches (slices of the input batches, concatenated per output batch).
#include "rap/read/merge_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "rap/read/loser_tree.h"
#include "rap/read/orc_file_reader.h"
#include "rap/util/thread_pool.h"

namespace rap::read {

namespace {

constexpr int kRowIdShift = 40;  // as ScanBatch::row_ids (docs/fingerprint.md)

// One input batch and where its rows are: key and output columns, row ids.
struct LoadedBatch {
  RecordBatch batch;
  std::vector<const ArrayData*> keys;  // one per key column
  std::vector<int> out;                // batch column of each output column
  uint64_t row_id_base = 0;            // row id of row 0
  size_t file = 0;                     // index into the run's files
};
using BatchPtr = std::shared_ptr<const LoadedBatch>;

bool SameType(const DataType& a, const DataType& b) { return a.id == b.id && a.ToString() == b.ToString(); }

struct RowRef {
  BatchPtr batch;
  int64_t row = 0;
};

// An ORC file's batches: one per stripe, the projected top-level fields (by name) in file order.
class OrcStripeBatches : public columnar::RecordBatchReader {
 public:
  OrcStripeBatches(std::shared_ptr<OrcFileReader> reader, std::vector<int> fields)
      : reader_(std::move(reader)), fields_(std::move(fields)) {
    auto schema = std::make_shared<Schema>();
    for (int f : fields_) schema->fields.push_back(reader_->arrow_schema()->fields[static_cast<size_t>(f)]);
    schema_ = std::move(schema);
  }
  SchemaPtr schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    if (next_ >= reader_->num_stripes()) return std::optional<RecordBatch>();
    RAP_ASSIGN_OR_RETURN(RecordBatch b, reader_->ReadStripe(next_++, fields_));
    return std::optional<RecordBatch>(std::move(b));
  }

 private:
  std::shared_ptr<OrcFileReader> reader_;
  std::vector<int> fields_;
  SchemaPtr schema_;
  size_t next_ = 0;
};

}  // namespace

std::string MergeStats::ToString() const {
  std::string s;
  auto line = [&](const char* k, int64_t v) { s += std::string(k) + " " + std::to_string(v) + "\n"; };
  line("merge_runs", runs);
  line("merge_runs_warmed", runs_warmed);
  line("merge_files", files);
  line("merge_rows_in", rows_in);
  line("merge_rows_out", rows_out);
  line("merge_rows_deduplicated", rows_deduplicated);
  line("merge_comparisons", comparisons);
  line("requests", requests);
  line("bytes", static_cast<int64_t>(bytes));
  return s;
}

struct MergeReader::Impl {
  io::ObjectStorePtr store;
  std::vector<MergeRun> runs;
  MergeOptions options;
  SchemaPtr out_schema;
  std::vector<DataTypePtr> key_types;  // from the first batch seen; every run must match
  MergeStats stats;
  Status failure;
  bool done = false;

  // The batches of one run, file after file.
  struct Cursor {
    size_t run = 0;
    uint64_t ordinal_base = 0;  // file ordinal of the run's first file
    size_t next_file = 0;
    std::shared_ptr<FileReader> reader;   // a Parquet file
    std::shared_ptr<OrcFileReader> orc;   // or an ORC file (IsOrcPath)
    std::unique_ptr<columnar::RecordBatchReader> batches;
    int64_t file_rows = 0;  // rows of the current file read so far
    BatchPtr head;          // current batch (null: exhausted)
    int64_t row = 0;        // head row within it
    RowRef last;            // previous row (verify_sorted)
    std::optional<RecordBatch> warmed;  // the first batch, read by Warm()
  };
  std::vector<Cursor> cursors;

  // Pending output rows as segments of input batches.
  struct Segment {
    BatchPtr batch;
    int64_t begin = 0, length = 0;
  };
  std::vector<Segment> segments;
  int64_t segment_rows = 0;
  std::optional<RowRef> held;  // keep_last_per_key: the last row of the current key group

  int CompareRows(const LoadedBatch& a, int64_t i, const LoadedBatch& b, int64_t j) const {
    for (size_t k = 0; k < a.keys.size(); ++k) {
      const int c = CompareKeyValues(*a.keys[k], i, *b.keys[k], j);
      if (c != 0) return c;
    }
    return 0;
  }

  // Counts the requests and bytes of the cursor's open file, then closes it.
  void CloseFile(Cursor& c) {
    if (c.reader || c.orc) {
      const ReaderStats rs = c.reader ? c.reader->stats() : c.orc->stats();
      stats.requests += rs.requests;
      stats.bytes += rs.bytes;
    }
    c.reader.reset();
    c.orc.reset();
    c.batches.reset();
  }

  // Opens the cursor's next file (touches only the cursor: Warm() runs it on several threads).
  Status OpenFile(Cursor& c) {
    const ScanFile& f = runs[c.run].files[c.next_file++];
    if (IsOrcPath(f.path)) {
      RAP_ASSIGN_OR_RETURN(c.orc, OrcFileReader::Open(store, f.path, options.reader));
      std::vector<int> fields;
      for (const std::string& n : ProjectedNames()) {
        const int i = c.orc->FieldIndex(n);
        if (i < 0) return Status::InvalidArgument(fmt::format("merge: {}: no column '{}'", f.path, n));
        fields.push_back(i);
      }
      if (options.columns.empty()) {
        for (size_t i = 0; i < c.orc->arrow_schema()->fields.size(); ++i) fields.push_back(static_cast<int>(i));
      }
      std::sort(fields.begin(), fields.end());
      fields.erase(std::unique(fields.begin(), fields.end()), fields.end());
      c.batches = std::make_unique<OrcStripeBatches>(c.orc, std::move(fields));
    } else {
      RAP_ASSIGN_OR_RETURN(c.reader, FileReader::Open(store, f.path, options.reader));
      RAP_ASSIGN_OR_RETURN(Projection proj, c.reader->Project(ProjectedNames()));
      RAP_ASSIGN_OR_RETURN(c.batches, c.reader->NewBatchReader(std::nullopt, proj));
    }
    c.file_rows = 0;
    return Status::OK();
  }

  // Closes the cursor's file and opens the next one; false when the run has no more files.
  Result<bool> OpenNextFile(Cursor& c) {
    CloseFile(c);
    if (c.next_file >= runs[c.run].files.size()) return false;
    RAP_RETURN_NOT_OK(OpenFile(c));
    ++stats.files;
    return true;
  }

  // Loads the cursor's next non-empty batch into head (null at the end of the run).
  Status LoadNext(Cursor& c) {
    c.head.reset();
    c.row = 0;
    while (true) {
      std::optional<RecordBatch> b;
      if (c.warmed) {
        b = std::move(c.warmed);
        c.warmed.reset();
      } else if (c.batches) {
        RAP_ASSIGN_OR_RETURN(b, c.batches->Next());
      }
      if (!b) {
        RAP_ASSIGN_OR_RETURN(bool more, OpenNextFile(c));
        if (!more) return Status::OK();
        continue;
      }
      if (b->num_rows == 0) continue;
      const ScanFile& f = runs[c.run].files[c.next_file - 1];
      auto lb = std::make_shared<LoadedBatch>();
      lb->file = c.next_file - 1;
      lb->row_id_base = ((c.ordinal_base + lb->file) << kRowIdShift) + static_cast<uint64_t>(c.file_rows);
      c.file_rows += b->num_rows;
      for (size_t k = 0; k < options.key_columns.size(); ++k) {
        const std::string& name = options.key_columns[k];
        const int i = b->schema->FieldIndex(name);
        if (i < 0) return Status::InvalidArgument(fmt::format("{}: no key column '{}'", f.path, name));
        const ArrayData& a = *b->columns[static_cast<size_t>(i)];
        if (!IsSupportedKeyType(*a.type)) {
          return Status::NotSupported(
              fmt::format("{}: key column '{}' has type {}, not a sortable key type", f.path, name, a.type->ToString()));
        }
        if (key_types.size() <= k) key_types.push_back(a.type);
        if (!SameType(*key_types[k], *a.type)) {
          return Status::InvalidArgument(fmt::format("{}: key column '{}' has type {}, another run has {}", f.path, name,
                                                     a.type->ToString(), key_types[k]->ToString()));
        }
        lb->keys.push_back(&a);
      }
      for (const Field& field : out_schema->fields) {
        const int i = b->schema->FieldIndex(field.name);
        if (i < 0) return Status::InvalidArgument(fmt::format("{}: no column '{}'", f.path, field.name));
        if (!SameType(*b->columns[static_cast<size_t>(i)]->type, *field.type)) {
          return Status::InvalidArgument(fmt::format("{}: column '{}' has type {}, expected {}", f.path, field.name,
                                                     b->columns[static_cast<size_t>(i)]->type->ToString(),
                                                     field.type->ToString()));
        }
        lb->out.push_back(i);
      }
      stats.rows_in += b->num_rows;
      lb->batch = std::move(*b);
      c.head = std::move(lb);
      return Status::OK();
    }
  }

  // Moves the cursor past its head row; checks the run's order.
  Status Advance(Cursor& c) {
    if (options.verify_sorted) c.last = RowRef{c.head, c.row};
    if (++c.row >= c.head->batch.num_rows) RAP_RETURN_NOT_OK(LoadNext(c));
    if (options.verify_sorted && c.head && CompareRows(*c.last.batch, c.last.row, *c.head, c.row) > 0) {
      const ScanFile& f = runs[c.run].files[c.head->file];
      return Status::InvalidArgument(fmt::format(
          "merge: run {} is not sorted by the key: {} row {} has a smaller key than the row before it", c.run, f.path,
          (c.head->row_id_base & ((uint64_t{1} << kRowIdShift) - 1)) + static_cast<uint64_t>(c.row)));
    }
    return Status::OK();
  }

  void Emit(const RowRef& r) {
    if (!segments.empty() && segments.back().batch == r.batch &&
        segments.back().begin + segments.back().length == r.row) {
      ++segments.back().length;
    } else {
      segments.push_back(Segment{r.batch, r.row, 1});
    }
    ++segment_rows;
  }

  Result<ScanBatch> BuildBatch() {
    ScanBatch out;
    out.batch.schema = out_schema;
    out.batch.num_rows = segment_rows;
    for (size_t o = 0; o < out_schema->fields.size(); ++o) {
      std::vector<ArrayPtr> parts;
      for (const Segment& s : segments) {
        parts.push_back(SliceArray(s.batch->batch.columns[static_cast<size_t>(s.batch->out[o])], s.begin, s.length));
      }
      if (parts.size() == 1) {
        out.batch.columns.push_back(std::move(parts[0]));
      } else {
        RAP_ASSIGN_OR_RETURN(ArrayPtr a, ConcatArrays(parts));
        out.batch.columns.push_back(std::move(a));
      }
    }
    out.row_ids.reserve(static_cast<size_t>(segment_rows));
    for (const Segment& s : segments) {
      for (int64_t r = s.begin; r < s.begin + s.length; ++r) out.row_ids.push_back(s.batch->row_id_base + static_cast<uint64_t>(r));
    }
    segments.clear();
    segment_rows = 0;
    stats.rows_out += out.batch.num_rows;
    return out;
  }

  int64_t Room() const { return options.limit < 0 ? options.batch_size : std::min(options.batch_size, options.limit - stats.rows_out); }

  void Finish() {
    done = true;
    for (Cursor& c : cursors) {
      CloseFile(c);
      c.head.reset();
      c.last = RowRef{};
    }
  }

  struct Less {
    Impl* impl;
    bool operator()(size_t a, size_t b) const {
      ++impl->stats.comparisons;
      const Cursor& x = impl->cursors[a];
      const Cursor& y = impl->cursors[b];
      return impl->CompareRows(*x.head, x.row, *y.head, y.row) < 0;
    }
  };
  std::optional<LoserTree<Less>> tree;

  Result<std::optional<ScanBatch>> Next() {
    if (!failure.ok()) return failure;
    if (done) return std::optional<ScanBatch>();
    auto result = Fill();
    if (!result.ok()) {
      failure = result.status();
      Finish();
      return failure;
    }
    if (!*result) Finish();
    return result;
  }

  // Merges rows until an output batch is full or the runs are exhausted.
  Result<std::optional<ScanBatch>> Fill() {
    const int64_t room = Room();
    if (room <= 0) return std::optional<ScanBatch>();
    while (segment_rows < room) {
      const int64_t w = tree->top();
      if (w < 0) break;
      Cursor& c = cursors[static_cast<size_t>(w)];
      RowRef r{c.head, c.row};
      if (options.keep_last_per_key) {
        if (held && CompareRows(*held->batch, held->row, *r.batch, r.row) == 0) {
          ++stats.rows_deduplicated;
        } else if (held) {
          Emit(*held);
        }
        held = r;
      } else {
        Emit(r);
      }
      RAP_RETURN_NOT_OK(Advance(c));
      tree->Replace(c.head != nullptr);
    }
    if (tree->top() < 0 && held && segment_rows < room) {
      Emit(*held);
      held.reset();
    }
    if (segment_rows == 0) return std::optional<ScanBatch>();
    RAP_ASSIGN_OR_RETURN(ScanBatch b, BuildBatch());
    return std::optional<ScanBatch>(std::move(b));
  }

  // Opens the first file of every run and reads its first batch, up to warmup_threads runs at once
  // (the threads end before Warm returns). The batches are checked when the merge takes them.
  Status Warm() {
    std::vector<Status> results(cursors.size());
    auto warm_one = [this, &results](size_t i) {
      Cursor& c = cursors[i];
      Status st = OpenFile(c);
      if (st.ok()) {
        auto b = c.batches->Next();
        if (b.ok()) {
          c.warmed = std::move(*b);
        } else {
          st = b.status();
        }
      }
      results[i] = st;
    };
    std::vector<size_t> todo;
    for (size_t i = 0; i < cursors.size(); ++i) {
      if (!runs[i].files.empty()) todo.push_back(i);
    }
    const size_t threads = std::min<size_t>(todo.size(), static_cast<size_t>(std::max(1, options.warmup_threads)));
    if (threads > 1) {
      ThreadPool pool(threads);
      for (size_t i : todo) pool.Submit([&warm_one, i] { warm_one(i); });
    } else {
      for (size_t i : todo) warm_one(i);
    }
    for (size_t i : todo) {
      RAP_RETURN_NOT_OK(results[i]);
      ++stats.files;
      ++stats.runs_warmed;
    }
    return Status::OK();
  }

  std::vector<std::string> ProjectedNames() const {
    if (options.columns.empty()) return {};
    std::vector<std::string> names = options.key_columns;
    for (const std::string& n : options.columns) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    return names;
  }
};

MergeReader::MergeReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MergeReader::~MergeReader() = default;
const SchemaPtr& MergeReader::schema() const { return impl_->out_schema; }
const MergeStats& MergeReader::stats() const { return impl_->stats; }

Result<std::unique_ptr<MergeReader>> MergeReader::Make(io::ObjectStorePtr store, std::vector<MergeRun> runs,
                                                      MergeOptions options) {
  if (!store) return Status::InvalidArgument("merge: no object store");
  if (options.key_columns.empty() || options.key_columns.size() > kMaxMergeKeyColumns) {
    return Status::InvalidArgument(fmt::format("merge: {} key columns given, 1 to {} expected",
                                               options.key_columns.size(), kMaxMergeKeyColumns));
  }
  if (options.batch_size <= 0) return Status::InvalidArgument("merge: batch size must be positive");
  auto impl = std::make_unique<Impl>();
  impl->store = std::move(store);
  impl->runs = std::move(runs);
  impl->options = std::move(options);
  impl->stats.runs = static_cast<int64_t>(impl->runs.size());
  uint64_t ordinal = 0;
  for (size_t r = 0; r < impl->runs.size(); ++r) {
    Impl::Cursor c;
    c.run = r;
    c.ordinal_base = ordinal;
    ordinal += impl->runs[r].files.size();
    impl->cursors.push_back(std::move(c));
  }
  RAP_RETURN_NOT_OK(impl->Warm());
  // The output schema: the first file's fields, projected to options.columns.
  auto schema = std::make_shared<Schema>();
  const Impl::Cursor* first = nullptr;
  for (const Impl::Cursor& c : impl->cursors) {
    if (c.reader || c.orc) {
      first = &c;
      break;
    }
  }
  if (first) {
    const SchemaPtr& fs = first->reader ? first->reader->arrow_schema() : first->orc->arrow_schema();
    const std::string& first_path = first->reader ? first->reader->path() : first->orc->path();
    if (impl->options.columns.empty()) {
      schema->fields = fs->fields;
    } else {
      for (const std::string& n : impl->options.columns) {
        const int i = fs->FieldIndex(n);
        if (i < 0) return Status::InvalidArgument(fmt::format("merge: {}: no column '{}'", first_path, n));
        schema->fields.push_back(fs->fields[static_cast<size_t>(i)]);
      }
    }
  }
  impl->out_schema = std::move(schema);
  for (Impl::Cursor& c : impl->cursors) RAP_RETURN_NOT_OK(impl->LoadNext(c));
  std::vector<bool> active;
  for (const Impl::Cursor& c : impl->cursors) active.push_back(c.head != nullptr);
  impl->tree.emplace(impl->cursors.size(), Impl::Less{impl.get()});
  impl->tree->Build(active);
  if (impl->options.limit == 0) impl->Finish();
  return std::unique_ptr<MergeReader>(new MergeReader(std::move(impl)));
}

Result<std::optional<ScanBatch>> MergeReader::NextWithRowIds() { return impl_->Next(); }

Result<std::optional<RecordBatch>> MergeReader::Next() {
  RAP_ASSIGN_OR_RETURN(std::optional<ScanBatch> b, impl_->Next());
  if (!b) return std::optional<RecordBatch>();
  return std::optional<RecordBatch>(std::move(b->batch));
}

}  // namespace rap::read
