// Delta add.stats: file bounds parsed safely (timestamps widened by a millisecond, string maxima and
// float bounds ignored, bad JSON ignored), and files pruned before they are opened — with the same
// rows as a scan without statistics, for random filters over a generated Delta table.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "table/delta/delta_stats.h"
#include "testing/paths.h"
#include "testing/scan_table.h"

namespace rap::table {
namespace {

using nlohmann::json;

TEST(DeltaStats, BoundsThatHoldForEveryValue) {
  auto schema = std::make_shared<Schema>();
  auto ts = std::make_shared<DataType>(*MakeType(TypeId::kTimestamp));
  ts->unit = TimeUnit::kMicro;
  schema->fields = {{"i", MakeType(TypeId::kInt32), true},   {"t", ts, true},
                    {"s", MakeType(TypeId::kString), true},  {"f", MakeType(TypeId::kFloat64), true},
                    {"d", MakeType(TypeId::kDate32), true},  {"m", MakeDecimal(10, 2), true},
                    {"absent", MakeType(TypeId::kInt64), true}};
  const std::string stats = R"({"numRecords": 10,
      "minValues": {"i": -3, "t": "2024-01-01T00:00:00.123Z", "s": "apple", "f": 0.5, "d": "2024-01-02", "m": 12.34},
      "maxValues": {"i": 9, "t": "2024-01-01T00:00:01.000Z", "s": "kiwi", "f": 9.5, "d": "2024-02-01", "m": 99.99},
      "nullCount": {"i": 0, "t": 1, "s": 2, "f": 3, "d": 0, "m": 0}})";
  auto s = DeltaFileStats(stats, *schema, {});
  ASSERT_EQ(s.size(), 7u);
  ASSERT_TRUE(s[0] && s[0]->min && s[0]->max);
  EXPECT_EQ(static_cast<int64_t>(s[0]->min->i), -3);
  EXPECT_EQ(static_cast<int64_t>(s[0]->max->i), 9);
  EXPECT_EQ(s[0]->null_count, 0);
  EXPECT_EQ(s[0]->num_values, 10);
  const int64_t t0 = 1704067200000000;
  ASSERT_TRUE(s[1] && s[1]->min && s[1]->max);
  EXPECT_EQ(static_cast<int64_t>(s[1]->min->i), t0 + 123000 - 1000);  // one millisecond wider
  EXPECT_EQ(static_cast<int64_t>(s[1]->max->i), t0 + 1000000 + 1000);
  ASSERT_TRUE(s[2] && s[2]->min);
  EXPECT_EQ(s[2]->min->s, "apple");
  EXPECT_FALSE(s[2]->max);  // a written string max may be truncated below the true max
  ASSERT_TRUE(s[3]);
  EXPECT_FALSE(s[3]->min || s[3]->max);  // floats: null count only
  EXPECT_EQ(s[3]->null_count, 3);
  ASSERT_TRUE(s[4] && s[4]->min && s[4]->max);
  EXPECT_EQ(static_cast<int64_t>(s[4]->min->i), 19724);
  ASSERT_TRUE(s[5] && s[5]->min && s[5]->max);
  EXPECT_EQ(static_cast<int64_t>(s[5]->min->i), 1234);
  EXPECT_EQ(static_cast<int64_t>(s[5]->max->i), 9999);
  EXPECT_FALSE(s[6]);  // not in the stats: unknown

  // Column mapping: stats are keyed by the physical name.
  auto mapped = DeltaFileStats(R"({"minValues": {"col-1": 5}})", *schema, {"col-1"});
  ASSERT_TRUE(mapped[0] && mapped[0]->min);
  EXPECT_EQ(static_cast<int64_t>(mapped[0]->min->i), 5);
  // Nothing usable from malformed or mistyped stats.
  EXPECT_TRUE(DeltaFileStats("{not json", *schema, {}).empty());
  EXPECT_TRUE(DeltaFileStats("[1, 2]", *schema, {}).empty());
  auto wrong = DeltaFileStats(R"({"numRecords": 5, "minValues": {"i": "x", "d": 7}, "nullCount": {"i": 6}})", *schema, {});
  ASSERT_EQ(wrong.size(), 7u);
  EXPECT_FALSE(wrong[0]);  // a null count above numRecords and a string min for an int are dropped
  EXPECT_FALSE(wrong[4]);
}

// A Delta table of the generated scan table's files (partitioned by `part`) with add.stats.
class DeltaStatsScan : public ::testing::Test {
 protected:
  void SetUp() override {
    auto files = rap::testing::MakeScanTable();
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    root_ = dir_.Join("t");
    std::filesystem::create_directories(root_ + "/_delta_log");
    auto field = [](const char* name, const char* type, bool nullable) {
      return json{{"name", name}, {"type", type}, {"nullable", nullable}, {"metadata", json::object()}};
    };
    json schema{{"type", "struct"},
                {"fields", {field("id", "long", false), field("v", "double", true), field("s", "string", true),
                            field("d", "date", true), field("part", "string", true)}}};
    std::string log = json{{"protocol", {{"minReaderVersion", 1}, {"minWriterVersion", 2}}}}.dump() + "\n";
    log += json{{"metaData",
                 {{"id", "00000000-0000-4000-8000-000000000006"},
                  {"format", {{"provider", "parquet"}, {"options", json::object()}}},
                  {"schemaString", schema.dump()},
                  {"partitionColumns", {"part"}},
                  {"configuration", json::object()}}}}
               .dump() +
           "\n";
    const int64_t rows = rap::testing::ScanTableOptions{}.rows_per_file;
    rap::testing::WriteScanTable(root_, *files);
    for (size_t f = 0; f < files->size(); ++f) {
      const auto& file = (*files)[f];
      // Exact id bounds; d within its generated range; s min only is used; v ignored (float).
      const int64_t first = static_cast<int64_t>(f) * rows;
      json stats{{"numRecords", rows},
                 {"minValues", {{"id", first}, {"d", "2022-01-08"}, {"s", "apple"}, {"v", 0.0}}},
                 {"maxValues", {{"id", first + rows - 1}, {"d", "2022-02-06"}, {"s", "plum"}, {"v", 99.9}}},
                 {"nullCount", {{"id", 0}, {"d", 0}}}};
      log += json{{"add",
                   {{"path", file.relative_path},
                    {"partitionValues", {{"part", file.partition}}},
                    {"size", file.bytes.size()},
                    {"modificationTime", 1700000000000},
                    {"dataChange", true},
                    {"stats", stats.dump()}}}}
                 .dump() +
             "\n";
    }
    rap::testing::WriteStringToFile(root_ + "/_delta_log/00000000000000000000.json", log);
  }

  Result<rap::testing::ScanRows> Scan(const std::string& where, bool use_statistics) {
    RAP_ASSIGN_OR_RETURN(TableSnapshot snap, OpenTable(root_, {}));
    RAP_ASSIGN_OR_RETURN(read::ScanSource src, ToScanSource(snap));
    read::ScanOptions o;
    RAP_ASSIGN_OR_RETURN(o.filter, read::ParseExpr(where));
    o.use_statistics = use_statistics;
    return rap::testing::RunScan(std::move(src), std::move(o));
  }

  rap::testing::TempDir dir_;
  std::string root_;
};

TEST_F(DeltaStatsScan, PrunesFilesBeforeOpeningThem) {
  auto r = Scan("id >= 2500 AND id < 2600", true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->ids.size(), 100u);
  EXPECT_EQ(r->stats.files_pruned_by_stats, 2);
  EXPECT_EQ(r->stats.files_pruned, 0);
  EXPECT_EQ(r->stats.row_groups, 2);  // only the one opened file's row groups were looked at
  auto none = Scan("d > '2022-03-01' OR id IS NULL", true);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->ids.size(), 0u);
  EXPECT_EQ(none->stats.files_pruned_by_stats, 3);
  EXPECT_EQ(none->stats.requests, 0);  // no file was opened
  // A string max is not trusted, floats are not used: these open every file.
  for (const char* where : {"s > 'zzz'", "v > 1000"}) {
    auto kept = Scan(where, true);
    ASSERT_TRUE(kept.ok()) << kept.status().ToString();
    EXPECT_EQ(kept->stats.files_pruned_by_stats, 0) << where;
  }
  // Without statistics nothing is pruned by them.
  auto off = Scan("id >= 2500 AND id < 2600", false);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->stats.files_pruned_by_stats, 0);
  EXPECT_EQ(off->fingerprint, r->fingerprint);
}

TEST_F(DeltaStatsScan, RandomFiltersGiveTheSameRowsWithAndWithoutStatistics) {
  std::mt19937_64 rng(66);
  int64_t pruned = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string where = rap::testing::RandomScanFilter(rng, 6000);
    SCOPED_TRACE(where);
    auto with = Scan(where, true);
    auto without = Scan(where, false);
    ASSERT_TRUE(with.ok()) << with.status().ToString();
    ASSERT_TRUE(without.ok()) << without.status().ToString();
    EXPECT_EQ(with->ids, without->ids);
    EXPECT_EQ(with->fingerprint, without->fingerprint);
    pruned += with->stats.files_pruned_by_stats;
  }
  EXPECT_GT(pruned, 0);  // the random filters did exercise file pruning
}

}  // namespace
}  // namespace rap::table
