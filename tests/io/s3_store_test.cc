// rap-test-labels: network
// The S3 store against a real S3 implementation that verifies SigV4 (Swift s3api on loopback):
// PUT, HEAD, ranges at boundaries, suffix ranges, concurrent ranges, listing across pages, clear
// access-denied / not-found errors, and planned reads (every policy returns the object's bytes).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <set>

#include "rap/io/http_store.h"
#include "rap/io/object_store.h"
#include "rap/io/planned_read.h"
#include "rap/io/s3_store.h"
#include "testing/swift_fixture.h"

namespace rap::io {
namespace {

using rap::testing::SwiftEnvironment;

::testing::Environment* const kSwift = ::testing::AddGlobalTestEnvironment(new SwiftEnvironment());

std::string Pattern(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = 2463534242u + seed;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    s[i] = static_cast<char>(x & 0xff);
  }
  return s;
}

S3Config TestConfig() {
  S3Config c;
  c.access_key_id = SwiftEnvironment::kAccessKey;
  c.secret_access_key = SwiftEnvironment::kSecret;
  c.region = SwiftEnvironment::kRegion;
  c.endpoint_url = SwiftEnvironment::Get()->endpoint_url();
  c.credentials_source = "test";
  return c;
}

class S3StoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { big_ = new std::string(Pattern(3 * 1024 * 1024 + 5, 7)); }
  static void TearDownTestSuite() { delete big_; }
  void SetUp() override {
    auto* env = SwiftEnvironment::Get();
    if (!env || !env->ok()) GTEST_SKIP() << (env ? env->error() : "no Swift environment");
    auto s = MakeS3Store(SwiftEnvironment::kBucket, TestConfig());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = *s;
    if (!uploaded_) {
      ASSERT_TRUE(store_->Put("data/big.bin", Buffer::Copy(*big_)).ok());
      ASSERT_TRUE(store_->Put("data/small.bin", Buffer::Copy("0123456789")).ok());
      uploaded_ = true;
    }
  }
  std::string_view Big(const ByteRange& r) { return std::string_view(*big_).substr(r.offset, r.length); }

  static std::string* big_;
  static bool uploaded_;
  ObjectStorePtr store_;
};
std::string* S3StoreTest::big_ = nullptr;
bool S3StoreTest::uploaded_ = false;

TEST_F(S3StoreTest, HeadAndRangesAtBoundaries) {
  auto info = store_->Head("data/big.bin");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->size, big_->size());
  EXPECT_EQ(info->etag.size(), 32u);  // md5 hex
  uint64_t size = big_->size();
  std::vector<ByteRange> ranges = {{0, 1}, {size - 1, 1}, {0, size}, {777, 65536}, {size - 100, 100}};
  ReadStats stats;
  auto bufs = store_->ReadRanges("data/big.bin", ranges, ReadOptions{}, &stats);
  ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
  for (size_t i = 0; i < ranges.size(); ++i) EXPECT_TRUE((*bufs)[i].view() == Big(ranges[i])) << i;
  EXPECT_EQ(stats.requests.size(), ranges.size());
  EXPECT_EQ(stats.payload_bytes, 1 + 1 + size + 65536 + 100);
}

TEST_F(S3StoreTest, SuffixRanges) {
  auto tail = store_->ReadTail("data/big.bin", 1000, ReadOptions{}, nullptr);
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_EQ(tail->first.view(), std::string_view(*big_).substr(big_->size() - 1000));
  EXPECT_EQ(tail->second.size, big_->size());
  auto whole = store_->ReadTail("data/small.bin", 4096, ReadOptions{}, nullptr);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->first.view(), "0123456789");
  EXPECT_EQ(whole->second.size, 10u);
}

TEST_F(S3StoreTest, ManyConcurrentRanges) {
  std::vector<ByteRange> ranges;
  for (uint64_t i = 0; i < 60; ++i) ranges.push_back({(i * 52361) % (big_->size() - 9000), 1 + i * 131});
  ReadOptions opts;
  opts.max_concurrency = 10;
  auto bufs = store_->ReadRanges("data/big.bin", ranges, opts, nullptr);
  ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
  for (size_t i = 0; i < ranges.size(); ++i) ASSERT_TRUE((*bufs)[i].view() == Big(ranges[i])) << i;
  EXPECT_LE(ConnectionsOpened(*store_), 10);
}

TEST_F(S3StoreTest, WrongSecretIsAccessDeniedWithoutTheSecret) {
  S3Config bad = TestConfig();
  bad.secret_access_key = "wrong-secret-xyz";
  auto s = MakeS3Store(SwiftEnvironment::kBucket, bad);
  ASSERT_TRUE(s.ok());
  std::vector<ByteRange> r = {{0, 10}};
  auto res = (*s)->ReadRanges("data/small.bin", r, ReadOptions{}, nullptr);
  ASSERT_FALSE(res.ok());
  const Status& st = res.status();
  EXPECT_TRUE(st.Is(StatusCode::kAccessDenied)) << st.ToString();
  EXPECT_NE(st.message().find("s3://rap-test/data/small.bin"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("test:tester"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("SignatureDoesNotMatch"), std::string::npos) << st.ToString();
  EXPECT_EQ(st.message().find("wrong-secret-xyz"), std::string::npos);
  auto head = (*s)->Head("data/small.bin");
  ASSERT_FALSE(head.ok());
  EXPECT_TRUE(head.status().Is(StatusCode::kAccessDenied)) << head.status().ToString();
}

TEST_F(S3StoreTest, MissingKeyAndBucketAreNotFound) {
  auto head = store_->Head("data/nope.bin");
  ASSERT_FALSE(head.ok());
  EXPECT_TRUE(head.status().Is(StatusCode::kNotFound)) << head.status().ToString();
  std::vector<ByteRange> r = {{0, 10}};
  auto read = store_->ReadRanges("data/nope.bin", r, ReadOptions{}, nullptr);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(read.status().Is(StatusCode::kNotFound)) << read.status().ToString();
  EXPECT_NE(read.status().message().find("s3://rap-test/data/nope.bin"), std::string::npos);
  auto tail = store_->ReadTail("data/nope.bin", 10, ReadOptions{}, nullptr);
  EXPECT_TRUE(tail.status().Is(StatusCode::kNotFound)) << tail.status().ToString();

  auto other = MakeS3Store("no-such-bucket-rap", TestConfig());
  ASSERT_TRUE(other.ok());
  auto list = (*other)->List("x/");
  ASSERT_FALSE(list.ok());
  EXPECT_TRUE(list.status().Is(StatusCode::kNotFound)) << list.status().ToString();
  EXPECT_NE(list.status().message().find("no-such-bucket-rap"), std::string::npos);
}

// The RAP index publishes manifests with PutIfAbsent (If-None-Match: *) and vacuums with Delete.
// AWS S3 has conditional writes; Swift's s3api answers 501: then PutIfAbsent is NotSupported at
// once (not retried), names the missing feature and writes nothing.
TEST_F(S3StoreTest, PutIfAbsentIsAtomicOrNotSupportedAndDeleteRemoves) {
  const std::string key = "conditional/manifest-" + std::to_string(::getpid()) + ".json";
  Status first = store_->PutIfAbsent(key, Buffer::Copy("first"));
  if (first.ok()) {
    Status again = store_->PutIfAbsent(key, Buffer::Copy("second"));
    ASSERT_FALSE(again.ok());
    EXPECT_TRUE(again.Is(StatusCode::kChanged)) << again.ToString();
    EXPECT_NE(again.message().find(key), std::string::npos) << again.ToString();
    std::vector<ByteRange> all = {{0, 5}};
    auto read = store_->ReadRanges(key, all, ReadOptions{}, nullptr);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ((*read)[0].view(), "first");  // the loser did not overwrite
  } else {
    EXPECT_TRUE(first.Is(StatusCode::kNotSupported)) << first.ToString();
    EXPECT_NE(first.message().find("conditional writes"), std::string::npos) << first.ToString();
    EXPECT_EQ(first.message().find("attempts"), std::string::npos) << "retried: " << first.ToString();
    auto head = store_->Head(key);
    EXPECT_TRUE(head.status().Is(StatusCode::kNotFound)) << head.status().ToString();
    ASSERT_TRUE(store_->Put(key, Buffer::Copy("plain")).ok());
  }
  ASSERT_TRUE(store_->Delete(key).ok());
  auto head = store_->Head(key);
  ASSERT_FALSE(head.ok());
  EXPECT_TRUE(head.status().Is(StatusCode::kNotFound)) << head.status().ToString();
}

TEST_F(S3StoreTest, ListingAcrossPagesReturnsEveryKeyOnce) {
  std::set<std::string> want;
  for (int i = 0; i < 250; ++i) {
    char name[64];
    std::snprintf(name, sizeof(name), "list/part-%04d.bin", (i * 7919) % 250);
    want.insert(name);
  }
  want.insert("list/with space+plus=eq&amp.bin");
  want.insert("list/sub/dir/deep.bin");
  for (const auto& k : want) ASSERT_TRUE(store_->Put(k, Buffer::Copy(k)).ok()) << k;
  ASSERT_TRUE(store_->Put("listing-sibling.bin", Buffer::Copy("x")).ok());  // shares "list" but not "list/"

  auto listed = store_->List("list/");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), want.size());  // > 2 pages of 100
  std::set<std::string> got;
  for (size_t i = 0; i < listed->size(); ++i) {
    const ObjectInfo& o = (*listed)[i];
    EXPECT_TRUE(got.insert(o.path).second) << "duplicate " << o.path;
    EXPECT_EQ(o.size, o.path.size());
    EXPECT_FALSE(o.etag.empty());
    EXPECT_GT(o.mtime_ms, 0);
    if (i > 0) {
      EXPECT_LT((*listed)[i - 1].path, o.path);
    }
  }
  EXPECT_EQ(got, want);
  // Keys with reserved characters round-trip through GET as well.
  std::vector<ByteRange> r = {{5, 4}};
  auto odd = store_->ReadRanges("list/with space+plus=eq&amp.bin", r, ReadOptions{}, nullptr);
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  EXPECT_EQ((*odd)[0].view(), "with");
}

TEST_F(S3StoreTest, OpenUrlUsesTheAwsEnvironment) {
  setenv("AWS_ACCESS_KEY_ID", SwiftEnvironment::kAccessKey, 1);
  setenv("AWS_SECRET_ACCESS_KEY", SwiftEnvironment::kSecret, 1);
  setenv("AWS_REGION", SwiftEnvironment::kRegion, 1);
  setenv("AWS_ENDPOINT_URL", SwiftEnvironment::Get()->endpoint_url().c_str(), 1);
  auto r = OpenUrl(std::string("s3://") + SwiftEnvironment::kBucket + "/data/small.bin");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->path, "data/small.bin");
  EXPECT_TRUE(r->store->is_remote());
  auto again = OpenUrl(std::string("s3://") + SwiftEnvironment::kBucket + "/data/big.bin");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(r->store.get(), again->store.get());
  std::vector<ByteRange> ranges = {{2, 3}};
  auto bufs = r->store->ReadRanges(r->path, ranges, ReadOptions{}, nullptr);
  ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
  EXPECT_EQ((*bufs)[0].view(), "234");
  // A different secret is a different store (and is refused).
  setenv("AWS_SECRET_ACCESS_KEY", "nope", 1);
  auto wrong = OpenUrl(std::string("s3://") + SwiftEnvironment::kBucket + "/data/small.bin");
  ASSERT_TRUE(wrong.ok());
  EXPECT_NE(wrong->store.get(), r->store.get());
  EXPECT_TRUE(wrong->store->Head(wrong->path).status().Is(StatusCode::kAccessDenied));
  for (const char* v : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_ENDPOINT_URL"}) unsetenv(v);
}

TEST_F(S3StoreTest, EveryPlanPolicyReturnsTheObjectBytes) {
  EXPECT_EQ(DefaultPlanPolicy(*store_), plan::PlanPolicy::Auto());
  auto est = std::make_shared<plan::TransportEstimator>();
  const uint64_t size = big_->size();
  for (const char* p : {"exact", "fixed:1MiB", "store", "auto", "auto", "auto", "auto"}) {
    // 40 ranges with small and large gaps, duplicates and a zero-length range.
    std::vector<ByteRange> ranges;
    for (uint64_t i = 0; i < 40; ++i) ranges.push_back({(i * 77773) % (size - 20000), 1 + (i * 997) % 15000});
    ranges.push_back(ranges[3]);
    ranges.push_back({size - 1, 1});
    ranges.push_back({10, 0});
    PlanOptions opts;
    opts.policy = *plan::ParsePlanPolicy(p);
    opts.estimator = est;
    plan::PlanRecord rec;
    auto bufs = ReadPlanned(*store_, "data/big.bin", ranges, opts, &rec);
    ASSERT_TRUE(bufs.ok()) << p << ": " << bufs.status().ToString();
    ASSERT_EQ(bufs->size(), ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) ASSERT_TRUE((*bufs)[i].view() == Big(ranges[i])) << p << " range " << i;
    EXPECT_EQ(rec.outcome, plan::PlanOutcomeKind::kSuccess) << p;
    EXPECT_TRUE(rec.latency_sample_added) << p;
    EXPECT_EQ(rec.payload_bytes, rec.chosen_bytes) << p;
    if (std::string(p) == "fixed:1MiB") {
      EXPECT_LT(rec.chosen_requests, rec.exact_requests);
    }
  }
  EXPECT_EQ(est->Estimate().latency_samples, 7u);
  // A missing key fails and teaches the estimator nothing.
  std::vector<ByteRange> one = {{0, 10}};
  PlanOptions opts;
  opts.estimator = est;
  EXPECT_FALSE(ReadPlanned(*store_, "data/missing.bin", one, opts).ok());
  EXPECT_EQ(est->Estimate().latency_samples, 7u);
}

}  // namespace
}  // namespace rap::io
