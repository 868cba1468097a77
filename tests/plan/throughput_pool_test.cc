// rap-test-labels: concurrent
// ThroughputPool: shared-throughput evidence pooled over the concurrent plans of a scan. Plans too
// small to be a sample on their own (seed 000's per-plan rule) add up to samples; concurrent plans give
// the aggregate rate of the link they share; a stretch of time is accounted only once every plan that
// could deliver in it has ended; failed plans drop the evidence they overlapped. Times are given
// explicitly (no clock, no timing).
#include "rap/plan/throughput_pool.h"

#include <cmath>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "rap/util/units.h"

namespace rap::plan {
namespace {

constexpr uint64_t kKiB300 = 300 * kKiB;

struct Fixture {
  std::shared_ptr<TransportEstimator> estimator = std::make_shared<TransportEstimator>();
  ThroughputPool pool{{estimator}};

  // One successful plan over [start, end] with one request delivering `bytes` over [begin, finish].
  size_t Plan(double start, double begin, double finish, uint64_t bytes, double end) {
    const uint64_t t = pool.Begin(start);
    const DeliveryInterval iv{begin, finish, bytes};
    return pool.End(t, PlanOutcomeKind::kSuccess, {&iv, 1}, end);
  }
};

TEST(ThroughputPool, SmallSequentialPlansAddUpToASample) {
  Fixture f;
  TransportEstimator per_plan;  // seed 000's rule on the same plans
  // Four plans of 300 KiB, each delivered over 3 ms after 100 ms of latency: none is a sample alone.
  size_t samples = 0;
  for (int i = 0; i < 4; ++i) {
    const double t0 = i * 0.2;
    EXPECT_FALSE(per_plan.Report({PlanOutcomeKind::kSuccess, 0.1, kKiB300, 0.003}).throughput_added);
    samples += f.Plan(t0, t0 + 0.1, t0 + 0.103, kKiB300, t0 + 0.103);
    // 1 MiB and 10 ms are both reached with the fourth plan only (1200 KiB over 12 ms).
    EXPECT_EQ(f.estimator->Estimate().throughput_samples, i < 3 ? 0u : 1u) << "after plan " << i;
  }
  EXPECT_EQ(samples, 1u);
  EXPECT_EQ(per_plan.Estimate().throughput_samples, 0u);
  // The rate is the payload over the time payload was arriving, not over the latency waits.
  EXPECT_NEAR(f.estimator->Estimate().throughput_bps, 4 * kKiB300 / 0.012, 1e-5 * (4 * kKiB300 / 0.012));
  const ThroughputPoolStats st = f.pool.stats();
  EXPECT_EQ(st.plans, 4u);
  EXPECT_EQ(st.samples, 1u);
  EXPECT_EQ(st.sampled_bytes, 4 * kKiB300);
  EXPECT_EQ(st.pending_bytes, 0u);
}

TEST(ThroughputPool, ConcurrentPlansGiveTheSharedRate) {
  Fixture f;
  // Three plans in flight at once share a link: each delivers 400 KiB over the same 12 ms.
  std::vector<uint64_t> tickets;
  for (int i = 0; i < 3; ++i) tickets.push_back(f.pool.Begin(0.0));
  size_t samples = 0;
  for (int i = 0; i < 3; ++i) {
    const DeliveryInterval iv{0.100, 0.112, 400 * kKiB};
    samples += f.pool.End(tickets[i], PlanOutcomeKind::kSuccess, {&iv, 1}, 0.111);
    // Nothing is accounted while a plan that started as early is still in flight.
    if (i < 2) {
      EXPECT_EQ(f.estimator->Estimate().throughput_samples, 0u);
    }
  }
  EXPECT_EQ(samples, 1u);
  // 1200 KiB over the 12 ms union: three times what each plan saw on its own.
  EXPECT_NEAR(f.estimator->Estimate().throughput_bps, 1200 * kKiB / 0.012, 1e-5 * (1200 * kKiB / 0.012));
}

TEST(ThroughputPool, WaitsForEveryPlanThatCouldDeliverInTheStretch) {
  Fixture f;
  const uint64_t early = f.pool.Begin(0.0);  // started first, still in flight
  // A later plan delivers 2 MiB over 20 ms and ends: a sample on its own, but the early plan may have
  // shared that time, so the pool waits.
  EXPECT_EQ(f.Plan(0.01, 0.05, 0.07, 2 * kMiB, 0.07), 0u);
  EXPECT_EQ(f.estimator->Estimate().throughput_samples, 0u);
  // The early plan delivered 1 MiB over the same 20 ms: the sample is 3 MiB over 20 ms.
  const DeliveryInterval iv{0.05, 0.07, kMiB};
  EXPECT_EQ(f.pool.End(early, PlanOutcomeKind::kSuccess, {&iv, 1}, 0.08), 1u);
  EXPECT_NEAR(f.estimator->Estimate().throughput_bps, 3 * kMiB / 0.020, 1e-5 * (3 * kMiB / 0.020));
}

TEST(ThroughputPool, AnIntervalCrossingTheAccountedPointIsSplitProRata) {
  Fixture f;
  const uint64_t a = f.pool.Begin(0.0);
  const uint64_t b = f.pool.Begin(0.0);
  const uint64_t late = f.pool.Begin(0.030);  // in flight; its payload can only come after 30 ms
  // a: 2 MiB evenly over [10 ms, 50 ms]; b: nothing. Once both ended, [0, 30 ms] is complete: 1 MiB
  // over 20 ms of it is accounted (a sample), the rest waits for `late`.
  const DeliveryInterval iv{0.010, 0.050, 2 * kMiB};
  EXPECT_EQ(f.pool.End(a, PlanOutcomeKind::kSuccess, {&iv, 1}, 0.05), 0u);
  EXPECT_EQ(f.pool.End(b, PlanOutcomeKind::kSuccess, {}, 0.05), 1u);
  EXPECT_NEAR(f.estimator->Estimate().throughput_bps, kMiB / 0.020, 1e-5 * (kMiB / 0.020));
  EXPECT_EQ(f.pool.stats().pending_bytes, kMiB);
  // `late` delivers nothing; the second half (1 MiB over 20 ms) becomes the second sample.
  EXPECT_EQ(f.pool.End(late, PlanOutcomeKind::kSuccess, {}, 0.06), 1u);
  EXPECT_EQ(f.estimator->Estimate().throughput_samples, 2u);
  EXPECT_EQ(f.pool.stats().pending_bytes, 0u);
}

TEST(ThroughputPool, ALongStretchAccountedAtOnceGivesSeveralSamples) {
  Fixture f;
  const uint64_t early = f.pool.Begin(0.0);
  // While `early` is in flight, five later plans deliver 600 KiB over 6 ms each, one after another.
  for (int i = 0; i < 5; ++i) {
    const double t0 = 0.01 + i * 0.01;
    EXPECT_EQ(f.Plan(t0, t0 + 0.002, t0 + 0.008, 600 * kKiB, t0 + 0.008), 0u);
  }
  // When it ends, the 3000 KiB over 30 ms become two samples (each >= 1 MiB over >= 10 ms), not one.
  EXPECT_EQ(f.pool.End(early, PlanOutcomeKind::kSuccess, {}, 0.07), 2u);
  EXPECT_EQ(f.estimator->Estimate().throughput_samples, 2u);
  EXPECT_NEAR(f.estimator->Estimate().throughput_bps, 100 * kKiB / 0.001, 1e-5 * (100 * kKiB / 0.001));
  EXPECT_EQ(f.pool.stats().pending_bytes, 600 * kKiB);  // the last plan's, short of the rule
}

TEST(ThroughputPool, AFailedPlanDropsTheEvidenceItOverlapped) {
  for (PlanOutcomeKind kind : {PlanOutcomeKind::kFailed, PlanOutcomeKind::kTruncated, PlanOutcomeKind::kCancelled}) {
    SCOPED_TRACE(PlanOutcomeName(kind));
    Fixture f;
    // Before the failing plan: 1 MiB over 15 ms, complete before it began, is kept.
    EXPECT_EQ(f.Plan(0.0, 0.01, 0.025, kMiB, 0.025), 1u);
    const uint64_t failing = f.pool.Begin(0.1);
    const uint64_t neighbour = f.pool.Begin(0.1);
    // A plan begun after the failing one delivers 2 MiB over 20 ms and ends first: it waits ...
    EXPECT_EQ(f.Plan(0.11, 0.12, 0.14, 2 * kMiB, 0.14), 0u);
    // ... and the failure (the link was shared with bytes nobody reported) drops it.
    EXPECT_EQ(f.pool.End(failing, kind, {}, 0.2), 0u);
    // So does the neighbour's payload that arrived while the failing plan was in flight.
    const DeliveryInterval iv{0.15, 0.25, 4 * kMiB};
    EXPECT_EQ(f.pool.End(neighbour, PlanOutcomeKind::kSuccess, {&iv, 1}, 0.25), 0u);
    EXPECT_EQ(f.estimator->Estimate().throughput_samples, 1u);
    EXPECT_EQ(f.pool.stats().dropped_bytes, 6 * kMiB);
    // Later plans pool again.
    EXPECT_EQ(f.Plan(0.3, 0.31, 0.325, kMiB, 0.325), 1u);
    EXPECT_EQ(f.estimator->Estimate().throughput_samples, 2u);
  }
}

TEST(ThroughputPool, EverySinkGetsTheSampleOnce) {
  auto a = std::make_shared<TransportEstimator>();
  auto b = std::make_shared<TransportEstimator>();
  ThroughputPool pool({a, nullptr, b, a});
  const uint64_t t = pool.Begin(0);
  const DeliveryInterval iv{0.1, 0.12, 2 * kMiB};
  EXPECT_EQ(pool.End(t, PlanOutcomeKind::kSuccess, {&iv, 1}, 0.12), 1u);
  EXPECT_EQ(a->Estimate().throughput_samples, 1u);
  EXPECT_EQ(b->Estimate().throughput_samples, 1u);
  // An unknown or already ended ticket adds nothing.
  EXPECT_EQ(pool.End(t, PlanOutcomeKind::kSuccess, {&iv, 1}, 0.2), 0u);
  EXPECT_EQ(pool.End(99, PlanOutcomeKind::kSuccess, {&iv, 1}, 0.2), 0u);
  EXPECT_EQ(a->Estimate().throughput_samples, 1u);
}

TEST(ThroughputPool, TheEstimatorsRuleStillApplies) {
  // A smaller rule in the pool cannot add what the estimator's own rule refuses.
  auto e = std::make_shared<TransportEstimator>();
  ThroughputPool pool({e}, EstimatorConfig{9, kKiB, 0.001});
  const uint64_t t = pool.Begin(0);
  const DeliveryInterval iv{0.1, 0.102, 64 * kKiB};
  EXPECT_EQ(pool.End(t, PlanOutcomeKind::kSuccess, {&iv, 1}, 0.11), 1u);
  EXPECT_EQ(e->Estimate().throughput_samples, 0u);
  EXPECT_FALSE(e->ReportThroughput(kMiB - 1, 1.0));
  EXPECT_FALSE(e->ReportThroughput(kMiB, 0.0099));
  EXPECT_TRUE(e->ReportThroughput(kMiB, 0.010));
}

TEST(ThroughputPool, ConcurrentReportersAccountEveryByteOnce) {
  Fixture f;
  constexpr int kThreads = 4, kPlans = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPlans; ++i) {
        const double t0 = (i * kThreads + t) * 0.001;
        const uint64_t ticket = f.pool.Begin(t0);
        const DeliveryInterval iv{t0 + 0.0005, t0 + 0.0008, 100 * kKiB};
        f.pool.End(ticket, PlanOutcomeKind::kSuccess, {&iv, 1}, t0 + 0.0009);
      }
    });
  }
  for (auto& th : threads) th.join();
  const ThroughputPoolStats st = f.pool.stats();
  EXPECT_EQ(st.plans, static_cast<uint64_t>(kThreads * kPlans));
  // Every byte is sampled, dropped or pending (up to the rounding of bytes spread over time).
  const double total = static_cast<double>(st.sampled_bytes + st.dropped_bytes + st.pending_bytes);
  EXPECT_NEAR(total, kThreads * kPlans * 100.0 * kKiB, kThreads * kPlans);
}

}  // namespace
}  // namespace rap::plan
