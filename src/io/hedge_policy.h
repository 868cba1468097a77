// HedgePolicy: when to send a hedged duplicate of a range request, and how many (HedgeOptions in
// rap/io/http_options.h). One per HttpClient (endpoint), shared by all its reads; thread-safe.
// The delay is the `quantile` of the last kWindow latencies of successful eligible requests (see
// Observe),
// at least min_delay_s. The budget is a token bucket: every eligible request adds max_fraction of a
// token, a duplicate takes one, and the bucket holds at most burst + max_fraction * kBudgetWindow,
// so over any run of N requests there are at most max_fraction * N + that many duplicates (an
// allowance counted over the process's life would let a quiet day bank a storm of duplicates for
// the next outage). Requests that have waited less than reserve_after x the delay may not take
// the bucket below reserve_fraction of its size.
#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "rap/io/http_options.h"

namespace rap::io {

class HedgePolicy {
 public:
  static constexpr size_t kWindow = 1000;
  static constexpr int kBudgetWindow = 200;  // requests whose unused allowance the bucket keeps
  explicit HedgePolicy(HedgeOptions options) : options_(options), tokens_(std::max(0, options_.burst)) {}
  const HedgeOptions& options() const { return options_; }

  // Seconds after which an unfinished request gets a duplicate; < 0 while there are fewer than
  // min_samples observations.
  double Delay() const;
  void CountRequest();             // an eligible request (first attempt or retry) was issued
  // True (and counted) when the budget allows one more duplicate; `late`: the request has waited
  // reserve_after x the delay, so it may also use the reserved share.
  bool TryHedge(bool late = true);
  // A request's latency as first issued: the original's completion time, or, when a duplicate
  // answered first, how long the original had been outstanding by then (a lower bound).
  void Observe(double seconds);
  double last_sample() const;      // the latest observation (< 0 before any)
  uint64_t requests() const;
  uint64_t hedges() const;

 private:
  HedgeOptions options_;
  mutable std::mutex mu_;
  std::vector<double> samples_;  // ring of the last kWindow observations
  size_t next_ = 0;
  mutable double cached_delay_ = -1;
  mutable bool stale_ = true;
  double MaxTokens() const;
  uint64_t requests_ = 0, hedges_ = 0;
  double tokens_ = 0;
};

}  // namespace rap::io
