// `rap cat` end to end: output formats, row ranges, projections, and errors on stderr with a
// non-zero exit status. Runs the CLI binary of the same build tree.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "testing/cli_run.h"
#include "testing/paths.h"

namespace rap {
namespace {

using rap::testing::CliRun;
using rap::testing::RunCli;

class CatCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "the rap CLI is not built";
  }
  static std::string Data(const std::string& name) { return rap::testing::ParquetTestingData() + "/" + name; }
};

TEST_F(CatCli, CsvRowsAndColumns) {
  CliRun r = RunCli("cat " + Data("alltypes_plain.parquet") + " --columns id,string_col --rows 2:5 --format csv");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "id,string_col\n6,0x30\n7,0x31\n2,0x30\n");  // string_col is binary (no UTF8 annotation)
}

TEST_F(CatCli, JsonLinesNestedWithLimit) {
  CliRun r = RunCli("cat " + Data("nullable.impala.parquet") + " --columns id,int_map --limit 2 --format jsonl");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "{\"id\": 1, \"int_map\": {\"k1\": 1, \"k2\": 100}}\n{\"id\": 2, \"int_map\": {\"k1\": 2, \"k2\": null}}\n");
}

TEST_F(CatCli, TableHasHeaderAndRows) {
  CliRun r = RunCli("cat " + Data("alltypes_plain.parquet") + " --columns id,bool_col --batch-size 3");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "id | bool_col");
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 10);  // header, rule, 8 rows
}

TEST_F(CatCli, ErrorsGoToStderrWithNonZeroExit) {
  CliRun missing = RunCli("cat /nonexistent/x.parquet");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.out.find("/nonexistent/x.parquet"), std::string::npos) << missing.out;
  CliRun crc = RunCli("cat " + Data("datapage_v1-corrupt-checksum.parquet"));
  EXPECT_NE(crc.exit_code, 0);
  EXPECT_NE(crc.out.find("page checksum mismatch"), std::string::npos) << crc.out;
  EXPECT_NE(crc.out.find("offset"), std::string::npos) << crc.out;
  CliRun no_crc = RunCli("cat " + Data("datapage_v1-corrupt-checksum.parquet") + " --no-crc --limit 1 --format csv");
  EXPECT_EQ(no_crc.exit_code, 0) << no_crc.out;
  CliRun column = RunCli("cat " + Data("alltypes_plain.parquet") + " --columns nope");
  EXPECT_NE(column.exit_code, 0);
  EXPECT_NE(column.out.find("'nope'"), std::string::npos) << column.out;
  CliRun rows = RunCli("cat " + Data("alltypes_plain.parquet") + " --rows 5:2");
  EXPECT_NE(rows.exit_code, 0);
  CliRun help = RunCli("cat --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--columns"), std::string::npos);
}

}  // namespace
}  // namespace rap

namespace rap {
namespace {

// --plan / --plan-log: every policy returns the same rows; the log has one CSV row per physical plan
// with the policy and the deciding rule; a bad policy is a clear error.
TEST_F(CatCli, PlanPoliciesGiveSameRowsAndLogPlans) {
  const std::string file = Data("alltypes_tiny_pages_plain.parquet");
  CliRun exact = RunCli("cat " + file + " --columns id,int_col,string_col --rows 100:2000 --format csv --plan exact");
  ASSERT_EQ(exact.exit_code, 0) << exact.out;
  rap::testing::TempDir tmp;
  for (const std::string policy : {"auto", "fixed:1MiB", "store"}) {
    const std::string log = tmp.Join("plans.csv");
    CliRun r = RunCli("cat " + file + " --columns id,int_col,string_col --rows 100:2000 --format csv --plan " + policy +
                      " --plan-log " + log);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out, exact.out) << policy;
    std::string csv = rap::testing::ReadFileToString(log);
    ASSERT_FALSE(csv.empty()) << policy;
    EXPECT_EQ(csv.rfind("object,endpoint,purpose,policy,decided_by", 0), 0u) << csv;
    EXPECT_NE(csv.find("," + policy + ","), std::string::npos) << csv;
    EXPECT_GE(std::count(csv.begin(), csv.end(), '\n'), 2) << csv;  // header + at least one plan
  }
  CliRun bad = RunCli("cat " + file + " --plan sometimes");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.out.find("plan policy 'sometimes'"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace rap
