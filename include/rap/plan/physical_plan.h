// PhysicalPlan: the requests a multi-range read issues, and for each exact range the request and the
// offset inside that request's response where its bytes lie (so responses are sliced, never copied).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "rap/plan/byte_range.h"
#include "rap/plan/range_set.h"

namespace rap::plan {

// Where one exact range lies in the responses of a plan.
struct RangeSlice {
  uint32_t request = 0;  // index into PhysicalPlan::requests
  uint64_t offset = 0;   // offset of the exact range inside that request's bytes
};

struct PhysicalPlan {
  std::vector<ByteRange> requests;  // sorted, non-overlapping, each covering >= 1 exact range
  std::vector<RangeSlice> slices;   // slices[i] locates exact range i of the RangeSet it was built from
  uint64_t bytes = 0;               // sum of the request lengths

  size_t request_count() const { return requests.size(); }

  // One request per exact range.
  static PhysicalPlan Exact(const RangeSet& exact);
  // Merges exact range i with range i + 1 wherever merge_gap[i] != 0 (merge_gap has exact.size() - 1
  // entries; missing entries count as 0).
  static PhysicalPlan FromMergedGaps(const RangeSet& exact, std::span<const uint8_t> merge_gap);
  // Merges every gap of at most `max_gap` bytes (the "fixed" policy).
  static PhysicalPlan MergeGapsUpTo(const RangeSet& exact, uint64_t max_gap);
};

// ceil(requests / concurrency): how many rounds of concurrent requests a plan needs (0 for no requests).
inline uint64_t RequestWaves(uint64_t requests, uint64_t concurrency) {
  if (concurrency == 0) concurrency = 1;
  return (requests + concurrency - 1) / concurrency;
}

}  // namespace rap::plan
