// The Index's cache of decoded data-file dictionaries (IndexOpenOptions::dictionary_cache_bytes):
// lookups through it return exactly the brute-force rows, plain and covered; a repeated covered
// lookup fetches no dictionary page (fewer requests than the first); with the cache off or too
// small to hold a dictionary, lookups are still exact.
#include <gtest/gtest.h>

#include "rap/index/build.h"
#include "rap/index/index.h"
#include "testing/index_table.h"
#include "testing/result_check.h"

namespace rap::index {
namespace {

using rap::testing::BruteForce;

class DictionaryCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    opts_.files = 3;
    opts_.rows = 2000;
    opts_.key_space = 80;  // ~75 rows per key, over many pages of every file
    opts_.page_rows = 100;
    root_ = dir_.Join("t");
    std::vector<std::string> paths;
    for (const std::string& n : rap::testing::WriteIndexTable(root_, opts_)) paths.push_back(root_ + "/" + n);
    auto bf = BruteForce::Load(paths);
    ASSERT_TRUE(bf.ok()) << bf.status().ToString();
    bf_ = std::move(*bf);
  }

  std::string BuildLayout(const std::string& name, std::vector<std::string> cover) {
    BuildOptions o;
    o.key_columns = {"k"};
    o.cover = std::move(cover);
    o.index_url = DefaultIndexUrl(root_, name);
    auto r = BuildIndex(root_, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return o.index_url;
  }

  // Looks every key in [0, 20) up one at a time, checks the rows against the brute force, and
  // returns the requests of each lookup.
  std::vector<int64_t> LookupAll(Index& idx, const std::vector<std::string>& columns) {
    std::vector<int64_t> requests;
    LookupOptions lo;
    lo.columns = columns;
    for (int k = 0; k < 20; ++k) {
      auto key = idx.ParseKey({std::to_string(k)});
      EXPECT_TRUE(key.ok());
      if (!key.ok()) return requests;
      auto res = idx.Lookup(std::vector<Key>{*key}, lo);
      EXPECT_TRUE(res.ok()) << res.status().ToString();
      if (!res.ok()) return requests;
      std::vector<std::string> names;
      for (const Field& f : res->schema->fields) names.push_back(f.name);
      EXPECT_EQ(rap::testing::ResultRows(res->keys[0]), bf_.Rows({"k"}, {std::to_string(k)}, names)) << "key " << k;
      requests.push_back(res->stats.requests);
    }
    return requests;
  }

  rap::testing::TempDir dir_;
  rap::testing::IndexTableOptions opts_;
  std::string root_;
  BruteForce bf_;
};

TEST_F(DictionaryCacheTest, CoveredLookupsReuseDecodedDictionaries) {
  const std::string url = BuildLayout("covered", {"s", "name", "v"});
  auto idx = Index::Open(url);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  const std::vector<int64_t> first = LookupAll(**idx, {"s", "name", "v"});
  const auto after_first = (*idx)->dictionary_cache_stats();
  EXPECT_GT(after_first.entries, 0);
  EXPECT_GT(after_first.hits, 0);  // the pages of one chunk share one decode of its dictionary
  const std::vector<int64_t> second = LookupAll(**idx, {"s", "name", "v"});
  ASSERT_EQ(first.size(), second.size());
  int64_t r1 = 0, r2 = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    r1 += first[i];
    r2 += second[i];
  }
  // The second pass reads no dictionary page: every one is in the cache.
  EXPECT_LT(r2, r1);
  EXPECT_GT((*idx)->dictionary_cache_stats().hits, after_first.hits);
}

TEST_F(DictionaryCacheTest, PlainLookupsReuseDecodedDictionaries) {
  const std::string url = BuildLayout("plain", {});
  auto idx = Index::Open(url);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  LookupAll(**idx, {"s", "name", "v"});
  LookupAll(**idx, {});
  const auto st = (*idx)->dictionary_cache_stats();
  EXPECT_GT(st.entries, 0);
  EXPECT_GT(st.hits, 0);
}

TEST_F(DictionaryCacheTest, OffOrTooSmallStaysExact) {
  const std::string covered = BuildLayout("covered", {"s", "name"});
  const std::string plain = BuildLayout("plain", {});
  for (int64_t budget : {int64_t{0}, int64_t{1}}) {
    IndexOpenOptions oo;
    oo.dictionary_cache_bytes = budget;
    for (const std::string& url : {covered, plain}) {
      auto idx = Index::Open(url, oo);
      ASSERT_TRUE(idx.ok()) << idx.status().ToString();
      LookupAll(**idx, {"s", "name"});
      LookupAll(**idx, {"s", "name"});
      EXPECT_EQ((*idx)->dictionary_cache_stats().entries, 0) << url << " budget " << budget;
    }
  }
}

}  // namespace
}  // namespace rap::index
