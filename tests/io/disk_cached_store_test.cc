// rap-test-labels: network
// The disk tier under a real HTTP store (rap-netsim): a versioned ranged read is answered from disk
// the second time — no request reaches the server, also from a new cache instance (a restart) —
// while reads without an ETag, tails and heads always go to the server; a changed object (another
// ETag) is read again; OpenUrl wraps remote stores when the settings name a cache directory.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/http_store.h"
#include "rap/io/disk_cache.h"
#include "rap/io/store_options.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

std::string Str(const Buffer& b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

class DiskCachedStore : public ::testing::Test {
 protected:
  void SetUp() override {
    content_.resize(100000);
    for (size_t i = 0; i < content_.size(); ++i) content_[i] = static_cast<char>('a' + (i * 7) % 26);
    std::ofstream(root_.Join("f.bin"), std::ios::binary) << content_;
    rap::testing::NetsimOptions o;
    o.root = root_.path();
    auto s = rap::testing::NetsimServer::Start(o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
    auto http = MakeHttpStore(server_->url(), HttpOptions{});
    ASSERT_TRUE(http.ok());
    http_ = *http;
  }

  uint64_t Requests() {
    auto st = server_->Stats();
    EXPECT_TRUE(st.ok());
    return st.ok() ? st->total.requests : 0;
  }

  Result<std::vector<Buffer>> Read(ObjectStore& store, const std::vector<ByteRange>& ranges, const std::string& etag,
                                   ReadStats* stats = nullptr) {
    ReadOptions ro;
    ro.expected_etag = etag;
    return store.ReadRanges("/f.bin", ranges, ro, stats);
  }

  rap::testing::TempDir root_, cache_dir_;
  std::string content_;
  std::unique_ptr<rap::testing::NetsimServer> server_;
  ObjectStorePtr http_;
};

TEST_F(DiskCachedStore, VersionedRangesComeFromDiskTheSecondTime) {
  auto cache = DiskCache::Open(cache_dir_.path(), 1 << 20);
  ASSERT_TRUE(cache.ok());
  ObjectStorePtr store = WithDiskCache(http_, *cache);
  EXPECT_EQ(store->endpoint(), http_->endpoint());
  EXPECT_TRUE(store->is_remote());
  auto info = store->Head("/f.bin");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  ASSERT_FALSE(info->etag.empty());
  const std::vector<ByteRange> ranges = {{0, 100}, {5000, 2000}, {99000, 1000}};
  const uint64_t before = Requests();
  auto first = Read(*store, ranges, info->etag);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(Requests() - before, 3u);
  for (size_t i = 0; i < ranges.size(); ++i) EXPECT_EQ(Str((*first)[i]), content_.substr(ranges[i].offset, ranges[i].length));

  ReadStats stats;
  auto second = Read(*store, ranges, info->etag, &stats);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(Requests() - before, 3u);  // nothing reached the server
  EXPECT_TRUE(stats.requests.empty());
  for (size_t i = 0; i < ranges.size(); ++i) EXPECT_EQ(Str((*second)[i]), Str((*first)[i]));

  // A new instance of the cache (a restarted process) answers too; one new range costs one request.
  auto restarted = DiskCache::Open(cache_dir_.path(), 1 << 20);
  ASSERT_TRUE(restarted.ok());
  ObjectStorePtr store2 = WithDiskCache(http_, *restarted);
  const std::vector<ByteRange> more = {{5000, 2000}, {70000, 10}};
  auto third = Read(*store2, more, info->etag);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(Requests() - before, 4u);
  EXPECT_EQ(Str((*third)[0]), content_.substr(5000, 2000));
  EXPECT_EQ(Str((*third)[1]), content_.substr(70000, 10));
  EXPECT_EQ((*restarted)->Stats().hits, 1u);

  // The native multi-range read is cached the same way.
  auto native = store2->ReadRangesNative("/f.bin", more, ReadOptions{.expected_etag = info->etag}, nullptr);
  ASSERT_TRUE(native.ok());
  EXPECT_EQ(Requests() - before, 4u);
}

TEST_F(DiskCachedStore, UnversionedReadsTailsAndHeadsAlwaysGoToTheServer) {
  auto cache = DiskCache::Open(cache_dir_.path(), 1 << 20);
  ASSERT_TRUE(cache.ok());
  ObjectStorePtr store = WithDiskCache(http_, *cache);
  const uint64_t before = Requests();
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(Read(*store, {{0, 10}}, "").ok());
    ASSERT_TRUE(store->ReadTail("/f.bin", 100, ReadOptions{}, nullptr).ok());
    ASSERT_TRUE(store->Head("/f.bin").ok());
  }
  EXPECT_EQ(Requests() - before, 6u);
  EXPECT_EQ((*cache)->Stats().entries, 0u);
}

TEST_F(DiskCachedStore, AChangedObjectIsReadAgain) {
  auto cache = DiskCache::Open(cache_dir_.path(), 1 << 20);
  ASSERT_TRUE(cache.ok());
  ObjectStorePtr store = WithDiskCache(http_, *cache);
  auto info = store->Head("/f.bin");
  ASSERT_TRUE(info.ok());
  ASSERT_TRUE(Read(*store, {{0, 100}}, info->etag).ok());
  // Replace the object: another size, so another ETag.
  std::string replaced = "new content " + std::string(5000, 'z');
  std::ofstream(root_.Join("f.bin"), std::ios::binary | std::ios::trunc) << replaced;
  auto info2 = store->Head("/f.bin");
  ASSERT_TRUE(info2.ok());
  ASSERT_NE(info2->etag, info->etag);
  const uint64_t before = Requests();
  auto fresh = Read(*store, {{0, 100}}, info2->etag);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ(Requests() - before, 1u);
  EXPECT_EQ(Str((*fresh)[0]), replaced.substr(0, 100));
  // The old version's range still answers the old bytes (a snapshot's read of that version).
  auto old = Read(*store, {{0, 100}}, info->etag);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(Str((*old)[0]), content_.substr(0, 100));
}

TEST_F(DiskCachedStore, OpenUrlWrapsRemoteStoresWhenAskedTo) {
  StoreOptions o;
  o.cache_dir = cache_dir_.path();
  o.cache_size = "1MiB";
  auto r = OpenUrl(server_->url() + "/f.bin", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto info = r->store->Head(r->path);
  ASSERT_TRUE(info.ok());
  const uint64_t before = Requests();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Read(*r->store, {{10, 20}}, info->etag).ok());
  EXPECT_EQ(Requests() - before, 1u);
  // Without the setting: the plain store, every read a request.
  auto plain = OpenUrl(server_->url() + "/f.bin", StoreOptions{});
  ASSERT_TRUE(plain.ok());
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(Read(*plain->store, {{10, 20}}, info->etag).ok());
  EXPECT_EQ(Requests() - before, 3u);
  // A bad size is an error naming the setting.
  o.cache_size = "lots";
  auto bad = OpenUrl(server_->url() + "/f.bin", o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("RAP_CACHE_SIZE"), std::string::npos) << bad.status().ToString();
}

}  // namespace
}  // namespace rap::io
