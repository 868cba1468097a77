// rap-test-labels: concurrent
// Many threads looking keys up in one Index at once — with a page cache small enough to evict,
// covered and plain lookups mixed — while another thread refreshes it and an update publishes a
// new manifest version mid-way: every lookup equals a brute-force scan of either the old or the new
// table (one consistent snapshot, never a mix), and after the final Refresh every lookup sees the
// new version. Run under ThreadSanitizer in CI.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "rap/index/build.h"
#include "rap/index/index.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

using rap::testing::BruteForce;

TEST(LookupConcurrentTest, ThreadsLookUpWhileAnUpdateIsPublishedAndRefreshed) {
  rap::testing::TempDir dir;
  const std::string root = dir.Join("t");
  rap::testing::IndexTableOptions opts;
  opts.files = 3;
  opts.rows = 1500;
  opts.key_space = 200;
  auto names = rap::testing::WriteIndexTable(root, opts);
  BuildOptions bo;
  bo.key_columns = {"k"};
  bo.buckets = 3;
  bo.cover = {"v", "name"};
  ASSERT_TRUE(BuildIndex(root, bo).ok());
  std::vector<std::string> old_paths, new_paths;
  for (const std::string& n : names) old_paths.push_back(root + "/" + n);
  auto bf_old = BruteForce::Load(old_paths);
  ASSERT_TRUE(bf_old.ok()) << bf_old.status().ToString();

  // The next version's file, written now (not yet in the table: another directory).
  rap::testing::IndexTableOptions more = opts;
  more.files = 1;
  more.first_file = 3;
  more.seed = 5;
  const std::string staging = dir.Join("staging");
  auto added = rap::testing::WriteIndexTable(staging, more);
  new_paths = old_paths;
  new_paths.push_back(staging + "/" + added[0]);
  auto bf_new = BruteForce::Load(new_paths);
  ASSERT_TRUE(bf_new.ok()) << bf_new.status().ToString();

  IndexOpenOptions oo;
  oo.page_cache_bytes = 48 << 10;  // small: pages are evicted while other threads use them
  oo.threads = 4;
  auto opened = Index::Open(root, oo);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<Index> idx = *opened;

  std::atomic<bool> stop{false};
  std::atomic<int> lookups{0}, matched_new{0};
  std::vector<std::string> failures;
  std::mutex failures_mu;
  auto fail = [&](std::string f) {
    std::lock_guard<std::mutex> lock(failures_mu);
    if (failures.size() < 20) failures.push_back(std::move(f));
  };
  auto worker = [&](int t) {
    std::mt19937_64 rng(static_cast<uint64_t>(t) * 7919 + 1);
    for (int iter = 0; iter < 12; ++iter) {
      std::vector<Key> keys;
      const int n = 1 + static_cast<int>(rng() % 8);
      for (int i = 0; i < n; ++i) {
        auto key = idx->ParseKey({std::to_string(static_cast<int64_t>(rng() % (opts.key_space + 10)) - 5)});
        if (!key.ok()) return fail(key.status().ToString());
        keys.push_back(*key);
      }
      LookupOptions lo;
      lo.columns = iter % 2 == 0 ? std::vector<std::string>{"v", "name"} : std::vector<std::string>{"name", "tags"};
      auto res = idx->Lookup(keys, lo);
      if (!res.ok()) return fail("lookup: " + res.status().ToString());
      std::vector<std::string> cols;
      for (const Field& f : res->schema->fields) cols.push_back(f.name);
      bool all_old = true, all_new = true;
      for (size_t i = 0; i < keys.size(); ++i) {
        const std::string k = FormatKey(idx->info().key, keys[i]);
        const auto got = rap::testing::ResultRows(res->keys[i]);
        all_old = all_old && got == bf_old->Rows({"k"}, {k}, cols);
        all_new = all_new && got == bf_new->Rows({"k"}, {k}, cols);
      }
      if (!all_old && !all_new) fail("thread " + std::to_string(t) + " lookup " + std::to_string(iter) + ": rows match neither version");
      // The version the result names is the one that answered (rap serve reports it as index_version).
      if (res->manifest_version == 1 ? !all_old : res->manifest_version == 2 ? !all_new : true) {
        fail("thread " + std::to_string(t) + " lookup " + std::to_string(iter) + ": rows are not those of version " +
             std::to_string(res->manifest_version) + ", which the result names");
      }
      if (all_new && !all_old) ++matched_new;
      ++lookups;
    }
  };
  std::thread refresher([&] {
    while (!stop.load()) {
      auto r = idx->Refresh();
      if (!r.ok()) fail("refresh: " + r.status().ToString());
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) threads.emplace_back(worker, t);
  // Mid-way: the file joins the table and an update publishes version 2.
  while (lookups.load() < 15 && failures.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::filesystem::rename(staging + "/" + added[0], root + "/" + added[0]);
  auto up = UpdateIndex(DefaultIndexUrl(root), {});
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  EXPECT_EQ(up->added_files, 1);
  for (auto& t : threads) t.join();
  stop = true;
  refresher.join();
  for (const std::string& f : failures) ADD_FAILURE() << f;
  EXPECT_EQ(lookups.load(), 6 * 12);

  // After a final refresh, every key is the new version's.
  ASSERT_TRUE(idx->Refresh().ok());
  EXPECT_EQ(idx->info().manifest_version, 2);
  std::vector<Key> keys;
  for (int k = 0; k < opts.key_space; k += 7) keys.push_back(*idx->ParseKey({std::to_string(k)}));
  LookupOptions lo;
  lo.columns = {"v", "name"};
  auto res = idx->Lookup(keys, lo);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->manifest_version, 2);
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string k = FormatKey(idx->info().key, keys[i]);
    EXPECT_EQ(rap::testing::ResultRows(res->keys[i]), bf_new->Rows({"k"}, {k}, {"k", "v", "name"})) << k;
  }
}

}  // namespace
}  // namespace rap::index
