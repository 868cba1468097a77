// ORC files in a scan (seed 001 on ORC): a file's read ranges are its stripes (a range never
// crosses a stripe, and its batches are stripe-aligned: a batch never spans two ranges); a range's
// compressed bytes are the stripe's selected streams, so the prefetch reader's enabling rule
// (PrefetchOptions::min_file_bytes over the file's selected compressed bytes) and its adaptive
// disable apply to ORC files as to Parquet files. Stripe statistics prune stripes for the filter.
// A range reads the filter and output columns' streams of its stripe in one planned read (exact
// ranges, merged by the range planner); warmup and fetch-ahead reserve the same ranges in the
// file's ReadAheadCache.
#include <algorithm>
#include <cstdlib>
#include <set>

#include "rap/columnar/take.h"
#include "rap/orc/reader.h"
#include "read/scanner_impl.h"

namespace rap::read {

namespace {

bool IsInteger(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kInt64;
}

// An ORC column's statistics as bounds for the table type `type`, when they compare like it.
std::optional<ColumnStats> OrcStats(const orc::ColumnStats& s, const DataType& type, int64_t rows) {
  ColumnStats out;
  out.num_values = rows;
  // ORC counts the non-null values of the column.
  if (s.has_null) out.null_count = *s.has_null ? rows - std::min<int64_t>(rows, static_cast<int64_t>(s.num_values)) : 0;
  if (!s.min.empty() && !s.max.empty()) {
    Value lo, hi;
    if ((s.kind == "int" && IsInteger(type.id)) || (s.kind == "date" && type.id == TypeId::kDate32)) {
      lo.domain = hi.domain = Value::Domain::kInt;
      lo.i = std::strtoll(s.min.c_str(), nullptr, 10);
      hi.i = std::strtoll(s.max.c_str(), nullptr, 10);
      out.min = lo;
      out.max = hi;
    } else if (s.kind == "double" && (type.id == TypeId::kFloat64 || type.id == TypeId::kFloat32)) {
      lo.domain = hi.domain = Value::Domain::kDouble;
      lo.d = std::strtod(s.min.c_str(), nullptr);
      hi.d = std::strtod(s.max.c_str(), nullptr);
      if (lo.d == lo.d && hi.d == hi.d) {  // NaN bounds prove nothing
        out.min = lo;
        out.max = hi;
      }
    } else if (s.kind == "string" && type.id == TypeId::kString) {
      lo.domain = hi.domain = Value::Domain::kString;
      lo.s = s.min;
      hi.s = s.max;
      out.min = lo;
      out.max = hi;
    }
  }
  if (!out.min && !out.null_count) return std::nullopt;
  return out;
}

}  // namespace

Status Scanner::Impl::PrepareOrcFile(OpenedFile& opened, const FileReaderOptions& ro) const {
  const ScanFile& file = source.files[opened.index];
  if (!source.field_ids.empty()) {
    return Status::NotSupported(file.path + ": an ORC file in a table that finds its columns by field id");
  }
  RAP_ASSIGN_OR_RETURN(opened.orc, OrcFileReader::Open(source.store, file.path, ro));
  const OrcFileReader& reader = *opened.orc;
  auto bind = [&](const ColumnSource& cs) {
    FileColumn fc;
    const ColumnSource in_file = ForFile(cs, file);
    if (cs.partition >= 0 || in_file.physical.empty() || reader.FieldIndex(in_file.physical) < 0) return fc;
    fc.present = true;
    fc.name = in_file.physical;
    fc.file_type = cs.file_type;
    return fc;
  };
  auto columns = std::make_shared<FileColumns>();
  for (const ColumnSource& cs : out_cols) columns->out.push_back(bind(cs));
  for (const ColumnSource& cs : filter_cols) columns->filter.push_back(bind(cs));
  for (const std::vector<FileColumn>* v : {&columns->filter, &columns->out}) {
    for (const FileColumn& fc : *v) {
      if (fc.present) opened.orc_fields.push_back(reader.FieldIndex(fc.name));
    }
  }
  std::sort(opened.orc_fields.begin(), opened.orc_fields.end());
  opened.orc_fields.erase(std::unique(opened.orc_fields.begin(), opened.orc_fields.end()), opened.orc_fields.end());
  opened.columns = columns;
  for (size_t s = 0; s < reader.num_stripes(); ++s) {
    ReadRange r;
    r.row_group = static_cast<int>(s);
    r.begin = 0;
    r.end = reader.stripe_num_rows(s);
    for (const ByteRange& b : reader.StripeRanges(s, opened.orc_fields)) r.compressed_bytes += b.length;
    opened.ranges.push_back(std::move(r));
  }
  return Status::OK();
}

bool Scanner::Impl::OrcStripeMayMatch(size_t file_index, const OrcFileReader& reader, size_t stripe,
                                      const FileColumns& columns) const {
  if (!predicate) return true;
  const ScanFile& file = source.files[file_index];
  const int64_t rows = reader.stripe_num_rows(stripe);
  const orc::FileTail& tail = reader.tail();
  auto stats = [&](int c) -> std::optional<ColumnStats> {
    const ColumnSource& cs = filter_cols[static_cast<size_t>(c)];
    const FileColumn& fc = columns.filter[static_cast<size_t>(c)];
    if (cs.partition >= 0) {
      ColumnStats s = StatsFromValue(ValueAt(*file.partition_values[static_cast<size_t>(cs.partition)], 0));
      s.num_values = rows;
      if (s.null_count && *s.null_count > 0) s.null_count = rows;
      return s;
    }
    if (!fc.present) {  // absent from this file: all NULL
      ColumnStats s;
      s.null_count = rows;
      s.num_values = rows;
      return s;
    }
    if (!options.use_statistics || stripe >= tail.stripe_stats.size()) return std::nullopt;
    const uint32_t column = orc::OrcReader::FieldColumn(tail, reader.FieldIndex(fc.name));
    if (column >= tail.stripe_stats[stripe].size()) return std::nullopt;
    return OrcStats(tail.stripe_stats[stripe][column], *cs.type, rows);
  };
  return predicate->CanMatch(stats) != Match::kNever;
}

std::vector<ByteRange> Scanner::Impl::OrcRangeBytes(const OpenedFile& file, const ReadRange& r) const {
  const size_t stripe = static_cast<size_t>(r.row_group);
  if (r.end <= r.begin || !OrcStripeMayMatch(file.index, *file.orc, stripe, *file.columns)) return {};
  return file.orc->StripeRanges(stripe, file.orc_fields);
}

Status Scanner::Impl::ScanOrcRange(size_t file_index, OrcFileReader& reader, const ReadRange& range,
                                   const std::vector<int>& fields, const FileColumns& columns, int64_t room,
                                   RangeOutput* result) const {
  ScanStats& stats = result->stats;
  const ScanFile& file = source.files[file_index];
  const size_t stripe = static_cast<size_t>(range.row_group);
  ++stats.row_groups;
  const int64_t rows = reader.stripe_num_rows(stripe);
  if (rows == 0) return Status::OK();
  if (!OrcStripeMayMatch(file_index, reader, stripe, columns)) {
    ++stats.row_groups_pruned;
    return Status::OK();
  }
  stats.rows_in_row_groups += rows;
  // Deletion vectors: the stripe's live rows.
  const uint64_t first = static_cast<uint64_t>(reader.stripe_first_row(stripe));
  std::vector<int64_t> live;
  {
    auto lo = std::lower_bound(file.deleted_rows.begin(), file.deleted_rows.end(), first);
    auto hi = std::lower_bound(lo, file.deleted_rows.end(), first + static_cast<uint64_t>(rows));
    stats.rows_deleted += hi - lo;
    live.reserve(static_cast<size_t>(rows - (hi - lo)));
    for (int64_t row = 0; row < rows; ++row) {
      if (lo != hi && *lo == first + static_cast<uint64_t>(row)) {
        ++lo;
        continue;
      }
      live.push_back(row);
    }
  }
  stats.rows_candidate += static_cast<int64_t>(live.size());
  if (live.empty()) return Status::OK();
  RecordBatch batch;
  if (!fields.empty()) {
    RAP_ASSIGN_OR_RETURN(batch, reader.ReadStripe(stripe, fields));
  }
  // A column of the stripe (all its rows) as the table type.
  auto column_of = [&](const ColumnSource& cs, const FileColumn& fc) -> Result<ArrayPtr> {
    if (cs.partition >= 0) return columnar::RepeatValue(*file.partition_values[static_cast<size_t>(cs.partition)], rows);
    if (!fc.present) return columnar::MakeNullArray(cs.type, rows);
    const int bi = batch.schema ? batch.schema->FieldIndex(fc.name) : -1;
    if (bi < 0) return Status::Internal(file.path + ": column '" + cs.name + "' missing from the stripe read");
    return ConformArray(batch.columns[static_cast<size_t>(bi)], cs.type, fc.file_type,
                        file.path + ": column '" + cs.name + "'");
  };
  std::vector<int64_t> selected;
  if (predicate) {
    RecordBatch eval;
    eval.schema = filter_schema;
    eval.num_rows = rows;
    for (size_t c = 0; c < filter_cols.size(); ++c) {
      RAP_ASSIGN_OR_RETURN(ArrayPtr a, column_of(filter_cols[c], columns.filter[c]));
      eval.columns.push_back(std::move(a));
    }
    RAP_ASSIGN_OR_RETURN(std::vector<uint8_t> keep, predicate->Select(eval));
    for (int64_t row : live) {
      if (keep[static_cast<size_t>(row)]) selected.push_back(row);
    }
  } else {
    selected = std::move(live);
  }
  stats.rows_selected += static_cast<int64_t>(selected.size());
  if (room >= 0 && static_cast<int64_t>(selected.size()) > room) selected.resize(static_cast<size_t>(room));
  if (selected.empty()) return Status::OK();
  const int64_t n = static_cast<int64_t>(selected.size());
  const bool all = n == rows;
  std::vector<ArrayPtr> out;
  for (size_t o = 0; o < out_cols.size(); ++o) {
    const ColumnSource& cs = out_cols[o];
    RAP_ASSIGN_OR_RETURN(ArrayPtr arr, column_of(cs, columns.out[o]));
    if (!all) {
      RAP_ASSIGN_OR_RETURN(arr, columnar::TakeArray(arr, selected));
    }
    if (!cs.path.empty()) {
      RAP_ASSIGN_OR_RETURN(arr, StructFieldAt(arr, cs.path));
    }
    out.push_back(std::move(arr));
  }
  const uint64_t base = (static_cast<uint64_t>(file_index) << kRowIdFileShift) + first;
  for (int64_t start = 0; start < n; start += options.batch_size) {
    const int64_t len = std::min(options.batch_size, n - start);
    ScanBatch sb;
    sb.batch.schema = out_schema;
    sb.batch.num_rows = len;
    for (const ArrayPtr& c : out) sb.batch.columns.push_back(len == n ? c : SliceArray(c, start, len));
    sb.row_ids.reserve(static_cast<size_t>(len));
    for (int64_t k = start; k < start + len; ++k) {
      sb.row_ids.push_back(base + static_cast<uint64_t>(selected[static_cast<size_t>(k)]));
    }
    result->batches.push_back(std::move(sb));
  }
  return Status::OK();
}

std::function<void()> Scanner::Impl::PlanOrcFetchAhead(OpenedFile& file,
                                                       const std::vector<const ReadRange*>& ranges) const {
  if (!file.cache || RoomHint() == 0) return nullptr;
  std::vector<ByteRange> cached;
  for (const ReadRange* r : ranges) {
    std::vector<ByteRange> mine = OrcRangeBytes(file, *r);
    const size_t fit = file.cache->Reserve(mine, /*fetch_ahead=*/true);
    cached.insert(cached.end(), mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(fit));
    if (fit < mine.size()) break;
  }
  if (cached.empty()) return nullptr;
  return [reader = file.orc, cache = file.cache, cached = std::move(cached)] {
    (void)reader->FetchInto(cached, *cache, "fetch_ahead");  // a failed fetch is a miss
  };
}

Status Scanner::Impl::WarmOrcFile(Warming* w, const std::shared_ptr<OpenedFile>& file) const {
  file->counts.warmup_files = 1;
  // The first ranges' streams (as many ranges as there are producers), within the pre-buffer limit.
  const size_t want = std::min(file->ranges.size(), static_cast<size_t>(std::max(1, options.prefetch.producers)));
  std::vector<ByteRange> reserved;
  for (size_t i = 0; i < want; ++i) {
    std::vector<ByteRange> ranges = OrcRangeBytes(*file, file->ranges[i]);
    const size_t fit = file->cache->Reserve(ranges);
    reserved.insert(reserved.end(), ranges.begin(), ranges.begin() + static_cast<std::ptrdiff_t>(fit));
    if (fit < ranges.size()) {
      file->counts.warmup_partial = 1;
      break;
    }
  }
  file->counts.warmup_bytes = file->cache->bytes_reserved();
  if (options.warmup.level == WarmupLevel::kDecoded && w->decode.load()) StartReading(*file, true);
  w->prepared.store(true, std::memory_order_release);
  if (reserved.empty()) return Status::OK();
  (void)file->orc->FetchInto(reserved, *file->cache);  // a failed warmup is only a miss
  return Status::OK();
}

}  // namespace rap::read
