// One attempt of one HttpClient request on the CurlEngine (HttpClient::Exchange), the batch its
// completions are handed back through, and the verdict on a finished attempt. Private to
// http_client.cc, http_verdict.cc and request_scheduler.cc.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "io/http_client.h"

namespace rap::io {

struct HttpClient::Exchange : CurlEngine::Transfer {
  Batch* batch = nullptr;
  size_t index = 0;
  int attempt = 0;
  const HttpRequest* req = nullptr;
  HttpResponse resp;
  uint64_t capacity = 0;
  Buffer buf;
  uint64_t received = 0;
  bool overflow = false;
  uint64_t alloc_failed = 0;  // bytes of a body buffer that could not be allocated
  std::string plain_body;
  uint64_t put_offset = 0;
  curl_slist* hdrs = nullptr;
  char errbuf[CURL_ERROR_SIZE] = {0};
  CURLcode result = CURLE_OK;
  double end_s = 0;
  bool is_hedge = false;   // a duplicate of a slow request (HedgeOptions)

  ~Exchange() {
    if (easy) curl_easy_cleanup(easy);
    curl_slist_free_all(hdrs);
  }
};

struct HttpClient::Batch {
  CurlEngine::Group group;  // the read's concurrency limit, enforced by the engine
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Exchange*> done;
};

// The verdict on one finished attempt.
struct Verdict {
  Status status;        // OK: the attempt produced the response
  bool retry = false;   // worth another attempt
  double retry_after_s = -1;
};

inline constexpr size_t kMaxPlainBody = 256u << 20;  // listings and other plain GETs

// The request in messages: "range 10-19", "the last 8 bytes" or its method.
std::string RangeText(const HttpRequest& r);

// The verdict on the finished attempt `ex` (http_verdict.cc); `map_error` turns an HTTP error status
// into a Status.
Verdict Evaluate(HttpClient::Exchange* ex, const std::string& endpoint, const HttpClient::ErrorFn& map_error);

}  // namespace rap::io
