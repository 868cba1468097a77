// rap._rap.scan: a table scan (read::Scanner over table::OpenTable), the same options as `rap scan`.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "binding.h"
#include "rap/index/indexed_scan.h"
#include "rap/io/planned_read.h"
#include "rap/plan/planner.h"
#include "rap/read/scanner.h"
#include "rap/table/iceberg_metadata.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/util/units.h"

namespace rap::py {

index::IndexTableOptions SnapshotArgs(std::optional<int64_t> snapshot_id, std::optional<std::string> as_of,
                                      const std::optional<std::map<std::string, std::string>>& location_map) {
  index::IndexTableOptions o;
  o.snapshot_id = snapshot_id;
  if (as_of) {
    auto ms = table::iceberg::ParseAsOf(*as_of);
    if (!ms.ok()) Raise(Status::InvalidArgument("as_of: " + ms.status().message()));
    o.as_of_ms = *ms;
  }
  if (o.snapshot_id && o.as_of_ms) Raise(Status::InvalidArgument("give snapshot_id or as_of, not both"));
  if (location_map) {
    for (const auto& [from, to_prefix] : *location_map) {
      if (from.empty()) Raise(Status::InvalidArgument("location_map: an empty OLD prefix"));
      o.location_map.emplace_back(from, to_prefix);
    }
  }
  return o;
}
namespace {

StatsList ScanStatsList(const read::ScanStats& s, const index::IndexedScanReport& ix) {
  StatsList l;
  l.push_back({"index_used", 0, true, {}, false, ix.used ? ix.name : std::string()});
  l.push_back({"index_kind", 0, true, {}, false, ix.kind});
  l.push_back({"index_predicate", 0, true, {}, false, ix.predicate});
  l.push_back({"index_reason", 0, true, {}, false, ix.reason});
  auto i = [&](const char* n, double v) { l.push_back({n, v, true, {}, false, std::nullopt}); };
  auto f = [&](const char* n, double v) { l.push_back({n, v, false, {}, false, std::nullopt}); };
  i("files", s.files);
  i("files_pruned", s.files_pruned);
  i("files_pruned_by_stats", s.files_pruned_by_stats);
  i("files_pruned_by_index", s.files_pruned_by_index);
  i("rows_pruned_by_index", s.rows_pruned_by_index);
  i("index_files_indexed", ix.files_indexed);
  i("index_files_unindexed", ix.files_unindexed);
  i("index_candidate_rows", ix.candidate_rows);
  i("index_requests", ix.index.requests);
  i("index_bytes", static_cast<double>(ix.index.bytes));
  i("row_groups", s.row_groups);
  i("row_groups_pruned", s.row_groups_pruned);
  i("rows_in_row_groups", s.rows_in_row_groups);
  i("row_index_groups", s.row_index_groups);
  i("row_index_groups_pruned", s.row_index_groups_pruned);
  i("bloom_filter_groups_pruned", s.bloom_filter_groups_pruned);
  i("rows_deleted", s.rows_deleted);
  i("rows_candidate", s.rows_candidate);
  i("rows_selected", s.rows_selected);
  i("rows_output", s.rows_output);
  i("pages_read", s.pages_read);
  i("pages_skipped", s.pages_skipped);
  i("pages_shared", s.pages_shared);
  i("dictionary_pages_shared", s.dictionary_pages_shared);
  i("dictionary_pages_read", s.dictionary_pages_read);
  i("filter_dictionary_chunks", s.filter_dictionary_chunks);
  i("requests", s.requests);
  i("read_calls", s.read_calls);
  i("bytes", static_cast<double>(s.bytes));
  i("footer_requests", s.footer_requests);
  i("footer_bytes", static_cast<double>(s.footer_bytes));
  i("page_index_from_tail", s.page_index_from_tail);
  i("prefetch_ranges", s.prefetch.ranges);
  i("prefetch_files_parallel", s.prefetch.files_parallel);
  i("prefetch_adaptive_disabled", s.prefetch.adaptive_disabled);
  i("prefetch_small_files", s.prefetch.small_files);
  i("prefetch_decoded_ahead", s.prefetch.decoded_ahead);
  i("prefetch_fetched_ahead", s.prefetch.fetched_ahead);
  i("prefetch_fetch_ahead_bytes", static_cast<double>(s.prefetch_fetch_ahead_bytes));
  i("prefetch_queue_full", s.prefetch.queue_full);
  i("prefetch_max_queue_depth", s.prefetch.max_queue_depth);
  i("prefetch_batches", s.prefetch.batches);
  f("prefetch_consumer_wait_s", s.prefetch.consumer_wait_s);
  i("warmup_files", s.warmup_files);
  i("warmup_bytes", static_cast<double>(s.warmup_bytes));
  i("warmup_bytes_unused", static_cast<double>(s.warmup_bytes_unused));
  i("warmup_partial", s.warmup_partial);
  i("warmup_ahead", s.warmup_ahead);
  i("warmup_waited", s.warmup_waited);
  i("memory_peak", static_cast<double>(s.memory_peak));
  i("memory_waits", s.memory_waits);
  l.push_back({"file_boundary_wait_s", 0, false, s.file_boundary_wait_s, true, std::nullopt});
  return l;
}

// A scan as a RecordBatchReader; its counters go to the shared holder after every batch.
class ScanReader : public columnar::RecordBatchReader {
 public:
  ScanReader(std::unique_ptr<read::Scanner> scanner, std::shared_ptr<StatsHolder> stats,
             index::IndexedScanReport indexed)
      : scanner_(std::move(scanner)), stats_(std::move(stats)), indexed_(std::move(indexed)) {}
  ~ScanReader() override {
    stats_->Set(ScanStatsList(scanner_->stats(), indexed_));
    scanner_.reset();  // cancels the in-flight reads and joins the producers and the warmup
  }
  SchemaPtr schema() const override { return scanner_->schema(); }
  Result<std::optional<RecordBatch>> Next() override {
    RAP_ASSIGN_OR_RETURN(auto b, scanner_->Next());
    stats_->Set(ScanStatsList(scanner_->stats(), indexed_));
    if (!b) return std::optional<RecordBatch>();
    return std::optional<RecordBatch>(std::move(b->batch));
  }

 private:
  std::unique_ptr<read::Scanner> scanner_;
  std::shared_ptr<StatsHolder> stats_;
  index::IndexedScanReport indexed_;
};

Result<read::WarmupLevel> ParseWarmup(const std::string& s) {
  if (s == "none") return read::WarmupLevel::kNone;
  if (s == "raw") return read::WarmupLevel::kRaw;
  if (s == "decoded") return read::WarmupLevel::kDecoded;
  return Status::InvalidArgument("warmup: '" + s + "' is not none, raw or decoded");
}

std::unique_ptr<Reader> Scan(const std::string& url, std::optional<std::vector<std::string>> columns,
                             std::optional<std::string> where, std::optional<int64_t> limit,
                             std::optional<int64_t> version, int prefetch, const std::string& warmup,
                             nb::handle memory_limit, std::optional<int64_t> batch_size,
                             std::optional<std::string> plan, nb::handle storage_options,
                             std::optional<int64_t> snapshot_id, std::optional<std::string> as_of,
                             std::optional<std::map<std::string, std::string>> location_map,
                             std::optional<std::string> index_name, bool no_index, std::optional<std::string> tag) {
  // Every argument is checked before any I/O.
  read::ScanOptions so;
  if (columns) so.columns = *columns;
  if (limit) {
    if (*limit < 0) Raise(Status::InvalidArgument("limit: " + std::to_string(*limit) + " is negative"));
    so.limit = *limit;
  }
  if (batch_size) {
    if (*batch_size < 1) Raise(Status::InvalidArgument("batch_size: " + std::to_string(*batch_size) + " is not positive"));
    so.batch_size = *batch_size;
  }
  if (prefetch < 1 || prefetch > 256) {
    Raise(Status::InvalidArgument("prefetch: " + std::to_string(prefetch) + " is not in [1, 256]"));
  }
  so.prefetch.producers = prefetch;
  so.warmup.level = Unwrap(ParseWarmup(warmup));
  so.memory_limit = ByteSizeArg("memory_limit", memory_limit);
  if (plan) {
    auto p = plan::ParsePlanPolicy(*plan);
    if (!p.ok()) Raise(Status::InvalidArgument("plan: " + p.status().message()));
    so.reader.plan.policy = *p;
  }
  if (where) {
    auto e = read::ParseExpr(*where);
    if (!e.ok()) Raise(Status::InvalidArgument("where: " + e.status().message()));
    so.filter = *e;
  }
  table::OpenTableOptions to;
  if (version) {
    if (*version < 0) Raise(Status::InvalidArgument("version: " + std::to_string(*version) + " is negative"));
    to.version = *version;
  }
  index::IndexTableOptions snap = SnapshotArgs(snapshot_id, as_of, location_map);
  to.snapshot_id = snap.snapshot_id;
  to.as_of_ms = snap.as_of_ms;
  to.location_map = std::move(snap.location_map);
  to.tag = tag;
  to.store = ParseStoreOptions(storage_options);  // per call, down to io::OpenUrl (no environment)
  to.filter = so.filter;                          // partition pruning while listing (Iceberg)
  auto cancel = std::make_shared<io::CancellationToken>();  // Ctrl-C (Reader::Next)
  so.cancel = cancel;
  auto stats = std::make_shared<StatsHolder>();
  // An index of the table that answers `where` names the only rows that can match (rap scan --index).
  index::IndexedScanOptions io;
  io.disabled = no_index;
  if (index_name) io.name = *index_name;
  if (no_index && index_name) Raise(Status::InvalidArgument("give index or no_index, not both"));
  // ApplyIndex finds and opens indexes with the environment's store settings: with per-call
  // storage_options the scan does not look for them (a follow-up: pass the store options down).
  const bool own_store = !storage_options.is_none();
  if (own_store && index_name) {
    Raise(Status::InvalidArgument("index: not with storage_options (indexes are opened with the environment's "
                                  "store settings)"));
  }
  io.open.preload = false;
  io.open.plan.policy = so.reader.plan.policy;
  index::IndexedScanReport indexed;
  Result<std::unique_ptr<read::Scanner>> scanner = [&]() -> Result<std::unique_ptr<read::Scanner>> {
    nb::gil_scoped_release release;
    if (!own_store) index::PrefetchIndexListing(url, so.filter != nullptr, &io);  // overlaps the open
    RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(url, to));
    RAP_ASSIGN_OR_RETURN(read::ScanSource src, table::ToScanSource(snap));
    if (own_store) {
      indexed.reason = "storage_options: indexes are looked up with the environment's store settings only";
    } else {
      RAP_ASSIGN_OR_RETURN(indexed, index::ApplyIndex(url, snap, so.filter, &src, io));
    }
    return read::Scanner::Make(std::move(src), std::move(so));
  }();
  if (!scanner.ok()) Raise(scanner.status());
  SchemaPtr schema = (*scanner)->schema();
  stats->Set(ScanStatsList((*scanner)->stats(), indexed));
  return std::make_unique<Reader>(std::make_unique<ScanReader>(std::move(*scanner), stats, std::move(indexed)), schema,
                                  stats, cancel);
}

}  // namespace

void BindScan(nb::module_& m) {
  m.def("scan", &Scan, nb::arg("url"), nb::arg("columns") = nb::none(), nb::arg("where") = nb::none(),
        nb::arg("limit") = nb::none(), nb::arg("version") = nb::none(), nb::arg("prefetch") = 3,
        nb::arg("warmup") = "raw", nb::arg("memory_limit") = "2GiB", nb::arg("batch_size") = nb::none(),
        nb::arg("plan") = nb::none(), nb::arg("storage_options") = nb::none(), nb::arg("snapshot_id") = nb::none(),
        nb::arg("as_of") = nb::none(), nb::arg("location_map") = nb::none(), nb::arg("index") = nb::none(),
        nb::arg("no_index") = false, nb::arg("tag") = nb::none());
}

}  // namespace rap::py
