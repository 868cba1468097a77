// Index build + lookup on random tables against a brute-force scan: int64, string, binary, int32 and
// compound keys, duplicates across files, NULLs and nested columns, absent keys; buckets, covered
// and hoisted columns, limits and page tokens; errors for bad keys and changed files.
#include <gtest/gtest.h>

#include <random>

#include "rap/columnar/array_format.h"
#include "rap/index/build.h"
#include "rap/index/index.h"
#include "testing/index_table.h"
#include "testing/result_check.h"

namespace rap::index {
namespace {

using rap::testing::BruteForce;

class LookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("t");
    names_ = rap::testing::WriteIndexTable(root_, opts_);
    std::vector<std::string> paths;
    for (const std::string& n : names_) paths.push_back(root_ + "/" + n);
    auto bf = BruteForce::Load(paths);
    ASSERT_TRUE(bf.ok()) << bf.status().ToString();
    bf_ = std::move(*bf);
  }

  std::shared_ptr<Index> Build(BuildOptions o, IndexOpenOptions oo = {}) {
    auto r = BuildIndex(root_, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return nullptr;
    auto idx = Index::Open(o.index_url.empty() ? root_ : o.index_url, oo);
    EXPECT_TRUE(idx.ok()) << idx.status().ToString();
    return idx.ok() ? *idx : nullptr;
  }

  // The key's text as FormatValue renders the key column.
  static std::vector<std::string> KeyText(const std::vector<KeyColumn>& kc, const Key& k) {
    std::vector<std::string> out;
    for (size_t i = 0; i < kc.size(); ++i) out.push_back(FormatValue(*MakeKeyArray(kc[i].type, {&k.parts[i]}), 0));
    return out;
  }

  // Looks `keys` up and compares every key's rows with the brute force (same order).
  void Check(Index& idx, const std::vector<Key>& keys, const std::vector<std::string>& columns,
             const LookupOptions& base = {}) {
    LookupOptions lo = base;
    lo.columns = columns;
    auto res = idx.Lookup(keys, lo);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    ASSERT_EQ(res->keys.size(), keys.size());
    std::vector<std::string> names;
    for (const Field& f : res->schema->fields) names.push_back(f.name);
    std::vector<std::string> kn;
    for (const KeyColumn& k : idx.info().key) kn.push_back(k.name);
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(res->keys[i].key, keys[i]);
      auto want = bf_.Rows(kn, KeyText(idx.info().key, keys[i]), names);
      EXPECT_EQ(rap::testing::ResultRows(res->keys[i]), want) << "key " << FormatKey(idx.info().key, keys[i]);
      EXPECT_TRUE(res->keys[i].next_page_token.empty());
    }
  }

  std::vector<Key> RandomKeys(Index& idx, int n, uint64_t seed, bool string_key = false) {
    std::mt19937_64 rng(seed);
    std::vector<Key> keys;
    for (int i = 0; i < n; ++i) {
      const int64_t k = static_cast<int64_t>(rng() % (opts_.key_space + 40)) - 20;  // some absent
      std::vector<std::string> parts;
      if (string_key) parts.push_back("s" + std::to_string(k)); else parts.push_back(std::to_string(k));
      if (idx.info().key.size() == 2) parts.push_back(std::to_string(rng() % 2 == 0 ? ((k % 3) + 3) % 3 : 5));
      auto key = idx.ParseKey(parts);
      RAP_TEST_CHECK_OK(key);
      keys.push_back(*key);
    }
    return keys;
  }

  rap::testing::TempDir dir_;
  rap::testing::IndexTableOptions opts_;
  std::string root_;
  std::vector<std::string> names_;
  BruteForce bf_;
};

TEST_F(LookupTest, Int64KeyAllColumnsEqualBruteForce) {
  BuildOptions o;
  o.key_columns = {"k"};
  auto idx = Build(o);
  ASSERT_TRUE(idx);
  EXPECT_EQ(idx->info().files, opts_.files);
  auto keys = RandomKeys(*idx, 60, 1);
  Check(*idx, keys, {});
  Check(*idx, keys, {"v", "tags", "k"});
  // Single keys too (one fragment page each).
  for (size_t i = 0; i < 5; ++i) Check(*idx, {keys[i]}, {"name"});
}

TEST_F(LookupTest, StringKeyWithBucketsCoverAndHoist) {
  BuildOptions o;
  o.key_columns = {"s"};
  o.buckets = 5;
  o.cover = {"v", "name"};
  o.hoist = {"g"};
  auto idx = Build(o);
  ASSERT_TRUE(idx);
  EXPECT_EQ(idx->info().buckets, 5);
  auto keys = RandomKeys(*idx, 50, 2, /*string_key=*/true);
  Check(*idx, keys, {"v", "name"});   // covered: no data-file footer
  Check(*idx, keys, {"g"});           // hoisted: no data read
  Check(*idx, keys, {"name", "k"});   // not all covered: through the footers
  Check(*idx, keys, {});
  LookupOptions lo;
  lo.columns = {"v", "name"};
  auto res = idx->Lookup(keys, lo);
  ASSERT_TRUE(res.ok());
  EXPECT_GT(res->stats.covered_files, 0);
  EXPECT_EQ(res->stats.covered_files, res->stats.data_files);
  lo.columns = {"g"};
  res = idx->Lookup(keys, lo);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->stats.data_files, 0);
  EXPECT_GT(res->stats.hoisted_only, 0);
  lo.columns = {"v", "name"};
  lo.use_cover = false;
  Check(*idx, keys, {"v", "name"}, lo);
}

TEST_F(LookupTest, CompoundAndOtherKeyTypes) {
  {
    BuildOptions o;
    o.key_columns = {"s", "g"};
    o.index_url = dir_.Join("idx_compound");
    o.buckets = 3;
    auto idx = Build(o);
    ASSERT_TRUE(idx);
    ASSERT_EQ(idx->info().key.size(), 2u);
    EXPECT_EQ(idx->info().key[1].type, KeyType::kInt32);
    Check(*idx, RandomKeys(*idx, 40, 3, true), {"v", "tags"});
  }
  {
    BuildOptions o;
    o.key_columns = {"g"};
    o.index_url = dir_.Join("idx_int32");
    auto idx = Build(o);
    ASSERT_TRUE(idx);
    EXPECT_EQ(idx->info().key[0].type, KeyType::kInt32);
    std::vector<Key> keys;
    for (const char* t : {"0", "2", "7", "-1"}) keys.push_back(*idx->ParseKey({t}));
    Check(*idx, keys, {"k", "v"});
  }
  {
    BuildOptions o;
    o.key_columns = {"b"};
    o.index_url = dir_.Join("idx_binary");
    o.buckets = 2;
    o.cover = {"name"};
    auto idx = Build(o);
    ASSERT_TRUE(idx);
    EXPECT_EQ(idx->info().key[0].type, KeyType::kBinary);
    std::vector<Key> keys;
    for (int64_t k : {int64_t{3}, int64_t{77}, int64_t{100000}}) {
      Key key;
      key.parts.push_back({0, std::string(reinterpret_cast<const char*>(&k), 8)});
      keys.push_back(key);
    }
    Check(*idx, keys, {"name"});
    Check(*idx, keys, {"k", "name"});
  }
}

// Key columns named in another order than the file's ("g" is stored after "s"): the key types and
// values follow the order named, not the file's.
TEST_F(LookupTest, CompoundKeyNamedOutOfFileOrder) {
  BuildOptions o;
  o.key_columns = {"g", "s"};
  o.hoist = {"v"};
  o.index_url = dir_.Join("idx_out_of_order");
  o.buckets = 2;
  auto idx = Build(o);
  ASSERT_TRUE(idx);
  ASSERT_EQ(idx->info().key.size(), 2u);
  EXPECT_EQ(idx->info().key[0].name, "g");
  EXPECT_EQ(idx->info().key[0].type, KeyType::kInt32);
  EXPECT_EQ(idx->info().key[1].name, "s");
  EXPECT_EQ(idx->info().key[1].type, KeyType::kString);
  std::mt19937_64 rng(11);
  std::vector<Key> keys;
  for (int i = 0; i < 40; ++i) {
    const int64_t k = static_cast<int64_t>(rng() % (opts_.key_space + 40)) - 20;
    const int64_t g = rng() % 2 == 0 ? ((k % 3) + 3) % 3 : 5;
    auto key = idx->ParseKey({std::to_string(g), "s" + std::to_string(k)});
    ASSERT_TRUE(key.ok()) << key.status().ToString();
    keys.push_back(*key);
  }
  Check(*idx, keys, {"v", "tags"});
  Check(*idx, keys, {});
}

TEST_F(LookupTest, LimitAndPageTokensResumeExactly) {
  BuildOptions o;
  o.key_columns = {"k"};
  auto idx = Build(o);
  ASSERT_TRUE(idx);
  auto keys = RandomKeys(*idx, 20, 4);
  for (int64_t limit : {1, 3, 7}) {
    std::vector<std::vector<std::string>> got(keys.size());
    std::vector<std::string> tokens(keys.size());
    std::vector<bool> done(keys.size(), false);
    for (int page = 0; page < 200; ++page) {
      LookupOptions lo;
      lo.columns = {"v", "name"};
      lo.limit_per_key = limit;
      lo.page_tokens = tokens;
      auto res = idx->Lookup(keys, lo);
      ASSERT_TRUE(res.ok()) << res.status().ToString();
      bool any = false;
      for (size_t i = 0; i < keys.size(); ++i) {
        if (done[i]) continue;
        EXPECT_LE(res->keys[i].rows.num_rows, limit);
        auto rows = rap::testing::ResultRows(res->keys[i]);
        got[i].insert(got[i].end(), rows.begin(), rows.end());
        tokens[i] = res->keys[i].next_page_token;
        if (tokens[i].empty()) done[i] = true; else any = true;
      }
      if (!any) break;
      // Finished keys: an empty token would restart them, so look them up no more.
      for (size_t i = 0; i < keys.size(); ++i) {
        if (done[i]) tokens[i] = "p1:2147483647:0";
      }
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(got[i], bf_.Rows({"k"}, KeyText(idx->info().key, keys[i]), {"k", "v", "name"})) << "limit " << limit;
    }
  }
}

TEST_F(LookupTest, BadInputGetsClearErrors) {
  BuildOptions o;
  o.key_columns = {"k"};
  auto idx = Build(o);
  ASSERT_TRUE(idx);
  auto bad = idx->ParseKey({"12x"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'12x'"), std::string::npos);
  EXPECT_FALSE(idx->ParseKey({"1", "2"}).ok());
  LookupOptions lo;
  lo.columns = {"nope"};
  Key k = *idx->ParseKey({"5"});
  EXPECT_EQ(idx->Lookup({&k, 1}, lo).status().code(), StatusCode::kNotFound);
  lo.columns = {};
  lo.page_tokens = {"garbage"};
  EXPECT_EQ(idx->Lookup({&k, 1}, lo).status().code(), StatusCode::kInvalidArgument);
  BuildOptions bo;
  bo.key_columns = {"v"};
  bo.index_url = dir_.Join("idx_double");
  auto r = BuildIndex(root_, bo);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(r.status().message().find("'v'"), std::string::npos);

  // A data file rewritten after indexing: the lookup names it and returns no rows of the new version.
  const std::string f1 = root_ + "/" + names_[1];
  rap::testing::IndexTableOptions other = opts_;
  other.seed = 99;
  other.files = 1;
  other.first_file = 1;
  rap::testing::TempDir tmp;
  rap::testing::WriteIndexTable(tmp.path(), other);
  rap::testing::WriteStringToFile(f1, rap::testing::ReadFileToString(tmp.Join(names_[1])));
  std::vector<Key> all;
  for (int64_t i = 0; i < opts_.key_space; ++i) all.push_back(*idx->ParseKey({std::to_string(i)}));
  lo.page_tokens.clear();
  auto res = idx->Lookup(all, lo);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), StatusCode::kChanged) << res.status().ToString();
  EXPECT_NE(res.status().message().find(names_[1]), std::string::npos) << res.status().ToString();
  // Covered lookups check the version too (the ETag of every data read).
  std::filesystem::remove(f1);
  res = idx->Lookup(all, lo);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().code(), StatusCode::kNotFound) << res.status().ToString();
  EXPECT_NE(res.status().message().find(names_[1]), std::string::npos);
}

}  // namespace
}  // namespace rap::index
