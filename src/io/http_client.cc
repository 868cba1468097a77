#include "io/http_client.h"

#include "rap/io/store_metrics.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>

#include "io/http_exchange.h"
#include "io/http_util.h"
#include "io/request_scheduler.h"
#include "rap/util/clock.h"

namespace rap::io {

namespace {

constexpr size_t kMaxErrorBody = 64 * 1024;
constexpr long kReceiveBufferSize = 512 * 1024;
constexpr uint64_t kEagerBodyMax = 64u << 20;  // range bodies up to this size are allocated before the request

size_t OnHeader(char* data, size_t size, size_t n, void* p) {
  auto* ex = static_cast<HttpClient::Exchange*>(p);
  size_t len = size * n;
  std::string_view line(data, len);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.substr(0, 5) == "HTTP/") {
    // A new response (after 100-continue or a redirect) starts with a status line. Its arrival is
    // the request's first response byte: latency ends and delivery begins here, so delivery time
    // includes the transfer of the first body bytes (timing from the first body callback would
    // leave out the first network read, inflating the throughput of short responses).
    ex->resp.timing.first_byte_s = NowSeconds();
    ex->resp.headers.clear();
    size_t sp = line.find(' ');
    ex->resp.status = 0;
    if (sp != std::string_view::npos) {
      auto code = ParseUint64(line.substr(sp + 1, 3));
      if (code) ex->resp.status = static_cast<long>(*code);
    }
  } else if (size_t colon = line.find(':'); colon != std::string_view::npos) {
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    ex->resp.headers[ToLower(line.substr(0, colon))] = std::string(value);
  }
  return len;
}

size_t OnWrite(char* data, size_t size, size_t n, void* p) {
  auto* ex = static_cast<HttpClient::Exchange*>(p);
  size_t len = size * n;
  if (ex->abort.load(std::memory_order_relaxed)) return 0;
  if (ex->resp.timing.first_byte_s == 0) ex->resp.timing.first_byte_s = NowSeconds();
  long st = ex->resp.status;
  if (st < 200 || st >= 300) {
    size_t room = kMaxErrorBody - std::min(kMaxErrorBody, ex->resp.error_body.size());
    ex->resp.error_body.append(data, std::min(room, len));
    return len;
  }
  if (ex->req->kind == HttpRequest::Kind::kPlain) {
    if (ex->plain_body.size() + len > kMaxPlainBody) {
      ex->overflow = true;
      return 0;
    }
    ex->plain_body.append(data, len);
    return len;
  }
  if (ex->received + len > ex->capacity) {
    ex->overflow = true;
    return 0;
  }
  if (ex->buf.size() == 0) {
    // Suffix and very large ranges: sized when the response is known, no larger than the length it
    // announces, so an oversized request (a corrupt length, say) costs only what a server sends.
    uint64_t want = ex->capacity;
    auto announced = ParseUint64(ex->resp.Header("content-length"));
    if (announced && *announced < want && *announced >= len) want = *announced;
    ex->buf = AllocateBodyBuffer(want);
    if (ex->buf.size() == 0) {
      ex->alloc_failed = want;
      return 0;
    }
  }
  if (ex->received + len > ex->buf.size()) {  // more than announced (curl itself stops that first)
    ex->overflow = true;
    return 0;
  }
  std::memcpy(ex->buf.mutable_data() + ex->received, data, len);
  ex->received += len;
  return len;
}

size_t OnRead(char* out, size_t size, size_t n, void* p) {
  auto* ex = static_cast<HttpClient::Exchange*>(p);
  const Buffer& body = *ex->req->body;
  size_t len = std::min<size_t>(size * n, body.size() - ex->put_offset);
  std::memcpy(out, body.data() + ex->put_offset, len);
  ex->put_offset += len;
  return len;
}

// CURLINFO_HTTP_VERSION as 10, 11, 20 or 30 (0 when unknown).
int HttpVersionNumber(CURL* easy) {
  long v = 0;
  if (curl_easy_getinfo(easy, CURLINFO_HTTP_VERSION, &v) != CURLE_OK) return 0;
  switch (v) {
    case CURL_HTTP_VERSION_1_0: return 10;
    case CURL_HTTP_VERSION_1_1: return 11;
    case CURL_HTTP_VERSION_2_0: return 20;
    case CURL_HTTP_VERSION_3: return 30;
    default: return 0;
  }
}

}  // namespace

HttpClient::HttpClient(std::string endpoint, HttpOptions options)
    : endpoint_(std::move(endpoint)),
      options_(std::move(options)),
      engine_(std::make_unique<CurlEngine>(options_.max_endpoint_concurrency)) {
  map_error_ = &HttpClient::DefaultError;
  if (options_.hedge.enabled) hedge_ = std::make_unique<HedgePolicy>(options_.hedge);
}

Result<std::vector<Buffer>> HttpClient::RunRanges(std::vector<HttpRequest> requests, std::span<const ByteRange> ranges,
                                                  const ReadOptions& read, ReadStats* stats) {
  for (size_t i = 0; i < ranges.size() && i < requests.size(); ++i) {
    requests[i].kind = HttpRequest::Kind::kRange;
    requests[i].range = ranges[i];
  }
  RAP_ASSIGN_OR_RETURN(std::vector<HttpResponse> resps, Run(std::move(requests), read, stats));
  std::vector<Buffer> out;
  out.reserve(resps.size());
  for (auto& r : resps) out.push_back(std::move(r.body));
  return out;
}

Status HttpClient::DefaultError(const HttpRequest& req, const HttpResponse& resp) {
  std::string what = req.object + ": HTTP " + std::to_string(resp.status) + " for " + req.method + " " + RangeText(req);
  std::string body = resp.error_body.substr(0, 200);
  if (!body.empty()) what += " (" + body + ")";
  if (resp.status == 404 || resp.status == 410) return Status::NotFound(req.object + ": not found (HTTP " +
                                                                        std::to_string(resp.status) + ")");
  if (resp.status == 401 || resp.status == 403) return Status::AccessDenied(req.object + ": access denied (HTTP " +
                                                                            std::to_string(resp.status) + ")");
  if (resp.status == 416) return Status::InvalidArgument(what + ": range not satisfiable");
  return Status::IOError(what);
}

Result<CURL*> HttpClient::MakeEasy(Exchange* ex, double remaining_s) {
  CURL* e = curl_easy_init();
  if (!e) return Status::Internal("curl_easy_init failed");
  ex->easy = e;
  const HttpRequest& req = *ex->req;
  curl_easy_setopt(e, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, ex->errbuf);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, ex);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &OnWrite);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, ex);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_s * 1000));
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, std::max(1L, static_cast<long>(remaining_s * 1000)));
  curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, options_.low_speed_bytes_per_s);
  curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, options_.low_speed_time_s);
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  // Larger receive chunks than libcurl's 16 KiB default: fewer recv calls and callbacks for large
  // ranges (the curl tool itself uses 100 KiB).
  curl_easy_setopt(e, CURLOPT_BUFFERSIZE, kReceiveBufferSize);
  curl_easy_setopt(e, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
                   options_.http2 ? static_cast<long>(CURL_HTTP_VERSION_2TLS) : static_cast<long>(CURL_HTTP_VERSION_1_1));
  // PIPEWAIT lets a new request wait for a TLS connection to learn (ALPN) whether it speaks HTTP/2,
  // so one multiplexed connection is used instead of opening more. Plain http:// is HTTP/1.1 here
  // and must not wait: curl 7.88 parks such a request until another transfer finishes.
  if (options_.http2 && req.url.rfind("https://", 0) == 0) curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
  if (!options_.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, options_.ca_file.c_str());
  if (!options_.ca_dir.empty()) curl_easy_setopt(e, CURLOPT_CAPATH, options_.ca_dir.c_str());
  if (!options_.verify_tls) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (req.method == "HEAD") {
    curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
  } else if (req.method == "PUT") {
    if (!req.body) return Status::Internal(req.object + ": PUT without a body");
    curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(e, CURLOPT_READFUNCTION, &OnRead);
    curl_easy_setopt(e, CURLOPT_READDATA, ex);
    curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(req.body->size()));
  } else if (req.method != "GET") {
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }
  if (req.kind == HttpRequest::Kind::kRange) {
    ex->capacity = req.range.length;
    // Here, not on the transfer thread (see AllocateBodyBuffer). Larger bodies are allocated when
    // their first byte arrives, so an oversized request costs no memory unless a server answers it.
    if (ex->capacity <= kEagerBodyMax) {
      ex->buf = AllocateBodyBuffer(ex->capacity);
      if (ex->buf.size() == 0) {
        return Status::ResourceExhausted(req.object + ": cannot allocate " + std::to_string(ex->capacity) +
                                         " bytes for " + RangeText(req));
      }
    }
    ex->hdrs = curl_slist_append(ex->hdrs, ("Range: bytes=" + std::to_string(req.range.offset) + "-" +
                                            std::to_string(req.range.end() - 1)).c_str());
  } else if (req.kind == HttpRequest::Kind::kSuffix) {
    ex->capacity = req.suffix;
    ex->hdrs = curl_slist_append(ex->hdrs, ("Range: bytes=-" + std::to_string(req.suffix)).c_str());
  }
  for (const std::string& h : req.headers) ex->hdrs = curl_slist_append(ex->hdrs, h.c_str());
  if (prepare_) RAP_RETURN_NOT_OK(prepare_(req, e, &ex->hdrs));
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, ex->hdrs);
  return e;
}

namespace {

// The timing of an answered attempt.
RequestTiming FinalTiming(HttpClient::Exchange* ex) {
  RequestTiming t = ex->resp.timing;
  t.start_s = ex->start_s;
  if (t.first_byte_s == 0) {
    double st = 0;
    curl_easy_getinfo(ex->easy, CURLINFO_STARTTRANSFER_TIME, &st);
    t.first_byte_s = ex->start_s + st;
  }
  t.end_s = std::max(ex->end_s, t.first_byte_s);
  t.bytes = ex->req->kind == HttpRequest::Kind::kPlain ? ex->resp.body.size() : ex->received;
  t.attempts = ex->attempt + 1;
  t.http_version = HttpVersionNumber(ex->easy);
  t.range = ex->req->kind == HttpRequest::Kind::kRange ? ex->req->range
                                                       : ByteRange{ex->resp.object_size - t.bytes, t.bytes};
  return t;
}

// Waits until an exchange of `batch` finishes or the scheduler wants to look again (a retry or a
// duplicate due, the deadline; every 10 ms with a cancellation token), and returns the finished.
std::vector<HttpClient::Exchange*> WaitForDone(HttpClient::Batch& batch, const RequestScheduler& sched,
                                               const RequestScheduler::Inflight& inflight, const ReadOptions& read,
                                               double hedge_delay) {
  std::vector<HttpClient::Exchange*> done;
  std::unique_lock<std::mutex> lock(batch.mu);
  double wake = sched.NextDue();
  if (read.cancel) wake = std::min(wake, NowSeconds() + 0.01);
  wake = sched.HedgeWake(inflight, hedge_delay, wake);
  auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(std::max(0.0, wake - NowSeconds())));
  batch.cv.wait_until(lock, until, [&] { return !batch.done.empty(); });
  done.swap(batch.done);
  return done;
}

// Takes `ex` out of `inflight`.
std::unique_ptr<HttpClient::Exchange> TakeInflight(RequestScheduler::Inflight& inflight, HttpClient::Exchange* ex) {
  auto it = std::find_if(inflight.begin(), inflight.end(), [&](auto& p) { return p.get() == ex; });
  std::unique_ptr<HttpClient::Exchange> owned = std::move(*it);
  inflight.erase(it);
  return owned;
}

}  // namespace

Result<std::unique_ptr<HttpClient::Exchange>> HttpClient::NewExchange(Batch& batch, const HttpRequest& req,
                                                                      size_t index, int attempt, bool is_hedge,
                                                                      double remaining_s) {
  auto ex = std::make_unique<Exchange>();
  ex->batch = &batch;
  ex->index = index;
  ex->attempt = attempt;
  ex->req = &req;
  ex->on_done = [&batch](CurlEngine::Transfer* t, CURLcode code) {
    auto* e = static_cast<Exchange*>(t);
    e->result = code;
    e->end_s = NowSeconds();
    std::lock_guard<std::mutex> lock(batch.mu);
    batch.done.push_back(e);
    batch.cv.notify_all();
  };
  // A duplicate does not wait behind the read's own (possibly stalled) requests.
  ex->group = is_hedge ? nullptr : &batch.group;
  ex->is_hedge = is_hedge;
  auto easy = MakeEasy(ex.get(), remaining_s);
  if (!easy.ok()) return easy.status();
  return ex;
}

Status HttpClient::Settle(Exchange* ex, RequestScheduler& sched, const std::vector<std::unique_ptr<Exchange>>& inflight,
                          std::string* batch_etag, std::vector<HttpResponse>* out, ReadStats* local) {
  Verdict v = Evaluate(ex, endpoint_, map_error_);
  if (v.status.ok() && !ex->resp.etag.empty() && ex->req->kind != HttpRequest::Kind::kPlain) {
    if (batch_etag->empty()) {
      *batch_etag = ex->resp.etag;
    } else if (*batch_etag != ex->resp.etag) {
      v.status = Status::Changed(ex->req->object + ": object changed while reading (ETag " + ex->resp.etag +
                                 ", expected " + *batch_etag + ")");
      v.retry = false;
    }
  }
  if (v.status.ok()) {
    ex->resp.timing = FinalTiming(ex);
    local->requests.push_back(ex->resp.timing);
    if (sched.duplicates(ex->index) > 0) {
      for (auto& other : inflight) {
        if (other->index == ex->index) engine_->Cancel(other.get());  // the slower copies
      }
      if (ex->is_hedge) StoreMetrics::Global().RecordHedgeWon(StoreKind::kHttp);
    }
    sched.Answered(*ex, inflight);
    (*out)[ex->index] = std::move(ex->resp);
    return Status::OK();
  }
  // A failed copy while the other copy of the request is still running: that one decides.
  if (sched.live_copies(ex->index) > 0) return Status::OK();
  return sched.RetryOrFail(*ex, v);
}

Result<std::vector<HttpResponse>> HttpClient::Run(std::vector<HttpRequest> requests, const ReadOptions& read,
                                                  ReadStats* stats) {
  std::vector<HttpResponse> out(requests.size());
  ReadStats local;
  const double deadline = NowSeconds() + options_.deadline_s;
  std::string batch_etag = NormalizeEtag(read.expected_etag);
  RequestScheduler sched(requests, options_, hedge_.get(), deadline);
  Batch batch;
  batch.group.max_active = std::max(1, read.max_concurrency);
  std::vector<std::unique_ptr<Exchange>> inflight;
  // Makes and submits an exchange for request `index` (a first attempt, a retry or a duplicate).
  auto send = [&](size_t index, int attempt, bool is_hedge, double remaining_s) -> Status {
    RAP_ASSIGN_OR_RETURN(auto ex, NewExchange(batch, requests[index], index, attempt, is_hedge, remaining_s));
    sched.Started(*ex);
    engine_->Submit(ex.get());
    inflight.push_back(std::move(ex));
    return Status::OK();
  };
  Status failure;
  while (sched.remaining() > 0 && failure.ok()) {
    const double now = NowSeconds();
    if (read.cancel && read.cancel->cancelled()) {
      failure = Status::Cancelled(requests.front().object + ": read cancelled");
      break;
    }
    if (now >= deadline) {
      failure = Status::Timeout(requests.front().object + ": deadline of " + std::to_string(options_.deadline_s) +
                                " s exceeded" +
                                (sched.last_error().empty() ? "" : "; last error: " + sched.last_error()));
      break;
    }
    // Hand everything that is due to the engine, which keeps at most max_concurrency of them running.
    failure = sched.SendDue(now, [&](size_t index, int attempt) { return send(index, attempt, false, deadline - now); });
    if (!failure.ok()) break;
    const double hedge_delay = hedge_ ? hedge_->Delay() : -1;
    for (Exchange* ex : WaitForDone(batch, sched, inflight, read, hedge_delay)) {
      std::unique_ptr<Exchange> owned = TakeInflight(inflight, ex);
      sched.Ended(*ex, inflight);
      // After a failure the other finished exchanges only leave `inflight`; the other copy of a
      // hedged request that already answered was cancelled or lost.
      if (!failure.ok() || sched.answered(ex->index)) continue;
      failure = Settle(ex, sched, inflight, &batch_etag, &out, &local);
    }
    // Hedge: one duplicate for each eligible request still unanswered after the delay, within budget
    // (submitted after the round, so the round looks at the running copies only).
    if (failure.ok() && hedge_delay > 0) {
      const double t = NowSeconds();
      std::vector<std::unique_ptr<Exchange>> duplicates;
      sched.Hedge(inflight, hedge_delay, t, [&](const Exchange& ex) {
        auto made = NewExchange(batch, requests[ex.index], ex.index, ex.attempt, /*is_hedge=*/true, deadline - t);
        if (!made.ok()) return false;
        sched.Started(**made);
        StoreMetrics::Global().RecordHedgeSent(StoreKind::kHttp);
        duplicates.push_back(std::move(*made));
        return true;
      });
      for (auto& d : duplicates) {
        engine_->Submit(d.get());
        inflight.push_back(std::move(d));
      }
    }
  }
  // Abort whatever is still running and wait until the engine has let go of it.
  for (auto& ex : inflight) engine_->Cancel(ex.get());
  while (!inflight.empty()) {
    std::unique_lock<std::mutex> lock(batch.mu);
    batch.cv.wait(lock, [&] { return !batch.done.empty(); });
    for (Exchange* ex : batch.done) {
      auto it = std::find_if(inflight.begin(), inflight.end(), [&](auto& p) { return p.get() == ex; });
      if (it != inflight.end()) inflight.erase(it);
    }
    batch.done.clear();
  }
  StoreMetrics::Global().RecordRequests(StoreKind::kHttp, local);
  if (!failure.ok()) {
    StoreMetrics::Global().RecordFailure(StoreKind::kHttp);
    return failure;
  }
  if (stats) {
    FinalizeReadStats(&local);
    *stats = std::move(local);
  }
  return out;
}

}  // namespace rap::io
