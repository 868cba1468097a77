#include <gtest/gtest.h>

#include <random>
#include <set>

#include "rap/read/row_selection.h"

namespace rap::read {
namespace {

TEST(RowSelection, NormalisesRanges) {
  auto s = RowSelection::FromRanges({{10, 20}, {0, 5}, {5, 7}, {15, 25}, {30, 30}, {40, 35}});
  EXPECT_EQ(s.ranges(), (std::vector<RowRange>{{0, 7}, {10, 25}}));
  EXPECT_EQ(s.Count(), 22);
  EXPECT_EQ(s.ToString(), "[0, 7) [10, 25)");
  EXPECT_TRUE(s.Contains(0));
  EXPECT_TRUE(s.Contains(6));
  EXPECT_FALSE(s.Contains(7));
  EXPECT_TRUE(s.Contains(24));
  EXPECT_FALSE(s.Contains(25));
  EXPECT_FALSE(s.Contains(-1));
  EXPECT_TRUE(s.Intersects(7, 11));
  EXPECT_FALSE(s.Intersects(7, 10));
  EXPECT_TRUE(RowSelection().empty());
  EXPECT_EQ(RowSelection::All(5).Count(), 5);
  EXPECT_TRUE(RowSelection::All(0).empty());
}

TEST(RowSelection, SliceAndShift) {
  auto s = RowSelection::FromRanges({{0, 7}, {10, 25}, {40, 50}});
  EXPECT_EQ(s.Slice(5, 12).ranges(), (std::vector<RowRange>{{0, 2}, {5, 7}}));
  EXPECT_EQ(s.Slice(25, 40).ranges(), (std::vector<RowRange>{}));
  EXPECT_EQ(s.Slice(45, 100).ranges(), (std::vector<RowRange>{{0, 5}}));
  EXPECT_EQ(s.Shift(3).ranges().front(), (RowRange{3, 10}));
}

std::set<int64_t> ToSet(const RowSelection& s) {
  std::set<int64_t> out;
  for (const auto& r : s) {
    for (int64_t i = r.begin; i < r.end; ++i) out.insert(i);
  }
  return out;
}

RowSelection RandomSelection(std::mt19937_64& rng, int64_t universe) {
  std::vector<RowRange> ranges;
  int n = static_cast<int>(rng() % 8);
  for (int i = 0; i < n; ++i) {
    int64_t b = static_cast<int64_t>(rng() % universe);
    int64_t len = static_cast<int64_t>(rng() % 20) - 3;  // sometimes empty or inverted
    ranges.push_back({b, b + len});
  }
  return RowSelection::FromRanges(ranges);
}

TEST(RowSelection, RandomPropertiesAgainstSets) {
  std::mt19937_64 rng(42);
  const int64_t kUniverse = 120;
  for (int iter = 0; iter < 2000; ++iter) {
    RowSelection a = RandomSelection(rng, kUniverse), b = RandomSelection(rng, kUniverse);
    std::set<int64_t> sa = ToSet(a), sb = ToSet(b);
    // Invariants: sorted, disjoint, non-adjacent, non-empty ranges.
    for (const RowSelection* s : {&a, &b}) {
      for (size_t i = 0; i < s->ranges().size(); ++i) {
        ASSERT_LT(s->ranges()[i].begin, s->ranges()[i].end);
        if (i) {
          ASSERT_LT(s->ranges()[i - 1].end, s->ranges()[i].begin);
        }
      }
    }
    std::set<int64_t> u = sa, in;
    u.insert(sb.begin(), sb.end());
    for (int64_t x : sa) {
      if (sb.count(x)) in.insert(x);
    }
    ASSERT_EQ(ToSet(a.Union(b)), u);
    ASSERT_EQ(ToSet(a.Intersect(b)), in);
    ASSERT_EQ(a.Union(b), b.Union(a));
    ASSERT_EQ(a.Intersect(b), b.Intersect(a));
    ASSERT_EQ(a.Count(), static_cast<int64_t>(sa.size()));
    for (int64_t x = -2; x < kUniverse + 25; ++x) ASSERT_EQ(a.Contains(x), sa.count(x) > 0) << x;
    int64_t lo = static_cast<int64_t>(rng() % kUniverse), hi = lo + static_cast<int64_t>(rng() % 40);
    std::set<int64_t> sl;
    for (int64_t x : sa) {
      if (x >= lo && x < hi) sl.insert(x - lo);
    }
    ASSERT_EQ(ToSet(a.Slice(lo, hi)), sl);
    ASSERT_EQ(a.Intersects(lo, hi), !sl.empty());
  }
}

}  // namespace
}  // namespace rap::read
