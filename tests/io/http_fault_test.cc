// rap-test-labels: concurrent
// Retries and integrity checks of the HTTP transport against a server that misbehaves on purpose:
// every read either returns exactly the right bytes or fails with a clear error, within a bounded
// number of requests and the deadline.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "rap/io/http_store.h"
#include "rap/io/object_store.h"
#include "rap/io/planned_read.h"
#include "rap/plan/estimator.h"
#include "rap/plan/plan_record.h"
#include "testing/fault_server.h"
#include "testing/result_check.h"

namespace rap::io {
namespace {

using rap::testing::Fault;
using rap::testing::FaultServer;
using rap::testing::FaultSpec;

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 7919 + (i >> 9)) & 0xff);
  return s;
}

class FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GT(server_.port(), 0);
    data_ = Pattern(100000);
    server_.AddObject("/obj", data_);
    options_.max_attempts = 4;
    options_.initial_backoff_s = 0.01;
    options_.max_backoff_s = 0.05;
    options_.deadline_s = 20;
    options_.low_speed_bytes_per_s = 1000;
    options_.low_speed_time_s = 1;
  }
  ObjectStorePtr Store() {
    auto s = MakeHttpStore(server_.base_url(), options_);
    RAP_TEST_CHECK_OK(s);
    return *s;
  }
  Result<Buffer> ReadOne(ObjectStore& store, ByteRange r, ReadStats* stats = nullptr) {
    std::vector<ByteRange> ranges = {r};
    RAP_ASSIGN_OR_RETURN(auto bufs, store.ReadRanges("/obj", ranges, ReadOptions{}, stats));
    return bufs[0];
  }
  std::string_view Data(ByteRange r) { return std::string_view(data_).substr(r.offset, r.length); }

  FaultServer server_;
  std::string data_;
  HttpOptions options_;
};

TEST_F(FaultTest, TransientFaultsAreRetriedToCorrectBytes) {
  auto store = Store();
  const ByteRange r{1000, 5000};
  for (Fault f : {Fault::kReset, Fault::k503, Fault::kTruncate, Fault::kOversize, Fault::kLieRange, Fault::kStall}) {
    int before = server_.requests();
    server_.QueueFaults({{f, -1}, {f, -1}});
    ReadStats stats;
    auto buf = ReadOne(*store, r, &stats);
    ASSERT_TRUE(buf.ok()) << static_cast<int>(f) << ": " << buf.status().ToString();
    EXPECT_EQ(buf->view(), Data(r)) << static_cast<int>(f);
    ASSERT_EQ(stats.requests.size(), 1u);
    EXPECT_EQ(stats.requests[0].attempts, 3) << static_cast<int>(f);
    EXPECT_EQ(stats.retries, 2);
    EXPECT_GE(server_.requests() - before, 3) << static_cast<int>(f);
    EXPECT_LE(server_.requests() - before, f == Fault::kReset ? 6 : 3) << static_cast<int>(f);
  }
}

TEST_F(FaultTest, RetryAfterIsHonouredAndBounded) {
  auto store = Store();
  server_.QueueFaults({{Fault::k429, 1}});
  auto ok = ReadOne(*store, {0, 100});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->view(), Data({0, 100}));

  // A Retry-After beyond what the options allow fails at once instead of waiting.
  options_.max_retry_after_s = 2;
  auto strict = Store();
  int before = server_.requests();
  server_.QueueFaults({{Fault::k503, 3600}});
  auto fail = ReadOne(*strict, {0, 100});
  ASSERT_FALSE(fail.ok());
  EXPECT_NE(fail.status().message().find("retry after"), std::string::npos) << fail.status().ToString();
  EXPECT_EQ(server_.requests() - before, 1);
}

TEST_F(FaultTest, PersistentFaultsFailAfterBoundedAttempts) {
  auto store = Store();
  for (Fault f : {Fault::k503, Fault::k429, Fault::kReset, Fault::kTruncate, Fault::kLieRange}) {
    server_.SetPersistentFault({f, -1});
    int before = server_.requests();
    auto r = ReadOne(*store, {10, 20});
    ASSERT_FALSE(r.ok()) << static_cast<int>(f);
    EXPECT_NE(r.status().message().find("giving up after 4 attempts"), std::string::npos) << r.status().ToString();
    EXPECT_NE(r.status().message().find(server_.base_url() + "/obj"), std::string::npos) << r.status().ToString();
    if (f == Fault::kReset) {
      // libcurl itself re-sends a request once on a fresh connection when a reused keep-alive
      // connection dies before any response; that stays within one of our attempts.
      EXPECT_GE(server_.requests() - before, 4);
      EXPECT_LE(server_.requests() - before, 8);
    } else {
      EXPECT_EQ(server_.requests() - before, 4) << static_cast<int>(f);
    }
  }
  server_.SetPersistentFault({Fault::kLieRange, -1});
  auto lie = ReadOne(*store, {10, 20});
  ASSERT_FALSE(lie.ok());
  EXPECT_TRUE(lie.status().Is(StatusCode::kCorrupt)) << lie.status().ToString();
  EXPECT_NE(lie.status().message().find("does not match the request"), std::string::npos);
  server_.SetPersistentFault({});
}

TEST_F(FaultTest, ClientErrorsAreNotRetried) {
  auto store = Store();
  int before = server_.requests();
  server_.QueueFaults({{Fault::k404, -1}});
  auto nf = ReadOne(*store, {0, 10});
  ASSERT_FALSE(nf.ok());
  EXPECT_TRUE(nf.status().Is(StatusCode::kNotFound));
  server_.QueueFaults({{Fault::k403, -1}});
  auto ad = ReadOne(*store, {0, 10});
  ASSERT_FALSE(ad.ok());
  EXPECT_TRUE(ad.status().Is(StatusCode::kAccessDenied));
  EXPECT_EQ(server_.requests() - before, 2);
}

TEST_F(FaultTest, IgnoredRangeIsAcceptedOnlyForTheWholeObject) {
  auto store = Store();
  server_.SetPersistentFault({Fault::kIgnoreRange, -1});
  auto part = ReadOne(*store, {10, 20});
  ASSERT_FALSE(part.ok());
  EXPECT_TRUE(part.status().Is(StatusCode::kNotSupported)) << part.status().ToString();
  EXPECT_NE(part.status().message().find("ignored the Range header"), std::string::npos);
  auto whole = ReadOne(*store, {0, data_.size()});
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->view(), data_);
  auto tail = store->ReadTail("/obj", 1 << 20, ReadOptions{}, nullptr);  // suffix longer than the object
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_EQ(tail->first.view(), data_);
  EXPECT_EQ(tail->second.size, data_.size());
  server_.SetPersistentFault({});
}

TEST_F(FaultTest, EtagChangeBetweenRequestsFailsTheRead) {
  auto store = Store();
  server_.QueueFaults({{Fault::kNone, -1}, {Fault::kChangeEtag, -1}});
  std::vector<ByteRange> ranges = {{0, 10}, {10, 10}, {20, 10}};
  ReadOptions one_at_a_time;
  one_at_a_time.max_concurrency = 1;
  auto r = store->ReadRanges("/obj", ranges, one_at_a_time, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().Is(StatusCode::kChanged)) << r.status().ToString();
  EXPECT_NE(r.status().message().find("object changed while reading"), std::string::npos);
}

TEST_F(FaultTest, PersistentStallFailsWithinTheDeadline) {
  options_.deadline_s = 4;
  options_.max_attempts = 100;
  auto store = Store();
  server_.SetPersistentFault({Fault::kStall, -1});
  int before = server_.requests();
  auto r = ReadOne(*store, {0, 50000});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().Is(StatusCode::kTimeout)) << r.status().ToString();
  EXPECT_NE(r.status().message().find("deadline"), std::string::npos);
  EXPECT_NE(r.status().message().find("stalled"), std::string::npos) << r.status().ToString();
  // Each stalled attempt is cut off by the low-speed limit (1 s), so a 4 s deadline allows only a few.
  EXPECT_LE(server_.requests() - before, 5);
  server_.SetPersistentFault({});
}

TEST_F(FaultTest, CancellationStopsAStalledRead) {
  options_.low_speed_time_s = 60;
  auto store = Store();
  server_.SetPersistentFault({Fault::kStall, -1});
  CancellationToken token;
  ReadOptions opts;
  opts.cancel = &token;
  std::vector<ByteRange> ranges = {{0, 50000}, {50000, 50000}};
  int before = server_.requests();
  std::atomic<bool> done{false};
  std::thread canceller([&] {
    // Cancel once both requests reached the server (and are stalled there).
    for (int i = 0; i < 2000 && !done && server_.requests() - before < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    token.Cancel();
  });
  auto r = store->ReadRanges("/obj", ranges, opts, nullptr);
  done = true;
  canceller.join();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().Is(StatusCode::kCancelled)) << r.status().ToString();
  // Both requests were in flight at once (neither waited for the stalled one).
  EXPECT_EQ(server_.requests() - before, 2);
  server_.SetPersistentFault({});
}

// Failed plans never teach the estimator (fault matrix, docs/reliability.md): a plan that gave up
// after its attempts (server errors, resets, short bodies, a lying Content-Range) or was cancelled
// adds no sample and counts as rejected. A plan whose request was retried to success teaches only
// through its successful attempt: the failed attempts' bytes are not in its payload and the
// Retry-After wait is not in its latency.
TEST_F(FaultTest, OnlySuccessfulPlansTeachTheEstimator) {
  auto store = Store();
  PlanOptions po;
  po.estimator = std::make_shared<plan::TransportEstimator>();
  plan::PlanLog log;
  po.log = &log;
  const std::vector<ByteRange> ranges = {{1000, 5000}};
  uint64_t failed = 0;
  for (Fault f : {Fault::k503, Fault::k429, Fault::kReset, Fault::kTruncate, Fault::kOversize, Fault::kLieRange}) {
    server_.SetPersistentFault({f, -1});
    auto r = ReadPlanned(*store, "/obj", ranges, po);
    ASSERT_FALSE(r.ok()) << static_cast<int>(f);
    ++failed;
  }
  server_.SetPersistentFault({});
  CancellationToken cancelled;
  cancelled.Cancel();
  po.cancel = &cancelled;
  ASSERT_FALSE(ReadPlanned(*store, "/obj", ranges, po).ok());
  ++failed;
  po.cancel = nullptr;

  ASSERT_EQ(log.size(), failed);
  for (const plan::PlanRecord& r : log.Records()) {
    EXPECT_NE(r.outcome, plan::PlanOutcomeKind::kSuccess);
    EXPECT_FALSE(r.latency_sample_added || r.throughput_sample_added) << plan::PlanOutcomeName(r.outcome);
  }
  EXPECT_EQ(po.estimator->Estimate().latency_samples, 0u);
  EXPECT_EQ(po.estimator->Estimate().throughput_samples, 0u);
  EXPECT_EQ(po.estimator->rejected_plans(), failed);

  // Retried to success: one sample per plan, of the successful attempt only.
  server_.QueueFaults({{Fault::kTruncate, -1}, {Fault::kOversize, -1}});
  plan::PlanRecord truncated_first;
  auto bytes = ReadPlanned(*store, "/obj", ranges, po, &truncated_first);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ((*bytes)[0].view(), Data(ranges[0]));
  EXPECT_EQ(truncated_first.outcome, plan::PlanOutcomeKind::kSuccess);
  EXPECT_TRUE(truncated_first.latency_sample_added);
  EXPECT_EQ(truncated_first.payload_bytes, 5000u);  // not the short or the oversized attempt's bytes

  server_.QueueFaults({{Fault::k503, 1}});
  plan::PlanRecord waited;
  ASSERT_TRUE(ReadPlanned(*store, "/obj", ranges, po, &waited).ok());
  EXPECT_TRUE(waited.latency_sample_added);
  // The successful attempt was issued after the 1 s Retry-After, so its latency leaves at least that
  // much of the plan's wall time out (an ordering the retry guarantees, not a speed).
  EXPECT_LE(waited.plan_latency_s, waited.observed_s - 1.0);
  EXPECT_EQ(po.estimator->Estimate().latency_samples, 2u);
  EXPECT_EQ(po.estimator->rejected_plans(), failed);
}

}  // namespace
}  // namespace rap::io
