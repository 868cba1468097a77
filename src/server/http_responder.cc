// The Responder of HttpServer's handlers (http_server.h): a complete response is handed back to
// the connection's loop after the handler; a streamed one is written chunk by chunk on the loop from
// the worker, each write under the write timeout. Session::RunHandler runs a handler with it.
#include "server/http_session.h"

namespace rap::server {

namespace {

class WorkerResponder : public Responder {
 public:
  WorkerResponder(std::shared_ptr<Session> s, bool on_io_thread) : s_(std::move(s)), on_io_thread_(on_io_thread) {}

  // A complete response is not written here: the worker hands it to the connection's loop when
  // the handler returns (Session::FinishWith), which writes it and then reads the next request, so
  // the worker neither waits for the write nor needs a second hand-off back (two thread switches per
  // request instead of four; the write timeout still applies).
  Status Send(int status, std::string_view content_type, std::string body, const HeaderList& extra) override {
    if (started_) return Status::Internal("response already started");
    started_ = true;
    status_ = status;
    auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(status), 11);
    Decorate(*res, content_type, extra);
    res->body() = std::move(body);
    res->prepare_payload();
    bytes_ = res->body().size();
    complete_ = std::move(res);
    return Status::OK();
  }

  Status BeginStream(int status, std::string_view content_type, const HeaderList& extra) override {
    if (started_) return Status::Internal("response already started");
    if (on_io_thread_) return Status::Internal("a streamed response cannot be written from the io thread");
    started_ = true;
    streaming_ = true;
    status_ = status;
    head_ = std::make_unique<http::response<http::empty_body>>(static_cast<http::status>(status), 11);
    Decorate(*head_, content_type, extra);
    head_->chunked(true);
    serializer_ = std::make_unique<http::response_serializer<http::empty_body>>(*head_);
    Session* s = s_.get();
    auto* sr = serializer_.get();
    Status st = s_->RunOnLoop([s, sr](std::function<void(error_code)> done) {
      http::async_write_header(s->stream(), *sr, [done](error_code ec, size_t) { done(ec); });
    });
    if (!st.ok()) failed_ = true;
    return st;
  }

  Status Write(std::string_view data) override {
    if (!streaming_ || ended_) return Status::Internal("Write outside a stream");
    if (failed_) return Status::IOError("client connection failed");
    if (data.empty()) return Status::OK();
    bytes_ += data.size();
    Session* s = s_.get();
    Status st = s_->RunOnLoop([s, data](std::function<void(error_code)> done) {
      asio::async_write(s->stream(), http::make_chunk(asio::const_buffer(data.data(), data.size())),
                        [done](error_code ec, size_t) { done(ec); });
    });
    if (!st.ok()) failed_ = true;
    return st;
  }

  Status EndStream() override {
    if (!streaming_ || ended_) return Status::Internal("EndStream outside a stream");
    ended_ = true;
    if (failed_) return Status::IOError("client connection failed");
    Session* s = s_.get();
    Status st = s_->RunOnLoop([s](std::function<void(error_code)> done) {
      asio::async_write(s->stream(), http::make_chunk_last(), [done](error_code ec, size_t) { done(ec); });
    });
    if (!st.ok()) failed_ = true;
    return st;
  }

  void AbortStream() override {
    ended_ = true;
    failed_ = true;
  }

  bool started() const override { return started_; }
  uint64_t bytes_sent() const override { return bytes_; }
  int status() const { return status_; }
  // The connection must close after this response (failure, or a stream that did not end cleanly).
  bool must_close() const { return failed_ || (streaming_ && !ended_); }
  // The complete response of Send (null for a streamed one), to write after the handler.
  std::shared_ptr<http::response<http::string_body>> TakeComplete() { return std::move(complete_); }

 private:
  template <typename Res>
  void Decorate(Res& res, std::string_view content_type, const HeaderList& extra) {
    res.set(http::field::server, "rap");
    res.set(http::field::content_type, beast::string_view(content_type.data(), content_type.size()));
    for (const auto& [k, v] : extra) res.set(k, v);
    const bool shutting = s_->server()->shutting_down.load();
    res.keep_alive(s_->keep_alive() && !shutting);
  }

  std::shared_ptr<Session> s_;
  const bool on_io_thread_;
  bool started_ = false, streaming_ = false, ended_ = false, failed_ = false;
  int status_ = 0;
  uint64_t bytes_ = 0;
  std::unique_ptr<http::response<http::empty_body>> head_;
  std::unique_ptr<http::response_serializer<http::empty_body>> serializer_;
  std::shared_ptr<http::response<http::string_body>> complete_;
};

}  // namespace

void Session::RunHandler(bool on_io_thread) {
  WorkerResponder responder(shared_from_this(), on_io_thread);
  HttpServer::Impl* srv = server_;
  if (NowSeconds() > request_.deadline_s) {
    (void)responder.Send(503, "application/json",
                         ErrorJson(503, "deadline_exceeded",
                                   fmt::format("the request waited longer than its deadline of {} s for a worker",
                                               srv->options.request_deadline_s)),
                         {{"Retry-After", std::to_string(srv->options.retry_after_s)}});
  } else {
    try {
      srv->handler(request_, responder);
    } catch (const std::exception& e) {
      if (!responder.started()) {
        (void)responder.Send(500, "application/json", ErrorJson(500, "internal", std::string("internal error: ") + e.what()), {});
      } else {
        responder.AbortStream();
      }
    }
    if (!responder.started()) {
      (void)responder.Send(500, "application/json", ErrorJson(500, "internal", "the endpoint sent no response"), {});
    }
  }
  CompletedRequest c;
  c.request = &request_;
  c.status = responder.status();
  c.bytes = responder.bytes_sent();
  c.seconds = NowSeconds() - request_.received_s;
  if (c.status == 503 && NowSeconds() > request_.deadline_s && !responder.started()) c.reject_reason = "deadline";
  if (srv->observer) srv->observer(c);
  const bool close = responder.must_close();
  srv->RequestDone();
  if (auto res = responder.TakeComplete()) {
    FinishWith(std::move(res), close, on_io_thread);
  } else {
    AfterResponse(close);
  }
}

}  // namespace rap::server
