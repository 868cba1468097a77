// MergeReader: merge-on-read of sorted runs (seed 001). A run is an ordered list of Parquet or ORC
// files (ORC by IsOrcPath, read stripe by stripe), each sorted by the key columns (and the run as a
// whole sorted: a file's first key is not below the previous file's last). The reader yields one
// stream ordered by the key through a LoserTree (one key comparison per tree level per row); rows with equal keys keep run order (run 0 first), and
// within a run file and row order. With keep_last_per_key only the last row of each group of equal
// keys is returned: the latest run's (and within it the last) version, as a primary-key table's
// merge-on-read. Before merging, the first file of every run is warmed: opened (footer) and its
// first batch read, for all runs at once on short-lived I/O threads, so the merge does not pay one
// round trip per run in sequence.
//
// Keys: 1 to kMaxMergeKeyColumns columns compared lexicographically; NULL sorts before every value. Types: every
// integer (signed or unsigned), date, time, timestamp, float, double (NaN after every number), bool,
// string and binary (unsigned bytewise), fixed-size binary. A key that goes down within a run is an
// InvalidArgument naming the file and row (verify_sorted), so a mis-sorted input never yields a
// silently mis-ordered stream.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "rap/read/scanner.h"
#include "rap/util/result.h"

namespace rap::read {

inline constexpr size_t kMaxMergeKeyColumns = 16;

struct MergeRun {
  std::vector<ScanFile> files;  // in run order (ScanFile::path and, when known, size are used)
};

struct MergeOptions {
  std::vector<std::string> key_columns;  // 1 to kMaxMergeKeyColumns top-level columns, compared lexicographically
  std::vector<std::string> columns;      // output columns in this order; empty = every column of the first file
  bool keep_last_per_key = false;        // of equal keys, only the last (latest run wins)
  bool verify_sorted = true;             // InvalidArgument when a run's key goes down
  int64_t batch_size = 64 * 1024;        // rows per output batch (at most)
  int64_t limit = -1;                    // < 0: no limit
  FileReaderOptions reader;              // reader.batch_size: rows per input batch of each run
  int warmup_threads = 8;                // at most this many runs warmed at once (>= 1)
};

struct MergeStats {
  int64_t runs = 0;
  int64_t runs_warmed = 0;       // runs whose first file was opened and read before the merge began
  int64_t files = 0;             // files opened
  int64_t rows_in = 0;           // rows read from the runs
  int64_t rows_out = 0;
  int64_t rows_deduplicated = 0;  // rows dropped by keep_last_per_key
  int64_t comparisons = 0;        // key comparisons made by the loser tree
  int64_t requests = 0;           // physical requests of the files' readers
  uint64_t bytes = 0;
  std::string ToString() const;   // one "key value" per line
};

class MergeReader {
 public:
  // Validates the options, then warms the first file of every run. An empty run is allowed.
  static Result<std::unique_ptr<MergeReader>> Make(io::ObjectStorePtr store, std::vector<MergeRun> runs,
                                                   MergeOptions options);
  ~MergeReader();

  const SchemaPtr& schema() const;  // output schema
  // The next batch (never empty), in key order, or nullopt at the end. Errors are sticky.
  Result<std::optional<RecordBatch>> Next();
  // The same with row ids: file ordinal * 2^40 + row in the file, where the file ordinal counts the
  // files of run 0, then run 1, ... (see ScanBatch).
  Result<std::optional<ScanBatch>> NextWithRowIds();
  const MergeStats& stats() const;

 private:
  struct Impl;
  explicit MergeReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Three-way comparison of a[i] and b[j] of the same key type (NULL first; see the header comment).
// NotSupported for other types (checked once per batch, not per row, by the MergeReader).
int CompareKeyValues(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j);
bool IsSupportedKeyType(const DataType& type);

}  // namespace rap::read
