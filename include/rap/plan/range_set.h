// RangeSet: the exact ranges of a multi-range read after normalisation (seed 000, "exact plan").
// Normalisation sorts the ranges, drops empty ones and combines ranges that overlap or are identical.
// Ranges that merely touch stay separate (they usually belong to different columns; merging them is a
// candidate plan's job), unless both carry the same tag (e.g. consecutive pages of one column).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "rap/plan/byte_range.h"
#include "rap/util/result.h"

namespace rap::plan {

// Tag of a range whose origin (column) is unknown; such ranges never combine with a touching range.
inline constexpr uint32_t kNoTag = std::numeric_limits<uint32_t>::max();

struct TaggedRange {
  ByteRange range;
  uint32_t tag = kNoTag;  // e.g. the column index the range belongs to
};

// Sorted, pairwise non-overlapping, non-empty ranges. Built only by the Normalize functions.
class RangeSet {
 public:
  RangeSet() = default;

  const std::vector<ByteRange>& ranges() const { return ranges_; }
  size_t size() const { return ranges_.size(); }
  bool empty() const { return ranges_.empty(); }
  const ByteRange& operator[](size_t i) const { return ranges_[i]; }
  uint64_t total_bytes() const { return total_bytes_; }
  // The gap between range i and range i + 1 (0 when they touch). Requires i + 1 < size().
  uint64_t gap_after(size_t i) const { return ranges_[i + 1].offset - ranges_[i].end(); }

  // Index of the range that contains all of `r` (a non-empty input range always has one), or nullopt.
  // O(log n).
  std::optional<size_t> Find(const ByteRange& r) const;

 private:
  friend Result<RangeSet> NormalizeTaggedRanges(std::span<const TaggedRange> ranges);
  friend Result<RangeSet> NormalizeRanges(std::span<const ByteRange> ranges);
  // Sorts `v` (valid, non-empty ranges) in place and combines overlaps and same-tag touching runs.
  static RangeSet FromUnsorted(std::vector<TaggedRange>&& v);
  std::vector<ByteRange> ranges_;
  uint64_t total_bytes_ = 0;
};

// Sorts, drops empty ranges, combines overlapping and identical ranges; touching ranges stay separate.
// Fails (InvalidArgument) when a range's end overflows 64 bits.
Result<RangeSet> NormalizeRanges(std::span<const ByteRange> ranges);
// As NormalizeRanges, but touching ranges with the same tag (other than kNoTag) are combined too.
Result<RangeSet> NormalizeTaggedRanges(std::span<const TaggedRange> ranges);

}  // namespace rap::plan
