// Directory tables: recursion, ignored clutter, order and Hive partition directories.
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/table/file_listing.h"
#include "rap/table/table.h"
#include "testing/paths.h"

namespace rap::table {
namespace {

void Touch(const std::string& path, const std::string& data = "x") {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  testing::WriteStringToFile(path, data);
}

TEST(FileListing, RecursiveOrderedAndFiltered) {
  testing::TempDir dir;
  Touch(dir.Join("t/b.parquet"));
  Touch(dir.Join("t/a.parquet"), "xyz");
  Touch(dir.Join("t/sub/c.parquet"));
  Touch(dir.Join("t/_SUCCESS"));
  Touch(dir.Join("t/.a.parquet.crc"));
  Touch(dir.Join("t/_tmp/d.parquet"));
  Touch(dir.Join("t/.hidden/e.parquet"));
  Touch(dir.Join("t/notes.txt"));
  Touch(dir.Join("tt/other.parquet"));  // a sibling sharing the name prefix is not part of the table
  auto snap = OpenTable(dir.Join("t"));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ(snap->kind, TableKind::kDirectory);
  ASSERT_EQ(snap->files.size(), 3u);
  EXPECT_EQ(snap->files[0].relative_path, "a.parquet");
  EXPECT_EQ(snap->files[0].size, 3u);
  EXPECT_EQ(snap->files[1].relative_path, "b.parquet");
  EXPECT_EQ(snap->files[2].relative_path, "sub/c.parquet");
  EXPECT_EQ(snap->files[2].path, dir.Join("t/sub/c.parquet"));
  EXPECT_TRUE(snap->partition_columns.empty());

  auto trailing = OpenTable(dir.Join("t") + "/");
  ASSERT_TRUE(trailing.ok());
  EXPECT_EQ(trailing->files.size(), 3u);
}

TEST(FileListing, HivePartitions) {
  testing::TempDir dir;
  Touch(dir.Join("t/year=2024/city=New%20York/p0.parquet"));
  Touch(dir.Join("t/year=2023/city=__HIVE_DEFAULT_PARTITION__/p1.parquet"));
  Touch(dir.Join("t/year=2023/city=Oslo/p2.parquet"));
  auto snap = OpenTable(dir.Join("t"));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  ASSERT_EQ(snap->partition_columns.size(), 2u);
  EXPECT_EQ(snap->partition_columns[0].name, "year");
  EXPECT_EQ(snap->partition_columns[1].name, "city");
  ASSERT_EQ(snap->files.size(), 3u);
  EXPECT_EQ(snap->files[0].partition_values[1], std::optional<std::string>("Oslo"));  // 'O' < '_'
  EXPECT_EQ(snap->files[1].partition_values[1], std::nullopt);
  EXPECT_EQ(snap->files[2].partition_values[0], std::optional<std::string>("2024"));
  EXPECT_EQ(snap->files[2].partition_values[1], std::optional<std::string>("New York"));
}

TEST(FileListing, InconsistentPartitionLevelsAreRejected) {
  testing::TempDir dir;
  Touch(dir.Join("t/a=1/p0.parquet"));
  Touch(dir.Join("t/b=1/p1.parquet"));
  auto snap = OpenTable(dir.Join("t"));
  ASSERT_FALSE(snap.ok());
  EXPECT_EQ(snap.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(snap.status().message().find("b=1/p1.parquet"), std::string::npos) << snap.status().ToString();
}

TEST(FileListing, ParseHivePartitionsErrors) {
  EXPECT_FALSE(ParseHivePartitions("a=%zz/f.parquet").ok());
  EXPECT_FALSE(ParseHivePartitions("a=1/a=2/f.parquet").ok());
  auto ok = ParseHivePartitions("plain/a=1/f=2.parquet");
  ASSERT_TRUE(ok.ok());
  ASSERT_EQ(ok->size(), 1u);  // the file name is never a partition
  EXPECT_EQ((*ok)[0].first, "a");
}

TEST(FileListing, SingleFileAndVersionOnDirectory) {
  testing::TempDir dir;
  Touch(dir.Join("one.parquet"), "abcd");
  auto snap = OpenTable(dir.Join("one.parquet"));
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  ASSERT_EQ(snap->files.size(), 1u);
  EXPECT_EQ(snap->files[0].size, 4u);
  OpenTableOptions o;
  o.version = 1;
  auto bad = OpenTable(dir.path(), o);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

// A typo and a folder without Parquet files are errors naming the URL, never an empty table; an
// empty Delta table (a log whose files were all removed, or that never added any) is a valid one.
TEST(FileListing, NothingFoundIsAnErrorButAnEmptyDeltaTableIsNot) {
  testing::TempDir dir;
  for (const std::string& url : {dir.Join("no/such/path"), dir.Join("no/such/file.parquet")}) {
    auto missing = OpenTable(url);
    ASSERT_FALSE(missing.ok()) << url;
    EXPECT_EQ(missing.status().code(), StatusCode::kNotFound) << missing.status().ToString();
    EXPECT_NE(missing.status().message().find(url + ": no Parquet files found"), std::string::npos)
        << missing.status().ToString();
  }
  Touch(dir.Join("clutter/notes.txt"));
  Touch(dir.Join("clutter/_tmp/a.parquet"));
  Touch(dir.Join("clutter/.b.parquet"));
  auto clutter = OpenTable(dir.Join("clutter"));
  ASSERT_FALSE(clutter.ok());
  EXPECT_EQ(clutter.status().code(), StatusCode::kNotFound);
  EXPECT_NE(clutter.status().message().find(dir.Join("clutter")), std::string::npos) << clutter.status().ToString();

  Touch(dir.Join("empty_delta/_delta_log/00000000000000000000.json"),
        "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}\n"
        "{\"metaData\":{\"id\":\"x\",\"format\":{\"provider\":\"parquet\",\"options\":{}},"
        "\"schemaString\":\"{\\\"type\\\":\\\"struct\\\",\\\"fields\\\":[{\\\"name\\\":\\\"a\\\","
        "\\\"type\\\":\\\"long\\\",\\\"nullable\\\":true,\\\"metadata\\\":{}}]}\","
        "\"partitionColumns\":[],\"configuration\":{}}}\n");
  auto empty = OpenTable(dir.Join("empty_delta"));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->kind, TableKind::kDelta);
  EXPECT_TRUE(empty->files.empty());
  ASSERT_NE(empty->schema, nullptr);
  EXPECT_EQ(empty->schema->fields.size(), 1u);
}

}  // namespace
}  // namespace rap::table
