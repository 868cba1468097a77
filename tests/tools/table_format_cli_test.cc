// `rap scan` and `rap index build` / `rap lookup` on the shared Iceberg table (its deletes applied);
// `rap scan`, `rap index build` and `rap rewrite` on a table of a format rap does not read yet
// (Hudi: rap/table/table_format.h) exit non-zero with the NotSupported message naming
// the format, print no rows and write nothing, instead of treating the table as a folder of its
// Parquet files (which gave 14 rows for a 6-row Iceberg table and 19 for an 11-row Paimon table).
// The shared Iceberg and Paimon tables are read (Paimon: merged on read, with the merge's counters).
#include <gtest/gtest.h>

#include <algorithm>
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

// `rap index build --snapshot --location-map` and `rap index update --location-map`: the Spark DV
// table with its data/ folder moved (only the map finds its files), indexed at its
// first snapshot (i = 1..5) and updated to the current one (2 and 4 deleted by deletion vectors).
TEST(TableFormatCli, IcebergIndexAtAPinnedSnapshotThroughALocationMap) {
  ASSERT_TRUE(rap::testing::RapBinaryExists()) << rap::testing::RapBinary();
  rap::testing::TempDir dir;
  const std::string t = dir.Join("ice"), moved = t + "/moved", outside = dir.Join("outside");
  fs::copy(rap::testing::SharedDir() + "/iceberg-tables/impala_v3_deletion_vectors", t, fs::copy_options::recursive);
  fs::rename(t + "/data", moved);
  const std::string old_data = "hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors/data=";
  const std::string map = " --location-map '" + old_data + moved + "'";
  rap::testing::CliRun unmapped = rap::testing::RunCli("index build '" + t + "' --key i");
  EXPECT_NE(unmapped.exit_code, 0) << unmapped.out;
  // Mapped outside the table folder: the index could not name the files (paths relative to the
  // table root), so the build is refused, naming why.
  fs::copy(moved, outside, fs::copy_options::recursive);
  rap::testing::CliRun out_of_root =
      rap::testing::RunCli("index build '" + t + "' --key i --location-map '" + old_data + outside + "'");
  EXPECT_NE(out_of_root.exit_code, 0) << out_of_root.out;
  EXPECT_NE(out_of_root.out.find("lies outside the table root"), std::string::npos) << out_of_root.out;
  rap::testing::CliRun built = rap::testing::RunCli("index build '" + t + "' --key i --snapshot 2700858159721908397" + map);
  ASSERT_EQ(built.exit_code, 0) << built.out;
  const std::string lookup = "lookup '" + t + "' --key 2 --key 4 --key 5 --format csv";
  rap::testing::CliRun first = rap::testing::RunCli(lookup, /*stderr_too=*/false);
  EXPECT_EQ(first.exit_code, 0) << first.out;
  EXPECT_EQ(first.out, "i\n2\n4\n5\n");
  rap::testing::CliRun both = rap::testing::RunCli("index update '" + t + "' --snapshot 1 --as-of 5" + map);
  EXPECT_NE(both.exit_code, 0) << both.out;
  EXPECT_NE(both.out.find("not both"), std::string::npos) << both.out;
  rap::testing::CliRun updated = rap::testing::RunCli("index update '" + t + "'" + map);
  ASSERT_EQ(updated.exit_code, 0) << updated.out;
  EXPECT_NE(updated.out.find("table version 3685752423136077685"), std::string::npos) << updated.out;
  rap::testing::CliRun current = rap::testing::RunCli(lookup, /*stderr_too=*/false);
  EXPECT_EQ(current.exit_code, 0) << current.out;
  EXPECT_EQ(current.out, "i\n5\n");
  // A snapshot of a folder of Parquet files is refused, not ignored.
  rap::testing::CliRun folder = rap::testing::RunCli("scan '" + moved + "' --snapshot 1");
  EXPECT_NE(folder.exit_code, 0) << folder.out;
  EXPECT_NE(folder.out.find("this is a directory table"), std::string::npos) << folder.out;
}

TEST(TableFormatCli, TheSharedPaimonTableIsMergedOnRead) {
  ASSERT_TRUE(rap::testing::RapBinaryExists()) << rap::testing::RapBinary();
  const std::string url = rap::testing::PaimonTableDir();
  rap::testing::CliRun r = rap::testing::RunCli("scan '" + url + "' --format csv --columns f0,f3", false);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // 11 rows (its Parquet files hold 19), in file order: f1=10/bucket-0, f1=10/bucket-1, f1=20/bucket-0.
  EXPECT_EQ(r.out,
            "f0,f3\nAlice,19.1\n\"Two roads diverged in a wood, and I took the one less traveled by, And that has "
            "made all the difference.\",11.0\nBob,12.1\nDavid,17.1\nEmily,13.1\nMarco2,31.1\nSkye2,31.0\nMarco,21.1\n"
            "Skye,21.0\nLucy,14.1\nPaul,18.1\n");
  // Time travel by snapshot id (--snapshot, as for Iceberg tables).
  rap::testing::CliRun two = rap::testing::RunCli("scan '" + url + "' --snapshot 2 --format csv --columns f0", false);
  EXPECT_EQ(two.exit_code, 0) << two.out;
  EXPECT_EQ(std::count(two.out.begin(), two.out.end(), '\n'), 9) << two.out;  // header + 8 rows
  // --stats: the merge of bucket f1=10/bucket-1, its four sorted runs each warmed before merging.
  rap::testing::CliRun stats = rap::testing::RunCli("scan '" + url + "' --format none --stats");
  EXPECT_EQ(stats.exit_code, 0) << stats.out;
  for (const char* line : {"paimon_buckets 3\n", "paimon_buckets_merged 1\n", "paimon_runs 4\n",
                           "paimon_runs_warmed 4\n", "paimon_merge_rows_in 12\n", "paimon_rows_deleted 5\n"}) {
    EXPECT_NE(stats.out.find(line), std::string::npos) << line << stats.out;
  }
  // The index follows the merge: the rows it drops are deleted rows of their files (inline deletion
  // vectors), so a lookup returns a key's merged, latest row — Alice's +U, not her +I — and nothing
  // for Alex and Tony, whose last rows are -D (their older versions are in the files).
  rap::testing::TempDir dir;
  const std::string copy = dir.Join("paimon");
  fs::copy(url, copy, fs::copy_options::recursive);
  rap::testing::CliRun built = rap::testing::RunCli("index build '" + copy + "' --key f0");
  EXPECT_EQ(built.exit_code, 0) << built.out;
  rap::testing::CliRun looked =
      rap::testing::RunCli("lookup '" + copy + "' -k Alice -k Alex -k Tony -k Marco2 -f csv", false);
  EXPECT_EQ(looked.exit_code, 0) << looked.out;
  EXPECT_EQ(looked.out, "f0,f1,f2,f3\nAlice,10,1,19.1\nMarco2,10,0,31.1\n");
  rap::testing::CliRun rewritten = rap::testing::RunCli("rewrite '" + copy + "' '" + dir.Join("out") + "' --key f0");
  EXPECT_NE(rewritten.exit_code, 0) << rewritten.out;
  EXPECT_NE(rewritten.out.find("does not rewrite Paimon tables yet"), std::string::npos) << rewritten.out;
  EXPECT_FALSE(fs::exists(dir.Join("out")));
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
