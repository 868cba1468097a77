// The RAP index on ORC files (Apache ORC's demo-12-zlib.orc, written by ORC Java: 1,920,800 rows in
// one stripe, a row index every 10,000 rows): built from the key column stripe by stripe; a lookup
// of any key — present, absent, at the edges of row groups — returns exactly the rows a scan filtered
// by that key returns (the bytes a lookup reads — the tail and its row group — are asserted in
// tests/python/test_orc_index.py, on larger uncompressed files); hoisted columns answer from the
// index with no data read; covered columns are refused (they are Parquet page locations). Python:
// tests/python/test_orc_index.py.
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/read/expr.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/arrays.h"
#include "testing/index_table.h"
#include "testing/paths.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;

// Rows of a scan filtered by `where` (no index involved), as sorted row texts.
std::vector<std::string> ScanWhere(const std::string& url, const std::string& where) {
  auto snap = table::OpenTable(url);
  EXPECT_TRUE(snap.ok()) << snap.status().ToString();
  auto src = table::ToScanSource(*snap);
  EXPECT_TRUE(src.ok());
  read::ScanOptions so;
  auto filter = read::ParseExpr(where);
  EXPECT_TRUE(filter.ok()) << filter.status().ToString();
  so.filter = *filter;
  auto scanner = read::Scanner::Make(std::move(*src), so);
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  std::vector<std::string> rows;
  while (true) {
    auto b = (*scanner)->Next();
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    if (!b.ok() || !*b) break;
    for (int64_t r = 0; r < (*b)->batch.num_rows; ++r) rows.push_back(rap::testing::RowText((*b)->batch, r));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// A folder under `dir` holding ORC Java's demo-12-zlib.orc.
std::string DemoTable(rap::testing::TempDir& dir) {
  const std::string t = dir.Join("t");
  fs::create_directories(t);
  fs::copy_file(rap::testing::SharedDir() + "/orc/examples/demo-12-zlib.orc", t + "/demo.orc");
  return t;
}

TEST(OrcIndex, LookupsEqualAFilteredScan) {
  rap::testing::TempDir dir;
  const std::string t = DemoTable(dir);
  BuildOptions o;
  o.key_columns = {"_col0"};
  o.buckets = 2;
  auto built = BuildIndex(t, o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->key_rows, 1920800);
  auto idx = Index::Open(t);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  // Present keys at row-group edges (rows 9999/10000/10001 hold keys 10000..10002), spread ones,
  // the first and the last, and absent ones.
  const std::vector<int64_t> keys = {1, 2, 9999, 10000, 10001, 10002, 555555, 1000000, 1920799, 1920800, 0, -5, 1920801};
  std::vector<Key> parsed;
  for (int64_t k : keys) {
    auto p = (*idx)->ParseKey({std::to_string(k)});
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    parsed.push_back(*p);
  }
  auto res = (*idx)->Lookup(parsed, {});
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  ASSERT_EQ(res->keys.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    auto got = rap::testing::ResultRows(res->keys[i]);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, ScanWhere(t, "_col0 = " + std::to_string(keys[i]))) << "key " << keys[i];
  }
  // One key's rows come from one data file.
  const std::vector<Key> single = {parsed[6]};
  auto one = (*idx)->Lookup(single, {});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->stats.data_files, 1);
}

TEST(OrcIndex, HoistedColumnsAnswerWithoutReadingTheDataFile) {
  rap::testing::TempDir dir;
  const std::string t = DemoTable(dir);
  BuildOptions o;
  o.key_columns = {"_col0"};
  o.hoist = {"_col1", "_col5", "_col8"};  // a string, an int and another int column
  auto built = BuildIndex(t, o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  auto idx = Index::Open(t);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  const std::vector<int64_t> keys = {1, 9999, 10000, 10001, 1920800, 0, 1920801};
  std::vector<Key> parsed;
  for (int64_t k : keys) parsed.push_back(*(*idx)->ParseKey({std::to_string(k)}));
  LookupOptions hoisted_only;
  hoisted_only.columns = {"_col0", "_col1", "_col5", "_col8"};
  auto res = (*idx)->Lookup(parsed, hoisted_only);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->stats.data_files, 0);  // no data file opened
  EXPECT_EQ(res->stats.hoisted_only, 5);  // the five present keys
  // The same rows as a lookup that reads the data file (use_cover off) and as a filtered scan of
  // those columns.
  LookupOptions from_data = hoisted_only;
  from_data.use_cover = false;
  auto full = (*idx)->Lookup(parsed, from_data);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(full->stats.data_files, 1);  // the one ORC file, read
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(rap::testing::ResultRows(res->keys[i]), rap::testing::ResultRows(full->keys[i])) << "key " << keys[i];
    EXPECT_EQ(res->keys[i].rows.num_rows, keys[i] >= 1 && keys[i] <= 1920800 ? 1 : 0) << "key " << keys[i];
  }
}

TEST(OrcIndex, CoveredColumnsAreRefused) {
  rap::testing::TempDir dir;
  const std::string t = DemoTable(dir);
  BuildOptions o;
  o.key_columns = {"_col0"};
  o.cover = {"_col1"};
  auto covered = BuildIndex(t, o);
  ASSERT_FALSE(covered.ok());
  EXPECT_EQ(covered.status().code(), StatusCode::kNotSupported) << covered.status().ToString();
  o.cover.clear();
  o.hoist = {"_col1", "_col1"};
  EXPECT_EQ(BuildIndex(t, o).status().code(), StatusCode::kInvalidArgument);
  o.hoist = {"nope"};
  EXPECT_EQ(BuildIndex(t, o).status().code(), StatusCode::kNotFound);
  o.hoist.clear();
  o.key_columns = {"nope"};
  EXPECT_FALSE(BuildIndex(t, o).ok());
}

}  // namespace
}  // namespace rap::index
