#include "rap/plan/range_set.h"

#include <algorithm>

#include <fmt/format.h>

namespace rap::plan {

std::optional<size_t> RangeSet::Find(const ByteRange& r) const {
  // The last range starting at or before r.offset is the only one that can contain it.
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), r.offset,
                             [](uint64_t off, const ByteRange& x) { return off < x.offset; });
  if (it == ranges_.begin()) return std::nullopt;
  --it;
  if (!it->Contains(r)) return std::nullopt;
  return static_cast<size_t>(it - ranges_.begin());
}

namespace {

// Validates input[i] and appends it to `out` unless it is empty.
template <typename Input, typename Get>
Status CollectNonEmpty(std::span<const Input> input, Get get, std::vector<TaggedRange>* out) {
  out->reserve(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    const TaggedRange t = get(input[i]);
    const ByteRange& r = t.range;
    if (r.length > UINT64_MAX - r.offset) {
      return Status::InvalidArgument(
          fmt::format("byte range {} (offset {}, length {}): end exceeds 2^64 - 1", i, r.offset, r.length));
    }
    if (r.length > 0) out->push_back(t);
  }
  return Status::OK();
}

}  // namespace

// One scratch vector, sorted in place (a second copy of the input would double the allocation, which
// above ~5,000 ranges is a fresh mmap that page-faults on every call).
RangeSet RangeSet::FromUnsorted(std::vector<TaggedRange>&& sorted) {
  std::sort(sorted.begin(), sorted.end(), [](const TaggedRange& a, const TaggedRange& b) {
    if (a.range.offset != b.range.offset) return a.range.offset < b.range.offset;
    if (a.range.length != b.range.length) return a.range.length < b.range.length;
    return a.tag < b.tag;
  });

  RangeSet out;
  out.ranges_.reserve(sorted.size());
  uint32_t current_tag = kNoTag;
  for (const TaggedRange& t : sorted) {
    if (!out.ranges_.empty()) {
      ByteRange& last = out.ranges_.back();
      const bool overlaps = t.range.offset < last.end();
      const bool same_run = t.range.offset == last.end() && t.tag != kNoTag && t.tag == current_tag;
      if (overlaps || same_run) {
        const uint64_t end = std::max(last.end(), t.range.end());
        last.length = end - last.offset;
        if (t.tag != current_tag) current_tag = kNoTag;  // a combination of different origins
        continue;
      }
    }
    out.ranges_.push_back(t.range);
    current_tag = t.tag;
  }
  for (const ByteRange& r : out.ranges_) out.total_bytes_ += r.length;
  return out;
}

Result<RangeSet> NormalizeTaggedRanges(std::span<const TaggedRange> input) {
  std::vector<TaggedRange> v;
  RAP_RETURN_NOT_OK(CollectNonEmpty(input, [](const TaggedRange& t) { return t; }, &v));
  return RangeSet::FromUnsorted(std::move(v));
}

Result<RangeSet> NormalizeRanges(std::span<const ByteRange> input) {
  std::vector<TaggedRange> v;
  RAP_RETURN_NOT_OK(CollectNonEmpty(input, [](const ByteRange& r) { return TaggedRange{r, kNoTag}; }, &v));
  return RangeSet::FromUnsorted(std::move(v));
}

}  // namespace rap::plan
