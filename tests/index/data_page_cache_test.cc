// The Index's hot data cache (IndexOpenOptions::data_cache_bytes, `rap serve --data-cache`): data
// pages decoded whole and kept. Covered lookups through it return exactly the brute-force rows; a
// repeated lookup reads and decodes no data page (every page a cache hit, no request); the cache
// stays within its byte budget (evicting), and with the cache off or too small lookups stay exact
// and report no hit.
#include <gtest/gtest.h>

#include "rap/index/build.h"
#include "rap/index/index.h"
#include "testing/index_table.h"
#include "testing/result_check.h"

namespace rap::index {
namespace {

using rap::testing::BruteForce;

struct PassStats {
  int64_t requests = 0, decoded = 0, hits = 0, rows = 0;
};

class DataPageCacheTest : public ::testing::Test {
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
    BuildOptions o;
    o.key_columns = {"k"};
    o.cover = {"s", "name", "v"};
    o.index_url = DefaultIndexUrl(root_, "covered");
    auto r = BuildIndex(root_, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    url_ = o.index_url;
    o.cover.clear();
    o.index_url = DefaultIndexUrl(root_, "plain");
    r = BuildIndex(root_, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    plain_url_ = o.index_url;
  }

  // Looks every key in [0, 20) up one at a time, checks the rows against the brute force, and sums
  // the lookups' counters.
  PassStats LookupAll(Index& idx, const std::vector<std::string>& columns) {
    PassStats ps;
    LookupOptions lo;
    lo.columns = columns;
    for (int k = 0; k < 20; ++k) {
      auto key = idx.ParseKey({std::to_string(k)});
      EXPECT_TRUE(key.ok());
      if (!key.ok()) return ps;
      auto res = idx.Lookup(std::vector<Key>{*key}, lo);
      EXPECT_TRUE(res.ok()) << res.status().ToString();
      if (!res.ok()) return ps;
      std::vector<std::string> names;
      for (const Field& f : res->schema->fields) names.push_back(f.name);
      EXPECT_EQ(rap::testing::ResultRows(res->keys[0]), bf_.Rows({"k"}, {std::to_string(k)}, names)) << "key " << k;
      ps.requests += res->stats.requests;
      ps.decoded += res->stats.data_pages_decoded;
      ps.hits += res->stats.data_page_cache_hits;
      ps.rows += res->stats.rows;
    }
    return ps;
  }

  rap::testing::TempDir dir_;
  rap::testing::IndexTableOptions opts_;
  std::string root_, url_, plain_url_;
  BruteForce bf_;
};

TEST_F(DataPageCacheTest, RepeatedLookupsReadAndDecodeNothing) {
  IndexOpenOptions oo;
  oo.data_cache_bytes = 64ll << 20;
  auto idx = Index::Open(url_, oo);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  const PassStats first = LookupAll(**idx, {"s", "name", "v"});
  EXPECT_GT(first.rows, 0);
  EXPECT_GT(first.decoded, 0);
  const auto after_first = (*idx)->data_cache_stats();
  EXPECT_EQ(after_first.entries, first.decoded);  // every page decoded once, whole, and kept
  const PassStats second = LookupAll(**idx, {"s", "name", "v"});
  EXPECT_EQ(second.rows, first.rows);
  EXPECT_EQ(second.decoded, 0);
  EXPECT_GT(second.hits, 0);
  EXPECT_EQ(second.requests, 0);  // index pages and data pages all cached
  // A projection of fewer columns is answered from the same pages.
  const PassStats third = LookupAll(**idx, {"name"});
  EXPECT_EQ(third.decoded, 0);
  EXPECT_GT(third.hits, 0);
  EXPECT_EQ((*idx)->data_cache_stats().evictions, 0);
}

// Plain lookups locate their pages through the data files' OffsetIndexes and use the same cache;
// a projection with a nested column takes the row-group path and stays exact.
TEST_F(DataPageCacheTest, PlainLookupsUseTheCacheToo) {
  IndexOpenOptions oo;
  oo.data_cache_bytes = 64ll << 20;
  auto idx = Index::Open(plain_url_, oo);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  const PassStats first = LookupAll(**idx, {"s", "name", "v"});
  EXPECT_GT(first.rows, 0);
  EXPECT_GT(first.decoded, 0);
  EXPECT_EQ((*idx)->data_cache_stats().entries, first.decoded);
  const PassStats second = LookupAll(**idx, {"s", "name", "v"});
  EXPECT_EQ(second.rows, first.rows);
  EXPECT_EQ(second.decoded, 0);
  EXPECT_GT(second.hits, 0);
  EXPECT_LT(second.requests, first.requests);
  const PassStats all = LookupAll(**idx, {});  // every column, the nested one too
  EXPECT_EQ(all.hits, 0);
  EXPECT_EQ(all.rows, first.rows);
}

TEST_F(DataPageCacheTest, StaysWithinItsBudget) {
  // Measure what the pages of the 20 keys take, then give the cache a third of it.
  IndexOpenOptions big;
  big.data_cache_bytes = 64ll << 20;
  auto full = Index::Open(url_, big);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  LookupAll(**full, {"s", "name", "v"});
  const int64_t all_bytes = (*full)->data_cache_stats().bytes;
  ASSERT_GT(all_bytes, 0);

  IndexOpenOptions small;
  small.data_cache_bytes = all_bytes / 3;
  auto idx = Index::Open(url_, small);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  for (int pass = 0; pass < 2; ++pass) {
    LookupAll(**idx, {"s", "name", "v"});
    const auto st = (*idx)->data_cache_stats();
    EXPECT_LE(st.bytes, small.data_cache_bytes) << "pass " << pass;
    EXPECT_GT(st.entries, 0);
    EXPECT_GT(st.evictions, 0);
  }
}

TEST_F(DataPageCacheTest, OffOrTooSmallStaysExact) {
  for (int64_t budget : {int64_t{0}, int64_t{1}}) {
    IndexOpenOptions oo;
    oo.data_cache_bytes = budget;
    for (const std::string& url : {url_, plain_url_}) {
      auto idx = Index::Open(url, oo);
      ASSERT_TRUE(idx.ok()) << idx.status().ToString();
      const PassStats a = LookupAll(**idx, {"s", "name", "v"});
      const PassStats b = LookupAll(**idx, {"s", "v"});
      EXPECT_EQ(a.hits + b.hits, 0) << url << " budget " << budget;
      EXPECT_EQ((*idx)->data_cache_stats().entries, 0) << url << " budget " << budget;
      if (url == url_) {
        EXPECT_GT(b.decoded, 0) << "budget " << budget;
      }
    }
  }
}

}  // namespace
}  // namespace rap::index
