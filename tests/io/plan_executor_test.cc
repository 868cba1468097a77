// ReadPlanned end to end: the bytes handed back for every exact range equal the object's bytes under
// every policy, against the local store and a scripted store (deterministic timings for the estimator
// feed, faults). The same against a real nginx: plan_executor_nginx_test.cc.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rap/io/object_store.h"
#include "rap/io/planned_read.h"
#include "rap/plan/throughput_pool.h"
#include "rap/util/units.h"

#include "testing/paths.h"

namespace rap::io {
namespace {

using plan::DecidedBy;
using plan::PlanOutcomeKind;
using plan::PlanPolicy;
using plan::TransportEstimator;

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

std::vector<ByteRange> RandomRanges(std::mt19937_64& rng, uint64_t size, size_t n) {
  std::vector<ByteRange> out;
  std::uniform_int_distribution<uint64_t> off(0, size - 1);
  for (size_t i = 0; i < n; ++i) {
    ByteRange r{off(rng), 0};
    r.length = std::uniform_int_distribution<uint64_t>(0, std::min<uint64_t>(size - r.offset, 40000))(rng);
    out.push_back(r);
    if (i % 7 == 0) out.push_back(r);                                       // duplicate
    if (i % 11 == 0 && r.end() + 10 <= size) out.push_back({r.end(), 10});  // touching
  }
  return out;
}

void ExpectBytes(const std::string& data, std::span<const ByteRange> ranges, const std::vector<Buffer>& bufs) {
  ASSERT_EQ(bufs.size(), ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    ASSERT_EQ(bufs[i].view(), std::string_view(data).substr(ranges[i].offset, ranges[i].length))
        << "range " << i << " " << ranges[i].ToString();
  }
}

// ---- Local store ----

class LocalPlannedRead : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = Pattern(3 * kMiB + 123, 7);
    rap::testing::WriteStringToFile(dir_.Join("obj.bin"), data_);
    auto u = OpenUrl(dir_.Join("obj.bin"));
    ASSERT_TRUE(u.ok()) << u.status().ToString();
    url_ = *u;
  }
  rap::testing::TempDir dir_;
  std::string data_;
  ResolvedUrl url_;
};

TEST_F(LocalPlannedRead, EveryPolicyReturnsTheFileBytes) {
  std::mt19937_64 rng(42);
  for (const char* p : {"auto", "exact", "fixed:1MiB", "fixed:0", "fixed:64KiB", "store"}) {
    for (int round = 0; round < 5; ++round) {
      std::vector<ByteRange> ranges = RandomRanges(rng, data_.size(), 5 + 40 * round);
      PlanOptions opts;
      opts.policy = *plan::ParsePlanPolicy(p);
      opts.estimator = std::make_shared<TransportEstimator>();
      plan::PlanRecord rec;
      auto bufs = ReadPlanned(*url_.store, url_.path, ranges, opts, &rec);
      ASSERT_TRUE(bufs.ok()) << p << ": " << bufs.status().ToString();
      ASSERT_NO_FATAL_FAILURE(ExpectBytes(data_, ranges, *bufs)) << p;
      EXPECT_EQ(rec.outcome, PlanOutcomeKind::kSuccess);
      EXPECT_EQ(rec.object, url_.path);
      EXPECT_EQ(rec.endpoint, url_.store->endpoint());
      EXPECT_EQ(rec.policy, *opts.policy);
      EXPECT_GT(rec.chosen_requests, 0u) << p;
      EXPECT_LE(rec.chosen_requests, rec.exact_requests) << p;
      EXPECT_GE(rec.chosen_bytes, rec.exact_bytes) << p;
      EXPECT_EQ(rec.payload_bytes, rec.chosen_bytes) << p;
      EXPECT_TRUE(rec.latency_sample_added) << p;  // local reads report latency 0
      EXPECT_FALSE(std::isnan(rec.observed_s));
    }
  }
}

TEST_F(LocalPlannedRead, MergedResponsesAreSlicedWithoutCopying) {
  std::vector<ByteRange> ranges = {{5000, 100}, {1000, 100}, {1050, 200}, {9000, 0}, {1000, 100}};
  PlanOptions opts;
  opts.policy = PlanPolicy::FixedGap(kMiB);
  opts.estimator = std::make_shared<TransportEstimator>();
  plan::PlanRecord rec;
  auto bufs = ReadPlanned(*url_.store, url_.path, ranges, opts, &rec);
  ASSERT_TRUE(bufs.ok()) << bufs.status().ToString();
  ASSERT_NO_FATAL_FAILURE(ExpectBytes(data_, ranges, *bufs));
  // Normalised: [1000, 1250) and [5000, 5100), one request [1000, 5100).
  EXPECT_EQ(rec.exact_requests, 2u);
  EXPECT_EQ(rec.exact_bytes, 350u);
  EXPECT_EQ(rec.chosen_requests, 1u);
  EXPECT_EQ(rec.chosen_bytes, 4100u);
  const auto& b = *bufs;
  EXPECT_EQ(b[0].owner(), b[1].owner());
  EXPECT_EQ(b[0].data() - b[1].data(), 4000);
  EXPECT_EQ(b[2].data() - b[1].data(), 50);
  EXPECT_EQ(b[4].data(), b[1].data());
  EXPECT_TRUE(b[3].empty());
}

TEST_F(LocalPlannedRead, LocalDefaultsToExactAndUsesTheRegistry) {
  EXPECT_EQ(DefaultPlanPolicy(*url_.store), PlanPolicy::Exact());
  auto shared = plan::EstimatorRegistry::Global().Get(url_.store->endpoint());
  shared->Reset();
  std::vector<ByteRange> ranges = {{0, 10}, {100, 10}};
  plan::PlanLog log;
  PlanOptions opts;
  opts.log = &log;
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(ReadPlanned(*url_.store, url_.path, ranges, opts).ok());
  EXPECT_EQ(shared->Estimate().latency_samples, 2u);
  EXPECT_EQ(shared->Estimate().throughput_samples, 0u);  // 20 bytes are never throughput evidence
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log.Records()[1].latency_samples, 1u);  // the second plan saw the first one's sample
  EXPECT_EQ(log.Records()[0].decided_by, DecidedBy::kForcedPolicy);
}

TEST_F(LocalPlannedRead, FailuresAndCancellationsTeachNothing) {
  auto est = std::make_shared<TransportEstimator>();
  PlanOptions opts;
  opts.policy = PlanPolicy::Auto();
  opts.estimator = est;
  std::vector<ByteRange> ok_ranges = {{0, 2 * kMiB}};
  ASSERT_TRUE(ReadPlanned(*url_.store, url_.path, ok_ranges, opts).ok());
  const plan::TransportEstimate before = est->Estimate();
  ASSERT_EQ(before.latency_samples, 1u);

  plan::PlanRecord rec;
  std::vector<ByteRange> beyond = {{0, 10}, {data_.size() - 5, 10}};
  auto r = ReadPlanned(*url_.store, url_.path, beyond, opts, &rec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("obj.bin"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(rec.outcome, PlanOutcomeKind::kFailed);
  EXPECT_FALSE(rec.latency_sample_added);

  CancellationToken cancel;
  cancel.Cancel();
  opts.cancel = &cancel;
  auto c = ReadPlanned(*url_.store, url_.path, ok_ranges, opts, &rec);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().Is(StatusCode::kCancelled)) << c.status().ToString();
  EXPECT_EQ(rec.outcome, PlanOutcomeKind::kCancelled);

  const plan::TransportEstimate after = est->Estimate();
  EXPECT_EQ(after.latency_samples, before.latency_samples);
  EXPECT_EQ(after.throughput_samples, before.throughput_samples);
  EXPECT_EQ(est->rejected_plans(), 2u);
}

TEST_F(LocalPlannedRead, InvalidAndEmptyInput) {
  PlanOptions opts;
  opts.estimator = std::make_shared<TransportEstimator>();
  std::vector<ByteRange> overflow = {{UINT64_MAX - 1, 5}};
  auto r = ReadPlanned(*url_.store, url_.path, overflow, opts);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().Is(StatusCode::kInvalidArgument));
  EXPECT_NE(r.status().message().find(url_.path), std::string::npos);
  std::vector<ByteRange> empties = {{10, 0}, {20, 0}};
  plan::PlanRecord rec;
  auto e = ReadPlanned(*url_.store, url_.path, empties, opts, &rec);
  ASSERT_TRUE(e.ok());
  ASSERT_EQ(e->size(), 2u);
  EXPECT_TRUE((*e)[0].empty());
  EXPECT_EQ(rec.chosen_requests, 0u);
  EXPECT_EQ(opts.estimator->Estimate().latency_samples, 0u);
}

// ---- A scripted remote store: deterministic timings and faults ----

class ScriptedStore : public ObjectStore {
 public:
  explicit ScriptedStore(std::string data) : data_(std::move(data)) {}
  std::string endpoint() const override { return "scripted://" + std::to_string(reinterpret_cast<uintptr_t>(this)); }
  bool is_remote() const override { return true; }
  Result<ObjectInfo> Head(const std::string& path) override { return ObjectInfo{path, data_.size(), "e", 0}; }

  // Every request takes `latency_s` to its first byte; payload arrives at a rate shared by the
  // concurrent requests of a wave: a wave of k requests moving B bytes delivers for B / bps seconds.
  Result<std::vector<Buffer>> ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                         const ReadOptions& options, ReadStats* stats) override {
    last_max_concurrency = options.max_concurrency;
    requests_seen.push_back(ranges.size());
    if (fail_next) {
      fail_next = false;
      return Status::IOError(path + ": scripted failure");
    }
    std::vector<Buffer> out;
    ReadStats local;
    double clock = 1000;
    const size_t per_wave = static_cast<size_t>(std::max(1, options.max_concurrency));
    for (size_t w = 0; w < ranges.size(); w += per_wave) {
      uint64_t wave_bytes = 0;
      for (size_t i = w; i < std::min(ranges.size(), w + per_wave); ++i) wave_bytes += ranges[i].length;
      const double delivery = wave_bytes / bps;
      for (size_t i = w; i < std::min(ranges.size(), w + per_wave); ++i) {
        RequestTiming t;
        t.range = ranges[i];
        t.start_s = clock;
        t.first_byte_s = clock + latency_s + 0.0001 * static_cast<double>(i - w);  // a slight spread
        t.end_s = clock + latency_s + delivery;
        t.bytes = ranges[i].length;
        local.requests.push_back(t);
        uint64_t len = ranges[i].length;
        if (truncate_next && i == 0) len -= 1;
        out.push_back(Buffer::Copy(data_.data() + ranges[i].offset, len));
      }
      clock += latency_s + delivery;
    }
    truncate_next = false;
    FinalizeReadStats(&local);
    if (stats) *stats = std::move(local);
    return out;
  }
  Result<std::pair<Buffer, ObjectInfo>> ReadTail(const std::string&, uint64_t, const ReadOptions&,
                                                 ReadStats*) override {
    return Status::NotSupported("scripted store: no tail reads");
  }
  Result<std::vector<ObjectInfo>> List(const std::string&) override { return Status::NotSupported("no list"); }
  Status Put(const std::string&, const Buffer&) override { return Status::NotSupported("read-only"); }

  double latency_s = 0.05;
  double bps = 100.0 * kMiB;
  bool fail_next = false;
  bool truncate_next = false;
  int last_max_concurrency = 0;
  std::vector<size_t> requests_seen;

 private:
  std::string data_;
};

// 30 column ranges of 64 KiB separated by 4 KiB: at 50 ms per wave, merging to one wave pays.
std::vector<ByteRange> ThirtyColumns(uint64_t base) {
  std::vector<ByteRange> r;
  for (uint64_t i = 0; i < 30; ++i) r.push_back({base + i * 68 * kKiB, 64 * kKiB});
  return r;
}

TEST(ScriptedPlannedRead, LearnsFromLargePlansAndLeavesColdStart) {
  const std::string data = Pattern(8 * kMiB, 3);
  ScriptedStore store(data);
  EXPECT_EQ(DefaultPlanPolicy(store), PlanPolicy::Auto());
  plan::EstimatorRegistry::Global().Reset(store.endpoint());
  auto est = plan::EstimatorRegistry::Global().Get(store.endpoint());
  plan::PlanLog log;
  PlanOptions opts;  // default policy and the registry's estimator
  opts.log = &log;
  std::vector<ByteRange> small = {{100, 1000}, {5000, 1456}};  // 2,456 bytes, like seed 000's small plans
  std::vector<ByteRange> big = ThirtyColumns(0);               // 1.875 MiB over 3 waves
  for (int i = 0; i < 3; ++i) {
    auto s = ReadPlanned(store, "/o", small, opts);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_NO_FATAL_FAILURE(ExpectBytes(data, small, *s));
    EXPECT_EQ(est->Estimate().throughput_samples, static_cast<size_t>(i)) << "a small plan added a throughput sample";
    EXPECT_EQ(est->Estimate().latency_samples, static_cast<size_t>(2 * i + 1));
    auto b = ReadPlanned(store, "/o", big, opts);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    ASSERT_NO_FATAL_FAILURE(ExpectBytes(data, big, *b));
    EXPECT_EQ(est->Estimate().throughput_samples, static_cast<size_t>(i + 1));
  }
  EXPECT_EQ(store.last_max_concurrency, 10);
  std::vector<plan::PlanRecord> recs = log.Records();
  ASSERT_EQ(recs.size(), 6u);
  for (const auto& r : recs) EXPECT_EQ(r.decided_by, DecidedBy::kColdStart);
  // Latency evidence: the median of the requests' latencies. A 30-request plan has latencies of 50.0 to
  // 50.9 ms (three waves of 50 ms + 0..0.9 ms): median 50.45 ms; a small plan 50.0 and 50.1 ms: 50.05 ms.
  EXPECT_NEAR(recs[0].plan_latency_s, 0.05005, 1e-9);
  EXPECT_NEAR(recs[1].plan_latency_s, 0.05045, 1e-9);
  EXPECT_NEAR(est->Estimate().latency_s, 0.05025, 1e-9);  // median of 3 x 50.05 and 3 x 50.45 ms
  // Throughput evidence: payload bytes over the union of delivery intervals.
  EXPECT_TRUE(recs[1].throughput_sample_added);
  EXPECT_EQ(recs[1].payload_bytes, 30 * 64 * kKiB);
  // Each wave delivers 640 KiB in 6.25 ms at the shared 100 MiB/s: the aggregate rate is 100 MiB/s, not
  // the sum of per-request rates.
  EXPECT_NEAR(recs[1].payload_wall_s, 0.01875, 1e-9);
  EXPECT_NEAR(est->Estimate().throughput_bps, 100.0 * kMiB, 1e-3 * kMiB);
  EXPECT_FALSE(recs[0].throughput_sample_added);

  // Trained: now the same shape is merged by cost, and the record carries the estimate.
  plan::PlanRecord rec;
  auto b = ReadPlanned(store, "/o", ThirtyColumns(kMiB), opts, &rec);
  ASSERT_TRUE(b.ok());
  ASSERT_NO_FATAL_FAILURE(ExpectBytes(data, ThirtyColumns(kMiB), *b));
  EXPECT_EQ(rec.decided_by, DecidedBy::kCostMerged);
  EXPECT_EQ(rec.chosen_requests, 10u);
  EXPECT_EQ(store.requests_seen.back(), 10u);
  EXPECT_EQ(rec.latency_samples, 6u);
  EXPECT_EQ(rec.throughput_samples, 3u);
  EXPECT_FALSE(std::isnan(rec.estimated_s));
  EXPECT_FALSE(std::isnan(rec.prediction_error));
}

// With a scan's ThroughputPool, a plan's throughput evidence goes to the pool, never a sample of its
// own (even a plan the per-plan rule would accept); latency evidence stays per plan.
TEST(ScriptedPlannedRead, PooledPlansAddNoThroughputSampleOfTheirOwn) {
  const std::string data = Pattern(8 * kMiB, 5);
  ScriptedStore store(data);
  auto est = std::make_shared<TransportEstimator>();
  auto pool = std::make_shared<plan::ThroughputPool>(std::vector<std::shared_ptr<TransportEstimator>>{est});
  plan::PlanLog log;
  PlanOptions opts;
  opts.estimator = est;
  opts.throughput_pool = pool;
  opts.log = &log;
  const std::vector<ByteRange> big = ThirtyColumns(0);  // 1.875 MiB over 18.75 ms: a sample by itself
  ASSERT_TRUE(ReadPlanned(store, "/o", big, opts).ok());
  store.fail_next = true;
  EXPECT_FALSE(ReadPlanned(store, "/o", big, opts).ok());
  const std::vector<plan::PlanRecord> recs = log.Records();
  ASSERT_EQ(recs.size(), 2u);
  size_t pooled = 0;
  for (const auto& r : recs) {
    EXPECT_TRUE(r.throughput_pooled);
    EXPECT_FALSE(r.throughput_sample_added);
    pooled += r.pooled_samples_added;
  }
  EXPECT_TRUE(recs[0].latency_sample_added);
  EXPECT_EQ(recs[1].outcome, PlanOutcomeKind::kFailed);
  EXPECT_FALSE(recs[1].latency_sample_added);
  EXPECT_EQ(est->Estimate().latency_samples, 1u);
  EXPECT_EQ(est->Estimate().throughput_samples, pooled);  // only what the pool handed out
  EXPECT_EQ(pool->stats().plans, 2u);
}

TEST(ScriptedPlannedRead, FailuresAndTruncationsTeachNothing) {
  const std::string data = Pattern(4 * kMiB, 5);
  ScriptedStore store(data);
  PlanOptions opts;
  opts.estimator = std::make_shared<TransportEstimator>();
  std::vector<ByteRange> big = ThirtyColumns(0);
  ASSERT_TRUE(ReadPlanned(store, "/o", big, opts).ok());
  const auto before = opts.estimator->Estimate();
  ASSERT_EQ(before.throughput_samples, 1u);

  plan::PlanRecord rec;
  store.fail_next = true;
  auto f = ReadPlanned(store, "/o", big, opts, &rec);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(rec.outcome, PlanOutcomeKind::kFailed);

  store.truncate_next = true;
  auto t = ReadPlanned(store, "/o", big, opts, &rec);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(t.status().Is(StatusCode::kCorrupt)) << t.status().ToString();
  EXPECT_NE(t.status().message().find("expected 65536 bytes, got 65535"), std::string::npos) << t.status().message();
  EXPECT_EQ(rec.outcome, PlanOutcomeKind::kTruncated);
  EXPECT_FALSE(rec.latency_sample_added);
  EXPECT_FALSE(rec.throughput_sample_added);

  const auto after = opts.estimator->Estimate();
  EXPECT_EQ(after.latency_samples, before.latency_samples);
  EXPECT_EQ(after.throughput_samples, before.throughput_samples);
  EXPECT_DOUBLE_EQ(after.throughput_bps, before.throughput_bps);
}

TEST(ScriptedPlannedRead, StorePolicyRecordsTheStoresShape) {
  const std::string data = Pattern(4 * kMiB, 9);
  ScriptedStore store(data);
  PlanOptions opts;
  opts.policy = PlanPolicy::Store();
  opts.estimator = std::make_shared<TransportEstimator>();
  plan::PlanRecord rec;
  std::vector<ByteRange> big = ThirtyColumns(0);
  auto b = ReadPlanned(store, "/o", big, opts, &rec);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_NO_FATAL_FAILURE(ExpectBytes(data, big, *b));
  // The default native read merges gaps up to 1 MiB: one request.
  EXPECT_EQ(rec.decided_by, DecidedBy::kForcedPolicy);
  EXPECT_EQ(rec.exact_requests, 30u);
  EXPECT_EQ(rec.chosen_requests, 1u);
  EXPECT_EQ(rec.chosen_bytes, 30 * 64 * kKiB + 29 * 4 * kKiB);
}

// The requests in flight per plan follow PlannerConfig::max_concurrency: 10 by default (seed 000's
// model), raised by a caller whose reads are latency-bound (the RAP index's lookups use 32, so a
// cold covered lookup's dozen index-page ranges go out in one wave), at most kMaxPlanConcurrency.
TEST(ScriptedPlannedRead, RequestsInFlightFollowThePlannersConcurrency) {
  const std::string data = Pattern(4 * kMiB, 9);
  ScriptedStore store(data);
  std::vector<ByteRange> twelve;
  for (uint64_t i = 0; i < 12; ++i) twelve.push_back({i * 256 * kKiB, 1000});
  for (const auto& [configured, expected] : std::vector<std::pair<uint64_t, int>>{
           {plan::PlannerConfig{}.max_concurrency, 10}, {32, 32}, {1000, kMaxPlanConcurrency}, {0, 1}}) {
    PlanOptions opts;
    opts.policy = PlanPolicy::Exact();
    opts.estimator = std::make_shared<TransportEstimator>();
    opts.planner.max_concurrency = configured;
    auto b = ReadPlanned(store, "/o", twelve, opts);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    ASSERT_NO_FATAL_FAILURE(ExpectBytes(data, twelve, *b));
    EXPECT_EQ(store.last_max_concurrency, expected) << "configured " << configured;
  }
}

}  // namespace
}  // namespace rap::io
