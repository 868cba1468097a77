// When HttpClient's attempts go out: retries and hedged duplicates (src/io/request_scheduler.h).
#include "io/request_scheduler.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "rap/util/clock.h"

namespace rap::io {

namespace {

double Jitter(double cap) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> d(0.0, cap);
  return d(rng);
}

}  // namespace

RequestScheduler::RequestScheduler(const std::vector<HttpRequest>& requests, const HttpOptions& options,
                                   HedgePolicy* hedge, double deadline)
    : requests_(requests),
      options_(options),
      hedge_(hedge),
      deadline_(deadline),
      max_duplicates_(hedge ? std::max(1, hedge->options().max_duplicates) : 0),
      finished_(requests.size(), false),
      copies_(requests.size(), 0),
      dup_count_(requests.size(), 0),
      newest_(requests.size(), nullptr),
      refused_(requests.size(), 0) {
  for (size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].kind == HttpRequest::Kind::kRange && requests[i].range.length == 0) {
      finished_[i] = true;  // nothing to fetch
      continue;
    }
    queue_.push_back({i, 0, 0});
    ++remaining_;
  }
}

bool RequestScheduler::Eligible(const HttpRequest& r) const {
  if (!hedge_) return false;
  if (r.kind == HttpRequest::Kind::kRange) return r.range.length <= hedge_->options().max_bytes;
  return r.kind == HttpRequest::Kind::kSuffix && r.suffix <= hedge_->options().max_bytes;
}

bool RequestScheduler::MayHedge(const Exchange& ex) const {
  return newest_[ex.index] == &ex && dup_count_[ex.index] < max_duplicates_ && !finished_[ex.index] &&
         Eligible(*ex.req);
}

Status RequestScheduler::SendDue(double now, const std::function<Status(size_t index, int attempt)>& send) {
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (it->not_before > now) {
      ++it;
      continue;
    }
    RAP_RETURN_NOT_OK(send(it->index, it->attempt));
    it = queue_.erase(it);
  }
  return Status::OK();
}

double RequestScheduler::NextDue() const {
  double next_due = deadline_;
  for (const Due& d : queue_) next_due = std::min(next_due, d.not_before);
  return next_due;
}

double RequestScheduler::HedgeWake(const Inflight& inflight, double hedge_delay, double wake) const {
  if (hedge_delay <= 0) return wake;
  for (const auto& ex : inflight) {
    if (MayHedge(*ex) && refused_[ex->index] < 2) {
      const double after = refused_[ex->index] == 0 ? hedge_delay : hedge_delay * hedge_->options().reserve_after;
      // The delay counts from when the engine issued the request; one still queued behind the
      // endpoint's or the read's concurrency limit is looked at again a delay later.
      const double started = ex->start_s.load(std::memory_order_relaxed);
      wake = std::min(wake, started > 0 ? started + after : NowSeconds() + hedge_delay);
    }
  }
  return wake;
}

void RequestScheduler::Started(const Exchange& ex) {
  ++copies_[ex.index];
  newest_[ex.index] = &ex;
  if (!ex.is_hedge && Eligible(requests_[ex.index])) hedge_->CountRequest();
}

void RequestScheduler::Ended(const Exchange& ex, const Inflight& inflight) {
  --copies_[ex.index];
  if (newest_[ex.index] == &ex) {  // the next newest live copy, if any, decides further duplicates
    newest_[ex.index] = nullptr;
    for (const auto& other : inflight) {
      if (other->index == ex.index) newest_[ex.index] = other.get();
    }
  }
}

void RequestScheduler::Answered(const Exchange& ex, const Inflight& inflight) {
  // The hedging delay is a quantile of the request class's latency as first issued, and a
  // request whose duplicate won is part of that tail: it counts with the time its original had
  // been outstanding without an answer (a lower bound of its latency). Observing only the
  // winner's own time would hide every hedged stall, pull the delay down to the p95 of the
  // ordinary requests, and let those spend the whole budget before a stalled one asks
  // (docs/benchmarks/serve.md). Failed copies teach nothing.
  if (Eligible(*ex.req) && ex.attempt == 0) {
    double latency = ex.end_s - ex.start_s;
    if (ex.is_hedge) {
      for (const auto& other : inflight) {
        if (other->index == ex.index && !other->is_hedge) {
          const double started = other->start_s.load(std::memory_order_relaxed);
          if (started > 0) latency = std::max(latency, ex.end_s - started);
        }
      }
    }
    hedge_->Observe(std::max(0.0, latency));
  }
  finished_[ex.index] = true;
  --remaining_;
}

Status RequestScheduler::RetryOrFail(const Exchange& ex, const Verdict& v) {
  last_error_ = v.status.message();
  const int attempts = ex.attempt + 1;
  if (!v.retry || attempts >= options_.max_attempts) {
    return v.retry ? v.status.WithContext("giving up after " + std::to_string(attempts) + " attempts") : v.status;
  }
  double cap = std::min(options_.max_backoff_s, options_.initial_backoff_s * std::pow(2.0, ex.attempt));
  double delay = Jitter(cap);
  if (v.retry_after_s >= 0) {
    if (v.retry_after_s > options_.max_retry_after_s) {
      return v.status.WithContext("server asked to retry after " + std::to_string(v.retry_after_s) +
                                  " s, more than the " + std::to_string(options_.max_retry_after_s) + " s allowed");
    }
    delay = std::max(delay, v.retry_after_s);
  }
  double when = NowSeconds() + delay;
  if (when >= deadline_) {
    return Status::Timeout(ex.req->object + ": deadline of " + std::to_string(options_.deadline_s) +
                           " s reached after " + std::to_string(attempts) + " attempts; last error: " + last_error_);
  }
  queue_.push_back({ex.index, ex.attempt + 1, when});
  return Status::OK();
}

void RequestScheduler::Hedge(const Inflight& inflight, double hedge_delay, double now,
                             const std::function<bool(const Exchange&)>& send) {
  for (const auto& ex : inflight) {
    if (!MayHedge(*ex)) continue;
    const double started = ex->start_s.load(std::memory_order_relaxed);
    if (started <= 0) continue;  // still queued: a duplicate would queue too
    const double waited = now - started;
    if (waited < hedge_delay || refused_[ex->index] == 2) continue;
    const bool late = waited >= hedge_delay * hedge_->options().reserve_after;
    if (refused_[ex->index] == 1 && !late) continue;
    if (!hedge_->TryHedge(late)) {
      refused_[ex->index] = late ? 2 : 1;
      continue;
    }
    if (!send(*ex)) break;  // no duplicate; the original still runs
    ++dup_count_[ex->index];
  }
}

}  // namespace rap::io
