// The query of bench_range_planning through the FileReader (see direct_scan.h).
#include "range_planning/direct_scan.h"

#include <fmt/format.h>

#include "rap/read/file_reader.h"
#include "rap/read/fingerprint.h"
#include "rap/util/clock.h"

namespace rap::bench {

const char* ScanModeName(ScanMode mode) { return mode == ScanMode::kSeed ? "seed" : "default"; }

Result<ScanResult> DirectScan(const io::ObjectStorePtr& store, const std::vector<ScanFileRef>& files,
                              const ScanQuery& query) {
  read::FileReaderOptions ro;
  ro.use_metadata_cache = false;
  ro.plan = query.plan;
  if (!ro.plan.estimator) ro.plan.estimator = std::make_shared<plan::TransportEstimator>();  // cold
  read::Fingerprinter fp;
  ScanResult out;
  const double t0 = NowSeconds();
  uint64_t table_row = 0;
  for (const ScanFileRef& f : files) {
    RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(store, f.path, ro));
    RAP_ASSIGN_OR_RETURN(read::Projection filter_proj, reader->Project({query.filter_column}));
    RAP_ASSIGN_OR_RETURN(read::Projection out_proj, reader->Project(query.columns));
    RAP_ASSIGN_OR_RETURN(read::Predicate pred, read::Predicate::Bind(query.filter, *filter_proj.schema));
    for (int rg = 0; rg < reader->num_row_groups(); ++rg) {
      const int64_t n = reader->row_group_num_rows(rg);
      RAP_ASSIGN_OR_RETURN(RecordBatch keys, reader->ReadRowGroup(rg, read::RowSelection::All(n), filter_proj));
      if (keys.num_rows != n) {
        return Status::Corrupt(fmt::format("{}: row group {}: filter read returned {} of {} rows", f.path, rg,
                                           keys.num_rows, n));
      }
      RAP_ASSIGN_OR_RETURN(std::vector<uint8_t> keep, pred.Select(keys));
      std::vector<read::RowRange> ranges;
      std::vector<uint64_t> ids;
      for (int64_t i = 0; i < n; ++i) {
        if (!keep[static_cast<size_t>(i)]) continue;
        ranges.push_back({i, i + 1});
        ids.push_back(table_row + static_cast<uint64_t>(reader->row_group_first_row(rg) + i));
      }
      if (ids.empty()) continue;
      RAP_ASSIGN_OR_RETURN(RecordBatch rows,
                           reader->ReadRowGroup(rg, read::RowSelection::FromRanges(std::move(ranges)), out_proj));
      if (rows.num_rows != static_cast<int64_t>(ids.size())) {
        return Status::Corrupt(fmt::format("{}: row group {}: {} rows selected, {} returned", f.path, rg, ids.size(),
                                           rows.num_rows));
      }
      RAP_RETURN_NOT_OK(fp.Add(rows, ids));
    }
    table_row += static_cast<uint64_t>(reader->num_rows());
    const read::ReaderStats rs = reader->stats();
    out.metadata.tail_requests += static_cast<uint64_t>(rs.tail_requests);
    out.metadata.tail_bytes += rs.tail_bytes;
    out.metadata.index_from_tail += static_cast<uint64_t>(rs.page_index_from_tail);
  }
  out.rows = fp.rows();
  out.fingerprint = fp.ToString();
  out.seconds = NowSeconds() - t0;
  return out;
}

Result<ScanResult> ScannerScan(read::ScanSource source, const ScanQuery& query) {
  read::ScanOptions so;
  so.columns = query.columns;
  so.filter = query.filter;
  so.reader.use_metadata_cache = false;
  so.reader.plan = query.plan;
  so.estimator_scope = read::ScanOptions::EstimatorScope::kScan;  // used when query.plan.estimator is null
  if (query.mode == ScanMode::kSeed) {
    so.prefetch.producers = 1;
    so.prefetch.ranges.split_row_groups = false;
    so.warmup.level = read::WarmupLevel::kNone;
    so.throughput_evidence = plan::ThroughputEvidence::kPerPlan;
  }
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(source), std::move(so)));
  read::Fingerprinter fp;
  ScanResult out;
  const double t0 = NowSeconds();
  uint64_t last_id = 0;
  bool first = true;
  while (true) {
    RAP_ASSIGN_OR_RETURN(std::optional<read::ScanBatch> b, scanner->Next());
    if (!b) break;
    if (b->row_ids.size() != static_cast<size_t>(b->batch.num_rows)) {
      return Status::Corrupt(fmt::format("scanner: batch of {} rows with {} row ids", b->batch.num_rows,
                                         b->row_ids.size()));
    }
    for (uint64_t id : b->row_ids) {
      if (!first && id <= last_id) return Status::Corrupt(fmt::format("scanner: row id {} after {}", id, last_id));
      last_id = id;
      first = false;
    }
    RAP_RETURN_NOT_OK(fp.Add(b->batch, b->row_ids));
  }
  out.seconds = NowSeconds() - t0;
  out.rows = fp.rows();
  out.fingerprint = fp.ToString();
  const read::ScanStats& st = scanner->stats();
  out.metadata.tail_requests = static_cast<uint64_t>(st.footer_requests);
  out.metadata.tail_bytes = st.footer_bytes;
  out.metadata.index_from_tail = static_cast<uint64_t>(st.page_index_from_tail);
  return out;
}

}  // namespace rap::bench
