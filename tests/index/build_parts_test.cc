// A build split into parts (index::PlanBuild / BuildPart / CommitBuild, the steps of
// rap.spark.build_index): the committed index answers as brute force and names only the fragments
// of the committed parts; a retried part's orphan is unreferenced; a second commit of the same plan
// loses the race; a commit must cover every planned file exactly once.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "rap/columnar/array_format.h"
#include "rap/index/build.h"
#include "rap/index/index.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;
using rap::testing::BruteForce;

TEST(BuildPartsTest, PartsCommitOneIndexThatEqualsBruteForce) {
  rap::testing::TempDir dir;
  const std::string root = dir.Join("t");
  rap::testing::IndexTableOptions topts;
  topts.files = 4;
  topts.rows = 1500;
  topts.key_space = 200;
  std::vector<std::string> names = rap::testing::WriteIndexTable(root, topts);
  BuildOptions o;
  o.key_columns = {"k"};
  o.buckets = 3;
  o.cover = {"v"};
  o.hoist = {"name"};
  auto plan = PlanBuild(root, o);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->paths.size(), 4u);
  EXPECT_EQ(plan->base_version, 0);
  EXPECT_EQ(plan->run, 1);
  EXPECT_EQ(plan->table_root, "../..");

  auto failed_attempt = BuildPart(root, *plan, {0, 2}, "p0_t1", o);  // as if its task then failed
  ASSERT_TRUE(failed_attempt.ok()) << failed_attempt.status().ToString();
  auto p0 = BuildPart(root, *plan, {0, 2}, "p0_t2", o);
  auto p1 = BuildPart(root, *plan, {1, 3}, "p1_t3", o);
  ASSERT_TRUE(p0.ok()) << p0.status().ToString();
  ASSERT_TRUE(p1.ok()) << p1.status().ToString();
  EXPECT_EQ(p0->files.size(), 4u);

  auto missing = CommitBuild(*plan, {{*p0, {0, 2}}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  auto bad_token = BuildPart(root, *plan, {1}, "a/b", o);
  EXPECT_EQ(bad_token.status().code(), StatusCode::kInvalidArgument);

  auto m = CommitBuild(*plan, {{*p0, {0, 2}}, {*p1, {1, 3}}});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->version, 1);
  EXPECT_EQ(m->next_run, 2);
  ASSERT_EQ(m->files.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(m->files[i].path, names[i]);
    EXPECT_EQ(m->files[i].num_rows, 1500);
  }
  std::set<std::string> referenced;
  for (const FragmentEntry& f : m->fragments) {
    referenced.insert(f.path);
    EXPECT_EQ(f.path.find("p0_t1"), std::string::npos) << f.path;
  }
  // The failed attempt's fragments exist but no manifest names them.
  int orphans = 0;
  for (const auto& e : fs::directory_iterator(DefaultIndexUrl(root) + "/fragments")) {
    const std::string rel = "fragments/" + e.path().filename().string();
    if (!referenced.count(rel)) {
      ++orphans;
      EXPECT_NE(rel.find("p0_t1"), std::string::npos) << rel;
    }
  }
  EXPECT_GT(orphans, 0);

  auto again = CommitBuild(*plan, {{*p0, {0, 2}}, {*p1, {1, 3}}});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kChanged);

  std::vector<std::string> paths;
  for (const std::string& n : names) paths.push_back(root + "/" + n);
  auto bf = BruteForce::Load(paths);
  ASSERT_TRUE(bf.ok()) << bf.status().ToString();
  auto idx = Index::Open(root);
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  std::vector<Key> keys;
  for (int64_t k = -2; k < 205; ++k) keys.push_back(Key{{KeyPart{k, {}}}});
  LookupOptions lo;
  lo.columns = {"v", "name"};
  auto res = (*idx)->Lookup(keys, lo);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  std::vector<std::string> out_names;
  for (const Field& f : res->schema->fields) out_names.push_back(f.name);
  int64_t rows = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string text = FormatValue(*MakeKeyArray(KeyType::kInt64, {&keys[i].parts[0]}), 0);
    auto want = bf->Rows({"k"}, {text}, out_names);
    EXPECT_EQ(rap::testing::ResultRows(res->keys[i]), want) << "key " << text;
    rows += static_cast<int64_t>(want.size());
  }
  EXPECT_GT(rows, 0);
}

}  // namespace
}  // namespace rap::index
