// `rap scan` and `rap index build` / `rap lookup` on the shared Iceberg table (its deletes applied);
// `rap scan`, `rap index build` and `rap rewrite` on a table of a format rap does not read yet
// (Paimon, Hudi: rap/table/table_format.h) exit non-zero with the NotSupported message naming
// the format, print no rows and write nothing, instead of treating the table as a folder of its
// Parquet files (which gave 14 rows for a 6-row Iceberg table and 19 for an 11-row Paimon table).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "testing/cli_run.h"
#include "testing/paths.h"
#include "testing/unread_tables.h"

namespace rap {
namespace {

namespace fs = std::filesystem;

void ExpectRefused(const rap::testing::CliRun& r, const std::string& url, const std::string& format) {
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(url + ": this is a"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rap does not read " + format + " tables yet"), std::string::npos) << r.out;
}

TEST(TableFormatCli, TheSharedIcebergTableIsReadWithItsDeletes) {
  ASSERT_TRUE(rap::testing::RapBinaryExists()) << rap::testing::RapBinary();
  const std::string url = rap::testing::IcebergTableDir();
  rap::testing::CliRun r = rap::testing::RunCli("scan '" + url + "' --format csv", /*stderr_too=*/false);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "i,s\n1,a\n2,b\n3,c\n4,d\n6,f\n5,X\n");
  // The index records the delete files' rows per data file: a lookup never returns a deleted row
  // ((7,d) (8,e) (9,f) and the old (5,e) are in the Parquet files still).
  rap::testing::TempDir dir;
  const std::string copy = dir.Join("iceberg");
  fs::copy(url, copy, fs::copy_options::recursive);
  rap::testing::CliRun built = rap::testing::RunCli("index build '" + copy + "' --key i");
  ASSERT_EQ(built.exit_code, 0) << built.out;
  rap::testing::CliRun looked = rap::testing::RunCli(
      "lookup '" + copy + "' --key 5 --key 7 --key 8 --key 2 --columns s --format csv", /*stderr_too=*/false);
  EXPECT_EQ(looked.exit_code, 0) << looked.out;
  EXPECT_EQ(looked.out, "i,s\n5,X\n2,b\n");
  rap::testing::CliRun inspected = rap::testing::RunCli("index inspect '" + copy + "'", /*stderr_too=*/false);
  EXPECT_NE(inspected.out.find("(iceberg snapshot 1497619269847778439)"), std::string::npos) << inspected.out;
}

TEST(TableFormatCli, ScanOfTheSharedPaimonTableIsRefused) {
  ASSERT_TRUE(rap::testing::RapBinaryExists()) << rap::testing::RapBinary();
  for (const auto& [url, format] : {std::pair{rap::testing::PaimonTableDir(), std::string("Paimon")}}) {
    SCOPED_TRACE(url);
    rap::testing::CliRun r = rap::testing::RunCli("scan '" + url + "' --format csv");
    ExpectRefused(r, url, format);
    // No rows: only the error line.
    rap::testing::CliRun out = rap::testing::RunCli("scan '" + url + "' --format csv", /*stderr_too=*/false);
    EXPECT_EQ(out.out, "");
  }
}

TEST(TableFormatCli, ScanIndexBuildAndRewriteRefuseEachFormat) {
  ASSERT_TRUE(rap::testing::RapBinaryExists()) << rap::testing::RapBinary();
  rap::testing::TempDir dir;
  for (const rap::testing::UnreadTable& t : rap::testing::MakeUnreadTables(dir.Join("tables"))) {
    const std::string url = dir.Join("tables/" + t.folder);
    SCOPED_TRACE(url);
    ExpectRefused(rap::testing::RunCli("scan '" + url + "'"), url, t.format);
    ExpectRefused(rap::testing::RunCli("index build '" + url + "' --key id"), url, t.format);
    EXPECT_FALSE(fs::exists(url + "/_rap_index"));
    const std::string out = dir.Join("out-" + t.folder);
    ExpectRefused(rap::testing::RunCli("rewrite '" + url + "' '" + out + "' --key id"), url, t.format);
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
}  // namespace rap
