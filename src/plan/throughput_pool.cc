#include "rap/plan/throughput_pool.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rap::plan {
namespace {

// A change of the delivery rate at `t` (an interval's start or end), or a point mass of bytes (an
// interval of zero length).
struct Event {
  double t;
  double rate_delta;  // bytes per second
  int active_delta;
  double bytes;  // point mass
  bool operator<(const Event& o) const { return t < o.t; }
};

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
  // The part of every pending interval before `until` (bytes spread evenly over each interval), as
  // rate changes in time order; the rest of a crossing interval stays pending.
  std::vector<Event> events;
  std::vector<DeliveryInterval> rest;
  for (const DeliveryInterval& iv : pending_) {
    if (iv.begin_s >= until) {
      rest.push_back(iv);
      continue;
    }
    if (!(iv.end_s > iv.begin_s)) {
      events.push_back({iv.begin_s, 0, 0, static_cast<double>(iv.bytes)});
      continue;
    }
    const double rate = static_cast<double>(iv.bytes) / (iv.end_s - iv.begin_s);
    const double end = std::min(iv.end_s, until);
    events.push_back({iv.begin_s, rate, 1, 0});
    events.push_back({end, -rate, -1, 0});
    if (iv.end_s > until) {
      const auto head = std::min<uint64_t>(iv.bytes, static_cast<uint64_t>(std::llround(rate * (until - iv.begin_s))));
      rest.push_back({until, iv.end_s, iv.bytes - head});
    }
  }
  pending_ = std::move(rest);
  cut_ = until;
  std::stable_sort(events.begin(), events.end());
  // Sweep in time order; a sample is handed out as soon as the evidence since the last one meets the
  // rule (so a long stretch accounted at once gives as many samples as it holds).
  size_t samples = 0;
  double rate = 0, last_t = 0;
  int active = 0;
  for (const Event& e : events) {
    if (active > 0 && e.t > last_t) {
      acc_wall_s_ += e.t - last_t;
      acc_bytes_ += rate * (e.t - last_t);
    }
    last_t = e.t;
    rate += e.rate_delta;
    active += e.active_delta;
    if (active == 0) rate = 0;  // no drift from rounding between busy stretches
    acc_bytes_ += e.bytes;
    samples += TakeSample();
  }
  return samples;
}

size_t ThroughputPool::TakeSample() {
  const auto bytes = static_cast<uint64_t>(std::llround(acc_bytes_));
  if (bytes < config_.min_throughput_bytes || acc_wall_s_ < config_.min_throughput_wall_s || !(acc_wall_s_ > 0)) {
    return 0;
  }
  for (const auto& sink : sinks_) sink->ReportThroughput(bytes, acc_wall_s_);
  ++stats_.samples;
  stats_.sampled_bytes += bytes;
  acc_bytes_ = 0;
  acc_wall_s_ = 0;
  return 1;
}

ThroughputPoolStats ThroughputPool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  ThroughputPoolStats s = stats_;
  s.pending_bytes = static_cast<uint64_t>(std::llround(acc_bytes_));
  for (const DeliveryInterval& iv : pending_) s.pending_bytes += iv.bytes;
  return s;
}

}  // namespace rap::plan
