#include "rap/read/scanner.h"

#include <algorithm>
#include <future>

#include "read/scanner_impl.h"

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

void SplitConjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == Expr::Kind::kAnd) {
    for (const ExprPtr& c : e->children) SplitConjuncts(c, out);
  } else {
    out->push_back(e);
  }
}

}  // namespace

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
    }
    for (const FilterStage& st : stages) {
      if (st.cols.size() > 1) {
        for (size_t c : st.cols) dictionary_eligible[c] = false;
      }
    }
  }
  return Status::OK();
}

Result<std::shared_ptr<Scanner::Impl::OpenedFile>> Scanner::Impl::OpenNextFile(size_t file_index) {
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
      return std::shared_ptr<OpenedFile>();
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
        return std::shared_ptr<OpenedFile>();
      }
    }
  }
  FileReaderOptions ro = options.reader;
  ro.use_page_index = options.use_page_index;
  auto opened = std::make_shared<OpenedFile>();
  opened->index = file_index;
  RAP_ASSIGN_OR_RETURN(opened->reader, FileReader::Open(source.store, file.path, ro));
  for (const ColumnSource& cs : filter_cols) {
    int leaf = -1;
    if (cs.partition < 0) {
      for (const parquet::FieldNode& f : opened->reader->schema().fields()) {
        if (f.field.name == cs.physical && f.column >= 0 && f.children.empty()) leaf = f.column;
      }
    }
    opened->filter_leaf.push_back(leaf);
  }
  opened->num_row_groups = opened->reader->num_row_groups();
  opened->unmerged = opened->num_row_groups;
  return opened;
}

Status Scanner::Impl::FillWindow() {
  const size_t window = pool ? 2 * pool->size() : 1;
  while (!done && in_flight.size() < window) {
    if (!submitting || next_row_group >= submitting->num_row_groups) {
      if (submitting && submitting->unmerged == 0) FinishFile(*submitting);
      submitting.reset();
      if (next_file >= source.files.size()) break;
      RAP_ASSIGN_OR_RETURN(submitting, OpenNextFile(next_file++));
      next_row_group = 0;
      continue;
    }
    RowGroupTask t;
    t.file = submitting;
    t.out = std::make_shared<RowGroupOutput>();
    const int rg = next_row_group++;
    auto task = std::make_shared<std::packaged_task<Status()>>(
        [this, file = t.file, out = t.out, rg, room = Room()] {
          return ScanRowGroup(file->index, *file->reader, rg, file->filter_leaf, room, out.get());
        });
    t.status = task->get_future();
    if (pool) {
      pool->Submit([task] { (*task)(); });
    } else {
      (*task)();
    }
    in_flight.push_back(std::move(t));
  }
  return Status::OK();
}

Status Scanner::Impl::MergeOldest() {
  RowGroupTask t = std::move(in_flight.front());
  in_flight.pop_front();
  RAP_RETURN_NOT_OK(t.status.get());
  Merge(std::move(*t.out));
  if (--t.file->unmerged == 0) FinishFile(*t.file);
  return Status::OK();
}

void Scanner::Impl::FinishFile(OpenedFile& file) {
  if (file.finished) return;
  file.finished = true;
  ReaderStats rs = file.reader->stats();
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
}

void Scanner::Impl::Drain() {
  for (RowGroupTask& t : in_flight) {
    if (t.status.valid()) t.status.wait();
  }
  for (RowGroupTask& t : in_flight) FinishFile(*t.file);
  in_flight.clear();
  if (submitting) FinishFile(*submitting);
  submitting.reset();
}

void Scanner::Impl::Merge(RowGroupOutput&& out) {
  const ScanStats& d = out.stats;
  stats.row_groups += d.row_groups;
  stats.row_groups_pruned += d.row_groups_pruned;
  stats.rows_in_row_groups += d.rows_in_row_groups;
  stats.rows_deleted += d.rows_deleted;
  stats.rows_candidate += d.rows_candidate;
  stats.rows_selected += d.rows_selected;
  stats.filter_dictionary_chunks += d.filter_dictionary_chunks;
  for (ScanBatch& b : out.batches) {
    const int64_t room = Room();
    if (room == 0) break;
    if (room > 0 && b.batch.num_rows > room) {  // a row group evaluated before the limit was this close
      for (ArrayPtr& c : b.batch.columns) c = SliceArray(c, 0, room);
      b.batch.num_rows = room;
      b.row_ids.resize(static_cast<size_t>(room));
    }
    emitted += b.batch.num_rows;
    stats.rows_output += b.batch.num_rows;
    pending.push_back(std::move(b));
  }
  if (options.limit >= 0 && emitted >= options.limit) done = true;
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
  if (impl->options.threads < 1) return Status::InvalidArgument("scan: threads must be at least 1");
  RAP_RETURN_NOT_OK(impl->Init());
  if (impl->options.threads > 1) impl->pool = std::make_unique<ThreadPool>(static_cast<size_t>(impl->options.threads));
  if (impl->options.limit == 0) impl->done = true;
  return std::unique_ptr<Scanner>(new Scanner(std::move(impl)));
}

const SchemaPtr& Scanner::schema() const { return impl_->out_schema; }
const ScanStats& Scanner::stats() const { return impl_->stats; }

Result<std::optional<ScanBatch>> Scanner::Next() {
  Impl& s = *impl_;
  if (!s.failure.ok()) return s.failure;
  while (s.pending.empty() && !s.done) {
    Status st = s.FillWindow();
    if (st.ok() && s.in_flight.empty()) break;  // every file scanned
    if (st.ok()) st = s.MergeOldest();
    if (!st.ok()) {
      s.failure = st;
      s.done = true;
      s.Drain();
      return st;
    }
  }
  if (s.done) s.Drain();  // a limit: row groups still running are waited for, their reads counted
  if (s.pending.empty()) return std::optional<ScanBatch>();
  ScanBatch b = std::move(s.pending.front());
  s.pending.pop_front();
  return std::optional<ScanBatch>(std::move(b));
}

}  // namespace rap::read
