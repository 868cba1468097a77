// HttpClient: runs batches of HTTP requests for one endpoint on a shared CurlEngine, with
// per-read concurrency limits, retries (exponential backoff, full jitter, Retry-After), an overall
// deadline, cancellation, per-request timing and the integrity checks of range responses.
// The HTTP and S3 stores build on it; they add URLs, authentication and error wording. Private.
#pragma once

#include <curl/curl.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/curl_engine.h"
#include "io/hedge_policy.h"
#include "rap/io/http_options.h"
#include "rap/io/object_store.h"

namespace rap::io {

class RequestScheduler;

struct HttpRequest {
  enum class Kind { kRange, kSuffix, kPlain };
  std::string method = "GET";  // GET, HEAD or PUT
  std::string url;
  std::string object;  // names the object in messages, e.g. "s3://bucket/key"
  Kind kind = Kind::kPlain;
  ByteRange range;        // kRange
  uint64_t suffix = 0;    // kSuffix: the last `suffix` bytes
  const Buffer* body = nullptr;  // PUT payload
  std::vector<std::string> headers;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // lowercase names; last value wins
  Buffer body;                // range/suffix payload, or the whole body of a plain request
  std::string error_body;     // first 64 KiB of a non-2xx body
  uint64_t object_size = 0;   // from Content-Range total, or Content-Length of a 200
  bool object_size_known = false;
  std::string etag;           // normalised
  int64_t mtime_ms = 0;
  RequestTiming timing;

  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

class HttpClient {
 public:
  // Adds authentication (options and headers) to a request's easy handle.
  using PrepareFn = std::function<Status(const HttpRequest&, CURL*, curl_slist** headers)>;
  // Turns a final non-2xx response into a Status naming the object.
  using ErrorFn = std::function<Status(const HttpRequest&, const HttpResponse&)>;

  HttpClient(std::string endpoint, HttpOptions options);

  void set_prepare(PrepareFn f) { prepare_ = std::move(f); }
  void set_error_mapper(ErrorFn f) { map_error_ = std::move(f); }
  const HttpOptions& options() const { return options_; }
  const std::string& endpoint() const { return endpoint_; }
  long connections_opened() const { return engine_->connections_opened(); }
  // Hedged requests (HttpOptions::hedge): null when hedging is off.
  const HedgePolicy* hedge_policy() const { return hedge_.get(); }

  // Runs every request (at most read.max_concurrency at once) and returns their responses in
  // order. Range and suffix responses are checked against their requests; a request of a plain
  // kind returns whatever final status it got (2xx or 4xx) so the caller can interpret it, while
  // a final 5xx/429 or transport failure is an error. Responses carrying an ETag must agree with
  // each other and with read.expected_etag, else kChanged.
  Result<std::vector<HttpResponse>> Run(std::vector<HttpRequest> requests, const ReadOptions& read,
                                        ReadStats* stats);
  // Run for range requests: the bodies, in request order (ObjectStore::ReadRanges of the HTTP stores).
  Result<std::vector<Buffer>> RunRanges(std::vector<HttpRequest> requests, std::span<const ByteRange> ranges,
                                        const ReadOptions& read, ReadStats* stats);

  // Default wording of an HTTP error for `req`.
  static Status DefaultError(const HttpRequest& req, const HttpResponse& resp);

  struct Exchange;  // one attempt of one request (defined in http_client.cc)
  struct Batch;

 private:
  Result<CURL*> MakeEasy(Exchange* ex, double remaining_s);
  // A new exchange for `req` (request `index` of the batch), its easy handle set up.
  Result<std::unique_ptr<Exchange>> NewExchange(Batch& batch, const HttpRequest& req, size_t index, int attempt,
                                                bool is_hedge, double remaining_s);
  // A finished exchange of an unanswered request: its response into `out` (cancelling the other
  // copies), or, when it failed and no other copy runs, the next attempt scheduled or the error.
  Status Settle(Exchange* ex, RequestScheduler& sched, const std::vector<std::unique_ptr<Exchange>>& inflight,
                std::string* batch_etag, std::vector<HttpResponse>* out, ReadStats* local);

  std::string endpoint_;
  HttpOptions options_;
  PrepareFn prepare_;
  ErrorFn map_error_;
  std::unique_ptr<CurlEngine> engine_;
  std::unique_ptr<HedgePolicy> hedge_;
};

}  // namespace rap::io
