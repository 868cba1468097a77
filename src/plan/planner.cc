#include "rap/plan/planner.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "rap/util/units.h"

namespace rap::plan {

std::string PlanPolicy::ToString() const {
  switch (kind) {
    case PolicyKind::kAuto:
      return "auto";
    case PolicyKind::kExact:
      return "exact";
    case PolicyKind::kStore:
      return "store";
    case PolicyKind::kFixedGap:
      if (max_gap != 0 && max_gap % kGiB == 0) return fmt::format("fixed:{}GiB", max_gap / kGiB);
      if (max_gap != 0 && max_gap % kMiB == 0) return fmt::format("fixed:{}MiB", max_gap / kMiB);
      if (max_gap != 0 && max_gap % kKiB == 0) return fmt::format("fixed:{}KiB", max_gap / kKiB);
      return fmt::format("fixed:{}", max_gap);
  }
  return "unknown";
}

Result<PlanPolicy> ParsePlanPolicy(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "auto") return PlanPolicy::Auto();
  if (lower == "exact") return PlanPolicy::Exact();
  if (lower == "store") return PlanPolicy::Store();
  constexpr std::string_view kFixed = "fixed:";
  if (lower.starts_with(kFixed)) {
    Result<uint64_t> gap = ParseByteSize(std::string_view(text).substr(kFixed.size()));
    if (!gap.ok()) return gap.status().WithContext(fmt::format("plan policy '{}'", text));
    return PlanPolicy::FixedGap(*gap);
  }
  return Status::InvalidArgument(
      fmt::format("plan policy '{}': expected auto, exact, store or fixed:<max gap> (e.g. fixed:1MiB)", text));
}

std::string_view DecidedByName(DecidedBy d) {
  switch (d) {
    case DecidedBy::kColdStart:
      return "cold_start";
    case DecidedBy::kColdStartRequestBound:
      return "cold_start_request_bound";
    case DecidedBy::kCostExact:
      return "cost_exact";
    case DecidedBy::kCostMerged:
      return "cost_merged";
    case DecidedBy::kForcedPolicy:
      return "forced_policy";
    case DecidedBy::kFewestRequests:
      return "fewest_requests";
  }
  return "unknown";
}

double RangePlanner::EstimateSeconds(uint64_t requests, uint64_t bytes, const TransportEstimate& estimate) const {
  if (!estimate.HasValues() || !(estimate.throughput_bps > 0)) return kUnknown;
  const double waves = static_cast<double>(RequestWaves(requests, config_.max_concurrency));
  return waves * estimate.latency_s + static_cast<double>(bytes) / estimate.throughput_bps;
}

PlanDecision RangePlanner::Plan(const RangeSet& exact, const PlanPolicy& policy,
                                const TransportEstimate& estimate) const {
  if (policy.kind == PolicyKind::kAuto) return PlanAuto(exact, estimate);
  PlanDecision d;
  d.policy = policy;
  d.decided_by = DecidedBy::kForcedPolicy;
  d.estimate = estimate;
  d.exact_requests = exact.size();
  d.exact_bytes = exact.total_bytes();
  switch (policy.kind) {
    case PolicyKind::kExact:
      d.plan = PhysicalPlan::Exact(exact);
      break;
    case PolicyKind::kFixedGap:
      d.plan = PhysicalPlan::MergeGapsUpTo(exact, policy.max_gap);
      break;
    case PolicyKind::kStore:
      d.use_store_native = true;
      break;
    case PolicyKind::kAuto:
      break;  // handled above
  }
  if (!d.use_store_native) d.estimated_s = EstimateSeconds(d.plan.request_count(), d.plan.bytes, estimate);
  return d;
}

PlanDecision RangePlanner::PlanAuto(const RangeSet& exact, const TransportEstimate& estimate) const {
  PlanDecision d;
  d.policy = PlanPolicy::Auto();
  d.estimate = estimate;
  d.exact_requests = exact.size();
  d.exact_bytes = exact.total_bytes();
  const CandidateSet set = CandidateSet::Build(exact, {config_.max_concurrency, config_.max_byte_ratio});
  const std::vector<Candidate>& cands = set.candidates();
  d.candidates = cands.size();
  d.candidates_dropped = set.dropped();
  if (cands.empty()) {  // nothing to read
    d.decided_by = estimate.Trained(config_.cold_start_samples) ? DecidedBy::kCostExact : DecidedBy::kColdStart;
    return d;
  }

  size_t chosen = 0;
  const bool trained = estimate.Trained(config_.cold_start_samples);
  if ((!trained || config_.fewest_requests_when_trained) && config_.cold_start_fewest_requests &&
      exact.size() > config_.cold_start_request_bound) {
    const uint64_t slack = std::min(config_.cold_start_slack_bytes, UINT64_MAX - d.exact_bytes);
    WaveFill wave;
    if (config_.cold_start_fill_wave_max_gap > 0) {
      wave.requests = std::max<uint64_t>(1, config_.max_concurrency);
      wave.max_gap = config_.cold_start_fill_wave_max_gap;
    }
    d.plan = FewestRequestsWithin(exact, d.exact_bytes + slack, config_.cold_start_max_request_bytes, wave);
    d.decided_by = trained                                    ? DecidedBy::kFewestRequests
                   : d.plan.request_count() < exact.size()    ? DecidedBy::kColdStartRequestBound
                                                              : DecidedBy::kColdStart;
    d.estimated_s = EstimateSeconds(d.plan.request_count(), d.plan.bytes, estimate);
    return d;
  }
  if (!estimate.Trained(config_.cold_start_samples)) {
    d.decided_by = DecidedBy::kColdStart;
    if (exact.size() > config_.cold_start_request_bound && cands.size() > 1) {
      // The candidate with the fewest requests within the byte bound (the last one kept).
      chosen = cands.size() - 1;
      d.decided_by = DecidedBy::kColdStartRequestBound;
    }
  } else {
    std::vector<double> est(cands.size());
    double lowest = INFINITY;
    for (size_t i = 0; i < cands.size(); ++i) {
      est[i] = EstimateSeconds(cands[i].requests, cands[i].bytes, estimate);
      lowest = std::min(lowest, est[i]);
    }
    const double limit = lowest * (1.0 + config_.stability_margin);
    bool found = false;
    for (size_t i = 0; i < cands.size(); ++i) {
      if (!(est[i] <= limit)) continue;
      const Candidate& c = cands[i];
      if (!found || c.bytes < cands[chosen].bytes ||
          (c.bytes == cands[chosen].bytes && c.requests < cands[chosen].requests)) {
        chosen = i;
        found = true;
      }
    }
    d.decided_by = cands[chosen].is_exact() ? DecidedBy::kCostExact : DecidedBy::kCostMerged;
  }
  d.plan = set.Materialize(exact, chosen);
  d.estimated_s = EstimateSeconds(d.plan.request_count(), d.plan.bytes, estimate);
  return d;
}

}  // namespace rap::plan
