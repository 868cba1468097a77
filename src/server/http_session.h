// A connection of HttpServer (http_server.h) and the server's shared state: the io loops, the
// server's Impl and class Session, which reads requests on its loop under the header/body limits and
// timeouts and writes responses. Private to src/server: http_server.cc (accept, sweep, start and
// shutdown) and http_responder.cc (the Responder a handler writes through) include it; these three
// files are the only ones of the server that include Beast or Asio headers.
#pragma once

#include "server/http_server.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

#include "rap/columnar/array_format.h"
#include "rap/util/allocator.h"
#include "rap/util/clock.h"
#include "server/worker_pool.h"

namespace rap::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

class Session;

// The io threads. Each runs its own io_context (one thread per context), and a connection belongs
// to one loop for its life: its handlers never run concurrently and never move between threads,
// so no strand is needed, and sockets and timers use the concrete executor type instead of the
// type-erased any_io_executor. Deadlines (read, idle, write) are a time point per connection that
// the loop's sweep timer checks a few times per shortest timeout, instead of one timer armed and
// cancelled around every socket operation (beast::tcp_stream): under load that took a fifth of
// the server's CPU in template and timer-queue work (docs/benchmarks/serve.md).
using Executor = asio::io_context::executor_type;
using Socket = asio::basic_stream_socket<tcp, Executor>;
using Clock = std::chrono::steady_clock;

struct IoLoop {
  asio::io_context io{1};
  std::optional<asio::executor_work_guard<Executor>> work;
  asio::basic_waitable_timer<Clock, asio::wait_traits<Clock>, Executor> sweep{io.get_executor()};
  std::vector<std::weak_ptr<Session>> sessions;  // this loop's connections; only its thread touches it
  std::thread thread;
};

struct HttpServer::Impl {
  HttpServerOptions options;
  Handler handler;
  Observer observer;

  std::atomic<int> in_flight{0};
  std::atomic<int> connections{0};
  std::atomic<uint64_t> io_thread_requests{0};
  std::atomic<bool> shutting_down{false};
  std::atomic<bool> io_stopped{false};  // no new connection work is started
  std::atomic<bool> io_joined{false};   // every io thread has returned (no handler runs any more)
  uint16_t port = 0;

  // Requests queued or running are counted in in_flight; Shutdown waits on idle_cv for none.
  std::mutex mu;
  std::condition_variable idle_cv;
  WorkerPool workers;

  std::mutex sessions_mu;
  uint64_t next_session = 0;
  std::unordered_map<uint64_t, std::weak_ptr<Session>> sessions;

  std::mutex shutdown_mu;
  bool shut_down = false;

  // Declared last: destroyed first, so pending handlers (holding sessions) go before the state above.
  std::vector<std::unique_ptr<IoLoop>> loops;
  size_t next_loop = 0;                      // round robin of accepted connections (acceptor's loop only)
  Clock::duration sweep_period{};            // how often a loop checks its connections' deadlines
  std::unique_ptr<asio::basic_socket_acceptor<tcp, Executor>> acceptor;  // on loops[0]

  void Accept();
  void ArmSweep(IoLoop* loop);
  void Submit(std::function<void()> task) { workers.Submit(std::move(task)); }
  void RequestDone() {
    {
      std::lock_guard<std::mutex> lock(mu);
      --in_flight;
    }
    idle_cv.notify_all();
  }
  void Shutdown(double grace_s);
};

inline constexpr auto kPoll = std::chrono::milliseconds(50);

inline std::chrono::steady_clock::duration Seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(HttpServer::Impl* server, IoLoop* loop, Socket socket, uint64_t id)
      : server_(server), loop_(loop), socket_(std::move(socket)), id_(id) {
    error_code ec;
    const auto ep = socket_.remote_endpoint(ec);
    if (!ec) remote_ = ep.address().to_string() + ":" + std::to_string(ep.port());
  }

  void Start() {
    asio::post(executor(), [self = shared_from_this()] {
      self->loop_->sessions.push_back(self);
      self->DoRead();
    });
  }

  // On the loop: close an idle or half-received connection (shutdown).
  void CloseIfReading() {
    asio::post(executor(), [self = shared_from_this()] {
      if (self->reading_) self->Close();
    });
  }

  // On the loop (its sweep): close the connection if its current read, idle or write deadline has
  // passed; the pending socket operation then completes with operation_aborted.
  void CheckDeadline(Clock::time_point now) {
    if (now >= deadline_) Close();
  }
  bool closed() const { return closed_; }

  // ---- Called from a worker thread (through WorkerResponder) ----
  // Runs `op` on the connection's loop under the write timeout and waits for its completion.
  Status RunOnLoop(std::function<void(std::function<void(error_code)>)> op) {
    if (server_->io_stopped.load()) return Status::IOError("server stopped");
    auto done = std::make_shared<std::promise<error_code>>();
    std::future<error_code> f = done->get_future();
    asio::post(executor(), [self = shared_from_this(), op = std::move(op), done] {
      if (self->closed_) {
        done->set_value(asio::error::not_connected);
        return;
      }
      self->SetDeadline(self->server_->options.write_timeout_s);
      op([self, done](error_code ec) {
        self->ClearDeadline();  // the worker may take its time over the next chunk
        done->set_value(ec);
      });
    });
    // A started write may still use the caller's bytes until the io threads are gone.
    while (f.wait_for(kPoll) != std::future_status::ready) {
      if (server_->io_joined.load()) return Status::IOError("server stopped");
    }
    const error_code ec = f.get();
    if (ec) return Status::IOError("client connection: " + ec.message());
    return Status::OK();
  }

  Socket& stream() { return socket_; }
  HttpServer::Impl* server() { return server_; }
  const HttpRequest& request() const { return request_; }
  bool keep_alive() const { return keep_alive_; }

  // After the worker finished: continue reading or close (on the loop).
  void AfterResponse(bool close) {
    asio::post(executor(), [self = shared_from_this(), close] {
      if (close || !self->keep_alive_ || self->server_->shutting_down.load()) {
        self->Close();
      } else {
        self->DoRead();
      }
    });
  }

  // Writes a complete response (under the write timeout), then continues reading the next request
  // or closes. From a worker it is posted to the connection's loop; from the loop itself (a handler
  // run inline) it starts the write at once.
  void FinishWith(std::shared_ptr<http::response<http::string_body>> res, bool close, bool on_loop) {
    auto write = [self = shared_from_this(), res = std::move(res), close] {
      if (self->closed_) return;
      self->SetDeadline(self->server_->options.write_timeout_s);
      http::async_write(self->socket_, *res, [self, res, close](error_code ec, size_t) {
        if (ec || close || !self->keep_alive_ || self->server_->shutting_down.load()) {
          self->Close();
        } else {
          self->DoRead();
        }
      });
    };
    if (on_loop) {
      write();
    } else {
      asio::post(executor(), std::move(write));
    }
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    reading_ = false;
    deadline_ = Clock::time_point::max();
    error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
    --server_->connections;
    std::lock_guard<std::mutex> lock(server_->sessions_mu);
    server_->sessions.erase(id_);
  }

 private:
  Executor executor() { return loop_->io.get_executor(); }
  void SetDeadline(double seconds) { deadline_ = Clock::now() + Seconds(seconds); }
  void ClearDeadline() { deadline_ = Clock::time_point::max(); }

  void DoRead() {
    if (closed_) return;
    if (server_->shutting_down.load()) return Close();
    reading_ = true;
    request_ = HttpRequest();
    request_.remote = remote_;
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(std::min<uint64_t>(server_->options.max_header_bytes, UINT32_MAX)));
    parser_->body_limit(server_->options.max_body_bytes);
    if (buffer_.size() == 0) {
      // Wait for the first byte of the next request under the idle timeout.
      SetDeadline(server_->options.idle_timeout_s);
      socket_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](error_code ec, size_t n) {
        if (ec) return self->Close();
        self->buffer_.commit(n);
        self->ReadHeader();
      });
    } else {
      ReadHeader();
    }
  }

  void ReadHeader() {
    // The whole request (header and body) must arrive within the read timeout.
    SetDeadline(server_->options.read_timeout_s);
    http::async_read_header(socket_, buffer_, *parser_, [self = shared_from_this()](error_code ec, size_t) {
      if (ec) return self->OnReadError(ec);
      const auto& h = self->parser_->get();
      if (beast::iequals(h[http::field::expect], "100-continue") && !self->parser_->is_done()) {
        auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, h.version());
        http::async_write(self->socket_, *cont, [self, cont](error_code wec, size_t) {
          if (wec) return self->Close();
          self->ReadBody();
        });
        return;
      }
      self->ReadBody();
    });
  }

  void ReadBody() {
    if (parser_->is_done()) return OnRequest();
    http::async_read(socket_, buffer_, *parser_, [self = shared_from_this()](error_code ec, size_t) {
      if (ec) return self->OnReadError(ec);
      self->OnRequest();
    });
  }

  void OnReadError(error_code ec) {
    reading_ = false;
    if (ec == http::error::header_limit) {
      return Reject(431, "header_too_large", "request headers exceed the server's limit of " +
                                                 std::to_string(server_->options.max_header_bytes) + " bytes");
    }
    if (ec == http::error::body_limit) {
      return Reject(413, "body_too_large", "request body exceeds the server's limit of " +
                                               std::to_string(server_->options.max_body_bytes) + " bytes");
    }
    if (ec == beast::error::timeout || ec == http::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::operation_aborted || ec == asio::error::connection_reset || closed_) {
      return Close();
    }
    Reject(400, "bad_request", "malformed HTTP request: " + ec.message());
  }

  void OnRequest() {
    reading_ = false;
    ClearDeadline();  // the handler runs without a socket deadline; the response sets the write one
    http::request<http::string_body> req = parser_->release();
    parser_.reset();
    request_.method = std::string(req.method_string());
    request_.target = std::string(req.target());
    const size_t q = request_.target.find('?');
    bool ok = PercentDecode(std::string_view(request_.target).substr(0, q), false, &request_.path);
    if (ok && q != std::string::npos) ok = ParseQuery(std::string_view(request_.target).substr(q + 1), &request_.query);
    for (const auto& f : req) {
      std::string name(f.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      request_.headers[name] = std::string(f.value());
    }
    request_.body = std::move(req.body());
    request_.remote = remote_;
    request_.received_s = NowSeconds();
    request_.deadline_s = request_.received_s + server_->options.request_deadline_s;
    keep_alive_ = req.keep_alive();
    if (!ok) return Reject(400, "bad_request", "malformed percent-escape in the request target", /*close=*/false);
    if (server_->shutting_down.load()) {
      return Reject(503, "shutdown", "the server is shutting down", /*close=*/true, "shutdown");
    }
    {
      std::lock_guard<std::mutex> lock(server_->mu);
      if (server_->in_flight.load() >= server_->options.workers + server_->options.max_queued) {
        overload_ = true;
      } else {
        overload_ = false;
        ++server_->in_flight;
      }
    }
    if (overload_) {
      return Reject(429, "overloaded",
                    fmt::format("{} requests are already queued or running; retry later",
                                server_->options.workers + server_->options.max_queued),
                    /*close=*/false, "overload");
    }
    if (server_->options.run_on_io_thread && server_->options.run_on_io_thread(request_)) {
      ++server_->io_thread_requests;
      RunHandler(/*on_io_thread=*/true);
      return;
    }
    server_->Submit([self = shared_from_this()] { self->RunHandler(false); });
  }

  // Answers from the io thread (no worker): error JSON, Retry-After on 429/503.
  void Reject(int status, const std::string& code, const std::string& message, bool close = true,
              std::string reason = "") {
    if (reason.empty()) reason = code;
    auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(status), 11);
    res->set(http::field::server, "rap");
    res->set(http::field::content_type, "application/json");
    if (status == 429 || status == 503) res->set(http::field::retry_after, std::to_string(server_->options.retry_after_s));
    res->body() = ErrorJson(status, code, message);
    res->keep_alive(!close && keep_alive_);
    res->prepare_payload();
    const double t0 = request_.received_s > 0 ? request_.received_s : NowSeconds();
    SetDeadline(server_->options.write_timeout_s);
    http::async_write(socket_, *res, [self = shared_from_this(), res, close, status, reason, t0](error_code ec, size_t) {
      CompletedRequest c;
      c.request = &self->request_;
      c.status = status;
      c.bytes = res->body().size();
      c.seconds = NowSeconds() - t0;
      c.reject_reason = reason;
      if (self->server_->observer) self->server_->observer(c);
      if (ec || close || !self->keep_alive_) return self->Close();
      self->DoRead();
    });
  }

  void RunHandler(bool on_io_thread);  // on a worker, or inline on the io thread

  HttpServer::Impl* server_;
  IoLoop* loop_;
  Socket socket_;
  Clock::time_point deadline_ = Clock::time_point::max();  // of the pending socket operation (loop only)
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  HttpRequest request_;
  uint64_t id_;
  std::string remote_;
  bool keep_alive_ = true;
  bool reading_ = false;
  bool closed_ = false;
  bool overload_ = false;
};

}  // namespace rap::server
