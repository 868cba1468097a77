#include "netsim/throttle.h"

#include <algorithm>
#include <utility>

#include <boost/asio/post.hpp>

namespace rap::netsim {

namespace asio = boost::asio;

// Without a limit, grants are large so that an unlimited server is not slowed by bookkeeping.
static constexpr size_t kUnlimitedChunk = 256 * 1024;

Throttle::Throttle(asio::io_context& io, uint64_t bytes_per_second, size_t chunk, std::chrono::microseconds catch_up)
    : io_(io), timer_(io), rate_(bytes_per_second), chunk_(std::max<size_t>(chunk, 1)), catch_up_(catch_up),
      next_free_(Clock::now()) {}

size_t Throttle::quantum() const {
  if (rate_ == 0) return kUnlimitedChunk;
  return chunk_;
}

Throttle::Clock::duration Throttle::Slack() const {
  // The pump may hand out grants up to 2 ms of link time ahead of the virtual clock, so at high
  // rates one timer wake-up serves many 16 KiB grants (round-robin over the waiting responses)
  // instead of one wake-up every 120 us. Grants stay small, so concurrent responses receive their
  // payload interleaved over the whole transfer rather than one whole response at a time — which
  // is what a client measuring "time during which payload was arriving" must see on a shared link.
  return std::chrono::milliseconds(2);
}

Throttle::Clock::duration Throttle::LinkTime(size_t bytes) const {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(double(bytes) / double(rate_)));
}

void Throttle::BeginStream() {
  if (active_streams_++ == 0) next_free_ = std::max(next_free_, Clock::now());
}

void Throttle::EndStream() {
  if (active_streams_ > 0) --active_streams_;
}

void Throttle::Acquire(size_t want, Grant grant) {
  if (rate_ == 0) {
    size_t n = std::min(want, kUnlimitedChunk);
    asio::post(io_, [g = std::move(grant), n] { g(n); });
    return;
  }
  queue_.push_back(Waiter{want, std::move(grant)});
  if (!timer_armed_) Pump();
}

void Throttle::Pump() {
  while (!queue_.empty()) {
    auto now = Clock::now();
    auto start = std::max(next_free_, now - catch_up_);
    if (rate_ != 0 && start > now + Slack()) {
      timer_armed_ = true;
      timer_.expires_at(start - Slack());
      timer_.async_wait([this](const boost::system::error_code& ec) {
        timer_armed_ = false;
        if (!ec) Pump();
      });
      return;
    }
    Waiter w = std::move(queue_.front());
    queue_.pop_front();
    size_t n = std::min(w.want, quantum());
    if (rate_ != 0) next_free_ = start + LinkTime(n);
    asio::post(io_, [g = std::move(w.grant), n] { g(n); });
  }
}

void Throttle::SetRate(uint64_t bytes_per_second) {
  rate_ = bytes_per_second;
  next_free_ = Clock::now();
  if (timer_armed_) {
    timer_.cancel();  // the handler sees operation_aborted; re-pump with the new rate
    timer_armed_ = false;
  }
  if (!queue_.empty()) asio::post(io_, [this] { if (!timer_armed_) Pump(); });
}

void Throttle::Cancel() {
  timer_.cancel();
  timer_armed_ = false;
  while (!queue_.empty()) {
    Waiter w = std::move(queue_.front());
    queue_.pop_front();
    asio::post(io_, [g = std::move(w.grant)] { g(0); });
  }
}

}  // namespace rap::netsim
