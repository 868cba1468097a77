// RewriteTable (`rap rewrite`): a shuffled table rewritten bucketed and sorted by key into every
// layout, indexed in the same pass; lookups equal a brute-force scan of the input, each key lives in
// exactly one file (its bucket's), frame layouts read only frames, and a failed rewrite leaves
// nothing behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "rap/columnar/array_format.h"
#include "rap/index/index.h"
#include "rap/index/rewrite.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

using rap::testing::BruteForce;

class RewriteTest : public ::testing::TestWithParam<RewriteLayout> {
 protected:
  void SetUp() override {
    opts_.files = 3;
    opts_.rows = 1500;
    opts_.key_space = 200;
    root_ = dir_.Join("in");
    std::vector<std::string> paths;
    for (const std::string& n : rap::testing::WriteIndexTable(root_, opts_)) paths.push_back(root_ + "/" + n);
    auto bf = BruteForce::Load(paths);
    ASSERT_TRUE(bf.ok()) << bf.status().ToString();
    bf_ = std::move(*bf);
  }

  RewriteOptions Options() const {
    RewriteOptions o;
    o.key_columns = {"k"};
    o.layout = GetParam();
    o.buckets = 3;
    o.writer.defaults.codec = parquet::Codec::ZSTD;
    o.writer.row_group_max_rows = 700;
    o.writer.defaults.page_max_rows = 100;
    return o;
  }

  rap::testing::TempDir dir_;
  rap::testing::IndexTableOptions opts_;
  std::string root_;
  BruteForce bf_;
};

TEST_P(RewriteTest, LookupsEqualTheInputAndEachKeyIsInItsBucketsFile) {
  const std::string out = dir_.Join("out");
  auto r = RewriteTable(root_, out, Options());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows, opts_.files * opts_.rows);
  EXPECT_EQ(r->files.size(), 3u);
  if (GetParam() == RewriteLayout::kFramePerKey || GetParam() == RewriteLayout::kInterleaved) {
    EXPECT_GT(r->frames, 0);
  }
  // Each key in exactly one file, the one of its bucket.
  std::vector<KeyColumn> kc{{"k", KeyType::kInt64}};
  int64_t rows = 0;
  for (const std::string& f : r->files) {
    auto one = BruteForce::Load({out + "/" + f});
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    for (int64_t k = 0; k < opts_.key_space; ++k) {
      Key key{{KeyPart{k, ""}}};
      const auto got = one->Rows({"k"}, {std::to_string(k)}, {"k"});
      const int32_t b = BucketOf(kc, key, 3);
      if (f != "part-0000" + std::to_string(b) + ".parquet") {
        EXPECT_TRUE(got.empty()) << f << " holds key " << k;
      }
      rows += static_cast<int64_t>(got.size());
    }
  }
  EXPECT_EQ(rows, r->rows);
  // Lookups through the index built in the same pass.
  auto idx = Index::Open(out);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  EXPECT_EQ((*idx)->info().buckets, 3);
  std::vector<Key> keys;
  std::vector<std::string> texts;
  for (int64_t k = -1; k < opts_.key_space + 1; k += 3) {
    keys.push_back(*(*idx)->ParseKey({std::to_string(k)}));
    texts.push_back(std::to_string(k));
  }
  for (const std::vector<std::string>& columns :
       std::vector<std::vector<std::string>>{{"v", "name", "b", "s"}, {"name"}, {}}) {
    LookupOptions lo;
    lo.columns = columns;
    auto res = (*idx)->Lookup(keys, lo);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    std::vector<std::string> names;
    for (const Field& f : res->schema->fields) names.push_back(f.name);
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(rap::testing::ResultRows(res->keys[i]), bf_.Rows({"k"}, {texts[i]}, names))
          << RewriteLayoutName(GetParam()) << " key " << texts[i];
    }
    if (!columns.empty()) {
      EXPECT_EQ(res->stats.covered_files, res->stats.data_files);
    }
  }
  // One key, warm: one data file; frame layouts read a few hundred bytes, interleaved in one request.
  LookupOptions lo;
  lo.columns = {"v", "name", "b"};
  const Key k7 = *(*idx)->ParseKey({"7"});
  ASSERT_TRUE((*idx)->Lookup({&k7, 1}, lo).ok());
  auto res = (*idx)->Lookup({&k7, 1}, lo);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->stats.data_files, 1);
  EXPECT_EQ(res->stats.index_pages_read, 0);
  if (GetParam() == RewriteLayout::kInterleaved) {
    EXPECT_EQ(res->stats.requests, 1);
  }
  if (GetParam() == RewriteLayout::kFramePerKey || GetParam() == RewriteLayout::kInterleaved) {
    EXPECT_LT(res->stats.bytes, 1000u);
  }
  // Nothing but the output folder (no staging folder left).
  for (const auto& e : std::filesystem::directory_iterator(dir_.Join(""))) {
    EXPECT_EQ(e.path().filename().string().find(".rap-rewrite-"), std::string::npos) << e.path();
  }
}

TEST_P(RewriteTest, FailuresLeaveNothingBehind) {
  const std::string out = dir_.Join("out_bad");
  RewriteOptions o = Options();
  o.key_columns = {"no_such"};
  auto r = RewriteTable(root_, out, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no_such"), std::string::npos) << r.status().ToString();
  o = Options();
  o.cover = {"no_such_column"};
  EXPECT_FALSE(RewriteTable(root_, out, o).ok());
  for (const auto& e : std::filesystem::directory_iterator(dir_.Join(""))) {
    EXPECT_EQ(e.path().filename().string().find("out_bad"), std::string::npos) << e.path();
  }
  // An output that holds files is refused.
  EXPECT_FALSE(RewriteTable(root_, root_, Options()).ok());
}

// Co-grouped: one row per key (each key in one file), every other column a list of the key's
// values in input order.
TEST_P(RewriteTest, CoGroupedOneRowPerKeyWithListsOfTheInputRows) {
  const std::string out = dir_.Join("out_cogroup");
  RewriteOptions o = Options();
  o.cogroup = true;
  auto r = RewriteTable(root_, out, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto idx = Index::Open(out);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  for (int64_t k = -1; k < opts_.key_space + 1; k += 5) {
    const Key key = *(*idx)->ParseKey({std::to_string(k)});
    LookupOptions lo;
    lo.columns = {"v", "name", "tags"};
    auto res = (*idx)->Lookup({&key, 1}, lo);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    const auto want = bf_.Rows({"k"}, {std::to_string(k)}, {"v", "name", "tags"});
    const RecordBatch& got = res->keys[0].rows;
    ASSERT_EQ(got.num_rows, want.empty() ? 0 : 1) << "key " << k;
    if (want.empty()) continue;
    // Row i of the input is item i of every list.
    const int iv = got.schema->FieldIndex("v"), in = got.schema->FieldIndex("name"), it = got.schema->FieldIndex("tags");
    ASSERT_GE(iv, 0);
    std::vector<std::string> rows;
    const auto item = [&](int col, int64_t i) {
      const ArrayData& list = *got.columns[size_t(col)];
      return FormatValue(*list.children[0], list.offsets()[0] + i);
    };
    const int64_t n = got.columns[size_t(iv)]->offsets()[1] - got.columns[size_t(iv)]->offsets()[0];
    for (int64_t i = 0; i < n; ++i) rows.push_back(item(iv, i) + "|" + item(in, i) + "|" + item(it, i) + "|");
    EXPECT_EQ(rows, want) << "key " << k;
  }
}

// Co-grouped columns become lists (one leaf each: list<T>, and tags list<list<int32>>): covered by
// default, read from the index's page or frame records without a footer, equal to the input rows;
// on the frame layouts a warm lookup reads only the key's frames.
TEST_P(RewriteTest, CoGroupedColumnsAreCovered) {
  const std::string out = dir_.Join("out_cogroup_cover");
  RewriteOptions o = Options();
  o.cogroup = true;
  auto r = RewriteTable(root_, out, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto idx = Index::Open(out);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  const auto& cover = (*idx)->info().cover;
  ASSERT_NE(std::find(cover.begin(), cover.end(), "v"), cover.end());
  ASSERT_NE(std::find(cover.begin(), cover.end(), "name"), cover.end());
  ASSERT_NE(std::find(cover.begin(), cover.end(), "tags"), cover.end());
  int64_t found = 0;
  for (int64_t k = -1; k < opts_.key_space + 1; ++k) {
    const Key key = *(*idx)->ParseKey({std::to_string(k)});
    LookupOptions lo;
    lo.columns = {"v", "name", "s", "tags"};
    ASSERT_TRUE((*idx)->Lookup({&key, 1}, lo).ok());  // warms the index page
    auto res = (*idx)->Lookup({&key, 1}, lo);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    const auto want = bf_.Rows({"k"}, {std::to_string(k)}, {"v", "name", "s", "tags"});
    const RecordBatch& got = res->keys[0].rows;
    ASSERT_EQ(got.num_rows, want.empty() ? 0 : 1) << "key " << k;
    if (want.empty()) continue;
    ++found;
    EXPECT_EQ(res->stats.covered_files, res->stats.data_files) << "key " << k;
    std::vector<std::string> rows;
    const auto item = [&](size_t col, int64_t i) {
      const ArrayData& list = *got.columns[col];
      return FormatValue(*list.children[0], list.offsets()[0] + i);
    };
    const int iv = got.schema->FieldIndex("v"), in = got.schema->FieldIndex("name"), is = got.schema->FieldIndex("s"),
              it = got.schema->FieldIndex("tags");
    ASSERT_GE(it, 0);
    const ArrayData& v = *got.columns[size_t(iv)];
    const int64_t n = v.offsets()[1] - v.offsets()[0];
    for (int64_t i = 0; i < n; ++i) {
      rows.push_back(item(size_t(iv), i) + "|" + item(size_t(in), i) + "|" + item(size_t(is), i) + "|" +
                     item(size_t(it), i) + "|");
    }
    EXPECT_EQ(rows, want) << "key " << k;
    if (GetParam() == RewriteLayout::kFramePerKey || GetParam() == RewriteLayout::kInterleaved) {
      EXPECT_LT(res->stats.bytes, 1000u) << "key " << k << ": only the key's frames are read";
    }
  }
  EXPECT_GT(found, 0);
}

INSTANTIATE_TEST_SUITE_P(Layouts, RewriteTest,
                         ::testing::Values(RewriteLayout::kSorted, RewriteLayout::kPagePerKey,
                                           RewriteLayout::kFramePerKey, RewriteLayout::kInterleaved),
                         [](const ::testing::TestParamInfo<RewriteLayout>& i) {
                           return std::string(RewriteLayoutName(i.param));
                         });

}  // namespace
}  // namespace rap::index
