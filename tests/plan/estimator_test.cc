// TransportEstimator and EstimatorRegistry: windows, medians, eligibility, cold start, thread safety.
// rap-test-labels: concurrent
#include "rap/plan/estimator.h"

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "rap/plan/planner.h"
#include "rap/util/units.h"

namespace rap::plan {
namespace {

PlanOutcome Success(double latency_s, uint64_t bytes = 0, double wall_s = 0) {
  return {PlanOutcomeKind::kSuccess, latency_s, bytes, wall_s};
}

TEST(TransportEstimator, StartsEmpty) {
  TransportEstimator e;
  TransportEstimate est = e.Estimate();
  EXPECT_EQ(est.latency_samples, 0u);
  EXPECT_EQ(est.throughput_samples, 0u);
  EXPECT_TRUE(std::isnan(est.latency_s));
  EXPECT_TRUE(std::isnan(est.throughput_bps));
  EXPECT_FALSE(est.Trained(3));
}

TEST(TransportEstimator, SmallPlansNeverAddThroughput) {
  TransportEstimator e;
  // Below 1 MiB, however long it took.
  ReportEffect a = e.Report(Success(0.01, kMiB - 1, 5.0));
  EXPECT_TRUE(a.latency_added);
  EXPECT_FALSE(a.throughput_added);
  // 1 MiB but under 10 ms of payload delivery.
  EXPECT_FALSE(e.Report(Success(0.01, 100 * kMiB, 0.0099)).throughput_added);
  // Seed 000's small Parquet reads: 2,456 bytes.
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(e.Report(Success(0.02, 2456, 0.001)).throughput_added);
  EXPECT_EQ(e.Estimate().throughput_samples, 0u);
  EXPECT_EQ(e.Estimate().latency_samples, 9u);
  // Exactly 1 MiB over exactly 10 ms qualifies.
  ReportEffect b = e.Report(Success(0.01, kMiB, 0.010));
  EXPECT_TRUE(b.throughput_added);
  EXPECT_EQ(e.Estimate().throughput_samples, 1u);
  EXPECT_DOUBLE_EQ(e.Estimate().throughput_bps, kMiB / 0.010);
}

TEST(TransportEstimator, LatencyIsTheMedian) {
  TransportEstimator e;
  for (double l : {0.030, 0.010, 0.020}) e.Report(Success(l));
  EXPECT_DOUBLE_EQ(e.Estimate().latency_s, 0.020);
  e.Report(Success(0.5));
  EXPECT_DOUBLE_EQ(e.Estimate().latency_s, 0.025);  // even count: mean of the two middle samples
}

TEST(TransportEstimator, WindowsEvictTheOldest) {
  TransportEstimator e;
  for (int i = 1; i <= 12; ++i) e.Report(Success(i * 0.001));
  TransportEstimate est = e.Estimate();
  EXPECT_EQ(est.latency_samples, 9u);
  EXPECT_DOUBLE_EQ(est.latency_s, 0.008);  // window holds 4..12 ms
  // Throughput: one huge early sample, then nine at 10 MB/s push it out.
  e.Report(Success(0.01, 100 * kMiB, 0.01));
  for (int i = 0; i < 8; ++i) e.Report(Success(0.01, 10'000'000, 1.0));
  EXPECT_DOUBLE_EQ(e.Estimate().throughput_bps, 100.0 * kMiB / 0.01);  // 100 of ~176 MiB: still the median
  e.Report(Success(0.01, 10'000'000, 1.0));
  EXPECT_EQ(e.Estimate().throughput_samples, 9u);
  EXPECT_DOUBLE_EQ(e.Estimate().throughput_bps, 1e7);
}

TEST(TransportEstimator, ThroughputIsTheByteWeightedMedian) {
  TransportEstimator e;
  // Rates 10, 20 and 100 MiB/s moving 1, 1 and 8 MiB. Unweighted median: 20 MiB/s. Weighted: sorted by
  // rate the cumulative weights are 1, 2, 10 of 10; the first to reach half (5) is the 100 MiB/s sample.
  e.Report(Success(0.01, kMiB, 0.1));       // 10 MiB/s
  e.Report(Success(0.01, kMiB, 0.05));      // 20 MiB/s
  e.Report(Success(0.01, 8 * kMiB, 0.08));  // 100 MiB/s
  EXPECT_DOUBLE_EQ(e.Estimate().throughput_bps, 100.0 * kMiB);
  // Add a 5 MiB/s sample moving 9 MiB: weights 9, 1, 1, 8 of 19 in rate order; 9 >= 9.5? no; 10 >= 9.5: 10 MiB/s.
  e.Report(Success(0.01, 9 * kMiB, 1.8));
  EXPECT_DOUBLE_EQ(e.Estimate().throughput_bps, 10.0 * kMiB);
}

TEST(TransportEstimator, ByteWeightedMedianTakesTheLowerOfTwoHalves) {
  TransportEstimator e;
  e.Report(Success(0.01, 2 * kMiB, 0.1));   // 20 MiB/s, weight 2
  e.Report(Success(0.01, 2 * kMiB, 0.05));  // 40 MiB/s, weight 2
  // Cumulative 2 of 4 reaches exactly half at the first sample.
  EXPECT_DOUBLE_EQ(e.Estimate().throughput_bps, 20.0 * kMiB);
}

TEST(TransportEstimator, FailuresTruncationsAndCancellationsAddNothing) {
  TransportEstimator e;
  e.Report(Success(0.01, 2 * kMiB, 0.1));
  e.Report(Success(0.03));
  const TransportEstimate before = e.Estimate();
  for (PlanOutcomeKind k : {PlanOutcomeKind::kFailed, PlanOutcomeKind::kTruncated, PlanOutcomeKind::kCancelled}) {
    ReportEffect r = e.Report({k, 0.001, 100 * kMiB, 0.5});
    EXPECT_FALSE(r.latency_added);
    EXPECT_FALSE(r.throughput_added);
  }
  const TransportEstimate after = e.Estimate();
  EXPECT_EQ(after.latency_samples, before.latency_samples);
  EXPECT_EQ(after.throughput_samples, before.throughput_samples);
  EXPECT_DOUBLE_EQ(after.latency_s, before.latency_s);
  EXPECT_DOUBLE_EQ(after.throughput_bps, before.throughput_bps);
  EXPECT_EQ(e.rejected_plans(), 3u);
}

TEST(TransportEstimator, InvalidLatencyIsNotASample) {
  TransportEstimator e;
  EXPECT_FALSE(e.Report(Success(kUnknown, 2 * kMiB, 0.1)).latency_added);
  EXPECT_FALSE(e.Report(Success(-1.0)).latency_added);
  EXPECT_EQ(e.Estimate().latency_samples, 0u);
  EXPECT_EQ(e.Estimate().throughput_samples, 1u);
}

TEST(TransportEstimator, ColdStartLastsExactlyUntilThreePlusThreeSamples) {
  TransportEstimator e;
  RangePlanner planner;
  // 30 ranges of 64 KiB with 4 KiB gaps: once trained at 50 ms latency, merging to one wave is far cheaper.
  std::vector<ByteRange> in;
  for (uint64_t i = 0; i < 30; ++i) in.push_back({i * 68 * kKiB, 64 * kKiB});
  RangeSet s = *NormalizeRanges(in);
  auto decided = [&] { return planner.Plan(s, PlanPolicy::Auto(), e.Estimate()).decided_by; };
  // Small plans: latency only.
  for (int i = 0; i < 3; ++i) e.Report(Success(0.05, 2456, 0.001));
  EXPECT_EQ(decided(), DecidedBy::kColdStart);
  e.Report(Success(0.05, 2 * kMiB, 0.02));
  e.Report(Success(0.05, 2 * kMiB, 0.02));
  EXPECT_EQ(e.Estimate().latency_samples, 5u);
  EXPECT_EQ(e.Estimate().throughput_samples, 2u);
  EXPECT_EQ(decided(), DecidedBy::kColdStart);
  e.Report(Success(0.05, 2 * kMiB, 0.02));
  EXPECT_EQ(decided(), DecidedBy::kCostMerged);
  // And the other way round: 3 throughput samples but only 2 latency samples.
  e.Reset();
  EXPECT_EQ(e.Estimate().latency_samples, 0u);
  for (int i = 0; i < 3; ++i) e.Report(Success(kUnknown, 2 * kMiB, 0.02));
  e.Report(Success(0.05));
  e.Report(Success(0.05));
  EXPECT_EQ(decided(), DecidedBy::kColdStart);
  e.Report(Success(0.05));
  EXPECT_EQ(decided(), DecidedBy::kCostMerged);
}

TEST(TransportEstimator, ConcurrentReportsAndReads) {
  TransportEstimator e;
  constexpr int kThreads = 8;
  constexpr int kReports = 2000;
  std::atomic<bool> bad{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kReports; ++i) {
        if (i % 2 == 0) {
          // Latency 1..8 ms by thread; throughput 1..8 MiB over 0.1 s.
          e.Report(Success((t + 1) * 0.001, static_cast<uint64_t>(t + 1) * kMiB, 0.1));
        } else {
          TransportEstimate est = e.Estimate();
          if (est.latency_samples > 9 || est.throughput_samples > 9) bad = true;
          if (est.latency_samples > 0 && (est.latency_s < 0.001 || est.latency_s > 0.008)) bad = true;
          if (est.throughput_samples > 0 &&
              (est.throughput_bps < 10.0 * kMiB - 1 || est.throughput_bps > 80.0 * kMiB + 1)) {
            bad = true;
          }
        }
      }
    });
  }
  std::thread resetter([&] {
    for (int i = 0; i < 50; ++i) {
      e.Reset();
      std::this_thread::yield();
    }
  });
  for (auto& th : threads) th.join();
  resetter.join();
  EXPECT_FALSE(bad);
  EXPECT_LE(e.Estimate().latency_samples, 9u);
  for (int i = 0; i < 9; ++i) e.Report(Success(0.004, 4 * kMiB, 0.1));
  EXPECT_EQ(e.Estimate().latency_samples, 9u);
  EXPECT_EQ(e.Estimate().throughput_samples, 9u);
  EXPECT_DOUBLE_EQ(e.Estimate().throughput_bps, 40.0 * kMiB);
}

TEST(EstimatorRegistry, OnePerEndpointSharedAndResettable) {
  EstimatorRegistry& reg = EstimatorRegistry::Global();
  std::shared_ptr<TransportEstimator> a = reg.Get("http://127.0.0.1:1");
  std::shared_ptr<TransportEstimator> a2 = reg.Get("http://127.0.0.1:1");
  std::shared_ptr<TransportEstimator> b = reg.Get("http://127.0.0.1:2");
  EXPECT_EQ(a.get(), a2.get());
  EXPECT_NE(a.get(), b.get());
  a->Report(Success(0.01));
  b->Report(Success(0.01));
  EXPECT_EQ(a2->Estimate().latency_samples, 1u);
  reg.Reset("http://127.0.0.1:1");
  EXPECT_EQ(a->Estimate().latency_samples, 0u);  // reset in place: every holder sees it
  EXPECT_EQ(b->Estimate().latency_samples, 1u);
  reg.Reset("never-used");  // no-op
  reg.ResetAll();
  EXPECT_EQ(b->Estimate().latency_samples, 0u);
  EXPECT_EQ(reg.Get("http://127.0.0.1:2").get(), b.get());
}

TEST(EstimatorRegistry, ConcurrentGet) {
  std::vector<std::thread> threads;
  std::vector<TransportEstimator*> seen(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i)
        seen[t] = EstimatorRegistry::Global().Get("s3://race/" + std::to_string(i % 7)).get();
      seen[t] = EstimatorRegistry::Global().Get("s3://race/final").get();
    });
  }
  for (auto& th : threads) th.join();
  for (TransportEstimator* p : seen) EXPECT_EQ(p, seen[0]);
}

}  // namespace
}  // namespace rap::plan
