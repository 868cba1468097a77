// Candidate plans (seed 000): starting from the exact plan, one candidate per lower number of request
// waves, each merging the smallest gaps needed to reach it; candidates transferring more than a
// multiple (4x) of the exact bytes are dropped.
//
// Construction is O(n log n): the gaps are sorted once by (size, offset). The candidate with w waves
// needs at most w * concurrency requests, so it merges exactly the n - w * concurrency smallest gaps; its
// byte count is the exact bytes plus a prefix sum over the sorted gaps. Only the chosen candidate is
// materialised into a PhysicalPlan (O(n)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rap/plan/physical_plan.h"
#include "rap/plan/range_set.h"

namespace rap::plan {

struct CandidateConfig {
  uint64_t max_concurrency = 10;  // requests per wave
  double max_byte_ratio = 4.0;    // drop candidates with bytes > ratio * exact bytes
};

struct Candidate {
  uint64_t requests = 0;
  uint64_t waves = 0;
  uint64_t bytes = 0;
  uint64_t merged_gaps = 0;  // how many of the smallest gaps this candidate merges (0: the exact plan)
  bool is_exact() const { return merged_gaps == 0; }
};

// The plan with the fewest requests whose bytes stay within `max_bytes`: the smallest gaps merged
// one at a time (size, then offset), at request rather than wave granularity, skipping a gap whose
// merge would make one request longer than `max_request_bytes` (large reads keep their parallel
// transfers). The exact plan when even the smallest gap would break the bound.
//
// Then, while the plan still needs more than `wave.requests` requests (one wave of a latency-bound
// read; 0 = off), the remaining gaps of at most `wave.max_gap` bytes merge smallest first, whatever
// the request length: one request wave fewer saves a full latency, where a gap of up to a megabyte
// costs its transfer (about 4 ms at 256 MB/s). O(n log n).
struct WaveFill {
  uint64_t requests = 0;
  uint64_t max_gap = 0;
};
PhysicalPlan FewestRequestsWithin(const RangeSet& exact, uint64_t max_bytes,
                                  uint64_t max_request_bytes = UINT64_MAX, WaveFill wave = {});

class CandidateSet {
 public:
  // `exact` must outlive the CandidateSet only for Materialize (which takes it again explicitly).
  static CandidateSet Build(const RangeSet& exact, const CandidateConfig& config = {});

  // [0] is the exact plan (when the set is non-empty); then one candidate per lower wave count, in
  // decreasing wave (and request) order, only those within the byte bound.
  const std::vector<Candidate>& candidates() const { return candidates_; }
  // Candidates removed by the byte bound.
  size_t dropped() const { return dropped_; }
  // Gap indices (gap i lies between exact ranges i and i + 1) in merge order: size, then offset.
  const std::vector<uint32_t>& gap_order() const { return gap_order_; }

  // The physical plan of candidates()[i]. `exact` must be the set this was built from.
  PhysicalPlan Materialize(const RangeSet& exact, size_t i) const;

 private:
  std::vector<Candidate> candidates_;
  std::vector<uint32_t> gap_order_;
  size_t dropped_ = 0;
};

}  // namespace rap::plan
