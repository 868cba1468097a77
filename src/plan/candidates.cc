#include "rap/plan/candidates.h"

#include <algorithm>

namespace rap::plan {

CandidateSet CandidateSet::Build(const RangeSet& exact, const CandidateConfig& config) {
  CandidateSet set;
  const uint64_t n = exact.size();
  if (n == 0) return set;
  const uint64_t per_wave = std::max<uint64_t>(config.max_concurrency, 1);
  const uint64_t exact_bytes = exact.total_bytes();
  set.candidates_.push_back({n, RequestWaves(n, per_wave), exact_bytes, 0});
  const uint64_t exact_waves = RequestWaves(n, per_wave);
  if (exact_waves <= 1) return set;

  // Sort the gaps once: smallest first, equal gaps by offset (gap index order is offset order).
  std::vector<std::pair<uint64_t, uint32_t>> gaps(n - 1);
  for (uint64_t i = 0; i + 1 < n; ++i) gaps[i] = {exact.gap_after(i), static_cast<uint32_t>(i)};
  std::sort(gaps.begin(), gaps.end());
  set.gap_order_.resize(gaps.size());
  for (size_t i = 0; i < gaps.size(); ++i) set.gap_order_[i] = gaps[i].second;

  // The bound in floating point because ratio * exact bytes may exceed 2^64. Candidate bytes are exact
  // integers: a candidate never spans more than [first offset, last end), so the sum cannot overflow.
  const long double bound = static_cast<long double>(config.max_byte_ratio) * static_cast<long double>(exact_bytes);
  uint64_t merged = 0;           // gaps merged so far (a prefix of the sorted order)
  uint64_t bytes = exact_bytes;  // exact bytes + merged gap bytes
  for (uint64_t waves = exact_waves - 1; waves >= 1; --waves) {
    const uint64_t requests = waves * per_wave;  // < n because waves < ceil(n / per_wave)
    const uint64_t need = n - requests;
    while (merged < need) bytes += gaps[merged++].first;
    if (static_cast<long double>(bytes) > bound) {
      // Bytes only grow as waves shrink: every remaining candidate is dropped too.
      set.dropped_ = waves;
      break;
    }
    set.candidates_.push_back({requests, waves, bytes, need});
  }
  return set;
}

PhysicalPlan FewestRequestsWithin(const RangeSet& exact, uint64_t max_bytes, uint64_t max_request_bytes,
                                  WaveFill wave) {
  const uint64_t n = exact.size();
  if (n <= 1) return PhysicalPlan::Exact(exact);
  std::vector<std::pair<uint64_t, uint32_t>> gaps(n - 1);
  for (uint64_t i = 0; i + 1 < n; ++i) gaps[i] = {exact.gap_after(i), static_cast<uint32_t>(i)};
  std::sort(gaps.begin(), gaps.end());
  std::vector<uint8_t> merge(n - 1, 0);
  // The runs of merged ranges, by their ends: first_of[last] and last_of[first] (valid at a run's
  // two ends only), so merging gap i joins [first_of[i], i] and [i + 1, last_of[i + 1]] in O(1).
  std::vector<uint32_t> first_of(n), last_of(n);
  for (uint32_t i = 0; i < n; ++i) first_of[i] = last_of[i] = i;
  uint64_t bytes = exact.total_bytes(), requests = n;
  auto join = [&](uint64_t gap, uint32_t i) {
    const uint32_t first = first_of[i], last = last_of[i + 1];
    bytes += gap;
    --requests;
    merge[i] = 1;
    last_of[first] = last;
    first_of[last] = first;
  };
  for (const auto& [gap, i] : gaps) {
    // bytes + gap never overflows: a plan never spans more than [first offset, last end).
    if (bytes + gap > max_bytes) break;
    if (exact[last_of[i + 1]].end() - exact[first_of[i]].offset > max_request_bytes) continue;
    join(gap, i);
  }
  // Fewer waves: the smallest gaps left up to wave.max_gap, whatever the request length.
  for (const auto& [gap, i] : gaps) {
    if (wave.requests == 0 || requests <= wave.requests || gap > wave.max_gap) break;
    if (!merge[i]) join(gap, i);
  }
  return PhysicalPlan::FromMergedGaps(exact, merge);
}

PhysicalPlan CandidateSet::Materialize(const RangeSet& exact, size_t i) const {
  const Candidate& c = candidates_.at(i);
  std::vector<uint8_t> merge(exact.empty() ? 0 : exact.size() - 1, 0);
  for (uint64_t j = 0; j < c.merged_gaps; ++j) merge[gap_order_[j]] = 1;
  return PhysicalPlan::FromMergedGaps(exact, merge);
}

}  // namespace rap::plan
