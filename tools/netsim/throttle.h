// Throttle: one throughput limit shared fairly by every response of rap-netsim.
//
// Responses ask for their payload one chunk at a time (Acquire). Grants are paced on a virtual
// clock: a grant of n bytes occupies n / rate seconds of "link time", and the next grant starts
// when the previous one ends. Waiters are served first-in first-out and a response re-queues after
// each chunk, so concurrent responses receive chunks round-robin: ten active responses each get
// about a tenth of the rate, and the sum never exceeds it.
//
// Responses bracket their payload with BeginStream()/EndStream(). While responses are waiting for
// grants the link may start a grant up to `catch_up` in the past, so that time lost to a late timer
// or a descheduled server thread (common on a loaded test machine) is made up instead of silently
// lowering the rate; when nobody was waiting, at most 0.5 ms of idle link time is made up (one response
// fetching its next chunk). The first stream of a busy period starts the link afresh: no burst. When the first stream of a busy period begins, the link starts "now": an idle
// link accumulates no credit, so a new response never gets a burst above the rate.
// Not thread-safe: every call must come from the io_context thread that owns the Throttle.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

namespace rap::netsim {

class Throttle {
 public:
  using Clock = std::chrono::steady_clock;
  using Grant = std::function<void(size_t granted)>;

  // bytes_per_second 0 = unlimited. A grant (the fairness quantum) is `chunk` bytes. A grant is
  // handed out when its link time has elapsed on the virtual clock (never early), so payload never
  // arrives ahead of the configured rate.
  Throttle(boost::asio::io_context& io, uint64_t bytes_per_second, size_t chunk = 16 * 1024,
           std::chrono::microseconds catch_up = std::chrono::milliseconds(50));

  // A response starts / stops sending payload (calls must pair up).
  void BeginStream();
  void EndStream();
  size_t active_streams() const { return active_streams_; }

  // Requests up to `want` bytes (want > 0). `grant` is called once, asynchronously (never from
  // inside Acquire), with 1..min(want, quantum()) bytes, or with 0 if the throttle was cancelled.
  void Acquire(size_t want, Grant grant);

  // Changes the rate; queued waiters keep their place. 0 = unlimited.
  void SetRate(uint64_t bytes_per_second);
  uint64_t rate() const { return rate_; }
  size_t quantum() const;
  size_t waiting() const { return queue_.size(); }

  // Completes every waiter with 0 and stops the timer (used at shutdown).
  void Cancel();

 private:
  struct Waiter {
    size_t want;
    Grant grant;
  };
  void Pump();
  Clock::duration LinkTime(size_t bytes) const;

  boost::asio::io_context& io_;
  boost::asio::steady_timer timer_;
  uint64_t rate_;
  size_t chunk_;
  Clock::duration catch_up_;
  size_t active_streams_ = 0;
  Clock::time_point next_free_;
  bool timer_armed_ = false;
  std::deque<Waiter> queue_;
};

}  // namespace rap::netsim
