// RewriteTable's output, one bucket at a time: the bucket's sorted rows cut at key boundaries (and
// co-grouped or folded into a blob), written as one Parquet file, and its index entries with their
// covering locations from the writer's own page and frame locations.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <bit>
#include <numeric>

#include "rap/columnar/take.h"
#include "index/file_indexer.h"
#include "index/rewrite_plan.h"
#include "index/rewrite_sort.h"
#include "rap/format/statistics.h"
#include "rap/format/writer.h"
#include "rap/read/object_store_sink.h"

namespace rap::index::internal {

namespace {

// `a` then `b` (same schema) as one batch.
Result<RecordBatch> ConcatBatches(const RecordBatch& a, const RecordBatch& b) {
  RecordBatch out;
  out.schema = a.schema;
  out.num_rows = a.num_rows + b.num_rows;
  for (size_t c = 0; c < a.columns.size(); ++c) {
    RAP_ASSIGN_OR_RETURN(ArrayPtr x, columnar::ConcatArrays({a.columns[c], b.columns[c]}));
    out.columns.push_back(std::move(x));
  }
  return out;
}

// Co-grouping: `batch` (sorted, runs of equal keys given by `starts`, plus the end) as one row per run,
// every non-key column a list of the run's values.
Result<RecordBatch> CoGroup(const RecordBatch& batch, const std::vector<int>& key_idx, const std::vector<int64_t>& starts,
                            const SchemaPtr& schema) {
  RecordBatch out;
  out.schema = schema;
  out.num_rows = static_cast<int64_t>(starts.size()) - 1;
  std::vector<int64_t> firsts(starts.begin(), starts.end() - 1);
  std::vector<int32_t> offsets;
  for (int64_t s : starts) {
    if (s > INT32_MAX) return Status::ResourceExhausted("co-grouping: more than 2^31 rows in one file");
    offsets.push_back(static_cast<int32_t>(s));
  }
  for (size_t c = 0; c < batch.columns.size(); ++c) {
    if (std::find(key_idx.begin(), key_idx.end(), static_cast<int>(c)) != key_idx.end()) {
      RAP_ASSIGN_OR_RETURN(ArrayPtr k, TakeArray(batch.columns[c], firsts));
      out.columns.push_back(std::move(k));
      continue;
    }
    auto list = std::make_shared<ArrayData>();
    list->type = schema->fields[c].type;
    list->length = out.num_rows;
    list->buffers = {Buffer(), Buffer::Copy(offsets.data(), offsets.size() * sizeof(int32_t))};
    list->children = {batch.columns[c]};
    out.columns.push_back(std::move(list));
  }
  return out;
}

// The keys of a chunk's rows and its runs of one key (rows [starts[i], starts[i + 1]), the last start
// being the end); NULL keys form runs that are not indexed (valid 0).
struct KeyRuns {
  std::vector<Key> keys;
  std::vector<uint8_t> valid;
  std::vector<int64_t> starts;
};

KeyRuns FindKeyRuns(const RewritePlan& plan, const RecordBatch& chunk) {
  const std::vector<KeyColumn>& key = plan.key;
  const size_t n = static_cast<size_t>(chunk.num_rows);
  KeyRuns runs;
  runs.keys.resize(n);
  runs.valid.assign(n, 1);
  for (size_t r = 0; r < n; ++r) {
    runs.keys[r].parts.resize(key.size());
    for (size_t k = 0; k < key.size(); ++k) {
      if (!KeyPartAt(key[k].type, *chunk.columns[size_t(plan.key_idx[k])], int64_t(r), &runs.keys[r].parts[k])) {
        runs.valid[r] = 0;
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || runs.valid[i] != runs.valid[i - 1] ||
        (runs.valid[i] && CompareKeys(key, runs.keys[i], runs.keys[i - 1]) != 0)) {
      runs.starts.push_back(static_cast<int64_t>(i));
    }
  }
  runs.starts.push_back(static_cast<int64_t>(n));
  return runs;
}

// What one bucket's file holds so far.
struct FileProgress {
  std::vector<IndexEntry> pending;  // entries of this file, without covering locations yet
  table::DeltaStatsBuilder stats;
  int64_t rows = 0;
};

// The bucket's sorted batches, cut at key boundaries: the last key's rows of a batch wait for the
// next batch (a key's run may continue there), so runs and co-groups never straddle two writes.
Status WriteSortedRuns(const RewritePlan& plan, const RewriteOptions& options, bool delta, columnar::RecordBatchReader& stream,
                       parquet::ParquetWriter& writer, FileProgress* file) {
  std::optional<RecordBatch> carry;
  while (true) {
    RAP_ASSIGN_OR_RETURN(std::optional<RecordBatch> next, stream.Next());
    if (!next && !carry) break;
    RecordBatch chunk;
    if (next && carry) {
      RAP_ASSIGN_OR_RETURN(chunk, ConcatBatches(*carry, *next));
    } else {
      chunk = next ? std::move(*next) : std::move(*carry);
    }
    carry.reset();
    chunk.schema = plan.in_schema;
    KeyRuns runs = FindKeyRuns(plan, chunk);
    std::vector<int64_t>& starts = runs.starts;
    if (next) {  // hold the last run back
      const int64_t cut = starts[starts.size() - 2];
      std::vector<int64_t> tail_rows(static_cast<size_t>(chunk.num_rows - cut));
      std::iota(tail_rows.begin(), tail_rows.end(), cut);
      RAP_ASSIGN_OR_RETURN(carry, TakeBatch(chunk, tail_rows));
      starts.pop_back();
      if (cut == 0) continue;
      for (ArrayPtr& c : chunk.columns) c = SliceArray(c, 0, cut);
      chunk.num_rows = cut;
    }
    for (size_t g = 0; g + 1 < starts.size(); ++g) {
      if (!runs.valid[size_t(starts[g])]) continue;
      IndexEntry e;
      e.key = runs.keys[size_t(starts[g])];
      e.first_row = file->rows + (options.cogroup ? static_cast<int64_t>(g) : starts[g]);
      e.num_rows = options.cogroup ? 1 : starts[g + 1] - starts[g];
      file->pending.push_back(std::move(e));
    }
    if (options.cogroup) {
      RAP_ASSIGN_OR_RETURN(chunk, CoGroup(chunk, plan.key_idx, starts, plan.out_schema));
    }
    if (plan.blob) {
      RAP_ASSIGN_OR_RETURN(chunk, parquet::ToBlobBatch(*plan.blob, chunk));
    }
    RAP_RETURN_NOT_OK(writer.Write(chunk));
    if (delta) file->stats.Add(chunk);
    file->rows += chunk.num_rows;
  }
  return Status::OK();
}

RecordBatch SliceBatch(const RecordBatch& b, int64_t offset, int64_t length) {
  RecordBatch s = b;
  for (ArrayPtr& c : s.columns) c = SliceArray(c, offset, length);
  s.num_rows = length;
  return s;
}

// kZOrder: the sorted rows without the Z-value column (the last one), in row groups cut on the
// curve's most significant boundary: once a row group holds half of plan.zorder_row_group_rows,
// it ends before the row, among the next ones up to the limit, whose Z-value differs from the
// previous row's in the highest bit (the latest such row). A row group is then (nearly) a cell of
// the curve — whole quadrants at some level — with tight statistics in every clustering column.
// Holds back at most half a row group (plus one input batch).
Status WriteZOrdered(const RewritePlan& plan, bool delta, columnar::RecordBatchReader& stream,
                     parquet::ParquetWriter& writer, FileProgress* file) {
  const size_t zcol = plan.in_schema->fields.size();
  const int64_t target = plan.zorder_row_group_rows, half = target / 2;
  int64_t in_group = 0;  // rows of the current row group written
  uint64_t last_z = 0;
  bool have_last = false;
  const auto z_at = [&](const RecordBatch& b, int64_t r) {
    return static_cast<uint64_t>(b.columns[zcol]->values<int64_t>()[r]) ^ (uint64_t{1} << 63);
  };
  const auto write = [&](RecordBatch b) -> Status {
    if (b.num_rows == 0) return Status::OK();
    last_z = z_at(b, b.num_rows - 1);
    have_last = true;
    b.columns.resize(zcol);
    b.schema = plan.in_schema;
    RAP_RETURN_NOT_OK(writer.Write(b));
    if (delta) file->stats.Add(b);
    file->rows += b.num_rows;
    in_group += b.num_rows;
    return Status::OK();
  };
  std::vector<RecordBatch> held;
  int64_t held_rows = 0;
  bool more = true;
  while (more) {
    RAP_ASSIGN_OR_RETURN(std::optional<RecordBatch> next, stream.Next());
    more = next.has_value();
    if (target <= 0) {  // no row limit: as they come
      if (more) RAP_RETURN_NOT_OK(write(std::move(*next)));
      continue;
    }
    if (more) {
      held_rows += next->num_rows;
      held.push_back(std::move(*next));
      if (in_group >= half && in_group + held_rows <= target) continue;  // not enough to choose the cut yet
    }
    if (held.empty()) continue;
    RecordBatch chunk = held[0];
    if (held.size() > 1) {
      chunk.num_rows = 0;
      for (const RecordBatch& h : held) chunk.num_rows += h.num_rows;
      for (size_t c = 0; c < chunk.columns.size(); ++c) {
        std::vector<ArrayPtr> parts;
        for (const RecordBatch& h : held) parts.push_back(h.columns[c]);
        RAP_ASSIGN_OR_RETURN(chunk.columns[c], columnar::ConcatArrays(parts));
      }
    }
    held.clear();
    held_rows = 0;
    int64_t at = 0;
    while (at < chunk.num_rows) {
      const int64_t avail = chunk.num_rows - at;
      if (in_group < half) {
        const int64_t n = std::min(half - in_group, avail);
        RAP_RETURN_NOT_OK(write(SliceBatch(chunk, at, n)));
        at += n;
        continue;
      }
      const int64_t room = target - in_group;
      if (avail <= room) {
        if (more) {  // wait for the rows after the limit
          held.push_back(SliceBatch(chunk, at, avail));
          held_rows = avail;
        } else {
          RAP_RETURN_NOT_OK(write(SliceBatch(chunk, at, avail)));
        }
        break;
      }
      // Cut before row p in [at, at + room]: the most significant change of the Z-value (ties: the latest).
      int64_t best = at + room;
      int best_level = 65;
      for (int64_t p = at; p <= at + room; ++p) {
        if (p == at && !have_last) continue;
        const uint64_t prev = p == at ? last_z : z_at(chunk, p - 1);
        const int level = std::countl_zero(prev ^ z_at(chunk, p));
        if (level <= best_level) {
          best_level = level;
          best = p;
        }
      }
      RAP_RETURN_NOT_OK(write(SliceBatch(chunk, at, best - at)));
      RAP_RETURN_NOT_OK(writer.FlushRowGroup());
      in_group = 0;
      at = best;
    }
  }
  return Status::OK();
}

// Per covered column and row group: the writer's frames by page.
using CoverFrames = std::vector<std::vector<std::vector<PageFrames>>>;

Result<CoverFrames> FramesByPage(const RewritePlan& plan, const parquet::ParquetWriter& writer,
                                 const std::vector<int64_t>& rg_first, const std::string& name) {
  const parquet::FileMetaData& md = writer.metadata();
  const auto& frame_locs = writer.frame_locations();
  CoverFrames frames(plan.cover.size());
  for (size_t c = 0; c < plan.cover.size(); ++c) {
    const size_t leaf = static_cast<size_t>(plan.cover_leaf[c]);
    frames[c].resize(md.row_groups.size());
    for (size_t rg = 0; rg < md.row_groups.size(); ++rg) {
      const auto& pages = writer.page_locations()[rg][leaf].page_locations;
      auto& pf = frames[c][rg];
      pf.resize(pages.size());
      if (rg >= frame_locs.size()) continue;
      for (const parquet::FrameLocation& f : frame_locs[rg][leaf]) {
        if (f.page < 0 || static_cast<size_t>(f.page) >= pf.size()) {
          return Status::Internal(fmt::format("{}: a frame names page {} of {}", name, f.page, pf.size()));
        }
        pf[size_t(f.page)].framed = true;
        Location l;
        l.column = static_cast<int32_t>(c);
        l.kind = static_cast<int32_t>(LocationKind::kZstdFrame);
        l.codec = static_cast<int32_t>(parquet::Codec::ZSTD);
        l.offset = f.offset;
        l.size = f.size;
        l.first_row = rg_first[rg] + f.first_row;
        l.num_rows = f.num_rows;
        l.aux = f.levels;
        pf[size_t(f.page)].frames.push_back(std::move(l));
      }
    }
  }
  return frames;
}

// Entries: runs of one key (co-grouped: one row each) of file `ord`, with their covering locations.
Status AddEntries(const RewritePlan& plan, const parquet::ParquetWriter& writer, int32_t ord,
                  std::vector<IndexEntry>& pending, const std::string& name, IndexWriter& iw) {
  const parquet::FileMetaData& md = writer.metadata();
  std::vector<int64_t> rg_first{0};
  for (const auto& rg : md.row_groups) rg_first.push_back(rg_first.back() + rg.num_rows);
  RAP_ASSIGN_OR_RETURN(const CoverFrames frames, FramesByPage(plan, writer, rg_first, name));
  for (IndexEntry& e : pending) {
    e.file = ord;
    for (size_t c = 0; c < plan.cover.size(); ++c) {
      const size_t leaf = static_cast<size_t>(plan.cover_leaf[c]);
      for (size_t rg = 0; rg < md.row_groups.size(); ++rg) {
        const auto& chunk = md.row_groups[rg].columns[leaf];
        RAP_RETURN_NOT_OK(ChunkLocations(*chunk.meta_data, writer.page_locations()[rg][leaf], rg_first[rg],
                                         md.row_groups[rg].num_rows, frames[c][rg], static_cast<int32_t>(c),
                                         e.first_row, e.first_row + e.num_rows, &e.cover));
      }
    }
    RAP_RETURN_NOT_OK(iw.AddEntry(std::move(e)));
  }
  return Status::OK();
}

// The index after the subtree of schema element `i` (its next sibling).
size_t SkipElement(const std::vector<parquet::SchemaElement>& s, size_t i) {
  int32_t children = s[i].num_children.value_or(0);
  for (++i; children-- > 0 && i < s.size();) i = SkipElement(s, i);
  return i;
}

// The top-level primitive columns' footer statistics, combined over the row groups in the columns'
// sort order (rap/format/statistics.h); an Iceberg output's manifest entries carry them.
std::vector<table::iceberg::NewColumnStats> TopLevelColumnStats(const parquet::FileMetaData& md) {
  std::map<std::string, parquet::StatsKind> kinds;  // the root's primitive children
  for (size_t i = 1, c = 0; !md.schema.empty() && c < static_cast<size_t>(md.schema[0].num_children.value_or(0)) &&
                            i < md.schema.size();
       ++c) {
    const parquet::SchemaElement& e = md.schema[i];
    if (!e.num_children && e.type) kinds[e.name] = parquet::StatsKindFor(*e.type, e.logical_type, e.converted_type);
    i = SkipElement(md.schema, i);
  }
  std::vector<table::iceberg::NewColumnStats> out;
  std::vector<bool> unbounded;  // a row group with values but no min/max: the file has no bounds
  std::map<std::string, size_t> at;
  for (size_t g = 0; g < md.row_groups.size(); ++g) {
    for (const parquet::ColumnChunk& c : md.row_groups[g].columns) {
      if (!c.meta_data || c.meta_data->path_in_schema.size() != 1) continue;
      const parquet::ColumnMetaData& m = *c.meta_data;
      auto kind = kinds.find(m.path_in_schema[0]);
      if (kind == kinds.end()) continue;
      auto [it, added] = at.emplace(m.path_in_schema[0], out.size());
      if (added) {
        table::iceberg::NewColumnStats s;
        s.name = m.path_in_schema[0];
        s.kind = kind->second;
        s.nulls = 0;
        out.push_back(std::move(s));
        unbounded.push_back(g > 0);  // not in every row group: no statistics of the whole file
      }
      table::iceberg::NewColumnStats& s = out[it->second];
      s.size += m.total_compressed_size;
      s.values += m.num_values;
      const std::optional<parquet::Statistics>& st = m.statistics;
      if (s.nulls && st && st->null_count) {
        *s.nulls += *st->null_count;
      } else {
        s.nulls.reset();
      }
      const bool all_null = st && st->null_count && *st->null_count == m.num_values;
      if (s.kind == parquet::StatsKind::kNone || !st || !st->min_value || !st->max_value) {
        if (!all_null) unbounded[it->second] = true;
        continue;
      }
      if (!s.min || parquet::CompareStatValues(s.kind, *st->min_value, *s.min) < 0) s.min = st->min_value;
      if (!s.max || parquet::CompareStatValues(s.kind, *s.max, *st->max_value) < 0) s.max = st->max_value;
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (unbounded[i]) out[i].min.reset(), out[i].max.reset();
  }
  return out;
}

}  // namespace

Status WriteBucket(const RewritePlan& plan, const RewriteOptions& options, int32_t bucket,
                   columnar::RecordBatchReader& stream, RewriteOutput& out, IndexWriter* iw,
                   std::vector<table::DeltaAddFile>* adds, RewriteResult* res) {
  const std::string name = fmt::format("{}part-{:05d}{}.parquet", out.name_prefix, bucket, out.name_suffix);
  const std::string path = io::JoinPath(out.dir, name);
  auto sink = read::MakeObjectStoreSink(out.store, path);
  RAP_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(plan.out_schema, sink.get(), plan.writer));
  out.written.push_back(path);
  FileProgress file;
  if (plan.zorder) {
    RAP_RETURN_NOT_OK(WriteZOrdered(plan, out.delta, stream, *writer, &file));
  } else {
    RAP_RETURN_NOT_OK(WriteSortedRuns(plan, options, out.delta, stream, *writer, &file));
  }
  RAP_RETURN_NOT_OK(writer->Close());
  res->frames += writer->summary().num_frames;
  RAP_ASSIGN_OR_RETURN(io::ObjectInfo info, out.store->Head(path));
  res->bytes += info.size;
  FileEntry fe;
  fe.path = name;
  fe.size = info.size;
  fe.etag = info.etag;
  fe.num_rows = file.rows;
  const int32_t ord =
      iw ? iw->AddFile(fe, plan.cover.empty() ? std::string() : SchemaFileBytes(writer->metadata())) : -1;
  res->files.push_back(name);
  if (out.delta) {
    table::DeltaAddFile add;
    add.path = name;
    add.size = static_cast<int64_t>(info.size);
    add.stats = file.stats.Json();
    adds->push_back(std::move(add));
  }
  if (out.iceberg) {
    table::iceberg::NewDataFile nf;
    nf.relative_path = name;
    nf.size = static_cast<int64_t>(info.size);
    nf.record_count = file.rows;
    nf.columns = TopLevelColumnStats(writer->metadata());
    if (out.partition < out.partitions.size()) nf.partition = out.partitions[out.partition].values;
    out.iceberg_files.push_back(std::move(nf));
  }
  if (iw) RAP_RETURN_NOT_OK(AddEntries(plan, *writer, ord, file.pending, name, *iw));
  if (options.progress) options.progress(static_cast<int64_t>(res->files.size()), -1);
  return Status::OK();
}

}  // namespace rap::index::internal
