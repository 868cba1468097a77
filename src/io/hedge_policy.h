// HedgePolicy: when to send a hedged duplicate of a range request, and how many (HedgeOptions in
// rap/io/http_options.h). One per HttpClient (endpoint), shared by all its reads; thread-safe.
// The delay is the `quantile` of the last kWindow completion times of successful eligible requests,
// at least min_delay_s; the budget allows hedges <= max_fraction * requests + burst, of which
// requests that have waited less than reserve_after x the delay may use only (1 - reserve_fraction).
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "rap/io/http_options.h"

namespace rap::io {

class HedgePolicy {
 public:
  static constexpr size_t kWindow = 1000;
  explicit HedgePolicy(HedgeOptions options) : options_(options) {}
  const HedgeOptions& options() const { return options_; }

  // Seconds after which an unfinished request gets a duplicate; < 0 while there are fewer than
  // min_samples observations.
  double Delay() const;
  void CountRequest();             // an eligible request (first attempt or retry) was issued
  // True (and counted) when the budget allows one more duplicate; `late`: the request has waited
  // reserve_after x the delay, so it may also use the reserved share.
  bool TryHedge(bool late = true);
  void Observe(double seconds);    // completion time of a successful winner
  uint64_t requests() const;
  uint64_t hedges() const;

 private:
  HedgeOptions options_;
  mutable std::mutex mu_;
  std::vector<double> samples_;  // ring of the last kWindow observations
  size_t next_ = 0;
  mutable double cached_delay_ = -1;
  mutable bool stale_ = true;
  uint64_t requests_ = 0, hedges_ = 0;
};

}  // namespace rap::io
