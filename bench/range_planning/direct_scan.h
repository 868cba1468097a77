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
#include "rap/read/expr.h"
#include "rap/read/scanner.h"
#include "rap/util/result.h"

namespace rap::bench {

struct ScanFileRef {
  std::string path;  // within the store
  uint64_t size = 0;
  int64_t rows = 0;
};

struct ScanQuery {
  std::vector<std::string> columns;  // output columns
  read::ExprPtr filter;
  std::string filter_column = "event_id";
};

struct ScanResult {
  int64_t rows = 0;
  std::string fingerprint;
  double seconds = 0;  // first poll -> result consumed and checked
};

// Runs the query over `files` in order through `store`. The footer cache is bypassed, so every scan
// reads every footer like a fresh process would.
Result<ScanResult> DirectScan(const io::ObjectStorePtr& store, const std::vector<ScanFileRef>& files,
                              const ScanQuery& query);

// Runs the query through the Scanner over `source` (one file at a time, no prefetch, footer cache
// off). The timer starts at the first Next() of the prepared scanner; row ids are the Scanner's.
Result<ScanResult> ScannerScan(read::ScanSource source, const ScanQuery& query);

}  // namespace rap::bench
