// The synthetic Delta table of bench_range_planning (seed 000): four Parquet files written with
// rap's writer, each with two row groups of 256 rows, 32 rows per data page and a page index;
// columns row_id, event_id (the predicate column) and 48 nullable string payload columns; plus a
// `_delta_log/00000000000000000000.json` commit (protocol, metaData with schemaString, one add per file).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rap/util/result.h"

namespace rap::bench {

struct FixtureOptions {
  int files = 4;
  int row_groups_per_file = 2;
  int rows_per_row_group = 256;
  int rows_per_page = 32;
  int payload_columns = 48;
  // Mean length of a non-null payload value; lengths are uniform in mean +- spread. Chosen so the
  // four files total about 43 MB like the seed's table.
  int payload_mean_bytes = 492;
  int payload_spread_bytes = 200;
  int null_one_in = 8;  // about one payload value in this many is NULL
  uint64_t seed = 0x5eed000;
};

// event_id of the one matching row per data page is kHotEventBase + the page's ordinal in the table;
// every other row's event_id is its table row ordinal (< kHotEventBase). So the filter below matches
// exactly one row in each data page, and no page can be pruned by its statistics.
inline constexpr int64_t kHotEventBase = 1'000'000;
inline constexpr const char* kFilterText = "event_id >= 1000000";

struct FixtureFile {
  std::string relative_path;  // "part-00000.parquet"
  uint64_t size = 0;
  int64_t rows = 0;
  // First byte after the last column chunk: the page index and the footer start here. Reads at or
  // beyond it are metadata reads, reads before it are column data.
  uint64_t data_end = 0;
  uint64_t footer_and_index_bytes = 0;  // size - data_end
};

struct Fixture {
  std::string root;  // directory of the table
  std::vector<FixtureFile> files;
  uint64_t total_bytes = 0;  // sum of the Parquet file sizes
  int64_t total_rows = 0;
  int64_t expected_matches = 0;  // one per data page
};

// The payload column names: payload_00 .. payload_NN.
std::string PayloadName(int i);

// Writes the table under `root` (created; must not hold another table).
Result<Fixture> WriteFixture(const std::string& root, const FixtureOptions& options = {});

}  // namespace rap::bench
