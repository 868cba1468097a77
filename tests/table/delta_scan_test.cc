// Full scans of every table in ../shared/delta-tables: row counts from the README, values against the
// golden tables' expected/ folders, typed partition columns, time travel, filters with pruning.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "rap/columnar/array_format.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/paths.h"

namespace rap::table {
namespace {

std::string Base(const std::string& name) { return testing::SharedDir() + "/delta-tables/" + name; }
std::string TablePath(const std::string& name) {
  return std::filesystem::is_directory(Base(name) + "/delta") ? Base(name) + "/delta" : Base(name);
}

struct ScanResult {
  int64_t rows = 0;
  std::vector<std::string> formatted;  // one line per row
  read::ScanStats stats;
  SchemaPtr schema;
};

Result<ScanResult> Scan(const std::string& url, read::ScanOptions options = {},
                        std::optional<int64_t> version = std::nullopt) {
  OpenTableOptions to;
  to.version = version;
  RAP_ASSIGN_OR_RETURN(TableSnapshot snap, OpenTable(url, to));
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, ToScanSource(snap));
  RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), std::move(options)));
  ScanResult out;
  out.schema = scanner->schema();
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto batch, scanner->Next());
    if (!batch) break;
    for (int64_t r = 0; r < batch->batch.num_rows; ++r) {
      std::string line;
      for (size_t c = 0; c < batch->batch.columns.size(); ++c) {
        line += (c ? " | " : "") + FormatValue(*batch->batch.columns[c], r);
      }
      out.formatted.push_back(std::move(line));
    }
    out.rows += batch->batch.num_rows;
  }
  out.stats = scanner->stats();
  return out;
}

TEST(DeltaScan, RowCountsOfEverySupportedTable) {
  const std::pair<const char*, int64_t> kRows[] = {
      {"simple_table", 3},
      {"delta-0.8.0-partitioned", 7},
      {"delta-0.8.0-null-partition", 2},
      {"delta-2.2.0-partitioned-types", 3},
      {"partition-type-primitives", 16},
      {"simple_table_with_checkpoint", 11},
      {"python-0.25.5-checkpoint", 6},
      {"multi-part-checkpoint", 31},
      {"basic-with-inserts-overwrite-restore", 200},
      {"checkpoint-v2-table", 44},
      {"table_with_column_mapping", 5},
      {"parquet-all-types", 200},
      {"type-widening", 2},
      {"table-with-dv-small", 8},
      {"table_with_deletion_logs", 98},
  };
  for (const auto& [table, rows] : kRows) {
    SCOPED_TRACE(table);
    auto r = Scan(TablePath(table));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->rows, rows);
  }
}

TEST(DeltaScan, GoldenTablesMatchExpected) {
  for (const char* table : {"multi-part-checkpoint", "basic-with-inserts-overwrite-restore", "parquet-all-types"}) {
    SCOPED_TRACE(table);
    auto got = Scan(TablePath(table));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    // expected/ is a plain folder of Parquet files with the same column names.
    std::vector<std::string> names;
    for (const Field& f : got->schema->fields) names.push_back(f.name);
    read::ScanOptions o;
    o.columns = names;
    auto want = Scan(Base(table) + "/expected", o);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    std::sort(got->formatted.begin(), got->formatted.end());
    std::sort(want->formatted.begin(), want->formatted.end());
    ASSERT_EQ(got->formatted.size(), want->formatted.size());
    for (size_t i = 0; i < got->formatted.size(); ++i) ASSERT_EQ(got->formatted[i], want->formatted[i]) << "row " << i;
  }
}

TEST(DeltaScan, TimeTravelRowCounts) {
  auto v2 = Scan(TablePath("basic-with-inserts-overwrite-restore"), {}, 2);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->rows, 500);
  auto v0 = Scan(TablePath("checkpoint-v2-table"), {}, 7);
  ASSERT_TRUE(v0.ok()) << v0.status().ToString();
  EXPECT_EQ(v0->rows, 33);
  auto dl = Scan(TablePath("table_with_deletion_logs"), {}, 1);  // before deletion vectors were enabled
  ASSERT_TRUE(dl.ok()) << dl.status().ToString();
  EXPECT_EQ(dl->rows, 100);
}

TEST(DeltaScan, TypedPartitionColumnsAndNulls) {
  read::ScanOptions o;
  o.columns = {"c1", "c2", "c3"};
  auto r = Scan(TablePath("delta-2.2.0-partitioned-types"), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->schema->fields[0].type->id, TypeId::kInt32);
  std::sort(r->formatted.begin(), r->formatted.end());
  EXPECT_EQ(r->formatted, (std::vector<std::string>{"4 | c | 5", "5 | b | 6", "6 | a | 4"}));

  read::ScanOptions nulls;
  nulls.filter = *read::ParseExpr("k IS NULL");
  auto n = Scan(TablePath("delta-0.8.0-null-partition"), nulls);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->rows, 1);
  EXPECT_EQ(n->stats.files_pruned, 1);
}

TEST(DeltaScan, FilterPrunesPartitionsAndAgreesWithFullScan) {
  read::ScanOptions all;
  auto full = Scan(TablePath("delta-0.8.0-partitioned"), all);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  read::ScanOptions o;
  o.filter = *read::ParseExpr("year = '2021' AND month IN ('4', '12')");
  auto r = Scan(TablePath("delta-0.8.0-partitioned"), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->stats.files_pruned, 3);
  // The same rows as filtering the full scan by hand (year and month are columns 1 and 2 here).
  int year = full->schema->FieldIndex("year"), month = full->schema->FieldIndex("month");
  ASSERT_GE(year, 0);
  ASSERT_GE(month, 0);
  int64_t expect = 0;
  for (const std::string& line : full->formatted) {
    std::vector<std::string> cells;
    size_t start = 0;
    while (true) {
      size_t bar = line.find(" | ", start);
      cells.push_back(line.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
      if (bar == std::string::npos) break;
      start = bar + 3;
    }
    if (cells[year] == "2021" && (cells[month] == "4" || cells[month] == "12")) ++expect;
  }
  EXPECT_EQ(r->rows, expect);
  EXPECT_GT(expect, 0);
}

// The file written before the widening keeps its narrow types; the scan converts them.
TEST(DeltaScan, TypeWideningConvertsOldFiles) {
  auto r = Scan(TablePath("type-widening"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->schema->fields[0].type->id, TypeId::kInt64);
  std::sort(r->formatted.begin(), r->formatted.end());
  // Row 1 comes from the old file (byte, int, float, short, decimal(10,2), date); row 2 was
  // written after the widening. float 3.4 widens to the double nearest to the float, as in Spark.
  EXPECT_EQ(r->formatted,
            (std::vector<std::string>{
                "1 | 2 | 3.4000000953674316 | 5.0 | 6.0 | 7.0 | 123.45 | 67.89000 | 1.0 | 2.0 | 3.0 | 4.0 | "
                "2024-09-09 00:00:00.000000",
                "9223372036854775807 | 9223372036854775807 | 1.234567890123 | 1.234567890123 | 1.234567890123 | "
                "1.234567890123 | 12345678901234.56 | 12345678901.23456 | 123.4 | 12345.6 | 1234567890.1 | "
                "123456789012345678.9 | 2024-09-09 12:34:56.123456"}));
}

TEST(DeltaScan, DeletionVectorsDropRows) {
  read::ScanOptions o;
  auto r = Scan(TablePath("table-with-dv-small"), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, 8);
  EXPECT_EQ(r->stats.rows_deleted, 2);
  auto before = Scan(TablePath("table-with-dv-small"), o, 0);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->rows, 10);
  // The DV holds rows 0 and 9: the scan is the version-0 scan without its first and last row.
  std::vector<std::string> expect(before->formatted.begin() + 1, before->formatted.end() - 1);
  EXPECT_EQ(r->formatted, expect);
  // Through every version of a table whose deletes and updates all went through DVs.
  for (int64_t v = 0; v <= 20; ++v) {
    auto s = Scan(TablePath("table_with_deletion_logs"), o, v);
    ASSERT_TRUE(s.ok()) << v << ": " << s.status().ToString();
    EXPECT_LE(s->rows, 100);
    if (v == 20) {
      EXPECT_EQ(s->rows, 98);
    }
  }
}

TEST(DeltaScan, CorruptDeletionVectorIsAnError) {
  testing::TempDir dir;
  std::filesystem::copy(TablePath("table-with-dv-small"), dir.Join("t"), std::filesystem::copy_options::recursive);
  for (const auto& e : std::filesystem::directory_iterator(dir.Join("t"))) {
    if (e.path().extension() == ".bin") {
      std::string bytes = testing::ReadFileToString(e.path().string());
      bytes[bytes.size() - 6] ^= 0x01;  // inside the bitmap: the CRC no longer matches
      testing::WriteStringToFile(e.path().string(), bytes);
    }
  }
  auto r = Scan(dir.Join("t"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorrupt) << r.status().ToString();
  EXPECT_NE(r.status().message().find("CRC"), std::string::npos) << r.status().ToString();
}

}  // namespace
}  // namespace rap::table
