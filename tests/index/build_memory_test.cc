// A build under a memory budget (BuildOptions::memory, `rap index build --memory`): a budget small
// enough to force spilling writes more fragments per bucket, keeps its accounted entry buffer within
// the budget, and answers every key (plain, covered and hoisted columns) exactly as the unbounded
// build and brute force do; an update under a tiny budget does too.
#include <gtest/gtest.h>

#include "rap/columnar/array_format.h"
#include "rap/index/build.h"
#include "rap/index/index.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

using rap::testing::BruteForce;

void ExpectSameLookups(const std::string& a_url, const std::string& b_url, const BruteForce* bf, int64_t lo_key,
                       int64_t hi_key) {
  auto a = Index::Open(a_url);
  auto b = Index::Open(b_url);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  std::vector<Key> keys;
  for (int64_t k = lo_key; k < hi_key; ++k) keys.push_back(Key{{KeyPart{k, {}}}});
  LookupOptions lo;
  lo.columns = {"v", "name"};
  auto ra = (*a)->Lookup(keys, lo);
  auto rb = (*b)->Lookup(keys, lo);
  ASSERT_TRUE(ra.ok()) << ra.status().ToString();
  ASSERT_TRUE(rb.ok()) << rb.status().ToString();
  std::vector<std::string> out_names;
  for (const Field& f : ra->schema->fields) out_names.push_back(f.name);
  int64_t rows = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto got = rap::testing::ResultRows(ra->keys[i]);
    EXPECT_EQ(got, rap::testing::ResultRows(rb->keys[i])) << "key " << keys[i].parts[0].i;
    if (bf) {
      const std::string text = FormatValue(*MakeKeyArray(KeyType::kInt64, {&keys[i].parts[0]}), 0);
      EXPECT_EQ(got, bf->Rows({"k"}, {text}, out_names)) << "key " << text;
    }
    rows += static_cast<int64_t>(got.size());
  }
  EXPECT_GT(rows, 0);
}

TEST(BuildMemoryTest, SpilledBuildAnswersAsTheUnboundedOne) {
  rap::testing::TempDir dir;
  const std::string root = dir.Join("t");
  rap::testing::IndexTableOptions topts;
  topts.files = 4;
  topts.rows = 1500;
  topts.key_space = 200;
  std::vector<std::string> names = rap::testing::WriteIndexTable(root, topts);
  std::vector<std::string> paths;
  for (const std::string& n : names) paths.push_back(root + "/" + n);
  auto bf = BruteForce::Load(paths);
  ASSERT_TRUE(bf.ok()) << bf.status().ToString();

  for (bool covered : {false, true}) {
    SCOPED_TRACE(covered ? "covered + hoisted" : "plain");
    BuildOptions o;
    o.key_columns = {"k"};
    o.buckets = 3;
    if (covered) {
      o.cover = {"v"};
      o.hoist = {"name"};
    }
    o.memory = 0;
    o.index_url = dir.Join(covered ? "unbounded_c" : "unbounded");
    auto full = BuildIndex(root, o);
    ASSERT_TRUE(full.ok()) << full.status().ToString();
    EXPECT_EQ(full->spills, 0);
    EXPECT_EQ(full->manifest.fragments.size(), 3u);
    EXPECT_GT(full->peak_buffered_bytes, 0);

    // A sixth of the unbounded build's peak: the budget must force several spills.
    const int64_t kBudget = full->peak_buffered_bytes / 6;
    ASSERT_GT(kBudget, 1024);
    o.memory = kBudget;
    o.index_url = dir.Join(covered ? "bounded_c" : "bounded");
    auto bounded = BuildIndex(root, o);
    ASSERT_TRUE(bounded.ok()) << bounded.status().ToString();
    EXPECT_GE(bounded->spills, 4);
    EXPECT_LE(bounded->peak_buffered_bytes, kBudget);
    EXPECT_GT(bounded->manifest.fragments.size(), full->manifest.fragments.size());
    EXPECT_EQ(bounded->entries, full->entries);
    EXPECT_EQ(bounded->key_rows, full->key_rows);
    int64_t entries = 0;
    for (size_t i = 0; i < bounded->manifest.fragments.size(); ++i) {
      const FragmentEntry& f = bounded->manifest.fragments[i];
      entries += f.entries;
      if (i > 0) {
        EXPECT_LE(bounded->manifest.fragments[i - 1].bucket, f.bucket) << "fragments in bucket order";
      }
    }
    EXPECT_EQ(entries, full->entries);
    ExpectSameLookups(o.index_url, full->index_url, &*bf, -2, 205);
  }
}

TEST(BuildMemoryTest, UpdateUnderATinyBudgetAnswersAsAnUnboundedOne) {
  rap::testing::TempDir dir;
  const std::string root = dir.Join("t");
  rap::testing::IndexTableOptions topts;
  topts.files = 2;
  topts.rows = 1500;
  topts.key_space = 200;
  rap::testing::WriteIndexTable(root, topts);
  BuildOptions o;
  o.key_columns = {"k"};
  o.buckets = 2;
  o.cover = {"v"};
  o.hoist = {"name"};
  o.index_url = dir.Join("a");
  ASSERT_TRUE(BuildIndex(root, o).ok());
  o.index_url = dir.Join("b");
  ASSERT_TRUE(BuildIndex(root, o).ok());
  // Two more files, then one update with a tiny budget, one without.
  topts.first_file = 2;
  topts.seed = 12;
  rap::testing::WriteIndexTable(root, topts);
  UpdateOptions tiny;
  tiny.memory = 16 << 10;
  UpdateOptions unbounded;
  unbounded.memory = 0;
  auto ua = UpdateIndex(dir.Join("a"), tiny);
  auto ub = UpdateIndex(dir.Join("b"), unbounded);
  ASSERT_TRUE(ua.ok()) << ua.status().ToString();
  ASSERT_TRUE(ub.ok()) << ub.status().ToString();
  ASSERT_TRUE(ua->changed);
  EXPECT_EQ(ua->added_files, 2);
  EXPECT_EQ(ub->added_files, 2);
  EXPECT_GT(ua->manifest.fragments.size(), ub->manifest.fragments.size());
  ExpectSameLookups(dir.Join("a"), dir.Join("b"), nullptr, -2, 205);
}

}  // namespace
}  // namespace rap::index
