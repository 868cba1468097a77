#include "rap/read/scanner.h"

#include <algorithm>

#include <fmt/format.h>

#include "rap/columnar/quantile.h"
#include "rap/util/clock.h"

#include "read/scanner_impl.h"

namespace rap::read {

std::string ScanStats::ToString() const {
  std::string s;
  auto line = [&](const char* k, int64_t v) { s += std::string(k) + " " + std::to_string(v) + "\n"; };
  line("files", files);
  line("files_pruned", files_pruned);
  line("files_pruned_by_stats", files_pruned_by_stats);
  line("files_pruned_by_index", files_pruned_by_index);
  line("rows_pruned_by_index", rows_pruned_by_index);
  line("row_groups", row_groups);
  line("row_groups_pruned", row_groups_pruned);
  line("rows_in_row_groups", rows_in_row_groups);
  line("row_index_groups", row_index_groups);
  line("row_index_groups_pruned", row_index_groups_pruned);
  line("bloom_filter_groups_pruned", bloom_filter_groups_pruned);
  line("rows_deleted", rows_deleted);
  line("rows_candidate", rows_candidate);
  line("rows_selected", rows_selected);
  line("rows_output", rows_output);
  line("pages_read", pages_read);
  line("pages_skipped", pages_skipped);
  line("pages_shared", pages_shared);
  line("dictionary_pages_read", dictionary_pages_read);
  line("dictionary_pages_shared", dictionary_pages_shared);
  line("filter_dictionary_chunks", filter_dictionary_chunks);
  line("read_calls", read_calls);
  line("requests", requests);
  line("bytes", static_cast<int64_t>(bytes));
  line("footer_requests", footer_requests);
  line("footer_bytes", static_cast<int64_t>(footer_bytes));
  line("page_index_from_tail", page_index_from_tail);
  line("prefetch_ranges", prefetch.ranges);
  line("prefetch_files_parallel", prefetch.files_parallel);
  line("prefetch_adaptive_disabled", prefetch.adaptive_disabled);
  line("prefetch_small_files", prefetch.small_files);
  line("prefetch_decoded_ahead", prefetch.decoded_ahead);
  line("prefetch_fetched_ahead", prefetch.fetched_ahead);
  line("prefetch_fetch_ahead_bytes", static_cast<int64_t>(prefetch_fetch_ahead_bytes));
  line("prefetch_queue_full", prefetch.queue_full);
  line("prefetch_max_queue_depth", prefetch.max_queue_depth);
  line("prefetch_batches", prefetch.batches);
  auto ms = [&](const char* k, double v) { s += fmt::format("{} {:.3f}\n", k, v * 1e3); };
  ms("prefetch_consumer_wait_ms", prefetch.consumer_wait_s);
  ms("prefetch_range_ms_p50", columnar::Quantile(prefetch.range_seconds, 0.5));
  ms("prefetch_range_ms_p95", columnar::Quantile(prefetch.range_seconds, 0.95));
  ms("file_boundary_wait_ms_p50", columnar::Quantile(file_boundary_wait_s, 0.5));
  line("warmup_files", warmup_files);
  line("warmup_bytes", static_cast<int64_t>(warmup_bytes));
  line("warmup_bytes_unused", static_cast<int64_t>(warmup_bytes_unused));
  line("warmup_partial", warmup_partial);
  line("warmup_ahead", warmup_ahead);
  line("warmup_waited", warmup_waited);
  line("memory_peak", static_cast<int64_t>(memory_peak));
  line("memory_waits", memory_waits);
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
  loaded_deletes.resize(source.files.size());
  table_schema = source.schema;
  if (!table_schema) {
    // Directory tables: the first file's columns, then the partition columns.
    auto s = std::make_shared<Schema>();
    if (!source.files.empty() && IsOrcPath(source.files[0].path)) {
      RAP_ASSIGN_OR_RETURN(auto reader, OrcFileReader::Open(source.store, source.files[0].path, options.reader));
      s->fields = reader->arrow_schema()->fields;
    } else if (!source.files.empty()) {
      RAP_ASSIGN_OR_RETURN(auto reader, FileReader::Open(source.store, source.files[0].path, options.reader));
      s->fields = reader->arrow_schema()->fields;
    }
    for (const Field& f : source.partition_columns) {
      if (s->FieldIndex(f.name) < 0) s->fields.push_back(f);
    }
    table_schema = std::move(s);
  }
  auto out = std::make_shared<Schema>();
  if (options.columns.empty()) {
    for (size_t i = 0; i < table_schema->fields.size(); ++i) {
      out_cols.push_back(Resolve(static_cast<int>(i)));
      out->fields.push_back(table_schema->fields[i]);
    }
  } else {
    for (const std::string& name : options.columns) {
      int i = table_schema->FieldIndex(name);
      if (i >= 0) {
        out_cols.push_back(Resolve(i));
        out->fields.push_back(table_schema->fields[static_cast<size_t>(i)]);
        continue;
      }
      // "s.x.y": a field inside struct columns, by logical names (a top-level name may hold dots:
      // the longest top-level prefix wins).
      bool found = false;
      for (size_t dot = name.rfind('.'); dot != std::string::npos && dot > 0 && !found; dot = name.rfind('.', dot - 1)) {
        const int top = table_schema->FieldIndex(name.substr(0, dot));
        if (top < 0) continue;
        ColumnSource cs = Resolve(top);
        Field leaf = table_schema->fields[static_cast<size_t>(top)];
        std::string rest = name.substr(dot + 1);
        while (true) {
          if (leaf.type->id != TypeId::kStruct) break;
          // The longest child name that is a prefix of `rest` followed by '.' or its end.
          int best = -1;
          for (size_t c = 0; c < leaf.type->children.size(); ++c) {
            const std::string& cn = leaf.type->children[c].name;
            if (rest.compare(0, cn.size(), cn) == 0 && (rest.size() == cn.size() || rest[cn.size()] == '.') &&
                (best < 0 || cn.size() > leaf.type->children[static_cast<size_t>(best)].name.size())) {
              best = static_cast<int>(c);
            }
          }
          if (best < 0) break;
          const Field& child = leaf.type->children[static_cast<size_t>(best)];
          cs.path.push_back(static_cast<size_t>(best));
          rest = rest.size() == child.name.size() ? std::string() : rest.substr(child.name.size() + 1);
          leaf = child;
          if (rest.empty()) break;
        }
        if (!rest.empty() || cs.path.empty()) continue;
        found = true;
        cs.name = name;
        out_cols.push_back(std::move(cs));
        out->fields.push_back(Field{name, leaf.type, true});
      }
      if (!found) return Status::InvalidArgument("scan: unknown column '" + name + "'");
    }
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

Result<std::shared_ptr<Scanner::Impl::OpenedFile>> Scanner::Impl::PrepareFile(
    size_t file_index, std::shared_ptr<io::CancellationToken> cancel) const {
  const read::ScanFile& file = source.files[file_index];
  auto opened = std::make_shared<OpenedFile>();
  opened->index = file_index;
  opened->counts.files = 1;
  if (file.partition_values.size() != source.partition_columns.size()) {
    return Status::InvalidArgument(file.path + ": " + std::to_string(file.partition_values.size()) +
                                   " partition values for " + std::to_string(source.partition_columns.size()) +
                                   " partition columns");
  }
  if (file.candidate_rows && file.candidate_rows->empty()) {  // an index found no candidate row in it
    opened->counts.files_pruned_by_index = 1;
    opened->pruned = true;
    return opened;
  }
  // Partition pruning: partition columns are constants of the file.
  if (predicate) {
    auto part_stats = [&](int c) -> std::optional<ColumnStats> {
      const ColumnSource& cs = filter_cols[static_cast<size_t>(c)];
      if (cs.partition < 0) return std::nullopt;
      return StatsFromValue(ValueAt(*file.partition_values[static_cast<size_t>(cs.partition)], 0));
    };
    if (predicate->CanMatch(part_stats) == Match::kNever) {
      opened->counts.files_pruned = 1;
      opened->pruned = true;
      return opened;
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
        opened->counts.files_pruned_by_stats = 1;
        opened->pruned = true;
        return opened;
      }
    }
  }
  if (file.deleted_rows_loader) {  // a Paimon bucket merged when its first file is reached
    auto rows = file.deleted_rows_loader();
    if (!rows.ok()) return rows.status().WithContext(file.path);
    loaded_deletes[file_index] = std::move(*rows);
  }
  FileReaderOptions ro = options.reader;
  ro.use_page_index = options.use_page_index;
  opened->cancel = cancel ? std::move(cancel) : std::make_shared<io::CancellationToken>(options.cancel.get());
  ro.io.cancel = opened->cancel.get();
  ro.memory = memory;
  if (options.warmup.level != WarmupLevel::kNone || (options.prefetch.fetch_ahead > 0 && options.prefetch.producers > 1)) {
    opened->cache = std::make_shared<ReadAheadCache>(options.warmup.pre_buffer_limit, memory.get());
    ro.read_ahead = opened->cache;
  }
  if (IsOrcPath(file.path)) {
    RAP_RETURN_NOT_OK(PrepareOrcFile(*opened, ro));  // scanner_orc.cc
    return opened;
  }
  RAP_ASSIGN_OR_RETURN(opened->reader, FileReader::Open(source.store, file.path, ro));
  const FileReader& reader = *opened->reader;
  const std::vector<parquet::FieldNode>* fields = &reader.schema().fields();
  std::vector<parquet::FieldNode> mapped;  // the file's fields with ids from the name mapping
  if (!source.field_ids.empty()) {
    bool any_id = false;
    for (const parquet::SchemaNode& n : reader.schema().nodes()) any_id = any_id || n.field_id.has_value();
    if (!any_id && source.name_mapping) {
      mapped = *fields;
      ApplyNameMapping(*source.name_mapping, mapped);
      fields = &mapped;
    } else if (!any_id) {
      // Delta column mapping `id`: a file without field ids cannot be read by id (the protocol: refuse
      // it); an Iceberg table without a name mapping likewise.
      return Status::NotSupported(file.path + ": the Parquet schema holds no field ids, but the table finds its "
                                  "columns by field id (Delta column mapping mode 'id', Iceberg without "
                                  "schema.name-mapping.default)");
    }
  }
  auto columns = std::make_shared<FileColumns>();
  for (const ColumnSource& cs : out_cols) columns->out.push_back(BindColumn(ForFile(cs, file), *fields));
  for (const ColumnSource& cs : filter_cols) columns->filter.push_back(BindColumn(ForFile(cs, file), *fields));
  opened->columns = columns;
  for (const FileColumn& fc : columns->filter) {
    int leaf = -1;
    if (fc.present) {
      for (const parquet::FieldNode& f : reader.schema().fields()) {
        if (f.field.name == fc.name && f.column >= 0 && f.children.empty()) leaf = f.column;
      }
    }
    opened->filter_leaf.push_back(leaf);
  }
  // The leaves the scan reads: filter columns and the output's data columns present in the file.
  std::vector<std::string> phys;
  for (const FileColumn& fc : columns->out) {
    if (fc.present && std::find(phys.begin(), phys.end(), fc.name) == phys.end()) phys.push_back(fc.name);
  }
  std::vector<int> leaves;
  if (!phys.empty()) {
    RAP_ASSIGN_OR_RETURN(Projection proj, reader.Project(phys));
    leaves = proj.columns;
  }
  for (int l : opened->filter_leaf) {
    if (l >= 0) leaves.push_back(l);
  }
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  opened->leaves = leaves;
  std::vector<int> row_groups;
  for (int rg = 0; rg < reader.num_row_groups(); ++rg) row_groups.push_back(rg);
  RangeOptions range_options = options.prefetch.ranges;
  if (!options.use_page_index) range_options.split_row_groups = false;
  RAP_ASSIGN_OR_RETURN(opened->ranges, PlanReadRanges(*opened->reader, row_groups, leaves, range_options));
  return opened;
}

void Scanner::Impl::StartReading(OpenedFile& file, bool ahead) const {
  if (file.prefetch || file.pruned) return;
  auto reader = file.reader;
  const size_t index = file.index;
  const std::vector<int> filter_leaf = file.filter_leaf;
  std::shared_ptr<const FileColumns> columns = file.columns;
  RangeTask task;
  if (auto orc = file.orc) {
    task = [this, orc, index, fields = file.orc_fields, columns](const ReadRange& r, RangeOutput* out) {
      return ScanOrcRange(index, *orc, r, fields, *columns, RoomHint(), out);
    };
  } else {
    task = [this, reader, index, filter_leaf, columns](const ReadRange& r, RangeOutput* out) {
      Status st = ScanRange(index, *reader, r, filter_leaf, *columns, RoomHint(), out);
      if (r.share) r.share->RangeDone(r.begin, r.end);  // its shared pages may go
      return st;
    };
  }
  // The PrefetchReader is the file's last member: it (and its fetchers) go before the file.
  FetchAheadTask fetch;
  if (file.cache) {
    fetch = [this, f = &file](const std::vector<const ReadRange*>& r) {
      return f->orc ? PlanOrcFetchAhead(*f, r) : PlanFetchAhead(*f, r);
    };
  }
  file.prefetch = PrefetchReader::Make(file.ranges, std::move(task), options.batch_size, options.prefetch,
                                       file.cancel.get(), ahead, memory.get(), std::move(fetch));
}

Result<std::shared_ptr<Scanner::Impl::OpenedFile>> Scanner::Impl::TakeNextFile() {
  while (next_file < source.files.size()) {
    const size_t index = next_file++;
    std::shared_ptr<OpenedFile> file;
    bool decode_ahead = false;  // DECODED, the warmup's own start missed (it checked `decode` just before it was set)
    if (started && started->index == index) {
      // Its producers run already and the next file is warming; its own warmup fetch may still be
      // in flight (the producers wait for those bytes, not the consumer here).
      std::unique_ptr<Warming> w = std::move(started);
      if (!w->ready.load(std::memory_order_acquire)) ++stats.warmup_waited;
      if (w->thread.joinable()) w->thread.join();
      file = std::move(w->file);
      // The file after it is one ahead of the consumer now: at DECODED its warmup starts its
      // producers once prepared (or StartWarmedFileEarly does, if it is prepared already).
      if (warming) warming->decode.store(true);
    } else if (warming && warming->index == index) {
      if (!warming->ready.load(std::memory_order_acquire)) ++stats.warmup_waited;
      if (warming->thread.joinable()) warming->thread.join();
      std::unique_ptr<Warming> w = std::move(warming);
      if (w->ahead) ++stats.warmup_ahead;
      RAP_RETURN_NOT_OK(w->status);
      file = std::move(w->file);
      decode_ahead = options.warmup.level == WarmupLevel::kDecoded && w->decode.load();
    } else {
      StopWarmup();
      RAP_ASSIGN_OR_RETURN(file, PrepareFile(index, nullptr));
    }
    CountOpened(*file);
    if (file->pruned) continue;
    StartReading(*file, decode_ahead);  // (nothing when its producers run already)
    StartWarmup(next_file);
    return file;
  }
  return std::shared_ptr<OpenedFile>();
}

void Scanner::Impl::CountOpened(const OpenedFile& file) {
  stats.files += file.counts.files;
  stats.files_pruned += file.counts.files_pruned;
  stats.files_pruned_by_stats += file.counts.files_pruned_by_stats;
  stats.files_pruned_by_index += file.counts.files_pruned_by_index;
  stats.warmup_files += file.counts.warmup_files;
  stats.warmup_bytes += file.counts.warmup_bytes;
  stats.warmup_partial += file.counts.warmup_partial;
}

void Scanner::Impl::FinishFile(OpenedFile& file) {
  if (file.finished || file.pruned) return;
  file.finished = true;
  if (file.prefetch) {
    file.prefetch->Cancel();
    stats.prefetch.Add(file.prefetch->stats());
    file.prefetch.reset();  // joins the producers before the reader's counters are read
  }
  if (file.cache) {
    stats.warmup_bytes_unused += file.cache->bytes_unused();
    stats.prefetch_fetch_ahead_bytes += file.cache->bytes_reserved() - std::min(file.cache->bytes_reserved(), file.counts.warmup_bytes);
  }
  ReaderStats rs = file.orc ? file.orc->stats() : file.reader->stats();
  stats.requests += rs.requests;
  stats.read_calls += rs.read_calls;
  stats.bytes += rs.bytes;
  stats.footer_requests += rs.tail_requests;
  stats.footer_bytes += rs.tail_bytes;
  stats.page_index_from_tail += rs.page_index_from_tail;
  for (const ColumnReadStats& c : rs.columns) {
    stats.pages_read += c.data_pages_read;
    stats.pages_skipped += c.data_pages_skipped;
    stats.pages_shared += c.data_pages_shared;
    stats.dictionary_pages_shared += c.dictionary_pages_shared;
    stats.dictionary_pages_read += c.dictionary_pages;
  }
}

void Scanner::Impl::Drain() {
  if (current) {
    if (current->prefetch) current->prefetch->Cancel();
    if (current->cancel) current->cancel->Cancel();
    FinishFile(*current);
  }
  current.reset();
  if (started) {  // taken early, never reached: its requests were made, what it fetched is unused
    if (started->cancel) started->cancel->Cancel();
    if (started->thread.joinable()) started->thread.join();
    if (std::shared_ptr<OpenedFile> f = started->file) {
      if (f->prefetch) f->prefetch->Cancel();
      stats.warmup_files += f->counts.warmup_files;  // (as StopWarmup: a file not reached is no file of the scan)
      stats.warmup_bytes += f->counts.warmup_bytes;
      stats.warmup_partial += f->counts.warmup_partial;
      FinishFile(*f);
    }
    started.reset();
  }
  StopWarmup();
}

void Scanner::Impl::MergeRangeStats(const ScanStats& d) {
  stats.row_groups += d.row_groups;
  stats.row_groups_pruned += d.row_groups_pruned;
  stats.rows_in_row_groups += d.rows_in_row_groups;
  stats.row_index_groups += d.row_index_groups;
  stats.row_index_groups_pruned += d.row_index_groups_pruned;
  stats.bloom_filter_groups_pruned += d.bloom_filter_groups_pruned;
  stats.rows_deleted += d.rows_deleted;
  stats.rows_candidate += d.rows_candidate;
  stats.rows_selected += d.rows_selected;
  stats.filter_dictionary_chunks += d.filter_dictionary_chunks;
}

void Scanner::Impl::MergeBatch(ScanBatch&& b) {
  const int64_t room = Room();
  if (room == 0) return;
  if (room > 0 && b.batch.num_rows > room) {  // a range evaluated before the limit was this close
    for (ArrayPtr& c : b.batch.columns) c = SliceArray(c, 0, room);
    b.batch.num_rows = room;
    b.row_ids.resize(static_cast<size_t>(room));
  }
  emitted += b.batch.num_rows;
  emitted_hint.store(emitted);
  stats.rows_output += b.batch.num_rows;
  pending.push_back(std::move(b));
  if (options.limit >= 0 && emitted >= options.limit) done = true;
}

// (Scanner's constructors and destructor: scanner_fanout.cc, where Scanner::FanOut is complete.)

Result<std::unique_ptr<Scanner>> Scanner::Make(ScanSource source, ScanOptions options) {
  if (!source.store) return Status::InvalidArgument("scan: no object store");
  if (options.estimator_scope == ScanOptions::EstimatorScope::kScan && !options.reader.plan.estimator) {
    options.reader.plan.estimator = std::make_shared<plan::TransportEstimator>();
    if (!options.reader.plan.also_report_to) {
      options.reader.plan.also_report_to = plan::EstimatorRegistry::Global().Get(source.store->endpoint());
    }
  }
  io::PlanOptions& po = options.reader.plan;
  if (options.throughput_evidence == plan::ThroughputEvidence::kPooled && !po.throughput_pool) {
    // The pool's sinks are the estimators ReadPlanned reports to.
    auto planning = po.estimator ? po.estimator : plan::EstimatorRegistry::Global().Get(source.store->endpoint());
    po.throughput_pool = std::make_shared<plan::ThroughputPool>(
        std::vector<std::shared_ptr<plan::TransportEstimator>>{planning, po.also_report_to}, planning->config());
  }
  if (options.file_parallelism < 0) return Status::InvalidArgument("scan: file parallelism must not be negative");
  if (options.file_parallelism == 0) options.file_parallelism = source.store->is_remote() ? 4 : 1;
  if (options.file_parallelism > 1 && source.files.size() > 1 && options.limit != 0) {
    // Every file's scan shares the estimator and the throughput pool set above.
    return MakeFanOut(std::move(source), std::move(options));
  }
  if (!options.reader.io.cancel) options.reader.io.cancel = options.cancel.get();  // (the schema's footer read)
  auto impl = std::make_unique<Impl>();
  impl->source = std::move(source);
  impl->options = std::move(options);
  if (impl->options.prefetch.producers < 1) return Status::InvalidArgument("scan: prefetch producers must be at least 1");
  if (impl->options.prefetch.queue_batches < 1) return Status::InvalidArgument("scan: the prefetch queue must hold a batch");
  if (impl->options.memory_limit > 0) impl->memory = std::make_shared<MemoryBudget>(impl->options.memory_limit);
  RAP_RETURN_NOT_OK(impl->Init());
  if (impl->options.limit == 0) impl->done = true;
  return std::unique_ptr<Scanner>(new Scanner(std::move(impl)));
}

const SchemaPtr& Scanner::schema() const { return fanout_ ? FanOutSchema() : impl_->out_schema; }
const ScanStats& Scanner::stats() const { return fanout_ ? FanOutStats() : impl_->stats; }

Result<std::optional<ScanBatch>> Scanner::Next() {
  if (fanout_) return FanOutNext();
  Impl& s = *impl_;
  if (!s.failure.ok()) return s.failure;
  while (s.pending.empty() && !s.done) {
    Status st;
    if (!s.current) {
      auto next = s.TakeNextFile();
      if (!next.ok()) {
        st = next.status();
      } else if (!*next) {
        s.done = true;  // every file scanned
        break;
      } else {
        s.current = std::move(*next);
        continue;
      }
    } else {
      Impl::OpenedFile& f = *s.current;
      s.StartWarmedFileEarly();
      auto item = f.prefetch->Next();
      if (f.first_item && s.boundary_start_s >= 0) s.stats.file_boundary_wait_s.push_back(NowSeconds() - s.boundary_start_s);
      f.first_item = false;
      if (!item.ok()) {
        st = item.status();
      } else if (!*item) {
        s.FinishFile(f);
        s.current.reset();
        s.boundary_start_s = NowSeconds();
      } else if ((*item)->batch) {
        s.MergeBatch(std::move(*(*item)->batch));
      } else {
        s.MergeRangeStats((*item)->range_stats);
      }
    }
    if (!st.ok()) {
      s.failure = st;
      s.done = true;
      s.Drain();
      if (s.memory) s.stats.memory_peak = s.memory->peak();
      return st;
    }
  }
  if (s.done) s.Drain();  // a limit: producers and warmup are cancelled, their reads counted
  if (s.memory) {
    s.stats.memory_peak = s.memory->peak();
    s.stats.memory_waits = s.memory->waits();
  }
  if (s.pending.empty()) return std::optional<ScanBatch>();
  ScanBatch b = std::move(s.pending.front());
  s.pending.pop_front();
  return std::optional<ScanBatch>(std::move(b));
}

}  // namespace rap::read
