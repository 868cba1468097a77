// Index fragment page size (issue 36): a lookup decodes a whole fragment page to find one key's
// entry, so pages hold fewer entries when entries are wide. FragmentPageRows' rule, and the pages
// WriteFragment actually writes (key0's OffsetIndex) for plain, covered and explicitly sized
// fragments.
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/index/build.h"
#include "rap/index/fragment.h"
#include "rap/index/manifest.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "testing/cli_run.h"
#include "testing/index_table.h"
#include "testing/paths.h"

namespace rap::index {
namespace {

TEST(FragmentPageRows, ShrinksWithTheEntriesWidth) {
  EXPECT_EQ(FragmentPageRows(0, 0), 256);     // plain: 4 values an entry
  EXPECT_EQ(FragmentPageRows(3, 0), 256);     // 3 covered columns: 28 values
  EXPECT_EQ(FragmentPageRows(8, 0), 128);     // 68 values
  EXPECT_EQ(FragmentPageRows(19, 0), 64);     // a lookup layout of 19 columns: 156 values
  EXPECT_EQ(FragmentPageRows(40, 0), 32);     // never below 32
  EXPECT_EQ(FragmentPageRows(1000, 0), 32);
  EXPECT_EQ(FragmentPageRows(0, 100), 128);   // hoisted values widen entries too
  EXPECT_EQ(FragmentPageRows(-1, -1), 256);   // nonsense averages count as none
}

std::vector<IndexEntry> Entries(size_t n, size_t records) {
  std::vector<IndexEntry> out;
  for (size_t i = 0; i < n; ++i) {
    IndexEntry e;
    e.key.parts.push_back(KeyPart{static_cast<int64_t>(i), ""});
    e.file = 0;
    e.first_row = static_cast<int64_t>(i) * 10;
    e.num_rows = 10;
    for (size_t c = 0; c < records; ++c) {
      Location l;
      l.column = static_cast<int32_t>(c);
      l.offset = static_cast<int64_t>(i * 1000 + c);
      l.size = 100;
      l.first_row = e.first_row;
      l.num_rows = 10;
      e.cover.push_back(l);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// Rows of each page of key0, from the written fragment's OffsetIndex.
std::vector<int64_t> PageRows(const std::string& path) {
  auto url = io::OpenUrl(path);
  EXPECT_TRUE(url.ok());
  auto r = read::FileReader::Open(url->store, url->path, {});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<int64_t> out;
  if (!r.ok()) return out;
  auto oi = (*r)->GetOffsetIndex(0, 0);
  EXPECT_TRUE(oi.ok() && *oi);
  if (!oi.ok() || !*oi) return out;
  const auto& locs = (*oi)->page_locations;
  for (size_t p = 0; p < locs.size(); ++p) {
    const int64_t end = p + 1 < locs.size() ? locs[p + 1].first_row_index : (*r)->row_group_num_rows(0);
    out.push_back(end - locs[p].first_row_index);
  }
  return out;
}

class FragmentPagesTest : public ::testing::Test {
 protected:
  std::vector<int64_t> Write(const std::string& name, size_t records, FragmentWriteOptions o = {}) {
    auto url = io::OpenUrl(dir_.path());
    EXPECT_TRUE(url.ok());
    const std::vector<KeyColumn> key{{"k", KeyType::kInt64}};
    auto fe = WriteFragment(*url->store, url->path, name, key, records > 0, {}, 0, 1, Entries(1000, records), o);
    EXPECT_TRUE(fe.ok()) << fe.status().ToString();
    return PageRows(dir_.Join(name));
  }
  rap::testing::TempDir dir_;
};

TEST_F(FragmentPagesTest, PlainFragmentsKeep256EntriesAPage) {
  const std::vector<int64_t> rows = Write("plain.parquet", 0);
  ASSERT_EQ(rows.size(), 4u);  // 1000 entries: 256, 256, 256, 232
  EXPECT_EQ(rows[0], 256);
  EXPECT_EQ(rows[3], 232);
}

TEST_F(FragmentPagesTest, WideCoveredEntriesGetSmallerPages) {
  const std::vector<int64_t> rows = Write("wide.parquet", 19);
  ASSERT_EQ(rows.size(), 16u);  // 1000 / 64, rounded up
  for (size_t p = 0; p + 1 < rows.size(); ++p) EXPECT_EQ(rows[p], 64) << p;
  EXPECT_EQ(rows.back(), 1000 - 15 * 64);
}

TEST_F(FragmentPagesTest, AnExplicitPageSizeWins) {
  FragmentWriteOptions o;
  o.page_rows = 100;
  const std::vector<int64_t> rows = Write("explicit.parquet", 19, o);
  ASSERT_EQ(rows.size(), 10u);
  for (int64_t r : rows) EXPECT_EQ(r, 100);
}

// `rap index build` without --page-rows sizes pages as the library does (it once passed 256 always):
// the same covered index built by the CLI and by BuildIndex with default options has the same pages,
// and with five covered columns (a dictionary page and a data page record each) fewer than 256.
TEST(FragmentPagesCli, DefaultPageSizeIsTheLibrarys) {
  if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "no rap binary at " << rap::testing::RapBinary();
  rap::testing::TempDir dir;
  rap::testing::IndexTableOptions t;
  t.files = 1;
  t.rows = 6000;
  t.key_space = 5000;
  rap::testing::WriteIndexTable(dir.path(), t);
  const std::string cover = "s,g,v,name,b";
  const auto r = rap::testing::RunCli("index build '" + dir.path() + "' --key k --name cli --cover " + cover + " -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  BuildOptions o;
  o.key_columns = {"k"};
  o.name = "lib";
  o.cover = {"s", "g", "v", "name", "b"};
  ASSERT_TRUE(BuildIndex(dir.path(), o).ok());
  auto pages = [&](const std::string& name) {
    auto url = io::OpenUrl(dir.Join("_rap_index/" + name));
    EXPECT_TRUE(url.ok());
    std::vector<int64_t> out;
    if (!url.ok()) return out;
    auto m = ReadLatestManifest(*url->store, url->path);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    if (!m.ok() || m->fragments.size() != 1) return out;
    return PageRows(dir.Join("_rap_index/" + name + "/" + m->fragments[0].path));
  };
  const std::vector<int64_t> cli = pages("cli"), lib = pages("lib");
  ASSERT_FALSE(cli.empty());
  EXPECT_EQ(cli, lib);
  EXPECT_LT(cli[0], 256);
}

}  // namespace
}  // namespace rap::index
