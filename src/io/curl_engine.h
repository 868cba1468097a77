// CurlEngine: one libcurl multi handle driven by its own thread, shared by every request to one
// endpoint. The multi handle owns the connection cache (persistent connections reused across
// requests and files, HTTP/2 multiplexing where offered). Private to src/io.
#pragma once

#include <curl/curl.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rap::io {

// Initialises libcurl once per process (curl_global_init is not thread-safe on its own).
void EnsureCurlGlobalInit();

class CurlEngine {
 public:
  // One transfer: a configured easy handle and a completion callback. The caller owns the
  // Transfer and must keep it alive until on_done has been called (exactly once, on the engine
  // thread, after the handle left the multi handle).
  // Transfers sharing a concurrency limit (one read). Touched only by the engine thread once its
  // transfers are submitted; must outlive them.
  struct Group {
    int max_active = 0;  // 0: no limit beyond the engine's
    int active = 0;
  };

  struct Transfer {
    CURL* easy = nullptr;
    Group* group = nullptr;  // optional
    std::function<void(Transfer*, CURLcode)> on_done;
    // Set by the engine thread when the request is actually issued (0 while it waits); atomic
    // because the reading thread looks at it while the transfer runs (hedging).
    std::atomic<double> start_s{0};
    std::atomic<bool> abort{false};
  };

  // `max_active`: transfers in flight for the whole endpoint; more wait in a FIFO queue.
  explicit CurlEngine(int max_active);
  ~CurlEngine();  // aborts what is still running (callbacks get CURLE_ABORTED_BY_CALLBACK)
  CurlEngine(const CurlEngine&) = delete;
  CurlEngine& operator=(const CurlEngine&) = delete;

  void Submit(Transfer* t);
  // Asks the engine to abort `t`; on_done follows with CURLE_ABORTED_BY_CALLBACK unless the
  // transfer already finished.
  void Cancel(Transfer* t);

  // Connections opened so far (CURLINFO_NUM_CONNECTS summed over finished transfers).
  long connections_opened() const { return connects_.load(); }

 private:
  void Run();
  void Finish(Transfer* t, CURLcode code);
  bool StartableWaiting() const;

  CURLM* multi_ = nullptr;
  int max_active_;
  std::mutex mu_;
  std::deque<Transfer*> incoming_;
  bool cancel_requested_ = false;
  bool stop_ = false;
  // Engine-thread state.
  std::deque<Transfer*> waiting_;
  std::vector<Transfer*> active_;
  std::atomic<long> connects_{0};
  std::thread thread_;
};

}  // namespace rap::io
