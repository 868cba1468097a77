// HttpServer: the HTTP/1.1 transport of `rap serve` on Boost.Beast/Asio (the Beast headers stay in
// http_server.cc, http_session.h and http_responder.cc). `io_threads` threads run the sockets, each its own
// event loop that owns the connections it was dealt (round robin): accept, read a request under the header
// and body limits and the read timeout, keep-alive with an idle timeout. A complete request goes to a fixed
// pool of `workers` threads through a queue of at most `max_queued`; a full queue is answered 429, a
// request still queued at its deadline 503, both with Retry-After. A worker runs the handler, which answers
// through a Responder whose writes run on the connection's loop, each under the write timeout. Shutdown
// stops accepting, answers new requests 503 (Connection: close), waits for in-flight requests up to the
// grace period, then closes every connection and joins every thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "rap/util/result.h"
#include "server/http_types.h"

namespace rap::server {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  int io_threads = 1;
  int workers = 32;
  int worker_nice = 5;  // workers run this much nicer than the io threads (0: same priority)
  int max_queued = 256;
  int max_connections = 4096;
  uint64_t max_header_bytes = 16 << 10;
  uint64_t max_body_bytes = 1 << 20;
  double read_timeout_s = 10;
  double idle_timeout_s = 60;
  double write_timeout_s = 30;
  double request_deadline_s = 30;
  int retry_after_s = 1;
  // Requests for which this returns true run on the io thread that parsed them instead of a
  // worker (no thread hand-off). Only for handlers that answer with one Send and never block long,
  // e.g. lookups over local files; a streamed response there is refused (it would deadlock).
  std::function<bool(const HttpRequest&)> run_on_io_thread;
};

// Notified of every answered request (handled or rejected by the transport) after its last byte.
// `endpoint` is empty for requests the transport answered itself (`reject_reason` says why:
// "overload", "deadline", "shutdown", "header_too_large", "body_too_large", "bad_request").
struct CompletedRequest {
  const HttpRequest* request = nullptr;  // method/path may be empty for unparseable requests
  int status = 0;
  uint64_t bytes = 0;
  double seconds = 0;  // arrival of the whole request to the last byte sent
  std::string reject_reason;
};

class HttpServer {
 public:
  using Handler = std::function<void(const HttpRequest&, Responder&)>;
  using Observer = std::function<void(const CompletedRequest&)>;

  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options, Handler handler,
                                                   Observer observer);
  ~HttpServer();  // Shutdown(0)
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const;
  int in_flight() const;     // requests queued or running in a worker
  int connections() const;   // open connections
  uint64_t io_thread_requests() const;  // requests run on the io thread (run_on_io_thread)
  void Shutdown(double grace_s);

  struct Impl;

 private:
  explicit HttpServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<Impl> impl_;
};

// The JSON error body of every 4xx/5xx: {"error": {"status": 404, "code": "not_found", "message": "..."}}.
std::string ErrorJson(int status, std::string_view code, std::string_view message);

}  // namespace rap::server
