#include "rap/plan/candidates.h"

#include <vector>

#include <gtest/gtest.h>

#include "rap/plan/planner.h"
#include "rap/util/units.h"

namespace rap::plan {
namespace {

// `count` ranges of `length` bytes starting at `start`, separated by the given gaps (cycled).
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

TEST(Candidates, OnePerLowerWaveCount) {
  // 35 ranges of 100 bytes: 4 waves exact; candidates at 3, 2 and 1 waves (30, 20, 10 requests).
  RangeSet s = Normalized(Spaced(0, 35, 100, {1, 2, 3, 4, 5}));
  CandidateSet set = CandidateSet::Build(s);
  ASSERT_EQ(set.candidates().size(), 4u);
  EXPECT_TRUE(set.candidates()[0].is_exact());
  EXPECT_EQ(set.candidates()[0].requests, 35u);
  EXPECT_EQ(set.candidates()[0].waves, 4u);
  EXPECT_EQ(set.candidates()[0].bytes, 3500u);
  // 34 gaps: 7 each of 1..4 bytes and 6 of 5 bytes. 30 requests merge the 5 smallest (5 x 1 byte).
  EXPECT_EQ(set.candidates()[1].requests, 30u);
  EXPECT_EQ(set.candidates()[1].waves, 3u);
  EXPECT_EQ(set.candidates()[1].merged_gaps, 5u);
  EXPECT_EQ(set.candidates()[1].bytes, 3505u);
  // 20 requests merge 15 gaps: 7 x 1 + 7 x 2 + 1 x 3 = 24 bytes.
  EXPECT_EQ(set.candidates()[2].requests, 20u);
  EXPECT_EQ(set.candidates()[2].bytes, 3524u);
  // 10 requests merge 25 gaps: 7 + 14 + 21 + 4 x 4 = 58 bytes.
  EXPECT_EQ(set.candidates()[3].requests, 10u);
  EXPECT_EQ(set.candidates()[3].bytes, 3558u);
  EXPECT_EQ(set.dropped(), 0u);
  for (size_t i = 0; i < set.candidates().size(); ++i) {
    PhysicalPlan p = set.Materialize(s, i);
    EXPECT_EQ(p.request_count(), set.candidates()[i].requests);
    EXPECT_EQ(p.bytes, set.candidates()[i].bytes);
  }
}

TEST(Candidates, SingleWaveHasNoCandidates) {
  RangeSet s = Normalized(Spaced(0, 10, 100, {1000}));
  CandidateSet set = CandidateSet::Build(s);
  ASSERT_EQ(set.candidates().size(), 1u);
  EXPECT_TRUE(set.candidates()[0].is_exact());
  EXPECT_TRUE(CandidateSet::Build(RangeSet()).candidates().empty());
}

TEST(Candidates, EqualGapsMergeLowerOffsetFirst) {
  // 12 ranges, equal gaps: going to one wave merges the first two gaps (lowest offsets).
  RangeSet s = Normalized(Spaced(1000, 12, 10, {5}));
  CandidateSet set = CandidateSet::Build(s);
  ASSERT_EQ(set.candidates().size(), 2u);
  PhysicalPlan p = set.Materialize(s, 1);
  ASSERT_EQ(p.request_count(), 10u);
  EXPECT_EQ(p.requests[0], (ByteRange{1000, 40}));  // ranges 0, 1, 2
  EXPECT_EQ(p.requests[1], (ByteRange{1045, 10}));
  EXPECT_EQ(p.slices[2].request, 0u);
  EXPECT_EQ(p.slices[2].offset, 30u);
  EXPECT_EQ(p.slices[3].request, 1u);
}

TEST(Candidates, SmallestGapsMergeFirst) {
  // 11 ranges: gap 7 (between ranges 7 and 8) is the only small one.
  std::vector<uint64_t> gaps(10, 1000);
  gaps[7] = 3;
  RangeSet s = Normalized(Spaced(0, 11, 100, gaps));
  PhysicalPlan p = CandidateSet::Build(s).Materialize(s, 1);
  ASSERT_EQ(p.request_count(), 10u);
  EXPECT_EQ(p.requests[7].offset, s[7].offset);
  EXPECT_EQ(p.requests[7].end(), s[8].end());
  EXPECT_EQ(p.bytes, 1103u);
}

TEST(Candidates, FourTimesBoundDropsACandidate) {
  // 20 ranges of 100 bytes (2,000 exact bytes); one wave needs 10 merged gaps.
  // Gaps of 600 bytes: 2,000 + 6,000 = 8,000 = exactly 4x, kept.
  CandidateSet at_bound = CandidateSet::Build(Normalized(Spaced(0, 20, 100, {600})));
  ASSERT_EQ(at_bound.candidates().size(), 2u);
  EXPECT_EQ(at_bound.candidates()[1].bytes, 8000u);
  EXPECT_EQ(at_bound.dropped(), 0u);
  // Gaps of 601 bytes: 8,010 > 8,000, dropped.
  CandidateSet over = CandidateSet::Build(Normalized(Spaced(0, 20, 100, {601})));
  ASSERT_EQ(over.candidates().size(), 1u);
  EXPECT_EQ(over.dropped(), 1u);
}

TEST(Candidates, BoundDropsOnlyTheExpensiveTail) {
  // 40 ranges of 100 bytes (4,000 exact, 4 waves); 39 gaps: 10 x 10 bytes, then 29 x 1,000 bytes.
  std::vector<uint64_t> gaps(39, 1000);
  for (int i = 0; i < 10; ++i) gaps[i * 3] = 10;
  RangeSet s = Normalized(Spaced(0, 40, 100, gaps));
  CandidateSet set = CandidateSet::Build(s);
  // Bound 16,000. 30 requests: the 10 small gaps -> 4,100 bytes. 20 requests: + 10 x 1,000 -> 14,100, kept.
  // 10 requests: + another 10 x 1,000 -> 24,100, dropped.
  ASSERT_EQ(set.candidates().size(), 3u);
  EXPECT_EQ(set.candidates()[1].bytes, 4100u);
  EXPECT_EQ(set.candidates()[2].bytes, 14100u);
  EXPECT_EQ(set.dropped(), 1u);
}

TEST(Candidates, TouchingRangesAreFreeToMerge) {
  RangeSet s = Normalized(Spaced(0, 30, 10, {0}));
  CandidateSet set = CandidateSet::Build(s);
  ASSERT_EQ(set.candidates().size(), 3u);
  for (const Candidate& c : set.candidates()) EXPECT_EQ(c.bytes, 300u);
}

// Seed 000: 24 column ranges separated by about 0.5 MiB become one request under fixed 1 MiB.
TEST(SeedShapes, TwentyFourColumnsBecomeOneRequestUnderFixed1MiB) {
  RangeSet s = Normalized(Spaced(4, 24, 300 * kKiB, {512 * kKiB, 500 * kKiB, 530 * kKiB}));
  ASSERT_EQ(s.size(), 24u);
  RangePlanner planner;
  Result<PlanPolicy> fixed = ParsePlanPolicy("fixed:1MiB");
  ASSERT_TRUE(fixed.ok());
  PlanDecision d = planner.Plan(s, *fixed, TransportEstimate{});
  ASSERT_EQ(d.plan.request_count(), 1u);
  EXPECT_EQ(d.plan.requests[0].offset, s[0].offset);
  EXPECT_EQ(d.plan.requests[0].end(), s[23].end());
  EXPECT_EQ(d.decided_by, DecidedBy::kForcedPolicy);
  // A gap just above 1 MiB splits the request.
  RangeSet split = Normalized(Spaced(4, 24, 300 * kKiB, {512 * kKiB, 512 * kKiB, 512 * kKiB, kMiB + 1}));
  EXPECT_EQ(planner.Plan(split, *fixed, TransportEstimate{}).plan.request_count(), 6u);
  // Exact keeps all 24.
  EXPECT_EQ(planner.Plan(s, PlanPolicy::Exact(), TransportEstimate{}).plan.request_count(), 24u);
}

// Seed 000, dense projection: 16 plans of 13 exact ranges (208 requests) become 16 requests under
// fixed 1 MiB, roughly doubling the bytes (20.2 MiB -> 39.6 MiB in the seed's run).
TEST(SeedShapes, TwoHundredEightExactRequestsInSixteenPlansBecomeSixteen) {
  RangePlanner planner;
  uint64_t exact_requests = 0, fixed_requests = 0, exact_bytes = 0, fixed_bytes = 0;
  for (int plan = 0; plan < 16; ++plan) {
    // One plan: every second payload column, ~97 KiB page runs, ~100 KiB of skipped columns between them.
    RangeSet s = Normalized(Spaced(plan * 4 * kMiB, 13, 97 * kKiB + plan, {100 * kKiB, 96 * kKiB}));
    PlanDecision exact = planner.Plan(s, PlanPolicy::Exact(), TransportEstimate{});
    PlanDecision fixed = planner.Plan(s, PlanPolicy::FixedGap(kMiB), TransportEstimate{});
    exact_requests += exact.plan.request_count();
    exact_bytes += exact.plan.bytes;
    fixed_requests += fixed.plan.request_count();
    fixed_bytes += fixed.plan.bytes;
  }
  EXPECT_EQ(exact_requests, 208u);
  EXPECT_EQ(fixed_requests, 16u);
  EXPECT_GT(fixed_bytes, 19 * exact_bytes / 10);
  EXPECT_LT(fixed_bytes, 2 * exact_bytes);
}

}  // namespace
}  // namespace rap::plan
