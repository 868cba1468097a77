// RowSelection: sorted disjoint row ranges.
#include "rap/read/row_selection.h"

#include <algorithm>

#include <fmt/format.h>

namespace rap::read {

RowSelection RowSelection::FromRanges(std::vector<RowRange> ranges) {
  std::erase_if(ranges, [](const RowRange& r) { return r.end <= r.begin; });
  std::sort(ranges.begin(), ranges.end(), [](const RowRange& a, const RowRange& b) { return a.begin < b.begin; });
  RowSelection s;
  for (const RowRange& r : ranges) {
    if (!s.ranges_.empty() && r.begin <= s.ranges_.back().end) {
      s.ranges_.back().end = std::max(s.ranges_.back().end, r.end);
    } else {
      s.ranges_.push_back(r);
    }
  }
  return s;
}

int64_t RowSelection::Count() const {
  int64_t n = 0;
  for (const RowRange& r : ranges_) n += r.size();
  return n;
}

bool RowSelection::Contains(int64_t row) const {
  // First range whose end is past `row`.
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), row, [](int64_t v, const RowRange& r) { return v < r.end; });
  return it != ranges_.end() && it->begin <= row;
}

bool RowSelection::Intersects(int64_t begin, int64_t end) const {
  if (end <= begin) return false;
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), begin, [](int64_t v, const RowRange& r) { return v < r.end; });
  return it != ranges_.end() && it->begin < end;
}

RowSelection RowSelection::Union(const RowSelection& other) const {
  std::vector<RowRange> all = ranges_;
  all.insert(all.end(), other.ranges_.begin(), other.ranges_.end());
  return FromRanges(std::move(all));
}

RowSelection RowSelection::Intersect(const RowSelection& other) const {
  RowSelection out;
  size_t i = 0, j = 0;
  while (i < ranges_.size() && j < other.ranges_.size()) {
    const RowRange& a = ranges_[i];
    const RowRange& b = other.ranges_[j];
    int64_t lo = std::max(a.begin, b.begin), hi = std::min(a.end, b.end);
    if (lo < hi) out.ranges_.push_back({lo, hi});
    if (a.end < b.end) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

RowSelection RowSelection::Slice(int64_t begin, int64_t end) const {
  RowSelection out;
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), begin, [](int64_t v, const RowRange& r) { return v < r.end; });
  for (; it != ranges_.end() && it->begin < end; ++it) {
    out.ranges_.push_back({std::max(it->begin, begin) - begin, std::min(it->end, end) - begin});
  }
  return out;
}

RowSelection RowSelection::Shift(int64_t delta) const {
  RowSelection out = *this;
  for (RowRange& r : out.ranges_) {
    r.begin += delta;
    r.end += delta;
  }
  return out;
}

std::string RowSelection::ToString() const {
  std::string s;
  for (const RowRange& r : ranges_) {
    if (!s.empty()) s += " ";
    s += fmt::format("[{}, {})", r.begin, r.end);
  }
  return s.empty() ? "(none)" : s;
}

}  // namespace rap::read
