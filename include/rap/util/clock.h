// Monotonic time helpers.
#pragma once

#include <chrono>
#include <cstdint>

namespace rap {

using Clock = std::chrono::steady_clock;

// Seconds since an arbitrary, fixed origin (monotonic).
inline double NowSeconds() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

class Stopwatch {
 public:
  Stopwatch() : start_(Clock::now()) {}
  void Reset() { start_ = Clock::now(); }
  double ElapsedSeconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  Clock::time_point start_;
};

}  // namespace rap
