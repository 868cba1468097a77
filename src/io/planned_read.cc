// ReadPlanned: normalise -> plan (with the endpoint's estimator) -> issue -> slice -> report.
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "rap/io/planned_read.h"
#include "rap/plan/range_set.h"
#include "rap/util/clock.h"

namespace rap::io {
namespace {

using plan::PlanOutcomeKind;

double MedianLatency(const ReadStats& stats) {
  std::vector<double> v;
  v.reserve(stats.requests.size());
  for (const RequestTiming& t : stats.requests) {
    const double l = t.latency_s();
    if (std::isfinite(l) && l >= 0) v.push_back(l);
  }
  if (v.empty()) return plan::kUnknown;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

PlanOutcomeKind Classify(const Status& st, const ReadOptions& ro) {
  if (st.Is(StatusCode::kCancelled) || (ro.cancel && ro.cancel->cancelled())) return PlanOutcomeKind::kCancelled;
  if (st.Is(StatusCode::kCorrupt)) return PlanOutcomeKind::kTruncated;  // a response of the wrong length or range
  return PlanOutcomeKind::kFailed;
}

// Checks that the store returned one buffer of the right length per requested range.
Status CheckBuffers(const std::string& path, std::span<const ByteRange> ranges, const std::vector<Buffer>& bufs) {
  if (bufs.size() != ranges.size()) {
    return Status::Corrupt(
        fmt::format("{}: multi-range read returned {} buffers for {} ranges", path, bufs.size(), ranges.size()));
  }
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (bufs[i].size() != ranges[i].length) {
      return Status::Corrupt(fmt::format("{}: range {} at offset {}: expected {} bytes, got {}", path, i,
                                         ranges[i].offset, ranges[i].length, bufs[i].size()));
    }
  }
  return Status::OK();
}

// Hands each caller range its slice of the plan's responses.
Status SliceResponses(const std::string& path, std::span<const ByteRange> exact, const plan::PhysicalPlan& physical,
                      const std::vector<Buffer>& responses, std::vector<Buffer>* out) {
  out->clear();
  out->reserve(exact.size());
  const std::vector<ByteRange>& reqs = physical.requests;
  for (const ByteRange& r : exact) {
    if (r.length == 0) {
      out->emplace_back();
      continue;
    }
    // The request starting at or before r.offset; requests are sorted and disjoint.
    auto it = std::upper_bound(reqs.begin(), reqs.end(), r.offset,
                               [](uint64_t off, const ByteRange& q) { return off < q.offset; });
    if (it == reqs.begin() || !(it - 1)->Contains(r)) {
      return Status::Internal(fmt::format("{}: range {} is not covered by the physical plan", path, r.ToString()));
    }
    --it;
    const size_t i = static_cast<size_t>(it - reqs.begin());
    out->push_back(responses[i].Slice(r.offset - it->offset, r.length));
  }
  return Status::OK();
}

}  // namespace

plan::PlanPolicy DefaultPlanPolicy(const ObjectStore& store) {
  return store.is_remote() ? plan::PlanPolicy::Auto() : plan::PlanPolicy::Exact();
}

Result<std::vector<Buffer>> ReadPlanned(ObjectStore& store, const std::string& path, std::span<const ByteRange> exact,
                                        const PlanOptions& options, plan::PlanRecord* record) {
  Result<plan::RangeSet> normalized = plan::NormalizeRanges(exact);
  if (!normalized.ok()) return normalized.status().WithContext(path);
  const plan::RangeSet& set = *normalized;

  const plan::PlanPolicy policy = options.policy ? *options.policy : DefaultPlanPolicy(store);
  std::shared_ptr<plan::TransportEstimator> estimator =
      options.estimator ? options.estimator : plan::EstimatorRegistry::Global().Get(store.endpoint());
  const plan::RangePlanner planner(options.planner);
  const plan::PlanDecision decision = planner.Plan(set, policy, estimator->Estimate());

  plan::PlanRecord rec = plan::MakePlanRecord(decision);
  rec.object = path;
  rec.endpoint = store.endpoint();
  rec.purpose = options.purpose;
  auto finish = [&](plan::PlanRecord&& r) {
    if (options.log) options.log->Add(r);
    if (record) *record = std::move(r);
  };

  if (set.empty()) {  // nothing to transfer: no request, no evidence
    rec.outcome = PlanOutcomeKind::kSuccess;
    rec.chosen_requests = 0;
    SetObservedTime(&rec, 0);
    finish(std::move(rec));
    return std::vector<Buffer>(exact.size());
  }

  ReadOptions ro;
  ro.max_concurrency = static_cast<int>(
      std::clamp<uint64_t>(options.planner.max_concurrency, 1, static_cast<uint64_t>(kMaxPlanConcurrency)));
  ro.cancel = options.cancel;
  ro.expected_etag = options.expected_etag;
  ReadStats stats;
  std::vector<Buffer> out;
  Status status;
  plan::ThroughputPool* const pool = options.throughput_pool.get();
  const uint64_t ticket = pool ? pool->Begin(NowSeconds()) : 0;  // ended below on every path
  Stopwatch watch;
  if (decision.use_store_native) {
    Result<std::vector<Buffer>> got = store.ReadRangesNative(path, exact, ro, &stats);
    status = got.status();
    if (got.ok()) {
      status = CheckBuffers(path, exact, *got);
      if (status.ok()) out = std::move(got).value();
    }
  } else {
    Result<std::vector<Buffer>> got = store.ReadRanges(path, decision.plan.requests, ro, &stats);
    status = got.status();
    if (got.ok()) {
      status = CheckBuffers(path, decision.plan.requests, *got);
      if (status.ok()) status = SliceResponses(path, exact, decision.plan, *got, &out);
    }
  }
  const double observed_s = watch.ElapsedSeconds();
  if (status.ok() && ro.cancel && ro.cancel->cancelled()) status = Status::Cancelled(path + ": read cancelled");

  if (decision.use_store_native) {
    // The store's own plan is known only now.
    rec.chosen_requests = stats.requests.size();
    rec.chosen_bytes = stats.payload_bytes;
    rec.estimated_s = planner.EstimateSeconds(rec.chosen_requests, rec.chosen_bytes, decision.estimate);
  }
  rec.payload_bytes = stats.payload_bytes;
  rec.payload_wall_s = stats.payload_wall_s;
  SetObservedTime(&rec, observed_s);

  plan::PlanOutcome outcome;
  outcome.kind = status.ok() ? PlanOutcomeKind::kSuccess : Classify(status, ro);
  if (outcome.kind == PlanOutcomeKind::kSuccess) {
    outcome.latency_s = MedianLatency(stats);
    outcome.payload_bytes = stats.payload_bytes;
    outcome.payload_wall_s = stats.payload_wall_s;
    rec.plan_latency_s = outcome.latency_s;
  }
  plan::PlanOutcome own = outcome;
  if (pool) {  // throughput evidence goes to the scan's pool; the plan's own report carries latency only
    own.payload_bytes = 0;
    own.payload_wall_s = 0;
  }
  const plan::ReportEffect effect = estimator->Report(own);
  if (options.also_report_to && options.also_report_to != estimator) options.also_report_to->Report(own);
  if (pool) {
    std::vector<plan::DeliveryInterval> intervals;
    if (outcome.kind == PlanOutcomeKind::kSuccess) {
      intervals.reserve(stats.requests.size());
      for (const RequestTiming& t : stats.requests) intervals.push_back({t.first_byte_s, t.end_s, t.bytes});
    }
    rec.throughput_pooled = true;
    rec.pooled_samples_added = pool->End(ticket, outcome.kind, intervals, NowSeconds());
  }
  rec.outcome = outcome.kind;
  rec.latency_sample_added = effect.latency_added;
  rec.throughput_sample_added = effect.throughput_added;
  finish(std::move(rec));
  if (!status.ok()) return status;
  return out;
}

}  // namespace rap::io
