// Files written by DuckDB (@duckdb/node-api through tests/npm/duckdb_sql.mjs), read by rap and
// checked value by value against the formula that made them.
//
// DELTA_BINARY_PACKED extremes: DuckDB's PARQUET_VERSION V2 writer encodes integers with
// DELTA_BINARY_PACKED and computes the deltas in 64 bits, so INT32 columns spanning the full range
// get 33-bit miniblocks (and INT64 ones 65-bit miniblocks); PARQUET-2435 says readers accept them and
// wrap. Near the extremes and exactly min/max alternating (every delta overflows). Skipped (with the
// reason) only when node or the npm module is missing.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rap/columnar/array_format.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "testing/cli_run.h"
#include "testing/duckdb_run.h"
#include "testing/paths.h"

namespace rap::read {
namespace {

constexpr int64_t kRows = 3000;

struct Column {
  std::string name;
  std::string sql;                                        // DuckDB expression of i (BIGINT 0..kRows)
  std::function<std::optional<std::string>(int64_t)> expect;  // rap's FormatValue of row i
};

std::optional<std::string> Str(auto v) { return std::to_string(v); }

std::vector<Column> Columns() {
  const int32_t i32min = INT32_MIN, i32max = INT32_MAX;
  const int64_t i64min = INT64_MIN, i64max = INT64_MAX;
  auto h32 = [](int64_t i) { return static_cast<uint32_t>(static_cast<uint64_t>(i) * 2654435761u); };
  auto h64 = [](int64_t i) { return static_cast<uint64_t>(i) * 11400714819323198485ull; };
  return {
      // Alternating near the extremes (distinct values, so that DuckDB does not pick a dictionary).
      {"alt32", "(CASE WHEN i % 2 = 0 THEN -2147483648 + i ELSE 2147483647 - i END)::INTEGER",
       [=](int64_t i) { return Str(static_cast<int32_t>(i % 2 == 0 ? i32min + i : i32max - i)); }},
      {"hash32", "((i * 2654435761) % 4294967296 - 2147483648)::INTEGER",
       [=](int64_t i) { return Str(static_cast<int32_t>(h32(i) ^ 0x80000000u)); }},
      {"null32", "(CASE WHEN i % 5 = 0 THEN NULL WHEN i % 3 = 0 THEN -2147483648 ELSE 2147483647 - i END)::INTEGER",
       [=](int64_t i) -> std::optional<std::string> {
         if (i % 5 == 0) return "null";
         return Str(i % 3 == 0 ? i32min : static_cast<int32_t>(i32max - i));
       }},
      {"alt64", "(CASE WHEN i % 2 = 0 THEN -9223372036854775808 + i ELSE 9223372036854775807 - i END)::BIGINT",
       [=](int64_t i) { return Str(i % 2 == 0 ? i64min + i : i64max - i); }},
      {"hash64", "((i::HUGEINT * 11400714819323198485) % 18446744073709551616 - 9223372036854775808)::BIGINT",
       [=](int64_t i) { return Str(static_cast<int64_t>(h64(i) ^ (uint64_t{1} << 63))); }},
      {"null64", "(CASE WHEN i % 7 = 0 THEN NULL WHEN i % 2 = 0 THEN -9223372036854775808 ELSE i END)::BIGINT",
       [=](int64_t i) -> std::optional<std::string> {
         if (i % 7 == 0) return "null";
         return Str(i % 2 == 0 ? i64min : i);
       }},
      {"altu32", "(CASE WHEN i % 2 = 0 THEN i ELSE 4294967295 - i END)::UINTEGER",
       [=](int64_t i) { return Str(static_cast<uint32_t>(i % 2 == 0 ? i : 4294967295 - i)); }},
      {"hashu32", "((i * 2654435761) % 4294967296)::UINTEGER", [=](int64_t i) { return Str(h32(i)); }},
  };
}

class DuckDbFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string missing = rap::testing::DuckDbMissing();
    if (!missing.empty()) GTEST_SKIP() << missing;
  }
};

// DuckDB writes `columns` for rows 0..kRows (PARQUET_VERSION V2 and `options`); rap reads every value.
void WriteAndCheck(const std::vector<Column>& columns, const std::string& options) {
  rap::testing::TempDir tmp;
  const std::string file = tmp.Join("extremes.parquet");
  std::string select;
  for (const auto& c : columns) select += (select.empty() ? "" : ", ") + c.sql + " AS " + c.name;
  auto meta = rap::testing::RunDuckDb(
      {"COPY (SELECT " + select + " FROM range(" + std::to_string(kRows) + ") t(i)) TO '" + file +
           "' (FORMAT parquet, PARQUET_VERSION V2, ROW_GROUP_SIZE 1024" + options + ")",
       "SELECT DISTINCT path_in_schema AS c, encodings AS e FROM parquet_metadata('" + file + "') ORDER BY c"});
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  // The file must really use the encoding under test.
  ASSERT_EQ(meta->size(), columns.size()) << meta->dump();
  for (const auto& row : *meta) {
    EXPECT_NE(row["e"].get<std::string>().find("DELTA_BINARY_PACKED"), std::string::npos) << row.dump();
  }

  auto url = io::OpenUrl(file);
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  auto reader = FileReader::Open(url->store, url->path, {});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto projection = (*reader)->Project();
  ASSERT_TRUE(projection.ok()) << projection.status().ToString();
  auto batches = (*reader)->ReadAll(std::nullopt, *projection);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  for (const auto& c : columns) {
    const int idx = projection->schema->FieldIndex(c.name);
    ASSERT_GE(idx, 0) << c.name;
    int64_t row = 0;
    for (const auto& b : *batches) {
      for (int64_t r = 0; r < b.num_rows; ++r, ++row) {
        ASSERT_EQ(FormatValue(*b.columns[static_cast<size_t>(idx)], r), *c.expect(row)) << c.name << " row " << row;
      }
    }
    EXPECT_EQ(row, kRows) << c.name;
  }
}

TEST_F(DuckDbFiles, DeltaBinaryPackedExtremesOfInt32Int64UInt32) { WriteAndCheck(Columns(), ""); }

// Exactly min, max, min, ... (every delta overflows the type): without a dictionary limit DuckDB
// would pick dictionary encoding for two distinct values, so the limit is 0.
TEST_F(DuckDbFiles, DeltaBinaryPackedAlternatingExactMinMax) {
  const std::vector<Column> columns = {
      {"i32", "(CASE WHEN i % 2 = 0 THEN -2147483648 ELSE 2147483647 END)::INTEGER",
       [](int64_t i) { return Str(i % 2 == 0 ? INT32_MIN : INT32_MAX); }},
      {"i64", "(CASE WHEN i % 2 = 0 THEN -9223372036854775808 ELSE 9223372036854775807 END)::BIGINT",
       [](int64_t i) { return Str(i % 2 == 0 ? INT64_MIN : INT64_MAX); }},
      {"u32", "(CASE WHEN i % 2 = 0 THEN 0 ELSE 4294967295 END)::UINTEGER",
       [](int64_t i) { return Str(i % 2 == 0 ? uint32_t{0} : UINT32_MAX); }},
      {"i32n", "(CASE WHEN i % 3 = 0 THEN NULL WHEN i % 2 = 0 THEN 2147483647 ELSE -2147483648 END)::INTEGER",
       [](int64_t i) -> std::optional<std::string> {
         if (i % 3 == 0) return "null";
         return Str(i % 2 == 0 ? INT32_MAX : INT32_MIN);
       }},
  };
  WriteAndCheck(columns, ", DICTIONARY_SIZE_LIMIT 0");
}

}  // namespace
}  // namespace rap::read
