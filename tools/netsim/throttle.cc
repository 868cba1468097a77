#include "netsim/throttle.h"

#include <algorithm>
#include <utility>

#include <boost/asio/post.hpp>

namespace rap::netsim {

namespace asio = boost::asio;

// Without a limit, grants are large so that an unlimited server is not slowed by bookkeeping.
static constexpr size_t kUnlimitedChunk = 256 * 1024;
// Link time an idle link (no waiting response) may still make up; see Acquire.
static constexpr std::chrono::microseconds kIdleCredit{500};

Throttle::Throttle(asio::io_context& io, uint64_t bytes_per_second, size_t chunk, std::chrono::microseconds catch_up)
    : io_(io), timer_(io), rate_(bytes_per_second), chunk_(std::max<size_t>(chunk, 1)), catch_up_(catch_up),
      next_free_(Clock::now()) {}

size_t Throttle::quantum() const {
  if (rate_ == 0) return kUnlimitedChunk;
  return chunk_;
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
  if (queue_.empty()) {
    // Nobody was waiting, so the link may have been idle while a response wrote its last chunk and
    // asked for the next one. Up to kIdleCredit of such a gap is made up (a single response on a busy
    // machine keeps the configured rate); longer idle time is not, and the first stream of a busy
    // period starts the link afresh (BeginStream), so a new response never bursts above the rate.
    next_free_ = std::max(next_free_, Clock::now() - kIdleCredit);
  }
  queue_.push_back(Waiter{want, std::move(grant)});
  if (!timer_armed_) Pump();
}

void Throttle::Pump() {
  while (!queue_.empty()) {
    auto now = Clock::now();
    auto start = std::max(next_free_, now - catch_up_);
    // The end of the next grant's link time (rate 0, unlimited, never waits).
    const auto due = rate_ == 0 ? now : start + LinkTime(std::min(queue_.front().want, quantum()));
    // A grant is released when its link time has elapsed, never earlier (a late timer releases it
    // late; the virtual clock then catches up within catch_up_). Releasing at the slot's start, or a
    // fixed time ahead of it, delivered each burst early, so a client timing the payload delivery of
    // a wave of small responses measured up to 1.8x the configured rate. Grants stay small (16 KiB),
    // so concurrent responses receive their payload interleaved over the whole transfer.
    if (due > now) {
      timer_armed_ = true;
      timer_.expires_at(due);
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
