// Hedged-request policy (src/io/hedge_policy.h).
#include "io/hedge_policy.h"

#include <algorithm>
#include <cmath>

namespace rap::io {

double HedgePolicy::Delay() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!options_.enabled || static_cast<int>(samples_.size()) < std::max(1, options_.min_samples)) return -1;
  if (stale_) {
    std::vector<double> v = samples_;
    const size_t k = std::min(v.size() - 1, static_cast<size_t>(std::floor(options_.quantile * static_cast<double>(v.size()))));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    cached_delay_ = std::max(options_.min_delay_s, v[k]);
    stale_ = false;
  }
  return cached_delay_;
}

double HedgePolicy::MaxTokens() const {
  return std::max(0, options_.burst) + std::max(0.0, options_.max_fraction) * static_cast<double>(kBudgetWindow);
}

void HedgePolicy::CountRequest() {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_;
  tokens_ = std::min(MaxTokens(), tokens_ + std::max(0.0, options_.max_fraction));
}

bool HedgePolicy::TryHedge(bool late) {
  std::lock_guard<std::mutex> lock(mu_);
  // A request just past the delay may not dig into the reserved share of the bucket.
  const double keep = late ? 0.0 : std::clamp(options_.reserve_fraction, 0.0, 1.0) * MaxTokens();
  if (tokens_ - 1.0 < keep - 1e-9) return false;
  tokens_ -= 1.0;
  ++hedges_;
  return true;
}

void HedgePolicy::Observe(double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  if (samples_.size() < kWindow) {
    samples_.push_back(seconds);
  } else {
    samples_[next_] = seconds;
    next_ = (next_ + 1) % kWindow;
  }
  stale_ = true;
}

double HedgePolicy::last_sample() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (samples_.empty()) return -1;
  return samples_.size() < kWindow ? samples_.back() : samples_[(next_ + kWindow - 1) % kWindow];
}

uint64_t HedgePolicy::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

uint64_t HedgePolicy::hedges() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hedges_;
}

}  // namespace rap::io
