#include "rap/plan/throughput_pool.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rap::plan {
namespace {

// Length of the union of [begin, end] intervals.
double UnionLength(std::vector<std::pair<double, double>>& parts) {
  std::sort(parts.begin(), parts.end());
  double total = 0;
  bool open = false;
  double cur_begin = 0, cur_end = 0;
  for (const auto& [b, e] : parts) {
    if (open && b <= cur_end) {
      cur_end = std::max(cur_end, e);
      continue;
    }
    if (open) total += cur_end - cur_begin;
    cur_begin = b;
    cur_end = e;
    open = true;
  }
  if (open) total += cur_end - cur_begin;
  return total;
}

}  // namespace

ThroughputPool::ThroughputPool(std::vector<std::shared_ptr<TransportEstimator>> sinks, EstimatorConfig config)
    : sinks_([&] {
        std::vector<std::shared_ptr<TransportEstimator>> unique;
        for (auto& s : sinks) {
          if (s && std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(std::move(s));
        }
        return unique;
      }()),
      config_(config),
      cut_(-std::numeric_limits<double>::infinity()) {}

uint64_t ThroughputPool::Begin(double start_s) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t ticket = next_ticket_++;
  in_flight_.emplace(start_s, ticket);
  return ticket;
}

size_t ThroughputPool::End(uint64_t ticket, PlanOutcomeKind kind, std::span<const DeliveryInterval> intervals,
                           double end_s) {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.plans;
  auto it = std::find_if(in_flight_.begin(), in_flight_.end(), [&](const auto& e) { return e.second == ticket; });
  if (it == in_flight_.end()) return 0;  // unknown or already ended ticket: no evidence
  size_t samples = 0;
  if (kind != PlanOutcomeKind::kSuccess) {
    // What ended before this plan began is complete; what came after shared the link with it.
    samples = AccountUpTo(in_flight_.begin()->first);
    in_flight_.erase(it);
    for (const DeliveryInterval& iv : pending_) stats_.dropped_bytes += iv.bytes;
    pending_.clear();
    cut_ = std::max(cut_, end_s);
    return samples;
  }
  in_flight_.erase(it);
  for (const DeliveryInterval& iv : intervals) {
    if (!std::isfinite(iv.begin_s) || !std::isfinite(iv.end_s) || iv.begin_s < cut_) {
      stats_.dropped_bytes += iv.bytes;  // began in a stretch already accounted or dropped
      continue;
    }
    pending_.push_back({iv.begin_s, std::max(iv.begin_s, iv.end_s), iv.bytes});
  }
  const double until = in_flight_.empty() ? end_s : in_flight_.begin()->first;
  return samples + AccountUpTo(until);
}

size_t ThroughputPool::AccountUpTo(double until) {
  if (!(until > cut_)) return 0;
  std::vector<std::pair<double, double>> parts;
  std::vector<DeliveryInterval> rest;
  uint64_t bytes = 0;
  for (const DeliveryInterval& iv : pending_) {
    if (iv.begin_s >= until) {
      rest.push_back(iv);
    } else if (iv.end_s <= until) {
      parts.emplace_back(iv.begin_s, iv.end_s);
      bytes += iv.bytes;
    } else {  // crosses `until`: its bytes spread evenly over the interval
      const double fraction = (until - iv.begin_s) / (iv.end_s - iv.begin_s);
      const auto head = std::min<uint64_t>(
          iv.bytes, static_cast<uint64_t>(std::llround(static_cast<double>(iv.bytes) * fraction)));
      parts.emplace_back(iv.begin_s, until);
      bytes += head;
      rest.push_back({until, iv.end_s, iv.bytes - head});
    }
  }
  pending_ = std::move(rest);
  cut_ = until;
  acc_bytes_ += bytes;
  acc_wall_s_ += UnionLength(parts);
  if (acc_bytes_ < config_.min_throughput_bytes || acc_wall_s_ < config_.min_throughput_wall_s || !(acc_wall_s_ > 0)) {
    return 0;
  }
  for (const auto& sink : sinks_) sink->ReportThroughput(acc_bytes_, acc_wall_s_);
  ++stats_.samples;
  stats_.sampled_bytes += acc_bytes_;
  acc_bytes_ = 0;
  acc_wall_s_ = 0;
  return 1;
}

ThroughputPoolStats ThroughputPool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  ThroughputPoolStats s = stats_;
  s.pending_bytes = acc_bytes_;
  for (const DeliveryInterval& iv : pending_) s.pending_bytes += iv.bytes;
  return s;
}

}  // namespace rap::plan
