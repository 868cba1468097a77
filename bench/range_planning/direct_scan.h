// The query of bench_range_planning, run either through the Scanner (rap/read/scanner.h, what `rap
// scan` uses) or file by file with the FileReader directly: per row group, read 1
// fetches the filter column, the filter gives the selected rows, read 2 fetches the output columns'
// pages holding selected rows. One file at a time, no prefetch. The result is consumed into a
// fingerprint (rap/read/fingerprint.h) and checked (row count, selected ids).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rap/io/object_store.h"
#include "rap/io/planned_read.h"
#include "rap/read/expr.h"
#include "rap/read/scanner.h"
#include "rap/util/result.h"

namespace rap::bench {

struct ScanFileRef {
  std::string path;  // within the store
  uint64_t size = 0;
  int64_t rows = 0;
};

// The conditions of a scan through the Scanner.
// - kSeed: seed 000's benchmark conditions: one file at a time, no file prefetch (warmup NONE), the
//   file's ranges read one after another in the consumer's thread (no producers), one range per row
//   group (no split), and seed 000's evidence rule (each plan's own throughput evidence). Per row
//   group one read of the filter column and one of the output columns: 16 plans per scan.
// - kDefault: `rap scan`'s defaults (ScanOptions{}): prefetch producers with fetch-ahead, row groups
//   split into ranges of about 1 MiB of projected bytes, RAW warmup of the next file, and throughput
//   evidence pooled over the scan's concurrent plans (plan/throughput_pool.h).
enum class ScanMode { kSeed, kDefault };
const char* ScanModeName(ScanMode mode);  // "seed", "default"

struct ScanQuery {
  std::vector<std::string> columns;  // output columns
  read::ExprPtr filter;
  std::string filter_column = "event_id";
  // The reader's planned reads: policy, estimator (null: a fresh one for this scan, i.e. cold) and
  // PlanLog under test.
  io::PlanOptions plan;
  ScanMode mode = ScanMode::kSeed;  // ScannerScan only (DirectScan is always the seed's loop)
};

// Reads that are not planned column data: footer tails and page indexes.
struct MetadataTraffic {
  uint64_t tail_requests = 0, tail_bytes = 0;    // footer reads
  uint64_t index_requests = 0, index_bytes = 0;  // planned page-index reads (PlanRecord purpose "page_index")
  uint64_t index_from_tail = 0;                  // page-index ranges sliced from the footer read
  uint64_t requests() const { return tail_requests + index_requests; }
  uint64_t bytes() const { return tail_bytes + index_bytes; }
};

struct ScanResult {
  int64_t rows = 0;
  std::string fingerprint;
  double seconds = 0;  // first poll -> result consumed and checked
  MetadataTraffic metadata;  // footer part (page-index plans are added from the PlanLog by the caller)
};

// Runs the query over `files` in order through `store`. The footer cache is bypassed, so every scan
// reads every footer like a fresh process would.
Result<ScanResult> DirectScan(const io::ObjectStorePtr& store, const std::vector<ScanFileRef>& files,
                              const ScanQuery& query);

// Runs the query through the Scanner over `source` under query.mode (footer cache off in both
// modes). The timer starts at the first Next() of the prepared scanner; row ids are the Scanner's. A
// null query.plan.estimator uses ScanOptions::EstimatorScope::kScan (a cold estimator per scan).
Result<ScanResult> ScannerScan(read::ScanSource source, const ScanQuery& query);

}  // namespace rap::bench
