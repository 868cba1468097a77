// StoreMetrics: process-wide counters of the object-store requests every store made (requests,
// payload bytes, failed reads, a first-byte latency histogram, hedged duplicates sent and won), by
// store kind ("local", "http"). Exposed by `rap serve` on /metrics; cheap (atomics only).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "rap/io/object_store.h"

namespace rap::io {

enum class StoreKind : int { kLocal = 0, kHttp = 1 };
inline constexpr int kStoreKinds = 2;
const char* StoreKindName(StoreKind kind);

// Upper bounds (seconds) of the latency histogram's buckets; a last +Inf bucket follows.
inline constexpr std::array<double, 14> kStoreLatencyBounds = {0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                               0.05,   0.1,    0.25,  0.5,    1,     2.5,   5};

struct StoreMetricsSnapshot {
  uint64_t requests = 0;
  uint64_t bytes = 0;
  uint64_t failed_reads = 0;
  uint64_t hedges_sent = 0;
  uint64_t hedges_won = 0;
  std::vector<uint64_t> latency_buckets;  // per bucket (not cumulative), kStoreLatencyBounds.size() + 1
  double latency_sum_s = 0;
};

class StoreMetrics {
 public:
  static StoreMetrics& Global();
  void RecordRequests(StoreKind kind, const ReadStats& stats);
  void RecordFailure(StoreKind kind);
  void RecordHedgeSent(StoreKind kind);
  void RecordHedgeWon(StoreKind kind);
  StoreMetricsSnapshot Snapshot(StoreKind kind) const;

 private:
  struct PerKind {
    std::atomic<uint64_t> requests{0}, bytes{0}, failed{0}, hedges_sent{0}, hedges_won{0};
    std::array<std::atomic<uint64_t>, kStoreLatencyBounds.size() + 1> buckets{};
    std::atomic<uint64_t> latency_sum_us{0};
  };
  std::array<PerKind, kStoreKinds> kinds_;
};

}  // namespace rap::io
