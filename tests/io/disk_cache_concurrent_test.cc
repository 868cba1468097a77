// rap-test-labels: concurrent
// DiskCache from several threads at once: writers, readers and evictions over one small directory;
// every hit returns exactly the bytes stored under its key.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "rap/io/disk_cache.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

std::string PayloadOf(int key) { return std::string(500 + key % 7 * 100, static_cast<char>('a' + key % 26)); }

TEST(DiskCacheConcurrent, ThreadsReadWriteAndEvict) {
  rap::testing::TempDir d;
  auto a = DiskCache::Open(d.path(), 32 * 1024);  // two instances: two processes on one directory
  auto b = DiskCache::Open(d.path(), 32 * 1024);
  ASSERT_TRUE(a.ok() && b.ok());
  std::atomic<int> wrong{0}, hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      DiskCache& c = t % 2 == 0 ? **a : **b;
      for (int i = 0; i < 400; ++i) {
        const int key = (i * 7 + t) % 60;
        const std::string k = "key" + std::to_string(key);
        if (auto v = c.Get(k)) {
          hits.fetch_add(1);
          if (std::string(reinterpret_cast<const char*>(v->data()), v->size()) != PayloadOf(key)) wrong.fetch_add(1);
        } else {
          c.Put(k, Buffer::Copy(PayloadOf(key)));
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(hits.load(), 0);
  EXPECT_EQ((*a)->Stats().corrupt_entries + (*b)->Stats().corrupt_entries, 0u);
  EXPECT_EQ((*a)->Stats().write_errors + (*b)->Stats().write_errors, 0u);
}

}  // namespace
}  // namespace rap::io
