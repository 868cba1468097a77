// Process-wide object-store request counters (include/rap/io/store_metrics.h).
#include "rap/io/store_metrics.h"

#include <algorithm>

namespace rap::io {

const char* StoreKindName(StoreKind kind) { return kind == StoreKind::kLocal ? "local" : "http"; }

StoreMetrics& StoreMetrics::Global() {
  static StoreMetrics m;
  return m;
}

void StoreMetrics::RecordRequests(StoreKind kind, const ReadStats& stats) {
  PerKind& k = kinds_[static_cast<size_t>(kind)];
  for (const RequestTiming& t : stats.requests) {
    k.requests.fetch_add(1, std::memory_order_relaxed);
    k.bytes.fetch_add(t.bytes, std::memory_order_relaxed);
    const double latency = std::max(0.0, t.latency_s());
    const size_t b = static_cast<size_t>(
        std::lower_bound(kStoreLatencyBounds.begin(), kStoreLatencyBounds.end(), latency) - kStoreLatencyBounds.begin());
    k.buckets[b].fetch_add(1, std::memory_order_relaxed);
    k.latency_sum_us.fetch_add(static_cast<uint64_t>(latency * 1e6), std::memory_order_relaxed);
  }
}

void StoreMetrics::RecordFailure(StoreKind kind) {
  kinds_[static_cast<size_t>(kind)].failed.fetch_add(1, std::memory_order_relaxed);
}

void StoreMetrics::RecordHedgeSent(StoreKind kind) {
  kinds_[static_cast<size_t>(kind)].hedges_sent.fetch_add(1, std::memory_order_relaxed);
}

void StoreMetrics::RecordHedgeWon(StoreKind kind) {
  kinds_[static_cast<size_t>(kind)].hedges_won.fetch_add(1, std::memory_order_relaxed);
}

StoreMetricsSnapshot StoreMetrics::Snapshot(StoreKind kind) const {
  const PerKind& k = kinds_[static_cast<size_t>(kind)];
  StoreMetricsSnapshot s;
  s.requests = k.requests.load(std::memory_order_relaxed);
  s.bytes = k.bytes.load(std::memory_order_relaxed);
  s.failed_reads = k.failed.load(std::memory_order_relaxed);
  s.hedges_sent = k.hedges_sent.load(std::memory_order_relaxed);
  s.hedges_won = k.hedges_won.load(std::memory_order_relaxed);
  for (const auto& b : k.buckets) s.latency_buckets.push_back(b.load(std::memory_order_relaxed));
  s.latency_sum_s = static_cast<double>(k.latency_sum_us.load(std::memory_order_relaxed)) / 1e6;
  return s;
}

}  // namespace rap::io
