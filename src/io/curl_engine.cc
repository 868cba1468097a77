#include "io/curl_engine.h"

#include <algorithm>

#include "rap/util/clock.h"

namespace rap::io {

void EnsureCurlGlobalInit() {
  static const bool once = [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return true;
  }();
  (void)once;
}

CurlEngine::CurlEngine(int max_active) : max_active_(std::max(1, max_active)) {
  EnsureCurlGlobalInit();
  multi_ = curl_multi_init();
  curl_multi_setopt(multi_, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  // Keep enough idle connections for a full wave of concurrent requests to be reused.
  curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(max_active_));
  thread_ = std::thread([this] { Run(); });
}

CurlEngine::~CurlEngine() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  curl_multi_wakeup(multi_);
  thread_.join();
  curl_multi_cleanup(multi_);
}

void CurlEngine::Submit(Transfer* t) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    incoming_.push_back(t);
  }
  curl_multi_wakeup(multi_);
}

void CurlEngine::Cancel(Transfer* t) {
  t->abort.store(true);
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancel_requested_ = true;
  }
  curl_multi_wakeup(multi_);
}

void CurlEngine::Finish(Transfer* t, CURLcode code) {
  long connects = 0;
  if (curl_easy_getinfo(t->easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK) connects_ += connects;
  if (t->group && t->start_s > 0) --t->group->active;
  t->on_done(t, code);  // may destroy t
}

bool CurlEngine::StartableWaiting() const {
  for (const Transfer* t : waiting_) {
    if (!t->group || t->group->max_active <= 0 || t->group->active < t->group->max_active) return true;
  }
  return false;
}

void CurlEngine::Run() {
  for (;;) {
    bool stop = false, cancel = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop = stop_;
      cancel = cancel_requested_;
      cancel_requested_ = false;
      while (!incoming_.empty()) {
        waiting_.push_back(incoming_.front());
        incoming_.pop_front();
      }
    }
    if (stop || cancel) {
      // Abort flagged (or, when stopping, all) transfers, active and waiting.
      for (size_t i = 0; i < active_.size();) {
        Transfer* t = active_[i];
        if (stop || t->abort.load()) {
          curl_multi_remove_handle(multi_, t->easy);
          active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
          Finish(t, CURLE_ABORTED_BY_CALLBACK);
        } else {
          ++i;
        }
      }
      for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (stop || (*it)->abort.load()) {
          Transfer* t = *it;
          it = waiting_.erase(it);
          Finish(t, CURLE_ABORTED_BY_CALLBACK);
        } else {
          ++it;
        }
      }
      if (stop) return;
    }
    // Start waiting transfers in FIFO order, skipping those whose group is at its limit; the
    // engine thread starts the next one of a read as soon as one finishes, without a round trip
    // through the reading thread.
    for (auto it = waiting_.begin(); it != waiting_.end() && static_cast<int>(active_.size()) < max_active_;) {
      Transfer* t = *it;
      if (t->group && t->group->max_active > 0 && t->group->active >= t->group->max_active) {
        ++it;
        continue;
      }
      it = waiting_.erase(it);
      t->start_s = NowSeconds();
      if (t->group) ++t->group->active;
      CURLMcode mc = curl_multi_add_handle(multi_, t->easy);
      if (mc != CURLM_OK) {
        Finish(t, CURLE_FAILED_INIT);
        continue;
      }
      active_.push_back(t);
    }
    int running = 0;
    curl_multi_perform(multi_, &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURL* easy = msg->easy_handle;
      CURLcode code = msg->data.result;
      auto it = std::find_if(active_.begin(), active_.end(), [&](Transfer* t) { return t->easy == easy; });
      curl_multi_remove_handle(multi_, easy);
      if (it == active_.end()) continue;
      Transfer* t = *it;
      active_.erase(it);
      Finish(t, code);
    }
    if (static_cast<int>(active_.size()) < max_active_ && StartableWaiting()) continue;
    // Sleeps until socket activity, a wakeup (submit/cancel/stop) or curl's own timers.
    curl_multi_poll(multi_, nullptr, 0, 1000, nullptr);
  }
}

}  // namespace rap::io
