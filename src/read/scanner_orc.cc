// ORC files in a scan (seed 001 on ORC): a file's read ranges are its stripes (a range never
// crosses a stripe, and its batches are stripe-aligned: a batch never spans two ranges); a range's
// compressed bytes are the stripe's selected streams, so the prefetch reader's enabling rule
// (PrefetchOptions::min_file_bytes over the file's selected compressed bytes) and its adaptive
// disable apply to ORC files as to Parquet files. Stripe statistics prune stripes for the filter.
// A range reads the filter and output columns' streams of its stripe in one planned read (exact
// ranges, merged by the range planner); warmup and fetch-ahead reserve the same ranges in the
// file's ReadAheadCache.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
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

// The membership test of an ORC bloom filter for values of the table type `type` in a column of
// ORC type `kind` (as ORC's writers add them: integers and dates as 64-bit integers, doubles by
// their bits, strings and binary by their bytes); null when the filter cannot be used for them.
std::function<bool(const Value&)> BloomTest(const orc::BloomFilter* bloom, orc::TypeKind kind, const DataType& type) {
  if (!bloom) return nullptr;
  switch (kind) {
    case orc::TypeKind::kByte:
    case orc::TypeKind::kShort:
    case orc::TypeKind::kInt:
    case orc::TypeKind::kLong:
    case orc::TypeKind::kDate:
      if (kind == orc::TypeKind::kDate ? type.id != TypeId::kDate32 : !IsInteger(type.id)) return nullptr;
      return [bloom](const Value& v) {
        if (v.domain != Value::Domain::kInt || v.i < INT64_MIN || v.i > INT64_MAX) return true;
        return bloom->MightContainInteger(static_cast<int64_t>(v.i));
      };
    case orc::TypeKind::kDouble:
      if (type.id != TypeId::kFloat64) return nullptr;
      return [bloom](const Value& v) {
        // 0.0 = -0.0 but their bits differ; NaN has many bit patterns.
        if (v.domain != Value::Domain::kDouble || v.d == 0.0 || v.d != v.d) return true;
        return bloom->MightContainDouble(v.d);
      };
    case orc::TypeKind::kString:
    case orc::TypeKind::kVarchar:
    case orc::TypeKind::kBinary:
      // Original (non-UTF-8) filters of strings used the writer's default character set.
      if (!bloom->utf8 || (type.id != TypeId::kString && type.id != TypeId::kBinary)) return nullptr;
      return [bloom](const Value& v) { return v.domain != Value::Domain::kString || bloom->MightContainBytes(v.s); };
    default:
      return nullptr;
  }
}

// Column names compared by `=` or (not negated) IN somewhere in `e`.
void EqualityColumns(const Expr& e, std::set<std::string>* out) {
  if ((e.kind == Expr::Kind::kCompare && e.op == CompareOp::kEq) || (e.kind == Expr::Kind::kIn && !e.negated)) {
    out->insert(e.column);
  }
  for (const ExprPtr& c : e.children) {
    if (c) EqualityColumns(*c, out);
  }
}

}  // namespace

Status Scanner::Impl::PrepareOrcFile(OpenedFile& opened, const FileReaderOptions& ro) const {
  const ScanFile& file = source.files[opened.index];
  RAP_ASSIGN_OR_RETURN(opened.orc, OrcFileReader::Open(source.store, file.path, ro));
  const OrcFileReader& reader = *opened.orc;
  // By field id (Iceberg: the "iceberg.id" type attributes, else the name mapping), as for Parquet.
  std::vector<parquet::FieldNode> nodes;
  if (!source.field_ids.empty()) {
    RAP_ASSIGN_OR_RETURN(nodes, OrcFieldNodes(reader.tail().types));
    bool any_id = false;
    for (const orc::OrcType& t : reader.tail().types.nodes) {
      for (const auto& [k, v] : t.attributes) any_id = any_id || k == "iceberg.id";
    }
    if (!any_id && source.name_mapping) {
      ApplyNameMapping(*source.name_mapping, nodes);
    } else if (!any_id) {
      return Status::NotSupported(file.path + ": the ORC types carry no field ids (iceberg.id), but the table finds "
                                  "its columns by field id (Iceberg without schema.name-mapping.default)");
    }
  }
  auto bind = [&](const ColumnSource& cs) {
    if (!source.field_ids.empty()) return BindColumn(cs, nodes);
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

std::vector<uint32_t> Scanner::Impl::OrcBloomColumns(const OrcFileReader& reader, const FileColumns& columns) const {
  std::vector<uint32_t> out;
  if (!predicate || !options.use_bloom_filters || !options.use_statistics || !options.use_page_index) return out;
  const orc::FileTail& tail = reader.tail();
  if (!orc::BloomFiltersUsable(tail)) return out;
  std::set<std::string> names;
  EqualityColumns(*predicate->expr(), &names);
  for (size_t c = 0; c < filter_cols.size(); ++c) {
    const ColumnSource& cs = filter_cols[c];
    const FileColumn& fc = columns.filter[c];
    if (cs.partition >= 0 || !fc.present || !names.count(cs.name)) continue;
    const uint32_t column = orc::OrcReader::FieldColumn(tail, reader.FieldIndex(fc.name));
    const orc::BloomFilter probe;
    if (column < tail.types.nodes.size() && BloomTest(&probe, tail.types.nodes[column].kind, *cs.type)) {
      out.push_back(column);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool Scanner::Impl::OrcStatsMayMatch(size_t file_index, const OrcFileReader& reader, const FileColumns& columns,
                                     int64_t rows, const std::function<const orc::ColumnStats*(uint32_t)>& stats_of,
                                     const std::function<const orc::BloomFilter*(uint32_t)>& bloom_of) const {
  if (!predicate) return true;
  const ScanFile& file = source.files[file_index];
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
    if (!fc.present) return AbsentStats(cs, rows);  // absent from this file: all NULL or its default
    if (!options.use_statistics) return std::nullopt;
    const uint32_t column = orc::OrcReader::FieldColumn(tail, reader.FieldIndex(fc.name));
    const orc::ColumnStats* os = stats_of(column);
    std::optional<ColumnStats> out = os ? OrcStats(*os, *cs.type, rows) : std::nullopt;
    if (bloom_of && column < tail.types.nodes.size()) {
      if (auto test = BloomTest(bloom_of(column), tail.types.nodes[column].kind, *cs.type)) {
        if (!out) out = ColumnStats{};
        out->might_contain = std::move(test);
      }
    }
    return out;
  };
  return predicate->CanMatch(stats) != Match::kNever;
}

bool Scanner::Impl::OrcStripeMayMatch(size_t file_index, const OrcFileReader& reader, size_t stripe,
                                      const FileColumns& columns) const {
  const orc::FileTail& tail = reader.tail();
  return OrcStatsMayMatch(file_index, reader, columns, reader.stripe_num_rows(stripe),
                          [&](uint32_t column) -> const orc::ColumnStats* {
                            if (stripe >= tail.stripe_stats.size() || column >= tail.stripe_stats[stripe].size()) {
                              return nullptr;
                            }
                            return &tail.stripe_stats[stripe][column];
                          });
}

bool Scanner::Impl::OrcUsesRowIndex(const OrcFileReader& reader, size_t stripe, const std::vector<int>& fields,
                                    const std::vector<uint32_t>& bloom_columns) const {
  if (!predicate || !options.use_statistics || !options.use_page_index || fields.empty()) return false;
  const size_t groups = orc::NumRowGroups(reader.tail(), stripe);
  return groups > 1 || (groups == 1 && reader.HasBloomFilters(stripe, bloom_columns));
}

std::vector<ByteRange> Scanner::Impl::OrcRangeBytes(const OpenedFile& file, const ReadRange& r) const {
  const size_t stripe = static_cast<size_t>(r.row_group);
  if (r.end <= r.begin || !OrcStripeMayMatch(file.index, *file.orc, stripe, *file.columns)) return {};
  std::vector<ByteRange> out;
  // With the row index in use, its streams (and the bloom filters) are fetched ahead with the data
  // (one planned read).
  const std::vector<uint32_t> blooms = OrcBloomColumns(*file.orc, *file.columns);
  if (OrcUsesRowIndex(*file.orc, stripe, file.orc_fields, blooms)) {
    out = file.orc->RowIndexRanges(stripe, file.orc_fields, blooms);
  }
  for (const ByteRange& b : file.orc->StripeRanges(stripe, file.orc_fields)) out.push_back(b);
  return out;
}

Status Scanner::Impl::ScanOrcRange(size_t file_index, OrcFileReader& reader, const ReadRange& range,
                                   const std::vector<int>& fields, const FileColumns& columns, int64_t room,
                                   RangeOutput* result) const {
  ScanStats& stats = result->stats;
  const size_t stripe = static_cast<size_t>(range.row_group);
  ++stats.row_groups;
  const int64_t rows = reader.stripe_num_rows(stripe);
  if (rows == 0) return Status::OK();
  if (!OrcStripeMayMatch(file_index, reader, stripe, columns)) {
    ++stats.row_groups_pruned;
    return Status::OK();
  }
  // The row index (ORC's page index: off with use_page_index): row groups whose statistics rule
  // the filter out are not read.
  const orc::FileTail& tail = reader.tail();
  const size_t groups = orc::NumRowGroups(tail, stripe);
  const std::vector<uint32_t> blooms = OrcBloomColumns(reader, columns);
  if (OrcUsesRowIndex(reader, stripe, fields, blooms)) {
    RAP_ASSIGN_OR_RETURN(auto index, reader.ReadRowIndex(stripe, reader.FieldColumns(fields), blooms));
    const int64_t stride = tail.row_index_stride;
    std::vector<uint8_t> keep(groups, 1);
    size_t pruned = 0, by_bloom = 0;
    for (size_t g = 0; g < groups; ++g) {
      const int64_t n = std::min(rows, static_cast<int64_t>(g + 1) * stride) - static_cast<int64_t>(g) * stride;
      auto stats_of = [&](uint32_t column) -> const orc::ColumnStats* {
        auto it = index.find(column);
        if (it == index.end() || it->second.entries.size() != groups || !it->second.entries[g].stats) return nullptr;
        return &*it->second.entries[g].stats;
      };
      keep[g] = OrcStatsMayMatch(file_index, reader, columns, n, stats_of);
      if (keep[g] && !blooms.empty()) {
        // A filter per row group, or the stream is not used.
        keep[g] = OrcStatsMayMatch(file_index, reader, columns, n, stats_of,
                                   [&](uint32_t column) -> const orc::BloomFilter* {
                                     auto it = index.find(column);
                                     if (it == index.end() || it->second.bloom_filters.size() != groups) return nullptr;
                                     return &it->second.bloom_filters[g];
                                   });
        if (!keep[g]) ++by_bloom;
      }
      if (!keep[g]) ++pruned;
    }
    stats.row_index_groups += static_cast<int64_t>(groups);
    if (pruned == groups) {
      stats.row_index_groups_pruned += static_cast<int64_t>(pruned);
      stats.bloom_filter_groups_pruned += static_cast<int64_t>(by_bloom);
      return Status::OK();
    }
    // When the stripe's data was fetched ahead (warmup, fetch-ahead) it is decoded from the cache
    // whole: row-group reads would take only some of it.
    if (pruned > 0 && !reader.StripeHeld(stripe, fields)) {
      // Runs of consecutive kept groups, each read on its own (only its streams' parts).
      std::vector<std::pair<size_t, size_t>> runs;
      for (size_t g = 0; g < groups; ++g) {
        if (!keep[g]) continue;
        if (!runs.empty() && runs.back().second == g) {
          runs.back().second = g + 1;
        } else {
          runs.emplace_back(g, g + 1);
        }
      }
      bool supported = true;
      for (const auto& [first, last] : runs) {
        auto batch = reader.ReadRowGroups(stripe, fields, index, first, last);
        if (!batch.ok() && batch.status().code() == StatusCode::kNotSupported && first == runs.front().first) {
          supported = false;  // the row index cannot seek these columns: read the stripe
          break;
        }
        if (!batch.ok()) return batch.status();
        const int64_t offset = static_cast<int64_t>(first) * stride;
        RAP_RETURN_NOT_OK(EmitOrcRows(file_index, reader, stripe, offset, batch->num_rows, *batch, columns, &room,
                                      result));
        if (room == 0) break;
      }
      if (supported) {
        // Only groups that were not read count as pruned: a stripe decoded whole prunes none.
        stats.row_index_groups_pruned += static_cast<int64_t>(pruned);
        stats.bloom_filter_groups_pruned += static_cast<int64_t>(by_bloom);
        return Status::OK();
      }
    }
  }
  RecordBatch batch;
  if (!fields.empty()) {
    RAP_ASSIGN_OR_RETURN(batch, reader.ReadStripe(stripe, fields));
  }
  return EmitOrcRows(file_index, reader, stripe, 0, rows, batch, columns, &room, result);
}

Status Scanner::Impl::EmitOrcRows(size_t file_index, const OrcFileReader& reader, size_t stripe, int64_t offset,
                                  int64_t rows, const RecordBatch& batch, const FileColumns& columns, int64_t* room,
                                  RangeOutput* result) const {
  ScanStats& stats = result->stats;
  const ScanFile& file = source.files[file_index];
  const std::vector<uint64_t>& deleted_rows = DeletedRowsOf(file_index);
  stats.rows_in_row_groups += rows;
  // Deletion vectors: the live rows (relative to `offset`).
  const uint64_t first = static_cast<uint64_t>(reader.stripe_first_row(stripe) + offset);
  std::vector<int64_t> live;
  {
    auto lo = std::lower_bound(deleted_rows.begin(), deleted_rows.end(), first);
    auto hi = std::lower_bound(lo, deleted_rows.end(), first + static_cast<uint64_t>(rows));
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
  // A column of the rows (as the table type).
  auto column_of = [&](const ColumnSource& cs, const FileColumn& fc) -> Result<ArrayPtr> {
    if (cs.partition >= 0) return columnar::RepeatValue(*file.partition_values[static_cast<size_t>(cs.partition)], rows);
    if (!fc.present) return AbsentColumn(cs, rows);
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
  if (*room >= 0 && static_cast<int64_t>(selected.size()) > *room) selected.resize(static_cast<size_t>(*room));
  if (selected.empty()) return Status::OK();
  if (*room >= 0) *room -= static_cast<int64_t>(selected.size());
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
