#include "rap/plan/range_set.h"

#include <vector>

#include <gtest/gtest.h>

#include "rap/plan/physical_plan.h"

namespace rap::plan {
namespace {

std::vector<ByteRange> Ranges(const RangeSet& s) { return s.ranges(); }

TEST(NormalizeRanges, SortsAndCombinesOverlapsAndDuplicates) {
  std::vector<ByteRange> in = {{100, 10}, {0, 10}, {100, 10}, {105, 20}, {5, 3}, {50, 0}};
  Result<RangeSet> s = NormalizeRanges(in);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // [0,10) absorbs [5,8); [100,110) and its duplicate and [105,125) become [100,125); the empty range goes.
  EXPECT_EQ(Ranges(*s), (std::vector<ByteRange>{{0, 10}, {100, 25}}));
  EXPECT_EQ(s->total_bytes(), 35u);
}

TEST(NormalizeRanges, TouchingRangesStaySeparate) {
  std::vector<ByteRange> in = {{10, 10}, {0, 10}, {20, 5}};
  Result<RangeSet> s = NormalizeRanges(in);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Ranges(*s), (std::vector<ByteRange>{{0, 10}, {10, 10}, {20, 5}}));
  EXPECT_EQ(s->gap_after(0), 0u);
}

TEST(NormalizeRanges, TouchingRangesOfTheSameTagCombine) {
  std::vector<TaggedRange> in = {{{0, 10}, 1}, {{10, 10}, 1}, {{20, 10}, 2}, {{30, 10}, kNoTag}, {{40, 10}, kNoTag}};
  Result<RangeSet> s = NormalizeTaggedRanges(in);
  ASSERT_TRUE(s.ok());
  // Column 1's two pages become one range; column 2 and the untagged ranges stay separate.
  EXPECT_EQ(Ranges(*s), (std::vector<ByteRange>{{0, 20}, {20, 10}, {30, 10}, {40, 10}}));
}

TEST(NormalizeRanges, OverlapOfDifferentTagsLosesTheTag) {
  // [0,10) tag 1 and [5,15) tag 2 overlap; the result may not continue into a touching tag-1 range.
  std::vector<TaggedRange> in = {{{0, 10}, 1}, {{5, 10}, 2}, {{15, 5}, 1}};
  Result<RangeSet> s = NormalizeTaggedRanges(in);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Ranges(*s), (std::vector<ByteRange>{{0, 15}, {15, 5}}));
}

TEST(NormalizeRanges, RejectsOverflowingRanges) {
  std::vector<ByteRange> in = {{0, 1}, {UINT64_MAX - 5, 10}};
  Result<RangeSet> s = NormalizeRanges(in);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("byte range 1"), std::string::npos) << s.status().message();
  // The largest representable range is fine.
  std::vector<ByteRange> edge = {{UINT64_MAX - 5, 5}};
  EXPECT_TRUE(NormalizeRanges(edge).ok());
}

TEST(NormalizeRanges, EmptyInput) {
  Result<RangeSet> s = NormalizeRanges({});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->empty());
  EXPECT_EQ(s->total_bytes(), 0u);
  EXPECT_TRUE(PhysicalPlan::Exact(*s).requests.empty());
}

TEST(RangeSet, FindLocatesTheContainingRange) {
  std::vector<ByteRange> in = {{0, 10}, {20, 10}, {30, 10}};
  Result<RangeSet> s = NormalizeRanges(in);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->Find({0, 10}), 0u);
  EXPECT_EQ(s->Find({3, 2}), 0u);
  EXPECT_EQ(s->Find({30, 10}), 2u);
  EXPECT_EQ(s->Find({25, 5}), 1u);
  EXPECT_EQ(s->Find({10, 5}), std::nullopt);   // in a gap
  EXPECT_EQ(s->Find({25, 10}), std::nullopt);  // spans two ranges
  EXPECT_EQ(s->Find({45, 1}), std::nullopt);   // past the end
}

TEST(PhysicalPlan, MergeGapsUpToAndSlices) {
  std::vector<ByteRange> in = {{0, 10}, {15, 5}, {100, 10}, {110, 10}};
  Result<RangeSet> s = NormalizeRanges(in);
  ASSERT_TRUE(s.ok());
  PhysicalPlan p = PhysicalPlan::MergeGapsUpTo(*s, 5);
  EXPECT_EQ(p.requests, (std::vector<ByteRange>{{0, 20}, {100, 20}}));
  EXPECT_EQ(p.bytes, 40u);
  ASSERT_EQ(p.slices.size(), 4u);
  EXPECT_EQ(p.slices[1].request, 0u);
  EXPECT_EQ(p.slices[1].offset, 15u);
  EXPECT_EQ(p.slices[3].request, 1u);
  EXPECT_EQ(p.slices[3].offset, 10u);
  // A max gap of 0 merges only touching ranges.
  PhysicalPlan touching = PhysicalPlan::MergeGapsUpTo(*s, 0);
  EXPECT_EQ(touching.requests, (std::vector<ByteRange>{{0, 10}, {15, 5}, {100, 20}}));
  PhysicalPlan exact = PhysicalPlan::Exact(*s);
  EXPECT_EQ(exact.requests, s->ranges());
  EXPECT_EQ(exact.bytes, 35u);
}

TEST(RequestWaves, IsCeilOfRequestsOverConcurrency) {
  EXPECT_EQ(RequestWaves(0, 10), 0u);
  EXPECT_EQ(RequestWaves(1, 10), 1u);
  EXPECT_EQ(RequestWaves(10, 10), 1u);
  EXPECT_EQ(RequestWaves(11, 10), 2u);
  EXPECT_EQ(RequestWaves(208, 10), 21u);
}

}  // namespace
}  // namespace rap::plan
