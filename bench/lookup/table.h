// The table of bench_lookup (issue 13): `files` Parquet files written with the writer's default
// options (what `rap convert` writes without flags: uncompressed, dictionary, pages of at most
// 20,000 rows or 1 MiB, a page index), not rewritten for lookups. Key `k` (int64) plus
// `columns - 1` value columns cycling through int64, double (10% NULL), a dictionary-friendly
// string, int32 and a random string (20% NULL). Each key has about `rows_per_key` rows spread over
// `files_per_key` distinct files; inside a file the rows are shuffled (arrival order, not sorted).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rap::bench {

struct LookupTableOptions {
  int files = 16;
  int64_t rows = 2'000'000;
  int columns = 20;
  int rows_per_key = 10;
  int files_per_key = 3;
  uint64_t seed = 0x10c0c;
};

struct LookupTable {
  std::vector<std::string> files;  // names below the directory, "part-NN.parquet"
  int64_t rows = 0;
  int64_t keys = 0;                // keys are 0 .. keys-1
  uint64_t bytes = 0;
  std::vector<std::string> value_columns;  // c01 ...
};

// Writes the files into `dir` (created); exits the process with a message on an error.
LookupTable WriteLookupTable(const std::string& dir, const LookupTableOptions& options);

// `count` batches of `size` distinct keys drawn uniformly from [0, keys).
std::vector<std::vector<int64_t>> KeyBatches(int count, int size, int64_t keys, uint64_t seed);

}  // namespace rap::bench
