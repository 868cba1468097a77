// ReadPlanned: the multi-range read of rap. Runs the exact ranges a reader needs through the range
// planner (seed 000) with the store endpoint's shared TransportEstimator, issues the physical plan
// (at most 10 requests in flight), slices the responses back into the exact ranges without copying,
// and reports the plan's outcome to the estimator.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rap/io/object_store.h"
#include "rap/plan/estimator.h"
#include "rap/plan/plan_record.h"
#include "rap/plan/planner.h"
#include "rap/plan/throughput_pool.h"
#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace rap::io {

// The most requests one plan keeps in flight, whatever PlannerConfig::max_concurrency asks (its
// default, 10, is seed 000's model of a scan's reads; latency-bound callers such as the RAP index's
// lookups raise it so a dozen small ranges go out in one wave).
inline constexpr int kMaxPlanConcurrency = 64;

struct PlanOptions {
  // Unset: auto for remote stores (ObjectStore::is_remote()), exact for local files.
  std::optional<plan::PlanPolicy> policy;
  // Plans with it and reports every outcome to it. Unset: plan::EstimatorRegistry::Global().Get(
  // store.endpoint()), shared by every reader of the endpoint.
  std::shared_ptr<plan::TransportEstimator> estimator;
  // Optional: also receives every outcome, without being used for planning. A scan that plans from
  // its own cold estimator still teaches the endpoint's shared one this way (see ScanOptions).
  std::shared_ptr<plan::TransportEstimator> also_report_to;
  // Optional: the scan's pool of throughput evidence (plan/throughput_pool.h). When set, the plan's
  // delivery intervals go to the pool, which hands pooled shared-throughput samples to its estimators
  // (the scan's `estimator` and `also_report_to`), and the plan adds no throughput sample of its own;
  // latency evidence stays per plan. Unset: seed 000's rule, each plan's own throughput evidence.
  std::shared_ptr<plan::ThroughputPool> throughput_pool;
  plan::PlannerConfig planner;
  const CancellationToken* cancel = nullptr;  // optional
  std::string expected_etag;                  // when set, a different ETag fails with kChanged
  plan::PlanLog* log = nullptr;               // optional: every executed plan is appended
  std::string purpose;                        // copied into the PlanRecord ("data", "page_index", ...)
};

// Reads `exact` (any order; overlaps, duplicates and empty ranges allowed) from `path`. Buffer i holds
// exactly exact[i]; buffers of merged requests are slices sharing the response (zero-copy).
//
// Evidence given to the estimator, for a successful plan only:
// - latency: the median of its requests' latencies (time from issuing a request until its response
//   data became available). The median rather than the maximum, because the model charges one typical
//   request latency per wave; the maximum would charge every wave for the plan's worst outlier (a new
//   connection, a retry with backoff);
// - throughput: payload bytes over the wall time during which payload was arriving (the union of the
//   requests' delivery intervals), added only when the estimator's eligibility rule (>= 1 MiB over
//   >= 10 ms) holds; with options.throughput_pool, the requests' delivery intervals go to the pool
//   instead (pooled with the scan's other plans, see throughput_pool.h).
// A store that reports no per-request timing gives no latency evidence. A failed, truncated (a response of the wrong
// length, kCorrupt from the store) or cancelled plan adds nothing. `record`, when given, is filled in every case the
// plan was made (also on failure).
Result<std::vector<Buffer>> ReadPlanned(ObjectStore& store, const std::string& path, std::span<const ByteRange> exact,
                                        const PlanOptions& options = PlanOptions(), plan::PlanRecord* record = nullptr);

// The policy ReadPlanned uses for `store` when options.policy is unset.
plan::PlanPolicy DefaultPlanPolicy(const ObjectStore& store);

}  // namespace rap::io
