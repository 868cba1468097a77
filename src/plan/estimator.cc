#include "rap/plan/estimator.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace rap::plan {
namespace {

double Median(const std::deque<double>& window) {
  if (window.empty()) return kUnknown;
  std::vector<double> v(window.begin(), window.end());
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::string_view PlanOutcomeName(PlanOutcomeKind kind) {
  switch (kind) {
    case PlanOutcomeKind::kSuccess:
      return "success";
    case PlanOutcomeKind::kFailed:
      return "failed";
    case PlanOutcomeKind::kTruncated:
      return "truncated";
    case PlanOutcomeKind::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

ReportEffect TransportEstimator::Report(const PlanOutcome& outcome) {
  ReportEffect effect;
  std::lock_guard<std::mutex> lock(mu_);
  if (outcome.kind != PlanOutcomeKind::kSuccess) {
    ++rejected_;
    return effect;
  }
  const size_t window = std::max<size_t>(config_.window, 1);
  if (std::isfinite(outcome.latency_s) && outcome.latency_s >= 0) {
    if (latency_.size() == window) latency_.pop_front();
    latency_.push_back(outcome.latency_s);
    effect.latency_added = true;
  }
  effect.throughput_added = AddThroughputLocked(outcome.payload_bytes, outcome.payload_wall_s);
  return effect;
}

bool TransportEstimator::ReportThroughput(uint64_t bytes, double wall_s) {
  std::lock_guard<std::mutex> lock(mu_);
  return AddThroughputLocked(bytes, wall_s);
}

bool TransportEstimator::AddThroughputLocked(uint64_t bytes, double wall_s) {
  if (bytes < config_.min_throughput_bytes || !std::isfinite(wall_s) || wall_s < config_.min_throughput_wall_s ||
      !(wall_s > 0)) {
    return false;
  }
  if (throughput_.size() == std::max<size_t>(config_.window, 1)) throughput_.pop_front();
  throughput_.push_back({static_cast<double>(bytes) / wall_s, bytes});
  return true;
}

TransportEstimate TransportEstimator::Estimate() const {
  TransportEstimate e;
  std::vector<ThroughputSample> tp;
  {
    std::lock_guard<std::mutex> lock(mu_);
    e.latency_samples = latency_.size();
    e.throughput_samples = throughput_.size();
    e.latency_s = Median(latency_);
    tp.assign(throughput_.begin(), throughput_.end());
  }
  if (!tp.empty()) {
    // Byte-weighted (lower) median, as defined at TransportEstimate::throughput_bps.
    std::sort(tp.begin(), tp.end(), [](const ThroughputSample& a, const ThroughputSample& b) { return a.bps < b.bps; });
    long double total = 0;
    for (const ThroughputSample& s : tp) total += s.bytes;
    long double cumulative = 0;
    for (const ThroughputSample& s : tp) {
      cumulative += s.bytes;
      if (2 * cumulative >= total) {
        e.throughput_bps = s.bps;
        break;
      }
    }
  }
  return e;
}

void TransportEstimator::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  latency_.clear();
  throughput_.clear();
  rejected_ = 0;
}

uint64_t TransportEstimator::rejected_plans() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rejected_;
}

EstimatorRegistry& EstimatorRegistry::Global() {
  // Intentionally leaked: estimators may be used by threads still running during static destruction.
  static EstimatorRegistry* registry = new EstimatorRegistry();
  return *registry;
}

std::shared_ptr<TransportEstimator> EstimatorRegistry::Get(const std::string& endpoint) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = estimators_[endpoint];
  if (!slot) slot = std::make_shared<TransportEstimator>();
  return slot;
}

void EstimatorRegistry::Reset(const std::string& endpoint) {
  std::shared_ptr<TransportEstimator> e;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = estimators_.find(endpoint);
    if (it == estimators_.end()) return;
    e = it->second;
  }
  e->Reset();
}

void EstimatorRegistry::ResetAll() {
  std::vector<std::shared_ptr<TransportEstimator>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [name, e] : estimators_) all.push_back(e);
  }
  for (auto& e : all) e->Reset();
}

}  // namespace rap::plan
