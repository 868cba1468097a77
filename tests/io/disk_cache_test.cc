// DiskCache (rap/io/disk_cache.h): entries round-trip and survive a new instance (a restart), a
// damaged entry is a miss and is removed, the size is kept by evicting the least recently used,
// interrupted writes are cleaned up, two instances on one directory (two processes) see each
// other's entries, and concurrent use from threads is safe.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "rap/io/disk_cache.h"
#include "rap/io/sigv4.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

namespace fs = std::filesystem;

std::string Str(const Buffer& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

std::string EntryPath(const std::string& dir, const std::string& key) {
  const std::string h = sigv4::Sha256Hex(key);
  return dir + "/" + h.substr(0, 2) + "/" + h.substr(2) + ".rdc";
}

TEST(DiskCache, RoundTripAndRestart) {
  rap::testing::TempDir d;
  {
    auto c = DiskCache::Open(d.path(), 1 << 20);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_FALSE((*c)->Get("k1").has_value());
    (*c)->Put("k1", Buffer::Copy("hello"));
    (*c)->Put("k2", Buffer::Copy(""));
    auto v = (*c)->Get("k1");
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(Str(*v), "hello");
    EXPECT_EQ((*c)->Stats().hits, 1u);
    EXPECT_EQ((*c)->Stats().misses, 1u);
    EXPECT_EQ((*c)->Stats().entries, 2u);
  }
  auto again = DiskCache::Open(d.path(), 1 << 20);  // a new process
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->Stats().entries, 2u);
  auto v = (*again)->Get("k1");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(Str(*v), "hello");
  auto empty = (*again)->Get("k2");
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->size(), 0u);
  EXPECT_FALSE((*again)->Get("k3").has_value());
}

TEST(DiskCache, DamagedEntriesAreMissesAndRemoved) {
  rap::testing::TempDir d;
  auto c = DiskCache::Open(d.path(), 1 << 20);
  ASSERT_TRUE(c.ok());
  const std::string payload(1000, 'x');
  for (const char* k : {"flip", "cut", "empty", "header"}) (*c)->Put(k, Buffer::Copy(payload));
  {  // a flipped payload byte: the CRC fails
    std::fstream f(EntryPath(d.path(), "flip"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-10, std::ios::end);
    f.put('y');
  }
  fs::resize_file(EntryPath(d.path(), "cut"), 500);   // a torn write
  fs::resize_file(EntryPath(d.path(), "empty"), 0);   // rename persisted, data not
  {  // a damaged magic
    std::fstream f(EntryPath(d.path(), "header"), std::ios::in | std::ios::out | std::ios::binary);
    f.put('X');
  }
  for (const char* k : {"flip", "cut", "empty", "header"}) {
    EXPECT_FALSE((*c)->Get(k).has_value()) << k;
    EXPECT_FALSE(fs::exists(EntryPath(d.path(), k))) << k;
  }
  EXPECT_EQ((*c)->Stats().corrupt_entries, 4u);
  EXPECT_EQ((*c)->Stats().entries, 0u);
  (*c)->Put("flip", Buffer::Copy(payload));  // written again, read again
  ASSERT_TRUE((*c)->Get("flip").has_value());
}

TEST(DiskCache, AnotherKeyWithTheSameFileIsAMiss) {
  // Two keys whose entry files collide (simulated by copying one entry over the other's file): the
  // stored key does not match, so the entry is not returned for the other key.
  rap::testing::TempDir d;
  auto c = DiskCache::Open(d.path(), 1 << 20);
  ASSERT_TRUE(c.ok());
  (*c)->Put("a", Buffer::Copy("AAAA"));
  (*c)->Put("b", Buffer::Copy("BBBB"));
  fs::copy_file(EntryPath(d.path(), "a"), EntryPath(d.path(), "b"), fs::copy_options::overwrite_existing);
  EXPECT_FALSE((*c)->Get("b").has_value());
  EXPECT_EQ(Str(*(*c)->Get("a")), "AAAA");
}

TEST(DiskCache, EvictsLeastRecentlyUsedWithinTheCapacity) {
  rap::testing::TempDir d;
  const uint64_t capacity = 64 * 1024;
  auto c = DiskCache::Open(d.path(), capacity);
  ASSERT_TRUE(c.ok());
  const std::string payload(4000, 'p');
  (*c)->Put("hot", Buffer::Copy(payload));
  for (int i = 0; i < 60; ++i) {
    (*c)->Put("k" + std::to_string(i), Buffer::Copy(payload));
    ASSERT_TRUE((*c)->Get("hot").has_value()) << i;  // used after every write: never the oldest
    EXPECT_LE((*c)->Stats().bytes, capacity) << i;
  }
  const DiskCacheStats s = (*c)->Stats();
  EXPECT_GT(s.evictions, 40u);
  EXPECT_FALSE((*c)->Get("k0").has_value());
  EXPECT_TRUE((*c)->Get("k59").has_value());
  // What the directory holds is what the index counts.
  uint64_t on_disk = 0;
  for (const auto& e : fs::recursive_directory_iterator(d.path())) {
    if (e.is_regular_file() && e.path().extension() == ".rdc") on_disk += e.file_size();
  }
  EXPECT_EQ(on_disk, (*c)->Stats().bytes);
  EXPECT_LE(on_disk, capacity);
  // A range over an eighth of the capacity is not stored.
  (*c)->Put("big", Buffer::Copy(std::string(capacity / 8 + 1, 'b')));
  EXPECT_FALSE((*c)->Get("big").has_value());
}

TEST(DiskCache, ReopeningWithASmallerSizeEvictsTheOldest) {
  rap::testing::TempDir d;
  {
    auto c = DiskCache::Open(d.path(), 1 << 20);
    ASSERT_TRUE(c.ok());
    for (int i = 0; i < 10; ++i) (*c)->Put("k" + std::to_string(i), Buffer::Copy(std::string(10000, 'v')));
    // Make k0 the most recently used across the restart (a hit sets its mtime).
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE((*c)->Get("k0").has_value());
  }
  auto small = DiskCache::Open(d.path(), 40000);
  ASSERT_TRUE(small.ok());
  EXPECT_LE((*small)->Stats().bytes, 40000u);
  EXPECT_TRUE((*small)->Get("k0").has_value());
  EXPECT_FALSE((*small)->Get("k1").has_value());
}

TEST(DiskCache, OldTemporaryFilesAreRemovedAtOpen) {
  rap::testing::TempDir d;
  fs::create_directories(d.Join("tmp"));
  std::ofstream(d.Join("tmp/old.tmp")) << "half an entry";
  std::ofstream(d.Join("tmp/new.tmp")) << "being written";
  const auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  fs::last_write_time(d.Join("tmp/old.tmp"), two_hours_ago);
  auto c = DiskCache::Open(d.path(), 1 << 20);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(fs::exists(d.Join("tmp/old.tmp")));
  EXPECT_TRUE(fs::exists(d.Join("tmp/new.tmp")));  // maybe another process's write in progress
}

TEST(DiskCache, TwoInstancesShareADirectory) {
  rap::testing::TempDir d;
  auto a = DiskCache::Open(d.path(), 1 << 20);
  auto b = DiskCache::Open(d.path(), 1 << 20);
  ASSERT_TRUE(a.ok() && b.ok());
  (*a)->Put("x", Buffer::Copy("from a"));
  auto v = (*b)->Get("x");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(Str(*v), "from a");
  EXPECT_EQ((*b)->Stats().entries, 1u);  // counted once seen
  fs::remove(EntryPath(d.path(), "x"));  // evicted by the other process
  EXPECT_FALSE((*b)->Get("x").has_value());
  EXPECT_EQ((*b)->Stats().entries, 0u);
}

TEST(DiskCache, BadSettingsAreErrors) {
  rap::testing::TempDir d;
  EXPECT_TRUE(DiskCache::Open(d.path(), 0).status().Is(StatusCode::kInvalidArgument));
  EXPECT_TRUE(DiskCache::Open("", 100).status().Is(StatusCode::kInvalidArgument));
  std::ofstream(d.Join("file")) << "x";
  auto under_file = DiskCache::Open(d.Join("file/cache"), 100);
  EXPECT_FALSE(under_file.ok());
  EXPECT_NE(under_file.status().message().find("file/cache"), std::string::npos) << under_file.status().ToString();
}

}  // namespace
}  // namespace rap::io
