// ThroughputPool: shared-throughput evidence pooled across the concurrent plans of one scan.
//
// Seed 000 defines shared throughput as the aggregate payload rate across concurrent requests: payload
// bytes over the wall time during which payload was arriving. Its estimator applies that per plan
// (TransportEstimator: a plan adds a throughput sample only when it moved >= 1 MiB over >= 10 ms of
// payload delivery). A scan that reads ranges in parallel (prefetch producers, fetch-ahead, warmup)
// issues many smaller plans at once; each may move less than 1 MiB (read ranges are cut at about
// 1 MiB of projected bytes), and each plan's own rate is only its share of a link it shares with the
// others. Per plan, such a scan never trains the estimator, and would underestimate the link if it did.
//
// The pool applies the same definition to the scan as a whole: every plan of the scan reports the
// delivery intervals of its requests ([first byte, last byte], payload bytes); the pool adds up the
// payload and the length of the union of the intervals, over all plans, in time order, and hands a
// throughput sample (bytes / union length) to its estimators each time the evidence gathered since
// the previous sample reaches the estimator's eligibility rule (>= 1 MiB over >= 10 ms): samples are
// the shortest stretches of the scan's delivery that the rule accepts. Latency evidence stays per plan.
//
// Completeness: a stretch of time is only accounted once every plan that could deliver payload in it
// has ended: up to the start of the earliest plan still in flight (a plan's payload arrives after it
// starts), or up to now when none is. An interval that crosses that point is split pro rata (bytes
// spread evenly over the interval); the rest waits. A failed, truncated or cancelled plan shared the
// link with its neighbours without reporting its bytes, so its end drops the pooled evidence that is
// not accounted yet and every later-reported interval that began before that end.
//
// This changes the seed's rule (a small plan's payload counts), so it is a choice of the caller:
// ThroughputEvidence::kPerPlan is the seed's rule, kPooled this pool (ScanOptions::throughput_evidence).
// Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <vector>

#include "rap/plan/estimator.h"

namespace rap::plan {

// Where throughput evidence comes from: each plan on its own (seed 000), or pooled over the
// concurrent plans of a scan (ThroughputPool).
enum class ThroughputEvidence { kPerPlan, kPooled };

// One request's payload delivery: [begin_s, end_s] on the NowSeconds() clock, and its payload bytes.
struct DeliveryInterval {
  double begin_s = 0;
  double end_s = 0;
  uint64_t bytes = 0;
};

struct ThroughputPoolStats {
  uint64_t plans = 0;           // plans ended
  uint64_t samples = 0;         // throughput samples handed to the estimators
  uint64_t sampled_bytes = 0;   // payload bytes of those samples
  uint64_t dropped_bytes = 0;   // payload dropped because a plan of its time failed / was cancelled
  uint64_t pending_bytes = 0;   // not yet handed out: pending intervals and evidence short of the rule
};

class ThroughputPool {
 public:
  // `sinks` receive every pooled sample (null entries and duplicates are ignored); the eligibility
  // rule is `config`'s (by default the estimator's default rule).
  explicit ThroughputPool(std::vector<std::shared_ptr<TransportEstimator>> sinks, EstimatorConfig config = {});
  ThroughputPool(const ThroughputPool&) = delete;
  ThroughputPool& operator=(const ThroughputPool&) = delete;

  // A plan is about to issue its requests; `start_s` on the NowSeconds() clock. Returns its ticket.
  uint64_t Begin(double start_s);
  // The plan of `ticket` ended at `end_s`. A successful plan's `intervals` join the pool; any other
  // outcome drops evidence as described above. Returns the throughput samples this call handed to
  // the estimators (0 or more).
  size_t End(uint64_t ticket, PlanOutcomeKind kind, std::span<const DeliveryInterval> intervals, double end_s);

  ThroughputPoolStats stats() const;
  const EstimatorConfig& config() const { return config_; }

 private:
  // Accounts the pending intervals up to `until`; returns the samples handed out.
  size_t AccountUpTo(double until);
  // Hands the accounted evidence out as one sample if it meets the rule; returns 1 if it did.
  size_t TakeSample();

  const std::vector<std::shared_ptr<TransportEstimator>> sinks_;
  const EstimatorConfig config_;
  mutable std::mutex mu_;
  uint64_t next_ticket_ = 0;
  std::multiset<std::pair<double, uint64_t>> in_flight_;  // (start_s, ticket)
  std::vector<DeliveryInterval> pending_;  // of ended plans, not accounted yet; all begin at or after cut_
  double cut_ = -1;                        // time accounted (or dropped) up to
  double acc_bytes_ = 0;                   // accounted, not yet handed out as a sample
  double acc_wall_s_ = 0;
  ThroughputPoolStats stats_;
};

}  // namespace rap::plan
