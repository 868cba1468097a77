// One read range of a scan (a row group or a page-aligned part of one): statistics and page-index pruning, deletion vectors, read 1 (the filter
// columns' candidate pages, one planned read) and the filter, read 2 (the other projected columns,
// only the pages of selected rows), and the output batches.
#include <algorithm>
#include <cstring>

#include "read/scanner_impl.h"
#include "rap/columnar/cast.h"
#include "rap/columnar/take.h"

namespace rap::read {

namespace {

// Column `cs` of a batch the file returned (n rows), cast to the table type.
Result<ArrayPtr> ColumnOfRead(const RecordBatch& batch, const ColumnSource& cs, const FileColumn& fc, int64_t n,
                              const std::string& path, const char* read) {
  const int bi = batch.schema ? batch.schema->FieldIndex(fc.name) : -1;
  if (bi < 0 || batch.columns[static_cast<size_t>(bi)]->length != n) {
    return Status::Internal(path + ": column '" + cs.name + "' missing from " + read);
  }
  return ConformArray(batch.columns[static_cast<size_t>(bi)], cs.type, fc.file_type, path + ": column '" + cs.name + "'");
}

// The rows at `positions` of a dictionary-coded column: the dictionary entry of each row's code, or
// NULL for code -1. The dictionary itself holds no NULLs.
Result<ArrayPtr> TakeCodedRows(const ArrayPtr& dictionary, const std::vector<int32_t>& codes,
                               const std::vector<int64_t>& positions) {
  const int64_t n = static_cast<int64_t>(positions.size());
  if (dictionary->length == 0) return columnar::MakeNullArray(dictionary->type, n);  // every row is NULL
  std::vector<int64_t> entries(positions.size());
  Buffer validity = Buffer::Allocate(static_cast<size_t>((n + 7) / 8));
  std::memset(validity.mutable_data(), 0, validity.size());
  int64_t nulls = 0;
  for (int64_t k = 0; k < n; ++k) {
    const int32_t code = codes[static_cast<size_t>(positions[static_cast<size_t>(k)])];
    entries[static_cast<size_t>(k)] = code < 0 ? 0 : code;
    if (code < 0) {
      ++nulls;
    } else {
      validity.mutable_data()[k >> 3] |= static_cast<uint8_t>(1u << (k & 7));
    }
  }
  RAP_ASSIGN_OR_RETURN(ArrayPtr out, columnar::TakeArray(*dictionary, entries));
  if (nulls > 0) {
    out->buffers[0] = validity;
    out->null_count = nulls;
  }
  return out;
}

}  // namespace

Result<RowSelection> Scanner::Impl::RangeCandidates(size_t file_index, FileReader& reader, const ReadRange& range,
                                                    const std::vector<int>& filter_leaf, ScanStats& stats) const {
  const read::ScanFile& file = source.files[file_index];
  const int rg = range.row_group;
  const int64_t rg_rows = reader.row_group_num_rows(rg);
  const RowSelection window = RowSelection::Range(range.begin, range.end);
  const auto& rg_meta = reader.metadata().row_groups[static_cast<size_t>(rg)];
  // The file's type of a filter column's leaf, when its statistics compare like the table type.
  auto usable_type = [&](size_t c) -> const DataTypePtr* {
    int leaf = filter_leaf[c];
    if (leaf < 0) return nullptr;
    const DataTypePtr& ft = reader.schema().column(leaf).arrow_type;
    const DataType& tt = *filter_cols[c].type;
    bool same = ft->id == tt.id && (ft->id != TypeId::kTimestamp || ft->unit == tt.unit) &&
                (ft->id != TypeId::kDecimal128 || ft->scale == tt.scale);
    return same ? &ft : nullptr;
  };
  RowSelection candidates = window;
  if (file.candidate_rows) {  // an index chose the rows that can match (ScanFile::candidate_rows)
    const int64_t first = reader.row_group_first_row(rg);
    candidates = file.candidate_rows->Slice(first, first + rg_rows).Intersect(window);
    stats.rows_pruned_by_index += (range.end - range.begin) - candidates.Count();
    if (candidates.empty()) {
      if (range.first_of_row_group && !file.candidate_rows->Intersects(first, first + rg_rows)) {
        ++stats.row_groups_pruned;
      }
      return RowSelection();
    }
  }
  if (predicate) {
    auto rg_stats = [&](int c) -> std::optional<ColumnStats> {
      const ColumnSource& cs = filter_cols[static_cast<size_t>(c)];
      if (cs.partition >= 0) {
        ColumnStats s = StatsFromValue(ValueAt(*file.partition_values[static_cast<size_t>(cs.partition)], 0));
        s.num_values = rg_rows;
        if (s.null_count && *s.null_count > 0) s.null_count = rg_rows;
        return s;
      }
      int leaf = filter_leaf[static_cast<size_t>(c)];
      if (leaf < 0) return AbsentStats(cs, rg_rows);  // absent from this file: all NULL or its default
      const DataTypePtr* ft = usable_type(static_cast<size_t>(c));
      const auto& cc = rg_meta.columns[static_cast<size_t>(leaf)];
      if (!ft || !options.use_statistics || !cc.meta_data || !cc.meta_data->statistics) return std::nullopt;
      return StatsFromParquet(*cc.meta_data->statistics, reader.schema().column(leaf).physical_type, **ft, rg_rows);
    };
    if (predicate->CanMatch(rg_stats) == Match::kNever) {
      if (range.first_of_row_group) ++stats.row_groups_pruned;
      return RowSelection();
    }
    if (options.use_page_index) {
      std::vector<int> leaves;
      for (int l : filter_leaf) {
        if (l >= 0) leaves.push_back(l);
      }
      if (!leaves.empty()) RAP_RETURN_NOT_OK(reader.LoadPageIndex({rg}, leaves, true, true));
      std::vector<std::optional<std::vector<PageStats>>> pages(filter_cols.size());
      for (size_t c = 0; c < filter_cols.size(); ++c) {
        const DataTypePtr* ft = usable_type(c);
        if (!ft) continue;
        int leaf = filter_leaf[c];
        RAP_ASSIGN_OR_RETURN(auto ci, reader.GetColumnIndex(rg, leaf));
        RAP_ASSIGN_OR_RETURN(auto oi, reader.GetOffsetIndex(rg, leaf));
        if (!ci || !oi) continue;
        pages[c] = PageStatsFromIndex(*ci, *oi, rg_rows, reader.schema().column(leaf).physical_type, **ft);
      }
      candidates = predicate->PagesMayMatch([&](int c) { return pages[static_cast<size_t>(c)]; }, rg_rows)
                       .Intersect(candidates);
    }
  }
  stats.rows_in_row_groups += range.end - range.begin;
  // Deletion vectors: drop the deleted rows of this row group from the candidates.
  const std::vector<uint64_t>& deleted_rows = DeletedRowsOf(file_index);
  if (!deleted_rows.empty()) {
    const uint64_t first = static_cast<uint64_t>(reader.row_group_first_row(rg));
    auto lo = std::lower_bound(deleted_rows.begin(), deleted_rows.end(), first);
    auto hi = std::lower_bound(lo, deleted_rows.end(), first + static_cast<uint64_t>(rg_rows));
    if (lo != hi) {
      std::vector<RowRange> live;
      int64_t next = 0;
      for (auto it = lo; it != hi; ++it) {
        int64_t row = static_cast<int64_t>(*it - first);
        if (row > next) live.push_back(RowRange{next, row});
        next = row + 1;
      }
      if (next < rg_rows) live.push_back(RowRange{next, rg_rows});
      const int64_t before = candidates.Count();
      candidates = candidates.Intersect(RowSelection::FromRanges(std::move(live)));
      stats.rows_deleted += before - candidates.Count();
    }
  }
  stats.rows_candidate += candidates.Count();
  return candidates;
}

Result<ArrayPtr> RangeSelection::Dictionary(size_t c, const DataTypePtr& type) {
  if (!coded_dict[c]) {
    RAP_ASSIGN_OR_RETURN(coded_dict[c], columnar::CastArray(codes[c]->dictionary, type));
  }
  return coded_dict[c];
}

Status Scanner::Impl::ScanRange(size_t file_index, FileReader& reader, const ReadRange& range,
                                const std::vector<int>& filter_leaf, const FileColumns& columns, int64_t room,
                                RangeOutput* result) const {
  ScanStats& stats = result->stats;
  const int rg = range.row_group;
  const int64_t rg_rows = reader.row_group_num_rows(rg);
  // Row-group counters are counted by the row group's first range only.
  if (range.first_of_row_group) ++stats.row_groups;
  if (rg_rows == 0 || range.end <= range.begin) return Status::OK();
  RAP_ASSIGN_OR_RETURN(RowSelection candidates, RangeCandidates(file_index, reader, range, filter_leaf, stats));
  if (candidates.empty()) return Status::OK();

  RangeSelection sel;
  sel.filter_arrays.resize(filter_cols.size());
  sel.codes.resize(filter_cols.size());
  sel.coded_dict.resize(filter_cols.size());
  if (predicate) {
    RAP_RETURN_NOT_OK(FilterRange(file_index, reader, range, filter_leaf, columns, candidates, sel, stats));
  } else {
    sel.selected_rows.reserve(static_cast<size_t>(candidates.Count()));
    for (const RowRange& r : candidates) {
      for (int64_t row = r.begin; row < r.end; ++row) sel.selected_rows.push_back(row);
    }
  }
  stats.rows_selected += static_cast<int64_t>(sel.selected_rows.size());
  // Under a limit, rows past it are not materialised.
  if (room >= 0 && static_cast<int64_t>(sel.selected_rows.size()) > room) {
    sel.selected_rows.resize(static_cast<size_t>(room));
    if (!sel.keep_positions.empty()) sel.keep_positions.resize(static_cast<size_t>(room));
  }
  if (sel.selected_rows.empty()) return Status::OK();
  return MaterializeRange(file_index, reader, range, columns, sel, result);
}

// Read 1: the filter's data columns for the candidate rows (one planned read); evaluate. A conjunct
// of one dictionary-encoded column is evaluated once per dictionary entry and looked up per row by
// code; the other conjuncts over the decoded values.
Status Scanner::Impl::FilterRange(size_t file_index, FileReader& reader, const ReadRange& range,
                                  const std::vector<int>& filter_leaf, const FileColumns& columns,
                                  const RowSelection& candidates, RangeSelection& sel, ScanStats& stats) const {
  const read::ScanFile& file = source.files[file_index];
  std::vector<std::string> phys;
  for (size_t c = 0; c < filter_cols.size(); ++c) {
    if (filter_leaf[c] >= 0) phys.push_back(columns.filter[c].name);
  }
  std::unique_ptr<FileReader::FetchedRowGroup> fetched;
  if (!phys.empty()) {
    RAP_ASSIGN_OR_RETURN(Projection proj, reader.Project(phys));
    RAP_ASSIGN_OR_RETURN(fetched, reader.FetchRowGroup(range.row_group, candidates, proj, range.share));
  }
  const int64_t n = candidates.Count();
  std::vector<std::string> value_phys;
  for (size_t c = 0; c < filter_cols.size(); ++c) {
    if (filter_leaf[c] < 0) continue;
    if (dictionary_eligible[c]) {
      RAP_ASSIGN_OR_RETURN(sel.codes[c], fetched->ReadDictionaryCodes(candidates, filter_leaf[c]));
    }
    if (!sel.codes[c]) value_phys.push_back(columns.filter[c].name);
  }
  RecordBatch fb;
  if (!value_phys.empty()) {
    RAP_ASSIGN_OR_RETURN(Projection proj, reader.Project(value_phys));
    RAP_ASSIGN_OR_RETURN(fb, fetched->Read(candidates, proj));
  }
  for (size_t c = 0; c < filter_cols.size(); ++c) {
    const ColumnSource& cs = filter_cols[c];
    if (sel.codes[c]) continue;
    ArrayPtr arr;
    if (cs.partition >= 0) {
      RAP_ASSIGN_OR_RETURN(arr, columnar::RepeatValue(*file.partition_values[static_cast<size_t>(cs.partition)], n));
    } else if (filter_leaf[c] < 0) {
      RAP_ASSIGN_OR_RETURN(arr, AbsentColumn(cs, n));
    } else {
      RAP_ASSIGN_OR_RETURN(arr, ColumnOfRead(fb, cs, columns.filter[c], n, file.path, "read 1"));
    }
    sel.filter_arrays[c] = arr;
  }
  RAP_ASSIGN_OR_RETURN(std::vector<uint8_t> keep, EvaluateStages(n, sel, stats));
  int64_t pos = 0;
  for (const RowRange& r : candidates) {
    for (int64_t row = r.begin; row < r.end; ++row, ++pos) {
      if (keep[static_cast<size_t>(pos)]) {
        sel.selected_rows.push_back(row);
        sel.keep_positions.push_back(pos);
      }
    }
  }
  return Status::OK();
}

// The filter's stages over the `n` candidate rows of read 1: a keep flag per row.
Result<std::vector<uint8_t>> Scanner::Impl::EvaluateStages(int64_t n, RangeSelection& sel, ScanStats& stats) const {
  std::vector<uint8_t> keep(static_cast<size_t>(n), 1);
  std::vector<bool> counted(filter_cols.size(), false);  // chunks evaluated on their dictionary
  for (const FilterStage& st : stages) {
    if (st.cols.size() == 1 && sel.codes[st.cols[0]]) {
      const size_t c = st.cols[0];
      const FileReader::DictionaryCodes& dc = *sel.codes[c];
      // The conjunct's result per dictionary entry (entry k at index k + 1) and for NULL (index 0).
      RAP_ASSIGN_OR_RETURN(ArrayPtr dict, sel.Dictionary(c, filter_cols[c].type));
      RecordBatch eval;
      eval.schema = st.schema;
      eval.num_rows = dict->length;
      eval.columns.push_back(dict);
      RAP_ASSIGN_OR_RETURN(std::vector<uint8_t> per_entry, st.predicate.Select(eval));
      RAP_ASSIGN_OR_RETURN(eval.columns[0], columnar::MakeNullArray(filter_cols[c].type, 1));
      eval.num_rows = 1;
      RAP_ASSIGN_OR_RETURN(std::vector<uint8_t> for_null, st.predicate.Select(eval));
      std::vector<uint8_t> lut(per_entry.size() + 1);
      lut[0] = for_null[0];
      std::copy(per_entry.begin(), per_entry.end(), lut.begin() + 1);
      const int32_t* code = dc.codes.data();
      for (int64_t i = 0; i < n; ++i) keep[static_cast<size_t>(i)] &= lut[static_cast<size_t>(code[i] + 1)];
      if (!counted[c]) {
        counted[c] = true;
        ++stats.filter_dictionary_chunks;
      }
      continue;
    }
    RecordBatch eval;
    eval.schema = st.schema;
    eval.num_rows = n;
    for (size_t c : st.cols) eval.columns.push_back(sel.filter_arrays[c]);
    RAP_ASSIGN_OR_RETURN(std::vector<uint8_t> k, st.predicate.Select(eval));
    for (int64_t i = 0; i < n; ++i) keep[static_cast<size_t>(i)] &= k[static_cast<size_t>(i)];
  }
  return keep;
}

// Read 2: the other projected data columns, only the pages of the selected rows; then the output
// columns (filter columns taken from read 1) cut into batches.
Status Scanner::Impl::MaterializeRange(size_t file_index, FileReader& reader, const ReadRange& range,
                                       const FileColumns& columns, RangeSelection& sel, RangeOutput* result) const {
  const read::ScanFile& file = source.files[file_index];
  const int rg = range.row_group;
  const std::vector<int64_t>& selected_rows = sel.selected_rows;
  const int64_t n = static_cast<int64_t>(selected_rows.size());
  std::vector<RowRange> ranges;
  for (int64_t row : selected_rows) {
    if (!ranges.empty() && ranges.back().end == row) ranges.back().end = row + 1;
    else ranges.push_back(RowRange{row, row + 1});
  }
  RowSelection selection = RowSelection::FromRanges(std::move(ranges));
  std::vector<std::string> phys;
  std::vector<bool> in_file(out_cols.size(), false);
  auto filter_index = [&](const ColumnSource& cs) -> int {
    for (size_t c = 0; c < filter_cols.size(); ++c) {
      if (filter_cols[c].name == cs.name && (sel.filter_arrays[c] || sel.codes[c])) return static_cast<int>(c);
    }
    return -1;
  };
  for (size_t o = 0; o < out_cols.size(); ++o) {
    const ColumnSource& cs = out_cols[o];
    if (cs.partition >= 0 || filter_index(cs) >= 0) continue;
    const FileColumn& fc = columns.out[o];
    in_file[o] = fc.present;
    if (in_file[o] && std::find(phys.begin(), phys.end(), fc.name) == phys.end()) phys.push_back(fc.name);
  }
  RecordBatch db;
  if (!phys.empty()) {
    RAP_ASSIGN_OR_RETURN(Projection proj, reader.Project(phys));
    RAP_ASSIGN_OR_RETURN(db, reader.ReadRowGroup(rg, selection, proj, range.share));
  }
  std::vector<ArrayPtr> out;
  for (size_t o = 0; o < out_cols.size(); ++o) {
    const ColumnSource& cs = out_cols[o];
    ArrayPtr arr;
    if (cs.partition >= 0) {
      RAP_ASSIGN_OR_RETURN(arr, columnar::RepeatValue(*file.partition_values[static_cast<size_t>(cs.partition)], n));
    } else if (const int fi = filter_index(cs); fi >= 0) {
      const size_t f = static_cast<size_t>(fi);
      if (sel.codes[f]) {
        RAP_ASSIGN_OR_RETURN(ArrayPtr dict, sel.Dictionary(f, filter_cols[f].type));
        RAP_ASSIGN_OR_RETURN(arr, TakeCodedRows(dict, sel.codes[f]->codes, sel.keep_positions));
      } else {
        RAP_ASSIGN_OR_RETURN(arr, columnar::TakeArray(*sel.filter_arrays[f], sel.keep_positions));
      }
    } else if (!in_file[o]) {
      RAP_ASSIGN_OR_RETURN(arr, AbsentColumn(cs, n));
    } else {
      RAP_ASSIGN_OR_RETURN(arr, ColumnOfRead(db, cs, columns.out[o], n, file.path, "read 2"));
    }
    if (!cs.path.empty()) {
      RAP_ASSIGN_OR_RETURN(arr, StructFieldAt(arr, cs.path));
    }
    out.push_back(std::move(arr));
  }
  const uint64_t base = (static_cast<uint64_t>(file_index) << kRowIdFileShift) + static_cast<uint64_t>(reader.row_group_first_row(rg));
  for (int64_t start = 0; start < n; start += options.batch_size) {
    int64_t len = std::min(options.batch_size, n - start);
    ScanBatch sb;
    sb.batch.schema = out_schema;
    sb.batch.num_rows = len;
    for (const ArrayPtr& c : out) sb.batch.columns.push_back(len == n ? c : SliceArray(c, start, len));
    sb.row_ids.reserve(static_cast<size_t>(len));
    for (int64_t k = start; k < start + len; ++k) sb.row_ids.push_back(base + static_cast<uint64_t>(selected_rows[static_cast<size_t>(k)]));
    result->batches.push_back(std::move(sb));
  }
  return Status::OK();
}

}  // namespace rap::read
