#include "rap/plan/planner.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "rap/util/units.h"
#include "testing/result_check.h"

namespace rap::plan {
namespace {

std::vector<ByteRange> Spaced(uint64_t start, size_t count, uint64_t length, std::vector<uint64_t> gaps) {
  std::vector<ByteRange> out;
  uint64_t off = start;
  for (size_t i = 0; i < count; ++i) {
    out.push_back({off, length});
    off += length + gaps[i % gaps.size()];
  }
  return out;
}

RangeSet Normalized(const std::vector<ByteRange>& in) {
  Result<RangeSet> s = NormalizeRanges(in);
  EXPECT_TRUE(s.ok());
  return s.ok() ? *s : RangeSet();
}

TransportEstimate Trained(double latency_s, double throughput_bps) {
  TransportEstimate e;
  e.latency_samples = 3;
  e.throughput_samples = 3;
  e.latency_s = latency_s;
  e.throughput_bps = throughput_bps;
  return e;
}

TEST(PlanPolicy, Parses) {
  EXPECT_EQ(*ParsePlanPolicy("auto"), PlanPolicy::Auto());
  EXPECT_EQ(*ParsePlanPolicy("EXACT"), PlanPolicy::Exact());
  EXPECT_EQ(*ParsePlanPolicy("store"), PlanPolicy::Store());
  EXPECT_EQ(*ParsePlanPolicy("fixed:1MiB"), PlanPolicy::FixedGap(kMiB));
  EXPECT_EQ(*ParsePlanPolicy("fixed:64KiB"), PlanPolicy::FixedGap(64 * kKiB));
  EXPECT_EQ(*ParsePlanPolicy("fixed:0"), PlanPolicy::FixedGap(0));
  for (const char* bad : {"", "fixed", "fixed:", "fixed:abc", "fixed:-1", "merge", "auto "}) {
    Result<PlanPolicy> p = ParsePlanPolicy(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(p.status().message().find("plan policy"), std::string::npos) << p.status().message();
  }
}

TEST(PlanPolicy, ToStringRoundTrips) {
  for (PlanPolicy p : {PlanPolicy::Auto(), PlanPolicy::Exact(), PlanPolicy::Store(), PlanPolicy::FixedGap(kMiB),
                       PlanPolicy::FixedGap(64 * kKiB), PlanPolicy::FixedGap(1000), PlanPolicy::FixedGap(0),
                       PlanPolicy::FixedGap(2 * kGiB)}) {
    Result<PlanPolicy> back = ParsePlanPolicy(p.ToString());
    ASSERT_TRUE(back.ok()) << p.ToString();
    EXPECT_EQ(*back, p) << p.ToString();
  }
  EXPECT_EQ(PlanPolicy::FixedGap(kMiB).ToString(), "fixed:1MiB");
}

TEST(RangePlanner, EstimateIsWavesTimesLatencyPlusBytesOverThroughput) {
  RangePlanner planner;
  TransportEstimate e = Trained(0.05, 1e6);
  EXPECT_DOUBLE_EQ(planner.EstimateSeconds(10, 1'000'000, e), 1 * 0.05 + 1.0);
  EXPECT_DOUBLE_EQ(planner.EstimateSeconds(11, 500'000, e), 2 * 0.05 + 0.5);
  EXPECT_TRUE(std::isnan(planner.EstimateSeconds(10, 100, TransportEstimate{})));
}

TEST(RangePlanner, ColdStartUsesExactRanges) {
  // Merging would be far cheaper, but the estimator has only 3 latency and 2 throughput samples.
  RangeSet s = Normalized(Spaced(0, 30, 1000, {10}));
  TransportEstimate e = Trained(1.0, 1e9);
  e.throughput_samples = 2;
  PlanDecision d = RangePlanner().Plan(s, PlanPolicy::Auto(), e);
  EXPECT_EQ(d.decided_by, DecidedBy::kColdStart);
  EXPECT_EQ(d.plan.request_count(), 30u);
  EXPECT_FALSE(std::isnan(d.estimated_s));  // both windows have values, so the record gets an estimate
  // With 3 + 3 samples the same shape is merged.
  PlanDecision trained = RangePlanner().Plan(s, PlanPolicy::Auto(), Trained(1.0, 1e9));
  EXPECT_EQ(trained.decided_by, DecidedBy::kCostMerged);
  EXPECT_EQ(trained.plan.request_count(), 10u);
}

TEST(RangePlanner, ColdStartRequestBoundAbove64Requests) {
  RangePlanner planner;
  // 64 requests: exact.
  PlanDecision at = planner.Plan(Normalized(Spaced(0, 64, 1000, {10})), PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(at.decided_by, DecidedBy::kColdStart);
  EXPECT_EQ(at.plan.request_count(), 64u);
  EXPECT_TRUE(std::isnan(at.estimated_s));
  // 65 requests, cheap gaps: the candidate with the fewest requests within 4x (one wave).
  PlanDecision over = planner.Plan(Normalized(Spaced(0, 65, 1000, {10})), PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(over.decided_by, DecidedBy::kColdStartRequestBound);
  EXPECT_EQ(over.plan.request_count(), 10u);
  // 65 ranges of 100 bytes (6,500 exact, bound 26,000) with gaps of 500 bytes: 60 requests cost +2,500,
  // 50 +7,500, 40 +12,500, 30 +17,500 (24,000 bytes, kept), 20 +22,500 (29,000, dropped).
  PlanDecision bounded = planner.Plan(Normalized(Spaced(0, 65, 100, {500})), PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(bounded.decided_by, DecidedBy::kColdStartRequestBound);
  EXPECT_EQ(bounded.plan.request_count(), 30u);
  EXPECT_EQ(bounded.plan.bytes, 24'000u);
  EXPECT_EQ(bounded.candidates_dropped, 2u);
  // 65 requests whose every candidate breaks the bound: exact.
  PlanDecision far = planner.Plan(Normalized(Spaced(0, 65, 10, {1000})), PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(far.decided_by, DecidedBy::kColdStart);
  EXPECT_EQ(far.plan.request_count(), 65u);
}

// 8 ranges of 100 bytes with gaps of 100, 200, ..., 700 bytes: [0,100), [200,300), [500,600), ...
RangeSet GrowingGaps() {
  std::vector<ByteRange> r;
  uint64_t off = 0;
  for (int i = 0; i < 8; ++i) {
    r.push_back({off, 100});
    off += 100 + 100 * static_cast<uint64_t>(i + 1);
  }
  return Normalized(r);
}

// Lookups (PlannerConfig::cold_start_fewest_requests): in cold start the smallest gaps merge one
// at a time while the extra bytes stay within the slack and no request grows past the longest
// allowed; trained, the cost model as for every read.
TEST(RangePlanner, ColdStartFewestRequestsMergesGapsOneAtATime) {
  PlannerConfig config;
  config.cold_start_request_bound = 1;
  config.cold_start_fewest_requests = true;
  config.cold_start_slack_bytes = 2'400;
  // 8 ranges of 100 bytes (800 exact; with the slack 3,200 in all) with gaps 100, 200, ..., 700.
  const RangeSet set = GrowingGaps();
  PlanDecision d = RangePlanner(config).Plan(set, PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(d.decided_by, DecidedBy::kColdStartRequestBound);
  // Gaps 100..600 merge (800 + 2,100 = 2,900 <= 3,200); the 700-byte gap does not.
  EXPECT_EQ(d.plan.request_count(), 2u);
  EXPECT_EQ(d.plan.bytes, 2'900u);
  // A larger slack lets the last gap merge too: one request.
  config.cold_start_slack_bytes = 3'000;
  PlanDecision slack = RangePlanner(config).Plan(set, PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(slack.plan.request_count(), 1u);
  EXPECT_EQ(slack.plan.bytes, 3'600u);
  // At most 1,000 bytes a request: [0,1000) (gaps 100-300), [1400,2100) (500), [2700,3600) (700);
  // the 400 and 600 gaps would make a longer request.
  config.cold_start_max_request_bytes = 1'000;
  PlanDecision capped = RangePlanner(config).Plan(set, PlanPolicy::Auto(), TransportEstimate{});
  ASSERT_EQ(capped.plan.request_count(), 3u);
  EXPECT_EQ(capped.plan.requests[0].offset, 0u);
  EXPECT_EQ(capped.plan.requests[0].length, 1'000u);
  EXPECT_EQ(capped.plan.requests[1].offset, 1'400u);
  EXPECT_EQ(capped.plan.requests[2].offset, 2'700u);
  EXPECT_EQ(capped.plan.bytes, 2'600u);
  // Gaps all too large for the slack: exact, decided by cold start.
  PlanDecision far =
      RangePlanner(config).Plan(Normalized(Spaced(0, 8, 10, {10'000})), PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(far.decided_by, DecidedBy::kColdStart);
  EXPECT_EQ(far.plan.request_count(), 8u);
  // Trained: the cost model (a wave of 10 holds all 8 exact ranges, so exact).
  PlanDecision trained = RangePlanner(config).Plan(set, PlanPolicy::Auto(), Trained(0.03, 1e9));
  EXPECT_EQ(trained.decided_by, DecidedBy::kCostExact);
  EXPECT_EQ(trained.plan.request_count(), 8u);
  // Without the flag, the seed's rule: 8 requests fit one wave, so no candidate merges.
  PlannerConfig seed;
  seed.cold_start_request_bound = 1;
  PlanDecision s = RangePlanner(seed).Plan(set, PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(s.plan.request_count(), 8u);
}

// Lookups with cold_start_fill_wave_max_gap: a plan still above one wave after the slack merges
// its smallest gaps left up to that size, of any request length, until it fits one wave.
TEST(RangePlanner, ColdStartFillWaveMergesDownToOneWave) {
  PlannerConfig config;
  config.cold_start_request_bound = 1;
  config.cold_start_fewest_requests = true;
  config.cold_start_fill_wave_max_gap = 1'000;
  config.cold_start_max_request_bytes = 1'000;  // the wave phase is not bound by it
  config.max_concurrency = 3;
  // 8 ranges of 100 bytes (800 exact) with gaps 100, 200, ..., 700.
  const RangeSet set = GrowingGaps();
  // No slack: gaps 100..500 merge (800 + 1,500 = 2,300 bytes) and leave 3 requests, one wave.
  PlanDecision d = RangePlanner(config).Plan(set, PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(d.decided_by, DecidedBy::kColdStartRequestBound);
  ASSERT_EQ(d.plan.request_count(), 3u);
  EXPECT_EQ(d.plan.bytes, 2'300u);
  EXPECT_EQ(d.plan.requests[0].length, 2'100u);  // [0, 2100): longer than the 1,000-byte cap
  // Gaps of at most 300 bytes: 5 requests, 1,400 bytes.
  config.cold_start_fill_wave_max_gap = 300;
  PlanDecision bounded = RangePlanner(config).Plan(set, PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(bounded.plan.request_count(), 5u);
  EXPECT_EQ(bounded.plan.bytes, 1'400u);
  // With a slack the slack phase runs first, under the 1,000-byte cap: [0,1000), [1400,2100),
  // [2700,3600) (2,600 bytes) — one wave, so the wave phase adds nothing.
  config.cold_start_fill_wave_max_gap = 1'000;
  config.cold_start_slack_bytes = 2'400;
  PlanDecision slack = RangePlanner(config).Plan(set, PlanPolicy::Auto(), TransportEstimate{});
  ASSERT_EQ(slack.plan.request_count(), 3u);
  EXPECT_EQ(slack.plan.requests[1].offset, 1'400u);
  EXPECT_EQ(slack.plan.bytes, 2'600u);
  // One wave already: nothing beyond the slack phase.
  config.max_concurrency = 10;
  config.cold_start_slack_bytes = 0;
  PlanDecision wave = RangePlanner(config).Plan(set, PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(wave.decided_by, DecidedBy::kColdStart);
  EXPECT_EQ(wave.plan.request_count(), 8u);
  // Trained: the cost model, unless fewest_requests_when_trained keeps the rule.
  config.max_concurrency = 3;
  // (0.1 ms and 1 kB/s: the model keeps the exact 800 bytes over 3 waves.)
  PlanDecision model = RangePlanner(config).Plan(set, PlanPolicy::Auto(), Trained(0.0001, 1e3));
  EXPECT_EQ(model.decided_by, DecidedBy::kCostExact);
  EXPECT_EQ(model.plan.request_count(), 8u);
  config.fewest_requests_when_trained = true;
  PlanDecision kept = RangePlanner(config).Plan(set, PlanPolicy::Auto(), Trained(0.0001, 1e3));
  EXPECT_EQ(kept.decided_by, DecidedBy::kFewestRequests);
  EXPECT_EQ(kept.plan.request_count(), 3u);
  EXPECT_EQ(kept.plan.bytes, 2'300u);
  // Off (max gap 0): exact.
  config.max_concurrency = 3;
  config.cold_start_fill_wave_max_gap = 0;
  PlanDecision none = RangePlanner(config).Plan(set, PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_EQ(none.plan.request_count(), 8u);
}

TEST(RangePlanner, LowestEstimateWins) {
  // 20 ranges of 1,000 bytes, 1,000-byte gaps. Exact: 2 waves, 20,000 bytes; merged: 1 wave, 30,000 bytes.
  RangeSet s = Normalized(Spaced(0, 20, 1000, {1000}));
  RangePlanner planner;
  // Low throughput (1 MB/s, 1 ms): exact 0.002 + 0.02 = 0.022 s; merged 0.001 + 0.03 = 0.031 s: exact.
  PlanDecision low = planner.Plan(s, PlanPolicy::Auto(), Trained(0.001, 1e6));
  EXPECT_EQ(low.decided_by, DecidedBy::kCostExact);
  EXPECT_EQ(low.plan.request_count(), 20u);
  EXPECT_DOUBLE_EQ(low.estimated_s, 0.022);
  // High latency (30 ms, 1 MB/s): exact 0.06 + 0.02 = 0.08 s; merged 0.03 + 0.03 = 0.06 s: merged.
  PlanDecision high = planner.Plan(s, PlanPolicy::Auto(), Trained(0.03, 1e6));
  EXPECT_EQ(high.decided_by, DecidedBy::kCostMerged);
  EXPECT_EQ(high.plan.request_count(), 10u);
  EXPECT_EQ(high.plan.bytes, 30'000u);
  EXPECT_DOUBLE_EQ(high.estimated_s, 0.06);
  EXPECT_EQ(high.candidates, 2u);
}

TEST(RangePlanner, TenPercentMarginPrefersTheSmallerPlan) {
  RangeSet s = Normalized(Spaced(0, 20, 1000, {1000}));
  RangePlanner planner;
  // 12 ms, 1 MB/s: exact 0.024 + 0.02 = 0.044 s; merged 0.012 + 0.03 = 0.042 s. Merged is lower, but exact
  // is within 10% (0.044 <= 0.0462) and transfers fewer bytes.
  PlanDecision d = planner.Plan(s, PlanPolicy::Auto(), Trained(0.012, 1e6));
  EXPECT_EQ(d.decided_by, DecidedBy::kCostExact);
  EXPECT_EQ(d.plan.request_count(), 20u);
  // Without the margin, the lower estimate wins.
  PlannerConfig no_margin;
  no_margin.stability_margin = 0;
  EXPECT_EQ(RangePlanner(no_margin).Plan(s, PlanPolicy::Auto(), Trained(0.012, 1e6)).decided_by,
            DecidedBy::kCostMerged);
  // 15 ms: exact 0.05 s, merged 0.045 s; limit 0.0495 s excludes exact.
  EXPECT_EQ(planner.Plan(s, PlanPolicy::Auto(), Trained(0.015, 1e6)).decided_by, DecidedBy::kCostMerged);
}

TEST(RangePlanner, MarginPicksTheFewestBytesAmongSeveralCandidates) {
  // 40 ranges of 1,000 bytes with 100-byte gaps: 4 waves, candidates of 30, 20, 10 requests adding
  // 1,000, 2,000, 3,000 bytes. At 10 ms and 10 MB/s the estimates are 0.0440, 0.0341, 0.0242, 0.0143 s:
  // only the 10-request candidate is within 10% of the lowest.
  RangeSet s = Normalized(Spaced(0, 40, 1000, {100}));
  PlanDecision d = RangePlanner().Plan(s, PlanPolicy::Auto(), Trained(0.01, 1e7));
  EXPECT_EQ(d.plan.request_count(), 10u);
  // At 1 ms and 1 MB/s every estimate is 0.044 s (4 x 0.001 + 0.040, 3 x 0.001 + 0.041, ...): all within
  // 10%, so the fewest bytes (exact) wins.
  PlanDecision e = RangePlanner().Plan(s, PlanPolicy::Auto(), Trained(0.001, 1e6));
  EXPECT_EQ(e.plan.request_count(), 40u);
  EXPECT_EQ(e.decided_by, DecidedBy::kCostExact);
}

TEST(RangePlanner, FewestRequestsBreaksByteTies) {
  // 30 touching ranges: every candidate has the same bytes; with zero latency all estimates are equal.
  RangeSet s = Normalized(Spaced(0, 30, 100, {0}));
  PlanDecision d = RangePlanner().Plan(s, PlanPolicy::Auto(), Trained(0.0, 1e6));
  EXPECT_EQ(d.plan.request_count(), 10u);
  EXPECT_EQ(d.decided_by, DecidedBy::kCostMerged);
}

TEST(RangePlanner, ForcedPolicies) {
  RangeSet s = Normalized(Spaced(0, 30, 100, {10, 2000}));
  RangePlanner planner;
  TransportEstimate e = Trained(1.0, 1e3);  // would merge everything under auto
  PlanDecision exact = planner.Plan(s, PlanPolicy::Exact(), e);
  EXPECT_EQ(exact.decided_by, DecidedBy::kForcedPolicy);
  EXPECT_EQ(exact.plan.request_count(), 30u);
  EXPECT_DOUBLE_EQ(exact.estimated_s, 3 * 1.0 + 3000 / 1e3);
  PlanDecision fixed = planner.Plan(s, PlanPolicy::FixedGap(10), e);
  EXPECT_EQ(fixed.plan.request_count(), 15u);
  EXPECT_EQ(fixed.plan.bytes, 3000u + 15 * 10);
  PlanDecision store = planner.Plan(s, PlanPolicy::Store(), e);
  EXPECT_TRUE(store.use_store_native);
  EXPECT_TRUE(store.plan.requests.empty());
  EXPECT_TRUE(std::isnan(store.estimated_s));
  EXPECT_EQ(store.exact_requests, 30u);
}

TEST(RangePlanner, EmptyInput) {
  PlanDecision d = RangePlanner().Plan(RangeSet(), PlanPolicy::Auto(), TransportEstimate{});
  EXPECT_TRUE(d.plan.requests.empty());
  EXPECT_EQ(d.exact_requests, 0u);
}

// ---- Properties over random range sets ----

struct Scenario {
  std::vector<ByteRange> input;
  RangeSet exact;
};

Scenario RandomScenario(std::mt19937_64& rng) {
  Scenario sc;
  const size_t n = std::uniform_int_distribution<size_t>(0, 400)(rng);
  const uint64_t span = std::uniform_int_distribution<uint64_t>(1000, 50'000'000)(rng);
  std::uniform_int_distribution<uint64_t> off(0, span);
  std::uniform_int_distribution<uint64_t> len(0, std::max<uint64_t>(1, span / (n + 1)));
  for (size_t i = 0; i < n; ++i) {
    ByteRange r{off(rng), len(rng)};
    sc.input.push_back(r);
    const int extra = std::uniform_int_distribution<int>(0, 9)(rng);
    if (extra == 0) sc.input.push_back(r);                                         // duplicate
    if (extra == 1) sc.input.push_back({r.end(), len(rng)});                       // touching
    if (extra == 2 && r.length > 2) sc.input.push_back({r.offset + 1, r.length});  // overlapping
  }
  Result<RangeSet> s = NormalizeRanges(sc.input);
  RAP_TEST_CHECK_OK(s);
  sc.exact = *s;
  return sc;
}

// Every exact byte in exactly one request, requests sorted and disjoint, edges on exact ranges, slices right.
void CheckPlan(const RangeSet& exact, const PhysicalPlan& p) {
  ASSERT_EQ(p.slices.size(), exact.size());
  uint64_t bytes = 0;
  for (size_t i = 0; i < p.requests.size(); ++i) {
    bytes += p.requests[i].length;
    ASSERT_GT(p.requests[i].length, 0u);
    if (i > 0) {
      ASSERT_LE(p.requests[i - 1].end(), p.requests[i].offset) << "requests overlap";
    }
  }
  ASSERT_EQ(bytes, p.bytes);
  std::vector<uint32_t> per_request(p.requests.size(), 0);
  for (size_t i = 0; i < exact.size(); ++i) {
    const RangeSlice& sl = p.slices[i];
    ASSERT_LT(sl.request, p.requests.size());
    const ByteRange& req = p.requests[sl.request];
    ASSERT_EQ(req.offset + sl.offset, exact[i].offset);
    ASSERT_TRUE(req.Contains(exact[i]));
    // No other request touches any byte of this range (requests are disjoint, so checking neighbours suffices).
    if (sl.request > 0) {
      ASSERT_LE(p.requests[sl.request - 1].end(), exact[i].offset);
    }
    if (sl.request + 1 < p.requests.size()) {
      ASSERT_GE(p.requests[sl.request + 1].offset, exact[i].end());
    }
    ++per_request[sl.request];
    if (i > 0) {
      ASSERT_GE(sl.request, p.slices[i - 1].request);
    }
  }
  for (size_t r = 0; r < p.requests.size(); ++r) {
    ASSERT_GT(per_request[r], 0u) << "request " << r << " carries no exact range";
  }
  // Requests begin and end on exact range boundaries.
  for (const ByteRange& req : p.requests) {
    auto first = exact.Find({req.offset, 1});
    ASSERT_TRUE(first.has_value());
    ASSERT_EQ(exact[*first].offset, req.offset);
    auto last = exact.Find({req.end() - 1, 1});
    ASSERT_TRUE(last.has_value());
    ASSERT_EQ(exact[*last].end(), req.end());
  }
}

TEST(PlannerProperties, RandomRangeSets) {
  std::mt19937_64 rng(20260829);
  RangePlanner planner;
  for (int iter = 0; iter < 300; ++iter) {
    Scenario sc = RandomScenario(rng);
    // Every input range lies inside one exact range.
    for (const ByteRange& r : sc.input) {
      if (r.length > 0) {
        ASSERT_TRUE(sc.exact.Find(r).has_value()) << r.ToString();
      }
    }
    // Normalisation does not depend on input order.
    std::vector<ByteRange> shuffled = sc.input;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    ASSERT_EQ(NormalizeRanges(shuffled)->ranges(), sc.exact.ranges());

    // Candidates: bytes = exact + the k smallest gaps (brute force), and within 4x.
    CandidateSet set = CandidateSet::Build(sc.exact);
    std::vector<uint64_t> gaps;
    for (size_t i = 0; i + 1 < sc.exact.size(); ++i) gaps.push_back(sc.exact.gap_after(i));
    std::sort(gaps.begin(), gaps.end());
    for (size_t c = 0; c < set.candidates().size(); ++c) {
      const Candidate& cand = set.candidates()[c];
      uint64_t expect = sc.exact.total_bytes();
      for (uint64_t k = 0; k < cand.merged_gaps; ++k) expect += gaps[k];
      ASSERT_EQ(cand.bytes, expect);
      ASSERT_LE(cand.bytes, 4 * sc.exact.total_bytes());
      ASSERT_EQ(cand.requests + cand.merged_gaps, sc.exact.size());
      if (c > 0) {
        ASSERT_EQ(cand.waves + 1, set.candidates()[c - 1].waves);
      }
      PhysicalPlan p = set.Materialize(sc.exact, c);
      ASSERT_NO_FATAL_FAILURE(CheckPlan(sc.exact, p));
      ASSERT_EQ(p.request_count(), cand.requests);
      ASSERT_EQ(p.bytes, cand.bytes);
    }

    const double latency = std::uniform_real_distribution<double>(0, 0.2)(rng);
    const double throughput = std::uniform_real_distribution<double>(1e5, 1e9)(rng);
    TransportEstimate trained = Trained(latency, throughput);
    TransportEstimate cold = trained;
    cold.throughput_samples = iter % 3;
    for (const TransportEstimate& e : {trained, cold}) {
      PlanDecision d = planner.Plan(sc.exact, PlanPolicy::Auto(), e);
      ASSERT_NO_FATAL_FAILURE(CheckPlan(sc.exact, d.plan));
      ASSERT_LE(d.plan.bytes, 4 * sc.exact.total_bytes());
      PlanDecision again = planner.Plan(sc.exact, PlanPolicy::Auto(), e);
      ASSERT_EQ(again.plan.requests, d.plan.requests);
      ASSERT_EQ(again.decided_by, d.decided_by);
      if (e.Trained(3) && !set.candidates().empty()) {
        // Brute force of the choice rule.
        double lowest = INFINITY;
        for (const Candidate& c : set.candidates())
          lowest = std::min(lowest, planner.EstimateSeconds(c.requests, c.bytes, e));
        const Candidate* best = nullptr;
        for (const Candidate& c : set.candidates()) {
          if (planner.EstimateSeconds(c.requests, c.bytes, e) > lowest * 1.1) continue;
          if (!best || c.bytes < best->bytes || (c.bytes == best->bytes && c.requests < best->requests)) best = &c;
        }
        ASSERT_EQ(d.plan.request_count(), best->requests);
        ASSERT_EQ(d.plan.bytes, best->bytes);
      }
    }
    const uint64_t gap = std::uniform_int_distribution<uint64_t>(0, 2 * kMiB)(rng);
    PlanDecision fixed = planner.Plan(sc.exact, PlanPolicy::FixedGap(gap), trained);
    ASSERT_NO_FATAL_FAILURE(CheckPlan(sc.exact, fixed.plan));
    for (size_t i = 0; i + 1 < fixed.plan.requests.size(); ++i) {
      ASSERT_GT(fixed.plan.requests[i + 1].offset - fixed.plan.requests[i].end(), gap);
    }
  }
}

}  // namespace
}  // namespace rap::plan
