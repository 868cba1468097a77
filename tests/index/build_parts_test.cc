// A build split into parts (index::PlanBuild / BuildPart / CommitBuild, the steps of
// rap.spark.build_index): the committed index answers as brute force and names only the fragments
// of the committed parts; a retried part's orphan is unreferenced; a second commit of the same plan
// loses the race; a commit must cover every planned file exactly once. An update split into parts
// (PlanUpdate / BuildPart / CommitUpdate, rap.spark.update_index) commits what UpdateIndex does.
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

TEST(BuildPartsTest, UpdatePartsCommitWhatUpdateIndexCommits) {
  rap::testing::TempDir dir;
  const std::string root = dir.Join("t");
  rap::testing::IndexTableOptions topts;
  topts.files = 3;
  topts.rows = 1000;
  topts.key_space = 150;
  const std::vector<std::string> names = rap::testing::WriteIndexTable(root, topts);
  BuildOptions o;
  o.key_columns = {"k"};
  o.buckets = 2;
  o.cover = {"v"};
  ASSERT_TRUE(BuildIndex(root, o).ok());
  o.index_url = dir.Join("single");  // its single-process twin (an absolute table root)
  ASSERT_TRUE(BuildIndex(root, o).ok());
  const std::string index_url = DefaultIndexUrl(root);

  auto noop = PlanUpdate(index_url);
  ASSERT_TRUE(noop.ok()) << noop.status().ToString();
  EXPECT_FALSE(noop->changed);
  auto unchanged = CommitUpdate(*noop, {});
  ASSERT_TRUE(unchanged.ok()) << unchanged.status().ToString();
  EXPECT_FALSE(unchanged->changed);
  EXPECT_EQ(unchanged->manifest.version, 1);

  // Two files added (f3, f4), one removed.
  topts.files = 2;
  topts.seed = 5;
  topts.first_file = 3;
  for (const std::string& n : rap::testing::WriteIndexTable(dir.Join("more"), topts)) {
    fs::rename(dir.Join("more") + "/" + n, root + "/" + n);
  }
  fs::remove(root + "/" + names[1]);
  auto plan = PlanUpdate(index_url);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(plan->changed);
  EXPECT_EQ(plan->added, (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(plan->removed_files, 1);
  EXPECT_EQ(plan->build.base_version, 1);
  BuildOptions po;
  po.key_columns = plan->key_columns;
  po.buckets = plan->buckets;
  po.cover = plan->cover;
  po.hoist = plan->hoist;
  auto a = BuildPart(root, plan->build, {3}, "a1", po);
  auto b = BuildPart(root, plan->build, {4}, "b1", po);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(CommitUpdate(*plan, {{*a, {3}}}).status().code(), StatusCode::kInvalidArgument);  // f4 not indexed
  EXPECT_EQ(CommitUpdate(*plan, {{*a, {3}}, {*b, {1}}}).status().code(), StatusCode::kInvalidArgument);  // not added
  auto m = CommitUpdate(*plan, {{*a, {3}}, {*b, {4}}});
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m->changed);
  EXPECT_EQ(m->manifest.version, 2);
  EXPECT_EQ(m->added_files, 2);
  EXPECT_EQ(m->removed_files, 1);
  EXPECT_EQ(m->key_rows, 2000);
  EXPECT_EQ(CommitUpdate(*plan, {{*a, {3}}, {*b, {4}}}).status().code(), StatusCode::kChanged);

  auto single = UpdateIndex(dir.Join("single"), {});
  ASSERT_TRUE(single.ok()) << single.status().ToString();
  EXPECT_EQ(single->manifest.version, 2);
  EXPECT_EQ(single->key_rows, m->key_rows);
  ASSERT_EQ(single->manifest.files.size(), m->manifest.files.size());
  for (size_t i = 0; i < m->manifest.files.size(); ++i) {
    const FileEntry &x = m->manifest.files[i], &y = single->manifest.files[i];
    EXPECT_EQ(x.path, y.path);
    EXPECT_EQ(x.removed, y.removed) << x.path;
    EXPECT_EQ(x.num_rows, y.num_rows) << x.path;
    EXPECT_EQ(x.size, y.size) << x.path;
  }
  EXPECT_TRUE(m->manifest.files[1].removed);

  auto dist = Index::Open(index_url);
  auto one = Index::Open(dir.Join("single"));
  ASSERT_TRUE(dist.ok()) << dist.status().ToString();
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  std::vector<Key> keys;
  for (int64_t k = -2; k < 155; ++k) keys.push_back(Key{{KeyPart{k, {}}}});
  LookupOptions lo;
  lo.columns = {"v", "name"};
  auto rd = (*dist)->Lookup(keys, lo);
  auto rs = (*one)->Lookup(keys, lo);
  ASSERT_TRUE(rd.ok()) << rd.status().ToString();
  ASSERT_TRUE(rs.ok()) << rs.status().ToString();
  int64_t rows = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(rap::testing::ResultRows(rd->keys[i]), rap::testing::ResultRows(rs->keys[i])) << "key " << i;
    rows += rd->keys[i].rows.num_rows;
  }
  EXPECT_EQ(rows, 4000);
}

}  // namespace
}  // namespace rap::index
