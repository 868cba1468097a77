#include "rap/read/scanner.h"

#include <algorithm>
#include <deque>

namespace rap::read {

std::string ScanStats::ToString() const {
  std::string s;
  auto line = [&](const char* k, int64_t v) { s += std::string(k) + " " + std::to_string(v) + "\n"; };
  line("files", files);
  line("files_pruned", files_pruned);
  line("files_pruned_by_stats", files_pruned_by_stats);
  line("row_groups", row_groups);
  line("row_groups_pruned", row_groups_pruned);
  line("rows_in_row_groups", rows_in_row_groups);
  line("rows_deleted", rows_deleted);
  line("rows_candidate", rows_candidate);
  line("rows_selected", rows_selected);
  line("rows_output", rows_output);
  line("pages_read", pages_read);
  line("pages_skipped", pages_skipped);
  line("filter_dictionary_chunks", filter_dictionary_chunks);
  line("read_calls", read_calls);
  line("requests", requests);
  line("bytes", static_cast<int64_t>(bytes));
  line("footer_requests", footer_requests);
  line("footer_bytes", static_cast<int64_t>(footer_bytes));
  line("page_index_from_tail", page_index_from_tail);
  return s;
}

namespace {

constexpr int kRowIdFileShift = 40;

// Where an output or filter column comes from.
struct ColumnSource {
  std::string name;      // logical name
  std::string physical;  // in-file name
  DataTypePtr type;      // table type
  int partition = -1;    // index into partition_columns, or -1 for a data column
};

// One conjunct of the filter's top-level AND, bound to its own columns.
struct FilterStage {
  Predicate predicate;       // bound against `schema`
  SchemaPtr schema;          // the conjunct's columns
  std::vector<size_t> cols;  // indices into filter_cols, in `schema` order
};

void SplitConjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == Expr::Kind::kAnd) {
    for (const ExprPtr& c : e->children) SplitConjuncts(c, out);
  } else {
    out->push_back(e);
  }
}

}  // namespace

struct Scanner::Impl {
  ScanSource source;
  ScanOptions options;
  SchemaPtr table_schema;  // logical table schema
  SchemaPtr out_schema;
  std::vector<ColumnSource> out_cols;     // output columns
  std::vector<ColumnSource> filter_cols;  // columns the filter reads (bound schema order)
  std::optional<Predicate> predicate;
  SchemaPtr filter_schema;
  std::vector<FilterStage> stages;  // the predicate's conjuncts (one when it is not an AND)
  // Per filter column: read as dictionary codes when it can be (filter-only, and every conjunct
  // reading it reads nothing else).
  std::vector<bool> dictionary_eligible;
  ScanStats stats;
  size_t next_file = 0;
  std::deque<ScanBatch> pending;
  int64_t emitted = 0;
  bool done = false;

  Status Init();
  Status ScanFile(size_t file_index);
  Status ScanRowGroup(size_t file_index, FileReader& reader, int rg, const std::vector<int>& filter_leaf);
  std::string Physical(int field) const {
    return source.physical_names.size() > static_cast<size_t>(field) ? source.physical_names[static_cast<size_t>(field)]
                                                                    : table_schema->fields[static_cast<size_t>(field)].name;
  }
  ColumnSource Resolve(int field) const {
    ColumnSource c;
    c.name = table_schema->fields[static_cast<size_t>(field)].name;
    c.physical = Physical(field);
    c.type = table_schema->fields[static_cast<size_t>(field)].type;
    for (size_t p = 0; p < source.partition_columns.size(); ++p) {
      if (source.partition_columns[p].name == c.name) c.partition = static_cast<int>(p);
    }
    return c;
  }
};

Status Scanner::Impl::Init() {
  if (options.batch_size <= 0) return Status::InvalidArgument("scan: batch size must be positive");
  table_schema = source.schema;
  if (!table_schema) {
    // Directory tables: the first file's columns, then the partition columns.
    auto s = std::make_shared<Schema>();
    if (!source.files.empty()) {
      RAP_ASSIGN_OR_RETURN(auto reader, FileReader::Open(source.store, source.files[0].path, options.reader));
      s->fields = reader->arrow_schema()->fields;
    }
    for (const Field& f : source.partition_columns) {
      if (s->FieldIndex(f.name) < 0) s->fields.push_back(f);
    }
    table_schema = std::move(s);
  }
  std::vector<int> fields;
  if (options.columns.empty()) {
    for (size_t i = 0; i < table_schema->fields.size(); ++i) fields.push_back(static_cast<int>(i));
  } else {
    for (const std::string& name : options.columns) {
      int i = table_schema->FieldIndex(name);
      if (i < 0) return Status::InvalidArgument("scan: unknown column '" + name + "'");
      fields.push_back(i);
    }
  }
  auto out = std::make_shared<Schema>();
  for (int f : fields) {
    out_cols.push_back(Resolve(f));
    out->fields.push_back(table_schema->fields[static_cast<size_t>(f)]);
  }
  out_schema = std::move(out);
  if (options.filter) {
    RAP_ASSIGN_OR_RETURN(Predicate p, Predicate::Bind(options.filter, *table_schema));
    auto fs = std::make_shared<Schema>();
    // Rebind against the schema of just the filter columns, the batch the filter sees.
    for (int c : p.columns()) {
      filter_cols.push_back(Resolve(c));
      fs->fields.push_back(table_schema->fields[static_cast<size_t>(c)]);
    }
    RAP_ASSIGN_OR_RETURN(predicate, Predicate::Bind(options.filter, *fs));
    filter_schema = std::move(fs);
    std::vector<ExprPtr> conjuncts;
    SplitConjuncts(options.filter, &conjuncts);
    for (const ExprPtr& conj : conjuncts) {
      FilterStage st;
      auto ss = std::make_shared<Schema>();
      for (const std::string& name : ReferencedColumns(*conj)) {
        const int c = filter_schema->FieldIndex(name);
        if (c < 0) return Status::Internal("scan: conjunct column '" + name + "' is not a filter column");
        st.cols.push_back(static_cast<size_t>(c));
        ss->fields.push_back(filter_schema->fields[static_cast<size_t>(c)]);
      }
      RAP_ASSIGN_OR_RETURN(st.predicate, Predicate::Bind(conj, *ss));
      st.schema = std::move(ss);
      stages.push_back(std::move(st));
    }
    dictionary_eligible.assign(filter_cols.size(), options.dictionary_filter);
    for (size_t c = 0; c < filter_cols.size(); ++c) {
      if (filter_cols[c].partition >= 0) dictionary_eligible[c] = false;
      for (const ColumnSource& o : out_cols) {
        if (o.name == filter_cols[c].name) dictionary_eligible[c] = false;
      }
    }
    for (const FilterStage& st : stages) {
      if (st.cols.size() > 1) {
        for (size_t c : st.cols) dictionary_eligible[c] = false;
      }
    }
  }
  return Status::OK();
}

Status Scanner::Impl::ScanFile(size_t file_index) {
  const read::ScanFile& file = source.files[file_index];
  ++stats.files;
  if (file.partition_values.size() != source.partition_columns.size()) {
    return Status::InvalidArgument(file.path + ": " + std::to_string(file.partition_values.size()) +
                                   " partition values for " + std::to_string(source.partition_columns.size()) +
                                   " partition columns");
  }
  // Partition pruning: partition columns are constants of the file.
  if (predicate) {
    auto part_stats = [&](int c) -> std::optional<ColumnStats> {
      const ColumnSource& cs = filter_cols[static_cast<size_t>(c)];
      if (cs.partition < 0) return std::nullopt;
      return StatsFromValue(ValueAt(*file.partition_values[static_cast<size_t>(cs.partition)], 0));
    };
    if (predicate->CanMatch(part_stats) == Match::kNever) {
      ++stats.files_pruned;
      return Status::OK();
    }
    // File statistics (Delta add.stats): prune without opening the file.
    if (options.use_statistics && !file.column_stats.empty()) {
      auto file_stats = [&](int c) -> std::optional<ColumnStats> {
        const ColumnSource& cs = filter_cols[static_cast<size_t>(c)];
        if (cs.partition >= 0) return part_stats(c);
        const int f = table_schema->FieldIndex(cs.name);
        if (f < 0 || static_cast<size_t>(f) >= file.column_stats.size()) return std::nullopt;
        return file.column_stats[static_cast<size_t>(f)];
      };
      if (predicate->CanMatch(file_stats) == Match::kNever) {
        ++stats.files_pruned_by_stats;
        return Status::OK();
      }
    }
  }
  FileReaderOptions ro = options.reader;
  ro.use_page_index = options.use_page_index;
  RAP_ASSIGN_OR_RETURN(std::shared_ptr<FileReader> reader, FileReader::Open(source.store, file.path, ro));
  // Leaf column of each filter column in this file (-1: partition column or absent from the file).
  std::vector<int> filter_leaf;
  for (const ColumnSource& cs : filter_cols) {
    int leaf = -1;
    if (cs.partition < 0) {
      for (const parquet::FieldNode& f : reader->schema().fields()) {
        if (f.field.name == cs.physical && f.column >= 0 && f.children.empty()) leaf = f.column;
      }
    }
    filter_leaf.push_back(leaf);
  }
  for (int rg = 0; rg < reader->num_row_groups() && !done; ++rg) {
    RAP_RETURN_NOT_OK(ScanRowGroup(file_index, *reader, rg, filter_leaf));
  }
  ReaderStats rs = reader->stats();
  stats.requests += rs.requests;
  stats.read_calls += rs.read_calls;
  stats.bytes += rs.bytes;
  stats.footer_requests += rs.tail_requests;
  stats.footer_bytes += rs.tail_bytes;
  stats.page_index_from_tail += rs.page_index_from_tail;
  for (const ColumnReadStats& c : rs.columns) {
    stats.pages_read += c.data_pages_read;
    stats.pages_skipped += c.data_pages_skipped;
  }
  return Status::OK();
}

Status Scanner::Impl::ScanRowGroup(size_t file_index, FileReader& reader, int rg, const std::vector<int>& filter_leaf) {
  const read::ScanFile& file = source.files[file_index];
  const int64_t rg_rows = reader.row_group_num_rows(rg);
  ++stats.row_groups;
  if (rg_rows == 0) return Status::OK();
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
  RowSelection candidates = RowSelection::All(rg_rows);
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
      if (leaf < 0) {  // absent from this file: all NULL
        ColumnStats s;
        s.null_count = rg_rows;
        s.num_values = rg_rows;
        return s;
      }
      const DataTypePtr* ft = usable_type(static_cast<size_t>(c));
      const auto& cc = rg_meta.columns[static_cast<size_t>(leaf)];
      if (!ft || !options.use_statistics || !cc.meta_data || !cc.meta_data->statistics) return std::nullopt;
      return StatsFromParquet(*cc.meta_data->statistics, reader.schema().column(leaf).physical_type, **ft, rg_rows);
    };
    if (predicate->CanMatch(rg_stats) == Match::kNever) {
      ++stats.row_groups_pruned;
      return Status::OK();
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
      candidates = predicate->PagesMayMatch([&](int c) { return pages[static_cast<size_t>(c)]; }, rg_rows);
    }
  }
  stats.rows_in_row_groups += rg_rows;
  // Deletion vectors: drop the deleted rows of this row group from the candidates.
  if (!file.deleted_rows.empty()) {
    const uint64_t first = static_cast<uint64_t>(reader.row_group_first_row(rg));
    auto lo = std::lower_bound(file.deleted_rows.begin(), file.deleted_rows.end(), first);
    auto hi = std::lower_bound(lo, file.deleted_rows.end(), first + static_cast<uint64_t>(rg_rows));
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
  if (candidates.empty()) return Status::OK();

  // Read 1: the filter's data columns for the candidate rows (one planned read); evaluate. A conjunct
  // of one dictionary-encoded, filter-only column is evaluated once per dictionary entry and looked
  // up per row by code; the other conjuncts over the decoded values.
  std::vector<int64_t> selected_rows;  // row numbers within the row group
  std::vector<ArrayPtr> filter_arrays(filter_cols.size());
  std::vector<int64_t> keep_positions;  // positions within the candidate rows
  if (predicate) {
    std::vector<std::string> phys;
    for (size_t c = 0; c < filter_cols.size(); ++c) {
      if (filter_leaf[c] >= 0) phys.push_back(filter_cols[c].physical);
    }
    std::unique_ptr<FileReader::FetchedRowGroup> fetched;
    if (!phys.empty()) {
      RAP_ASSIGN_OR_RETURN(Projection proj, reader.Project(phys));
      RAP_ASSIGN_OR_RETURN(fetched, reader.FetchRowGroup(rg, candidates, proj));
    }
    const int64_t n = candidates.Count();
    std::vector<std::optional<FileReader::DictionaryCodes>> codes(filter_cols.size());
    std::vector<std::string> value_phys;
    for (size_t c = 0; c < filter_cols.size(); ++c) {
      if (filter_leaf[c] < 0) continue;
      if (dictionary_eligible[c]) {
        RAP_ASSIGN_OR_RETURN(codes[c], fetched->ReadDictionaryCodes(candidates, filter_leaf[c]));
      }
      if (!codes[c]) value_phys.push_back(filter_cols[c].physical);
    }
    RecordBatch fb;
    if (!value_phys.empty()) {
      RAP_ASSIGN_OR_RETURN(Projection proj, reader.Project(value_phys));
      RAP_ASSIGN_OR_RETURN(fb, fetched->Read(candidates, proj));
    }
    for (size_t c = 0; c < filter_cols.size(); ++c) {
      const ColumnSource& cs = filter_cols[c];
      if (codes[c]) continue;
      ArrayPtr arr;
      if (cs.partition >= 0) {
        RAP_ASSIGN_OR_RETURN(arr, RepeatValue(*file.partition_values[static_cast<size_t>(cs.partition)], n));
      } else if (filter_leaf[c] < 0) {
        RAP_ASSIGN_OR_RETURN(arr, MakeNullArray(cs.type, n));
      } else {
        int bi = fb.schema ? fb.schema->FieldIndex(cs.physical) : -1;
        if (bi < 0 || fb.columns[static_cast<size_t>(bi)]->length != n) {
          return Status::Internal(file.path + ": filter column '" + cs.name + "' missing from read 1");
        }
        RAP_ASSIGN_OR_RETURN(arr, CastArray(fb.columns[static_cast<size_t>(bi)], cs.type));
      }
      filter_arrays[c] = arr;
    }
    std::vector<uint8_t> keep(static_cast<size_t>(n), 1);
    for (const FilterStage& st : stages) {
      if (st.cols.size() == 1 && codes[st.cols[0]]) {
        const size_t c = st.cols[0];
        const FileReader::DictionaryCodes& dc = *codes[c];
        // The conjunct's result per dictionary entry (entry k at index k + 1) and for NULL (index 0).
        RAP_ASSIGN_OR_RETURN(ArrayPtr dict, CastArray(dc.dictionary, filter_cols[c].type));
        RecordBatch eval;
        eval.schema = st.schema;
        eval.num_rows = dict->length;
        eval.columns.push_back(dict);
        RAP_ASSIGN_OR_RETURN(std::vector<uint8_t> per_entry, st.predicate.Select(eval));
        RAP_ASSIGN_OR_RETURN(eval.columns[0], MakeNullArray(filter_cols[c].type, 1));
        eval.num_rows = 1;
        RAP_ASSIGN_OR_RETURN(std::vector<uint8_t> for_null, st.predicate.Select(eval));
        std::vector<uint8_t> lut(per_entry.size() + 1);
        lut[0] = for_null[0];
        std::copy(per_entry.begin(), per_entry.end(), lut.begin() + 1);
        const int32_t* code = dc.codes.data();
        for (int64_t i = 0; i < n; ++i) keep[static_cast<size_t>(i)] &= lut[static_cast<size_t>(code[i] + 1)];
        ++stats.filter_dictionary_chunks;
        continue;
      }
      RecordBatch eval;
      eval.schema = st.schema;
      eval.num_rows = n;
      for (size_t c : st.cols) eval.columns.push_back(filter_arrays[c]);
      RAP_ASSIGN_OR_RETURN(std::vector<uint8_t> k, st.predicate.Select(eval));
      for (int64_t i = 0; i < n; ++i) keep[static_cast<size_t>(i)] &= k[static_cast<size_t>(i)];
    }
    int64_t pos = 0;
    for (const RowRange& r : candidates) {
      for (int64_t row = r.begin; row < r.end; ++row, ++pos) {
        if (keep[static_cast<size_t>(pos)]) {
          selected_rows.push_back(row);
          keep_positions.push_back(pos);
        }
      }
    }
  } else {
    selected_rows.reserve(static_cast<size_t>(candidates.Count()));
    for (const RowRange& r : candidates) {
      for (int64_t row = r.begin; row < r.end; ++row) selected_rows.push_back(row);
    }
  }
  stats.rows_selected += static_cast<int64_t>(selected_rows.size());
  // A limit stops the scan once enough rows are selected.
  if (options.limit >= 0) {
    int64_t room = options.limit - emitted;
    if (room <= 0) {
      done = true;
      return Status::OK();
    }
    if (static_cast<int64_t>(selected_rows.size()) > room) {
      selected_rows.resize(static_cast<size_t>(room));
      if (!keep_positions.empty()) keep_positions.resize(static_cast<size_t>(room));
    }
  }
  if (selected_rows.empty()) return Status::OK();
  const int64_t n = static_cast<int64_t>(selected_rows.size());
  std::vector<RowRange> ranges;
  for (int64_t row : selected_rows) {
    if (!ranges.empty() && ranges.back().end == row) ranges.back().end = row + 1;
    else ranges.push_back(RowRange{row, row + 1});
  }
  RowSelection selection = RowSelection::FromRanges(std::move(ranges));

  // Read 2: the other projected data columns, only the pages of the selected rows.
  std::vector<std::string> phys;
  std::vector<bool> in_file(out_cols.size(), false);
  auto filter_index = [&](const ColumnSource& cs) -> int {
    for (size_t c = 0; c < filter_cols.size(); ++c) {
      if (filter_cols[c].name == cs.name && filter_arrays[c]) return static_cast<int>(c);
    }
    return -1;
  };
  for (size_t o = 0; o < out_cols.size(); ++o) {
    const ColumnSource& cs = out_cols[o];
    if (cs.partition >= 0 || filter_index(cs) >= 0) continue;
    for (const parquet::FieldNode& f : reader.schema().fields()) {
      if (f.field.name == cs.physical) in_file[o] = true;
    }
    if (in_file[o] && std::find(phys.begin(), phys.end(), cs.physical) == phys.end()) phys.push_back(cs.physical);
  }
  RecordBatch db;
  if (!phys.empty()) {
    RAP_ASSIGN_OR_RETURN(Projection proj, reader.Project(phys));
    RAP_ASSIGN_OR_RETURN(db, reader.ReadRowGroup(rg, selection, proj));
  }
  RecordBatch out;
  out.schema = out_schema;
  out.num_rows = n;
  for (size_t o = 0; o < out_cols.size(); ++o) {
    const ColumnSource& cs = out_cols[o];
    ArrayPtr arr;
    if (cs.partition >= 0) {
      RAP_ASSIGN_OR_RETURN(arr, RepeatValue(*file.partition_values[static_cast<size_t>(cs.partition)], n));
    } else if (int fi = filter_index(cs); fi >= 0) {
      RAP_ASSIGN_OR_RETURN(arr, TakeRows(*filter_arrays[static_cast<size_t>(fi)], keep_positions));
    } else if (!in_file[o]) {
      RAP_ASSIGN_OR_RETURN(arr, MakeNullArray(cs.type, n));
    } else {
      int bi = db.schema ? db.schema->FieldIndex(cs.physical) : -1;
      if (bi < 0 || db.columns[static_cast<size_t>(bi)]->length != n) {
        return Status::Internal(file.path + ": column '" + cs.name + "' missing from read 2");
      }
      RAP_ASSIGN_OR_RETURN(arr, CastArray(db.columns[static_cast<size_t>(bi)], cs.type));
    }
    out.columns.push_back(std::move(arr));
  }
  const uint64_t base = (static_cast<uint64_t>(file_index) << kRowIdFileShift) + static_cast<uint64_t>(reader.row_group_first_row(rg));
  for (int64_t start = 0; start < n; start += options.batch_size) {
    int64_t len = std::min(options.batch_size, n - start);
    ScanBatch sb;
    sb.batch.schema = out_schema;
    sb.batch.num_rows = len;
    for (const ArrayPtr& c : out.columns) sb.batch.columns.push_back(len == n ? c : SliceArray(c, start, len));
    sb.row_ids.reserve(static_cast<size_t>(len));
    for (int64_t k = start; k < start + len; ++k) sb.row_ids.push_back(base + static_cast<uint64_t>(selected_rows[static_cast<size_t>(k)]));
    pending.push_back(std::move(sb));
  }
  emitted += n;
  stats.rows_output += n;
  if (options.limit >= 0 && emitted >= options.limit) done = true;
  return Status::OK();
}

Scanner::Scanner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Scanner::~Scanner() = default;

Result<std::unique_ptr<Scanner>> Scanner::Make(ScanSource source, ScanOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->source = std::move(source);
  impl->options = std::move(options);
  if (!impl->source.store) return Status::InvalidArgument("scan: no object store");
  if (impl->options.estimator_scope == ScanOptions::EstimatorScope::kScan && !impl->options.reader.plan.estimator) {
    impl->options.reader.plan.estimator = std::make_shared<plan::TransportEstimator>();
    if (!impl->options.reader.plan.also_report_to) {
      impl->options.reader.plan.also_report_to = plan::EstimatorRegistry::Global().Get(impl->source.store->endpoint());
    }
  }
  RAP_RETURN_NOT_OK(impl->Init());
  if (impl->options.limit == 0) impl->done = true;
  return std::unique_ptr<Scanner>(new Scanner(std::move(impl)));
}

const SchemaPtr& Scanner::schema() const { return impl_->out_schema; }
const ScanStats& Scanner::stats() const { return impl_->stats; }

Result<std::optional<ScanBatch>> Scanner::Next() {
  Impl& s = *impl_;
  while (s.pending.empty() && !s.done && s.next_file < s.source.files.size()) {
    size_t f = s.next_file++;
    Status st = s.ScanFile(f);
    if (!st.ok()) return st;
  }
  if (s.pending.empty()) return std::optional<ScanBatch>();
  ScanBatch b = std::move(s.pending.front());
  s.pending.pop_front();
  return std::optional<ScanBatch>(std::move(b));
}

}  // namespace rap::read
