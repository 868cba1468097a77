#include "rap/plan/physical_plan.h"

namespace rap::plan {

PhysicalPlan PhysicalPlan::FromMergedGaps(const RangeSet& exact, std::span<const uint8_t> merge_gap) {
  PhysicalPlan plan;
  const size_t n = exact.size();
  if (n == 0) return plan;
  plan.slices.resize(n);
  ByteRange current = exact[0];
  plan.slices[0] = {0, 0};
  for (size_t i = 1; i < n; ++i) {
    const ByteRange& r = exact[i];
    if (i - 1 < merge_gap.size() && merge_gap[i - 1]) {  // missing entries: not merged
      current.length = r.end() - current.offset;
    } else {
      plan.bytes += current.length;
      plan.requests.push_back(current);
      current = r;
    }
    plan.slices[i] = {static_cast<uint32_t>(plan.requests.size()), r.offset - current.offset};
  }
  plan.bytes += current.length;
  plan.requests.push_back(current);
  return plan;
}

PhysicalPlan PhysicalPlan::Exact(const RangeSet& exact) {
  std::vector<uint8_t> none(exact.empty() ? 0 : exact.size() - 1, 0);
  return FromMergedGaps(exact, none);
}

PhysicalPlan PhysicalPlan::MergeGapsUpTo(const RangeSet& exact, uint64_t max_gap) {
  std::vector<uint8_t> merge(exact.empty() ? 0 : exact.size() - 1, 0);
  for (size_t i = 0; i < merge.size(); ++i) merge[i] = exact.gap_after(i) <= max_gap;
  return FromMergedGaps(exact, merge);
}

}  // namespace rap::plan
