// RangePlanner (seed 000): turns the exact ranges of a multi-range read into the physical plan to issue,
// under a policy: auto (cost-based, learning from the endpoint's TransportEstimator), exact, fixed gap
// ("fixed:1MiB": merge gaps of at most N bytes), or store (hand the original ranges to the store's own
// multi-range read).
//
// Auto, once both estimator windows hold 3 samples:
//   estimate(candidate) = ceil(requests / 10) * typical_latency + bytes / typical_shared_throughput;
//   keep every candidate (CandidateSet) whose estimate is within 10% of the lowest, choose the fewest
//   bytes among them, then the fewest requests.
// Auto, before that (cold start): the exact plan, except when it needs more than 64 requests. Then the
//   planner takes the candidate with the fewest requests that stays within the 4x byte bound (the
//   last one CandidateSet keeps), since the point of the bound is to keep an untrained scan from issuing
//   an unusually large number of separate requests and the 4x limit already bounds the bytes it costs.
//   If no candidate stays within the bound the plan stays exact (decided_by cold_start).
//   With PlannerConfig::cold_start_fewest_requests (index lookups), the bound instead merges the
//   smallest gaps one at a time within the exact bytes plus a slack, up to a longest request, and
//   (cold_start_fill_wave_max_gap) then gaps up to that size on to one wave (decided_by
//   cold_start_request_bound when it merged any); with fewest_requests_when_trained also once
//   trained (decided_by fewest_requests).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "rap/plan/candidates.h"
#include "rap/plan/estimator.h"
#include "rap/plan/physical_plan.h"
#include "rap/plan/range_set.h"
#include "rap/util/result.h"

namespace rap::plan {

enum class PolicyKind { kAuto, kExact, kFixedGap, kStore };

struct PlanPolicy {
  PolicyKind kind = PolicyKind::kAuto;
  uint64_t max_gap = 0;  // kFixedGap only

  static PlanPolicy Auto() { return {PolicyKind::kAuto, 0}; }
  static PlanPolicy Exact() { return {PolicyKind::kExact, 0}; }
  static PlanPolicy FixedGap(uint64_t max_gap) { return {PolicyKind::kFixedGap, max_gap}; }
  static PlanPolicy Store() { return {PolicyKind::kStore, 0}; }

  // "auto", "exact", "store", "fixed:1MiB" / "fixed:64KiB" / "fixed:1000" (parses back to the same policy).
  std::string ToString() const;
  bool operator==(const PlanPolicy&) const = default;
};

// "auto", "exact", "store", "fixed:<size>" with <size> as in ParseByteSize ("fixed:1MiB"). Case-insensitive.
Result<PlanPolicy> ParsePlanPolicy(std::string_view text);

struct PlannerConfig {
  uint64_t max_concurrency = 10;           // requests per wave
  double max_byte_ratio = 4.0;             // candidates above ratio * exact bytes are dropped
  double stability_margin = 0.10;          // candidates within this fraction of the lowest estimate stay
  size_t cold_start_samples = 3;           // per window, before cost-based planning starts
  uint64_t cold_start_request_bound = 64;  // exact plans above this many requests use a candidate in cold start
  // Latency-bound callers (index lookups, issue 36): when the request bound applies in cold start,
  // merge the smallest gaps one by one — the fewest requests, not only whole waves — while the bytes
  // stay within exact + cold_start_slack_bytes and no request grows past
  // cold_start_max_request_bytes. Off for scans (the seed's rule: whole-wave candidates
  // within max_byte_ratio).
  // With cold_start_fill_wave_max_gap > 0, a plan still above one wave (max_concurrency requests)
  // after that merges its smallest gaps left of at most that many bytes, of any request length,
  // until it fits one wave (plan::WaveFill).
  bool cold_start_fewest_requests = false;
  uint64_t cold_start_slack_bytes = 0;
  uint64_t cold_start_max_request_bytes = UINT64_MAX;
  uint64_t cold_start_fill_wave_max_gap = 0;
  // Keep the fewest-requests rule above once the estimator is trained, instead of the cost model
  // (index lookups: the model plans each read as if it were alone, while a lookup batch's reads run
  // side by side, and charges nothing per request beyond latency; measured in
  // docs/benchmarks/peers.md, "Run of 7 Dec 2026, evening").
  bool fewest_requests_when_trained = false;
};

// Which rule chose the plan.
enum class DecidedBy { kColdStart, kColdStartRequestBound, kCostExact, kCostMerged, kForcedPolicy, kFewestRequests };
// "cold_start", "cold_start_request_bound", "cost_exact", "cost_merged", "forced_policy",
// "fewest_requests" (the fewest-requests rule once trained: PlannerConfig::fewest_requests_when_trained).
std::string_view DecidedByName(DecidedBy d);

struct PlanDecision {
  PlanPolicy policy;
  DecidedBy decided_by = DecidedBy::kColdStart;
  // The store policy: issue the caller's original ranges through ObjectStore::ReadRangesNative; `plan`
  // is then empty and the chosen shape is only known after the read.
  bool use_store_native = false;
  PhysicalPlan plan;
  TransportEstimate estimate;  // the estimate the decision used
  uint64_t exact_requests = 0;
  uint64_t exact_bytes = 0;
  size_t candidates = 0;          // candidates considered (auto only; includes the exact plan)
  size_t candidates_dropped = 0;  // removed by the byte bound (auto only)
  // Model time of the chosen plan; NaN when a window is empty or the shape is unknown (store).
  double estimated_s = kUnknown;
};

class RangePlanner {
 public:
  explicit RangePlanner(PlannerConfig config = {}) : config_(config) {}

  PlanDecision Plan(const RangeSet& exact, const PlanPolicy& policy, const TransportEstimate& estimate) const;

  // waves * latency + bytes / throughput; NaN unless estimate.HasValues().
  double EstimateSeconds(uint64_t requests, uint64_t bytes, const TransportEstimate& estimate) const;

  const PlannerConfig& config() const { return config_; }

 private:
  PlanDecision PlanAuto(const RangeSet& exact, const TransportEstimate& estimate) const;
  PlannerConfig config_;
};

}  // namespace rap::plan
