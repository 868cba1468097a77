// Metrics: the server's Prometheus counters and histograms (rendered by endpoint_metrics.cc):
// requests and latency by endpoint and status, response bytes, rejected requests by reason, lookup
// keys and the object-store requests made for lookups. Thread-safe (one mutex; a request takes it
// once when it completes).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace rap::server {

// Upper bounds (seconds) of the request latency histogram; +Inf follows.
inline const std::vector<double>& RequestLatencyBounds() {
  static const std::vector<double> b = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                        0.1,    0.25,  0.5,    1,     2.5,  5,     10};
  return b;
}

class Metrics {
 public:
  void RecordRequest(const std::string& endpoint, int status, double seconds, uint64_t bytes);
  void RecordRejected(const std::string& reason);
  void RecordLookup(int64_t keys, int64_t store_requests, int64_t rows);
  void RecordRefresh(const std::string& table, bool changed, bool failed);
  // The counters and histograms in the Prometheus text format (no trailing gauges; see endpoint_metrics.cc).
  std::string Render() const;

 private:
  struct Histogram {
    std::vector<uint64_t> buckets;  // per bucket, RequestLatencyBounds().size() + 1
    double sum = 0;
    uint64_t count = 0;
    uint64_t bytes = 0;
  };
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, Histogram> requests_;  // (endpoint, status)
  std::map<std::string, uint64_t> rejected_;
  uint64_t lookup_requests_ = 0, lookup_keys_ = 0, lookup_store_requests_ = 0, lookup_rows_ = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> refreshes_;  // table -> (changed, failed)
};

}  // namespace rap::server
