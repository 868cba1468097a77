// TransportEstimator (seed 000): recent request latency and shared throughput of one store endpoint,
// learned from completed plans, and the process-wide registry that shares one estimator per endpoint.
//
// Two windows of up to 9 samples each (the oldest sample is evicted first):
// - latency: every successful plan adds one sample, the plan's request latency (time until response
//   data became available; the io executor reports the median over the plan's requests);
// - throughput: a successful plan adds one sample only when it delivered at least 1 MiB of payload over
//   at least 10 ms of payload delivery (aggregate rate across its concurrent requests), so small reads,
//   whose rate is dominated by per-request overheads, never inflate the estimate.
// Failed, truncated and cancelled plans add nothing. A scan may instead pool the throughput evidence of
// its concurrent plans (ThroughputPool, throughput_pool.h), which hands pooled samples to
// ReportThroughput under the same eligibility rule. Typical latency is the median of its window; typical
// throughput is the byte-weighted median of its window (defined at TransportEstimate::throughput_bps).
// All members are thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "rap/util/units.h"

namespace rap::plan {

inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

struct EstimatorConfig {
  size_t window = 9;                     // samples kept per window
  uint64_t min_throughput_bytes = kMiB;  // a throughput sample needs at least this much payload ...
  double min_throughput_wall_s = 0.010;  // ... delivered over at least this much time
};

// A snapshot of an estimator.
struct TransportEstimate {
  size_t latency_samples = 0;
  size_t throughput_samples = 0;
  // Median of the latency window (mean of the two middle samples for an even count); NaN when empty.
  double latency_s = kUnknown;
  // Byte-weighted median of the throughput window, bytes per second; NaN when empty. Definition: sort
  // the samples by rate ascending, each weighted by its payload bytes; the result is the rate of the
  // first sample at which the cumulative weight reaches at least half of the total weight (the lower
  // weighted median). A sample that moved 8 MiB thus counts eight times as much as one that moved 1 MiB.
  double throughput_bps = kUnknown;

  // Both windows hold at least `min_samples` samples (the planner's end of cold start).
  bool Trained(size_t min_samples) const { return latency_samples >= min_samples && throughput_samples >= min_samples; }
  // Both typical values are known (at least one sample per window).
  bool HasValues() const { return latency_samples > 0 && throughput_samples > 0; }
};

enum class PlanOutcomeKind { kSuccess, kFailed, kTruncated, kCancelled };
std::string_view PlanOutcomeName(PlanOutcomeKind kind);  // "success", "failed", "truncated", "cancelled"

// What happened to one executed physical plan.
struct PlanOutcome {
  PlanOutcomeKind kind = PlanOutcomeKind::kFailed;
  double latency_s = kUnknown;  // the plan's request latency (NaN: no latency evidence)
  uint64_t payload_bytes = 0;   // payload delivered by all its requests
  double payload_wall_s = 0;    // wall time during which payload was arriving (union over requests)
};

// What a report added to the windows.
struct ReportEffect {
  bool latency_added = false;
  bool throughput_added = false;
};

class TransportEstimator {
 public:
  explicit TransportEstimator(EstimatorConfig config = {}) : config_(config) {}
  TransportEstimator(const TransportEstimator&) = delete;
  TransportEstimator& operator=(const TransportEstimator&) = delete;

  // Adds the evidence of a plan; only successful plans add samples (latency needs a finite value >= 0).
  ReportEffect Report(const PlanOutcome& outcome);
  // Adds shared-throughput evidence that is not one plan's: `bytes` of payload delivered over `wall_s`
  // of payload delivery by several successful plans together (ThroughputPool). The same eligibility
  // rule applies; returns whether a sample was added.
  bool ReportThroughput(uint64_t bytes, double wall_s);
  TransportEstimate Estimate() const;
  // Empties both windows and the counters.
  void Reset();

  // Plans reported as failed, truncated or cancelled (they added nothing).
  uint64_t rejected_plans() const;
  const EstimatorConfig& config() const { return config_; }

 private:
  struct ThroughputSample {
    double bps;
    uint64_t bytes;
  };
  bool AddThroughputLocked(uint64_t bytes, double wall_s);  // the eligibility rule; mu_ held
  const EstimatorConfig config_;
  mutable std::mutex mu_;
  std::deque<double> latency_;
  std::deque<ThroughputSample> throughput_;
  uint64_t rejected_ = 0;
};

// One TransportEstimator per store endpoint ("file", "http://host:port", ...), shared by every reader of
// that endpoint in the process, so later files and scans learn from earlier ones.
class EstimatorRegistry {
 public:
  static EstimatorRegistry& Global();

  // The endpoint's estimator, created on first use.
  std::shared_ptr<TransportEstimator> Get(const std::string& endpoint);
  // Empties the endpoint's windows in place (every holder sees the reset), e.g. at the start of a scan.
  void Reset(const std::string& endpoint);
  void ResetAll();

 private:
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<TransportEstimator>, std::less<>> estimators_;
};

}  // namespace rap::plan
