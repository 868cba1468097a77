// RequestScheduler: when the attempts of one HttpClient::Run go out. First attempts at once;
// retries after an exponential backoff with full jitter (at least a Retry-After the server asks for,
// within the deadline); and hedged duplicates of eligible requests still unanswered after the
// HedgePolicy's delay, within its budget (a request first refused the ordinary share may use the
// reserve after reserve_after x the delay). It keeps each request's live copies, their newest (whose
// wait decides the next duplicate) and whether it is answered; HttpClient runs the exchanges.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/hedge_policy.h"
#include "io/http_exchange.h"

namespace rap::io {

class RequestScheduler {
 public:
  using Exchange = HttpClient::Exchange;
  using Inflight = std::vector<std::unique_ptr<Exchange>>;

  // `hedge`: null when hedging is off. Requests of an empty range are answered from the start.
  RequestScheduler(const std::vector<HttpRequest>& requests, const HttpOptions& options, HedgePolicy* hedge,
                   double deadline);

  size_t remaining() const { return remaining_; }  // requests not answered yet
  bool answered(size_t index) const { return finished_[index]; }
  int live_copies(size_t index) const { return copies_[index]; }
  int duplicates(size_t index) const { return dup_count_[index]; }
  const std::string& last_error() const { return last_error_; }

  // Takes the attempts due at `now` (first attempts and retries) off the queue and hands each to
  // `send`, stopping at the first error `send` returns.
  Status SendDue(double now, const std::function<Status(size_t index, int attempt)>& send);
  // When to look again: the earliest queued retry, else the deadline.
  double NextDue() const;
  // The earliest time a running request becomes due for a duplicate (`hedge_delay` > 0), or `wake`.
  double HedgeWake(const Inflight& inflight, double hedge_delay, double wake) const;

  // A copy of a request was made (counted against the hedging budget when it is not a duplicate).
  void Started(const Exchange& ex);
  // A copy left `inflight` (finished, failed or cancelled).
  void Ended(const Exchange& ex, const Inflight& inflight);
  // A copy answered its request: the request is done, and its latency as first issued is observed.
  void Answered(const Exchange& ex, const Inflight& inflight);
  // The last copy of a request failed with `v`: queues the next attempt, or returns the final error
  // (not retryable, attempts exhausted, Retry-After beyond the limit, or past the deadline).
  Status RetryOrFail(const Exchange& ex, const Verdict& v);
  // Offers `send` one duplicate of each eligible request unanswered for the delay (measured from
  // when the engine issued its newest copy) that the budget allows; `send` returns false when it
  // could not make one, which ends this round.
  void Hedge(const Inflight& inflight, double hedge_delay, double now, const std::function<bool(const Exchange&)>& send);

 private:
  struct Due {
    size_t index;
    int attempt;
    double not_before;
  };
  bool Eligible(const HttpRequest& r) const;
  // True for the newest copy of an unanswered eligible request that may still get a duplicate.
  bool MayHedge(const Exchange& ex) const;

  const std::vector<HttpRequest>& requests_;
  const HttpOptions& options_;
  HedgePolicy* hedge_;
  const double deadline_;
  const int max_duplicates_;
  std::deque<Due> queue_;
  size_t remaining_ = 0;
  std::vector<bool> finished_;
  std::vector<int> copies_;        // live exchanges per request
  std::vector<int> dup_count_;     // duplicates sent per request
  std::vector<const Exchange*> newest_;  // null while none runs
  // 0: may be hedged after the delay; 1: refused the ordinary share, may use the reserve after
  // reserve_after x the delay; 2: refused both (no more wake-ups for it).
  std::vector<uint8_t> refused_;
  std::string last_error_;
};

}  // namespace rap::io
