// rap-test-labels: network concurrent
// The HTTP store against a real nginx on loopback: range boundaries, suffix ranges, many
// concurrent ranges, connection reuse (counted in nginx's access log), HEAD and errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "rap/io/http_store.h"
#include "rap/io/object_store.h"
#include "testing/fault_server.h"
#include "testing/nginx_fixture.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

using rap::testing::NginxServer;
using rap::testing::TempDir;

std::string Pattern(size_t n, int seed) {
  std::string s(n, '\0');
  uint32_t x = 2463534242u + static_cast<uint32_t>(seed);
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    s[i] = static_cast<char>(x & 0xff);
  }
  return s;
}

class HttpStoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    big_ = new std::string(Pattern(3 * 1024 * 1024 + 17, 1));
    rap::testing::WriteStringToFile(dir_->Join("big.bin"), *big_);
    rap::testing::WriteStringToFile(dir_->Join("small.bin"), "0123456789");
    rap::testing::WriteStringToFile(dir_->Join("empty.bin"), "");
    std::filesystem::create_directories(dir_->Join("tree/sub/deeper"));
    rap::testing::WriteStringToFile(dir_->Join("tree/a.bin"), "a");
    rap::testing::WriteStringToFile(dir_->Join("tree/sub/b c.bin"), "bb");
    rap::testing::WriteStringToFile(dir_->Join("tree/sub/deeper/c.bin"), "ccc");
    rap::testing::WriteStringToFile(dir_->Join("treehouse.bin"), "house");
    server_ = new NginxServer(dir_->path());
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
    delete big_;
  }
  void SetUp() override {
    if (!server_->ok()) GTEST_SKIP() << server_->error();
    auto s = MakeHttpStore(server_->base_url());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = *s;
  }
  std::string_view Big(const ByteRange& r) { return std::string_view(*big_).substr(r.offset, r.length); }

  static TempDir* dir_;
  static std::string* big_;
  static NginxServer* server_;
  ObjectStorePtr store_;
};
TempDir* HttpStoreTest::dir_ = nullptr;
std::string* HttpStoreTest::big_ = nullptr;
NginxServer* HttpStoreTest::server_ = nullptr;

TEST_F(HttpStoreTest, HeadReportsSizeAndEtag) {
  auto info = store_->Head("/big.bin");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->size, big_->size());
  EXPECT_FALSE(info->etag.empty());
  EXPECT_GT(info->mtime_ms, 0);
  auto missing = store_->Head("/missing.bin");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().Is(StatusCode::kNotFound)) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("/missing.bin"), std::string::npos);
}

TEST_F(HttpStoreTest, RangesAtBoundaries) {
  uint64_t size = big_->size();
  std::vector<ByteRange> ranges = {{0, 1}, {size - 1, 1}, {0, size}, {12345, 100000}, {size - 4096, 4096}, {7, 0}};
  ReadStats stats;
  auto bufs = store_->ReadRanges("/big.bin", ranges, ReadOptions{}, &stats);
  ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
  ASSERT_EQ(bufs->size(), ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) EXPECT_TRUE((*bufs)[i].view() == Big(ranges[i])) << i;
  // Zero-length ranges need no request.
  ASSERT_EQ(stats.requests.size(), 5u);
  EXPECT_EQ(stats.payload_bytes, 1 + 1 + size + 100000 + 4096);
  for (const auto& t : stats.requests) {
    EXPECT_GE(t.first_byte_s, t.start_s);
    EXPECT_GE(t.end_s, t.first_byte_s);
    EXPECT_EQ(t.attempts, 1);
  }
  EXPECT_GT(stats.payload_wall_s, 0);
}

TEST_F(HttpStoreTest, SuffixRangeReturnsTailAndSize) {
  auto tail = store_->ReadTail("/big.bin", 8, ReadOptions{}, nullptr);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_EQ(tail->first.view(), std::string_view(*big_).substr(big_->size() - 8));
  EXPECT_EQ(tail->second.size, big_->size());
  EXPECT_FALSE(tail->second.etag.empty());

  auto longer = store_->ReadTail("/small.bin", 64 * 1024, ReadOptions{}, nullptr);
  ASSERT_TRUE(longer.ok()) << longer.status().ToString();
  EXPECT_EQ(longer->first.view(), "0123456789");
  EXPECT_EQ(longer->second.size, 10u);

  auto empty = store_->ReadTail("/empty.bin", 100, ReadOptions{}, nullptr);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->first.size(), 0u);
  EXPECT_EQ(empty->second.size, 0u);
}

TEST_F(HttpStoreTest, ManyConcurrentRangesReuseConnections) {
  size_t before = server_->DistinctConnections();
  std::vector<ByteRange> ranges;
  for (uint64_t i = 0; i < 200; ++i) ranges.push_back({(i * 15013) % (big_->size() - 20000), 1000 + i * 37});
  ReadOptions opts;
  opts.max_concurrency = 10;
  for (int round = 0; round < 3; ++round) {
    auto bufs = store_->ReadRanges("/big.bin", ranges, opts, nullptr);
    ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
    for (size_t i = 0; i < ranges.size(); ++i) ASSERT_TRUE((*bufs)[i].view() == Big(ranges[i])) << i;
  }
  // Another file through the same store reuses the same connections.
  auto small = store_->ReadTail("/small.bin", 4, opts, nullptr);
  ASSERT_TRUE(small.ok());
  size_t used = server_->DistinctConnections() - before;
  EXPECT_GE(used, 1u);
  EXPECT_LE(used, 10u) << "601 requests should travel over at most 10 persistent connections";
  EXPECT_LE(ConnectionsOpened(*store_), 10);
  // nginx saw exactly the ranges we asked for.
  size_t ranged = 0;
  for (const auto& e : server_->AccessLog()) ranged += e.status == 206;
  EXPECT_GE(ranged, 601u);
}

TEST_F(HttpStoreTest, ErrorsAreClear) {
  std::vector<ByteRange> beyond = {{big_->size() + 10, 5}};
  auto r = store_->ReadRanges("/big.bin", beyond, ReadOptions{}, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("416"), std::string::npos) << r.status().ToString();

  std::vector<ByteRange> one = {{0, 10}};
  auto nf = store_->ReadRanges("/nope.bin", one, ReadOptions{}, nullptr);
  ASSERT_FALSE(nf.ok());
  EXPECT_TRUE(nf.status().Is(StatusCode::kNotFound)) << nf.status().ToString();

  ReadOptions changed;
  changed.expected_etag = "\"not-the-etag\"";
  auto ch = store_->ReadRanges("/big.bin", one, changed, nullptr);
  ASSERT_FALSE(ch.ok());
  EXPECT_TRUE(ch.status().Is(StatusCode::kChanged)) << ch.status().ToString();
  EXPECT_NE(ch.status().message().find("object changed while reading"), std::string::npos);

  CancellationToken token;
  token.Cancel();
  ReadOptions cancelled;
  cancelled.cancel = &token;
  auto c = store_->ReadRanges("/big.bin", one, cancelled, nullptr);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().Is(StatusCode::kCancelled));

  EXPECT_TRUE(store_->Put("/x", Buffer::Copy("x")).Is(StatusCode::kNotSupported));
}

TEST_F(HttpStoreTest, ListsNginxAutoindexRecursively) {
  auto tree = store_->List("/tree/");
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  ASSERT_EQ(tree->size(), 3u);
  EXPECT_EQ((*tree)[0].path, "/tree/a.bin");
  EXPECT_EQ((*tree)[1].path, "/tree/sub/b%20c.bin");
  EXPECT_EQ((*tree)[2].path, "/tree/sub/deeper/c.bin");
  EXPECT_EQ((*tree)[1].size, 2u);
  // Listed paths and ETags are what HEAD reports for the same object.
  auto head = store_->Head((*tree)[1].path);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->etag, (*tree)[1].etag);
  EXPECT_EQ(head->size, 2u);
  // A path prefix that is not a directory: "tree" matches tree/... and treehouse.bin.
  auto prefix = store_->List("/tree");
  ASSERT_TRUE(prefix.ok());
  EXPECT_EQ(prefix->size(), 4u);
  auto none = store_->List("/no-such-dir/");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  // A server whose directory pages are not autoindex JSON cannot list.
  rap::testing::FaultServer plain;
  plain.AddObject("/dir/", "<html>index</html>");
  auto s = MakeHttpStore(plain.base_url());
  ASSERT_TRUE(s.ok());
  auto l = (*s)->List("/dir/");
  ASSERT_FALSE(l.ok());
  EXPECT_TRUE(l.status().Is(StatusCode::kNotSupported)) << l.status().ToString();
}

TEST_F(HttpStoreTest, UnreachableEndpointIsNamed) {
  int port = rap::testing::PickFreePort();  // nothing listens there
  HttpOptions o;
  o.max_attempts = 2;
  o.initial_backoff_s = 0.01;
  auto s = MakeHttpStore("http://127.0.0.1:" + std::to_string(port), o);
  ASSERT_TRUE(s.ok());
  auto info = (*s)->Head("/x");
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("cannot connect to endpoint http://127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << info.status().ToString();

  auto dns = MakeHttpStore("http://no-such-host.invalid", o);
  ASSERT_TRUE(dns.ok());
  auto d = (*dns)->Head("/x");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("cannot resolve the host of endpoint http://no-such-host.invalid"),
            std::string::npos)
      << d.status().ToString();
}

TEST_F(HttpStoreTest, OpenUrlSharesStoresPerEndpoint) {
  auto a = OpenUrl(server_->base_url() + "/big.bin");
  auto b = OpenUrl(server_->base_url() + "/small.bin");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->store.get(), b->store.get());
  EXPECT_EQ(a->path, "/big.bin");
  EXPECT_TRUE(a->store->is_remote());
  EXPECT_EQ(a->store->endpoint(), server_->base_url());
  std::vector<ByteRange> r = {{5, 3}};
  auto bufs = b->store->ReadRanges(b->path, r, ReadOptions{}, nullptr);
  ASSERT_TRUE(bufs.ok());
  EXPECT_EQ((*bufs)[0].view(), "567");
  // Native multi-range read: merged and sliced, same bytes.
  std::vector<ByteRange> many = {{100, 10}, {0, 5}, {2 * 1024 * 1024, 50}};
  ReadStats stats;
  auto nat = a->store->ReadRangesNative(a->path, many, ReadOptions{}, &stats);
  ASSERT_TRUE(nat.ok());
  for (size_t i = 0; i < many.size(); ++i) EXPECT_TRUE((*nat)[i].view() == Big(many[i]));
  EXPECT_EQ(stats.requests.size(), 2u);
}

// A range far larger than the object (a corrupt length from a footer, say) fails with a clear error
// and costs no memory beyond what the server actually sends: bodies are sized from the response.
TEST_F(HttpStoreTest, OversizedRangeFailsWithoutAllocatingIt) {
  HttpOptions o;
  o.max_attempts = 2;
  o.initial_backoff_s = 0.01;
  auto s = MakeHttpStore(server_->base_url(), o);
  ASSERT_TRUE(s.ok());
  for (ByteRange r : {ByteRange{0, uint64_t{1} << 50}, ByteRange{5, uint64_t{1} << 40}}) {
    std::vector<ByteRange> ranges = {r};
    auto bufs = (*s)->ReadRanges("/small.bin", ranges, ReadOptions{}, nullptr);
    ASSERT_FALSE(bufs.ok()) << r.ToString();
    EXPECT_TRUE(bufs.status().Is(StatusCode::kCorrupt)) << bufs.status().ToString();
    EXPECT_NE(bufs.status().message().find("does not match the request"), std::string::npos)
        << bufs.status().ToString();
  }
  auto tail = (*s)->ReadTail("/small.bin", uint64_t{1} << 50, ReadOptions{}, nullptr);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_EQ(tail->first.view(), "0123456789");
}

}  // namespace
}  // namespace rap::io
