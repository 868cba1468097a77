#include "netsim/server.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <optional>
#include <unordered_map>
#include <utility>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "netsim/http_util.h"
#include "netsim/object_put.h"
#include "netsim/s3_list.h"
#include "netsim/server_impl.h"

namespace rap::netsim {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// File metadata for one response.
struct OpenFile {
  int fd = -1;
  uint64_t size = 0;
  std::string etag;
  std::string last_modified;
  OpenFile() = default;
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;
  ~OpenFile() {
    if (fd >= 0) ::close(fd);
  }
};

static std::string HttpDate(time_t t) {
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return std::string(buf, n);
}

// One client connection: reads requests one after another (keep-alive) and answers each.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Server::Impl& server, tcp::socket socket) : srv_(server), socket_(std::move(socket)), timer_(server.io) {}

  void Start() { ReadRequest(); }

  // Closes the connection; pending operations complete with operation_aborted.
  void Close() {
    error_code ec;
    timer_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }

 private:
  void ReadRequest() {
    parser_.emplace();
    parser_->header_limit(16 * 1024);
    parser_->body_limit(uint64_t{1} << 30);  // PUT bodies (GETs have none)
    http::async_read_header(socket_, buffer_, *parser_,
                            [self = shared_from_this()](error_code ec, size_t) { self->OnHeader(ec); });
  }

  // A client that sent "Expect: 100-continue" (curl does for PUT bodies) waits for a 100 before
  // it sends the body.
  void OnHeader(error_code ec) {
    if (ec) return OnRequest(ec);
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      asio::async_write(socket_, asio::buffer(kContinue), [self = shared_from_this()](error_code ec, size_t) {
        if (ec) return self->OnRequest(ec);
        self->ReadBody();
      });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    http::async_read(socket_, buffer_, *parser_,
                     [self = shared_from_this()](error_code ec, size_t) { self->OnRequest(ec); });
  }

  void OnRequest(error_code ec) {
    if (ec) {
      if (ec != http::error::end_of_stream && ec != asio::error::operation_aborted &&
          ec != asio::error::connection_reset && ec != asio::error::eof) {
        srv_.Log("read request: " + ec.message());
        if (socket_.is_open()) WriteSimple(http::status::bad_request, "bad request: " + ec.message(), false, false);
        return;
      }
      Close();
      return;
    }
    req_ = parser_->release();
    keep_alive_ = req_.keep_alive();
    std::string_view target(req_.target().data(), req_.target().size());
    size_t q = target.find('?');
    std::string_view raw_path = target.substr(0, q);
    std::string_view query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
    auto path = PercentDecode(raw_path);
    if (!path.ok()) {
      WriteSimple(http::status::bad_request, path.status().message(), keep_alive_, false);
      return;
    }
    path_ = *path;
    query_ = std::string(query);
    if (path_.rfind(kControlPrefix, 0) == 0 || path_ == "/_netsim") {
      HandleControl(std::string(query));
      return;
    }
    bool head = req_.method() == http::verb::head;
    srv_.stats.OnRequest(path_, head);
    srv_.stats.OnResponseStart();
    in_response_ = true;
    auto latency = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(srv_.options.profile.latency_seconds));
    timer_.expires_after(latency);
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->Respond();
    });
  }

  // --- counted requests -------------------------------------------------------------------------

  void Respond() {
    stall_seconds_ = 0;  // per response; the connection may have served a stalled one before
    bool head = req_.method() == http::verb::head;
    if (req_.method() == http::verb::put) return RespondPut();
    if (req_.method() == http::verb::delete_) return RespondDelete();
    if (!head && req_.method() != http::verb::get) {
      WriteSimple(http::status::method_not_allowed, "only GET, HEAD, PUT and DELETE are served", keep_alive_, true);
      return;
    }
    if (!head) {
      auto q = ParseQuery(query_);
      if (q.ok() && IsListObjectsV2(*q)) return RespondList(*q);
    }
    auto resolved = ResolveUnderRoot(srv_.options.root, path_);
    if (!resolved.ok()) {
      auto status = resolved.status().Is(StatusCode::kAccessDenied) ? http::status::forbidden
                    : resolved.status().Is(StatusCode::kNotFound)   ? http::status::not_found
                                                                    : http::status::bad_request;
      if (!MaybeStatusFault()) WriteSimple(status, resolved.status().message(), keep_alive_, true);
      return;
    }
    file_.emplace();
    file_->fd = ::open(resolved->c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (file_->fd < 0 || ::fstat(file_->fd, &st) != 0) {
      WriteSimple(http::status::not_found, fmt::format("{}: cannot open", path_), keep_alive_, true);
      return;
    }
    file_->size = static_cast<uint64_t>(st.st_size);
    file_->etag = fmt::format("\"{:x}-{:x}\"", file_->size, static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ULL +
                                                                static_cast<uint64_t>(st.st_mtim.tv_nsec));
    file_->last_modified = HttpDate(st.st_mtim.tv_sec);

    RangeRequest range;
    if (!head) {
      auto it = req_.find(http::field::range);
      if (it != req_.end()) range = ParseRange(std::string_view(it->value().data(), it->value().size()), file_->size);
    }
    if (range.kind == RangeRequest::kUnsatisfiable) {
      if (MaybeStatusFault()) return;
      res_.emplace();
      res_->result(http::status::range_not_satisfiable);
      res_->set(http::field::content_range, fmt::format("bytes */{}", file_->size));
      SendHeaderAndBody(0, 0, keep_alive_, std::nullopt);
      return;
    }
    bool partial = range.kind == RangeRequest::kSingle;
    uint64_t first = partial ? range.first : 0;
    uint64_t length = partial ? range.last - range.first + 1 : file_->size;
    if (!head) srv_.stats.OnRead(path_, first, length);
    auto fault = srv_.faults.Pick(path_, !head);
    if (fault) srv_.stats.OnFault(fault->Name());
    if (fault && ApplyEarlyFault(*fault)) return;

    res_.emplace();
    res_->result(partial ? http::status::partial_content : http::status::ok);
    if (partial) {
      srv_.stats.OnRangeGet(path_);
      res_->set(http::field::content_range, fmt::format("bytes {}-{}/{}", first, first + length - 1, file_->size));
    }
    if (fault && fault->kind == FaultKind::kBadRange) {
      // A Content-Range that does not match the request (shifted by one byte, kept inside the file
      // when possible); the status is 206 even for a whole-file GET.
      uint64_t shown = first + length < file_->size || first == 0 ? first + 1 : first - 1;
      res_->result(http::status::partial_content);
      res_->set(http::field::content_range,
                fmt::format("bytes {}-{}/{}", shown, shown + (length == 0 ? 0 : length - 1), file_->size));
    }
    std::optional<uint64_t> truncate_after;
    if (fault && fault->kind == FaultKind::kTruncate) {
      truncate_after = std::min(length, fault->truncate_after.value_or(length / 2));
    }
    stall_seconds_ = fault && fault->kind == FaultKind::kStall ? fault->stall_seconds : 0;
    SendHeaderAndBody(first, head ? 0 : length, keep_alive_ && !truncate_after, truncate_after, length);
  }

  // S3 ListObjectsV2 on "/BUCKET" or "/BUCKET/" (s3_list.h). Reset and status faults apply; the
  // XML body is not throttled (it is small next to the data).
  void RespondList(const std::map<std::string, std::string>& query) {
    if (MaybeStatusFault()) return;
    std::string bucket = path_.substr(1);
    if (!bucket.empty() && bucket.back() == '/') bucket.pop_back();
    srv_.stats.OnList(path_);
    auto xml = ListObjectsV2(srv_.options.root, bucket, query);
    if (!xml.ok()) {
      const auto status = xml.status().Is(StatusCode::kNotFound) ? http::status::not_found : http::status::bad_request;
      WriteSimple(status, xml.status().message(), keep_alive_, true);
      return;
    }
    auto res = std::make_shared<http::response<http::string_body>>(http::status::ok, 11);
    res->set(http::field::server, "rap-netsim");
    res->set(http::field::content_type, "application/xml");
    res->body() = std::move(*xml);
    res->keep_alive(keep_alive_);
    res->prepare_payload();
    srv_.stats.OnStatus(200);
    WriteMessage(res, keep_alive_, true);
  }

  // S3 PutObject (object_put.h): stored atomically once the whole body arrived. Faults: reset and
  // status as for reads (nothing stored); truncate and bad_range close the connection without an
  // answer and store nothing (an upload cut off mid-body); stall stores nothing and answers nothing
  // for `seconds`, then closes; lost stores the object and resets the connection instead of
  // answering.
  void RespondPut() {
    auto fault = srv_.faults.Pick(path_, /*body_response=*/true, /*is_write=*/true);
    if (fault) srv_.stats.OnFault(fault->Name());
    if (fault && ApplyEarlyFault(*fault)) return;
    if (fault && fault->kind == FaultKind::kStall) {
      timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(fault->stall_seconds)));
      timer_.async_wait([self = shared_from_this()](error_code) {
        self->Close();
        self->EndResponse();
      });
      return;
    }
    if (fault && fault->kind != FaultKind::kLost) {  // truncate, bad_range
      Close();
      EndResponse();
      return;
    }
    const bool if_none_match = req_.find(http::field::if_none_match) != req_.end();
    Status st = PutObject(srv_.options.root, path_, req_.body(), if_none_match);
    if (fault) return LoseAnswer();  // kLost: stored (or refused), and the answer never sent
    if (st.Is(StatusCode::kChanged)) return WriteSimple(http::status::precondition_failed, st.message(), keep_alive_, true);
    if (st.Is(StatusCode::kAccessDenied)) return WriteSimple(http::status::forbidden, st.message(), keep_alive_, true);
    if (st.Is(StatusCode::kInvalidArgument)) return WriteSimple(http::status::bad_request, st.message(), keep_alive_, true);
    if (!st.ok()) return WriteSimple(http::status::internal_server_error, st.message(), keep_alive_, true);
    WriteSimple(http::status::ok, "stored", keep_alive_, true);
  }

  // S3 DeleteObject (200 here, S3 answers 204; also for a missing key). Reset and status faults apply,
  // and lost (deleted, then the connection reset instead of the answer).
  void RespondDelete() {
    auto fault = srv_.faults.Pick(path_, /*body_response=*/false, /*is_write=*/true);
    if (fault) srv_.stats.OnFault(fault->Name());
    if (fault && ApplyEarlyFault(*fault)) return;
    Status st = DeleteObject(srv_.options.root, path_);
    if (fault) return LoseAnswer();  // kLost: deleted, and the answer never sent
    if (st.Is(StatusCode::kAccessDenied)) return WriteSimple(http::status::forbidden, st.message(), keep_alive_, true);
    if (st.Is(StatusCode::kInvalidArgument)) return WriteSimple(http::status::bad_request, st.message(), keep_alive_, true);
    if (!st.ok()) return WriteSimple(http::status::internal_server_error, st.message(), keep_alive_, true);
    WriteSimple(http::status::ok, "deleted", keep_alive_, true);
  }

  // Faults answered without the file body. Returns true if the request was handled.
  bool ApplyEarlyFault(const FaultRule& fault) {
    if (fault.kind == FaultKind::kReset) {
      error_code ec;
      socket_.set_option(asio::socket_base::linger(true, 0), ec);  // close() then sends RST
      socket_.close(ec);
      EndResponse();
      return true;
    }
    if (fault.kind == FaultKind::kStatus) {
      WriteStatusFault(fault);
      return true;
    }
    return false;
  }

  // The "lost" fault of a write: the write happened; the connection is reset instead of answering.
  void LoseAnswer() {
    error_code ec;
    socket_.set_option(asio::socket_base::linger(true, 0), ec);  // close() then sends RST
    socket_.close(ec);
    EndResponse();
  }

  // For responses without a file (404, 416): only reset and status faults apply.
  bool MaybeStatusFault() {
    auto fault = srv_.faults.Pick(path_, /*body_response=*/false);
    if (!fault) return false;
    srv_.stats.OnFault(fault->Name());
    return ApplyEarlyFault(*fault);
  }

  void WriteStatusFault(const FaultRule& fault) {
    auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(fault.status), 11);
    if (fault.status == 503 || fault.status == 429) {
      res->set(http::field::retry_after, std::to_string(static_cast<uint64_t>(std::ceil(fault.retry_after))));
    }
    res->set(http::field::content_type, "text/plain");
    res->body() = fmt::format("injected fault: {}\n", fault.status);
    res->keep_alive(keep_alive_);
    res->prepare_payload();
    srv_.stats.OnStatus(fault.status);
    WriteMessage(res, keep_alive_, true);
  }

  // Writes the header of res_ (status and Content-Range already set), then `length` payload bytes
  // of the file from `offset` through the throttle; stops after `truncate_after` bytes if set.
  void SendHeaderAndBody(uint64_t offset, uint64_t length, bool keep_alive, std::optional<uint64_t> truncate_after,
                         std::optional<uint64_t> announced = std::nullopt) {
    res_->version(11);
    res_->set(http::field::server, "rap-netsim");
    res_->set(http::field::accept_ranges, "bytes");
    res_->set(http::field::content_type, "application/octet-stream");
    res_->set(http::field::etag, file_->etag);
    res_->set(http::field::last_modified, file_->last_modified);
    bool head = req_.method() == http::verb::head;
    res_->content_length(head ? file_->size : announced.value_or(length));
    res_->keep_alive(keep_alive);
    keep_alive_ = keep_alive;
    srv_.stats.OnStatus(res_->result_int());
    offset_ = offset;
    remaining_ = truncate_after ? *truncate_after : length;
    truncated_ = truncate_after.has_value();
    serializer_.emplace(*res_);
    http::async_write_header(socket_, *serializer_, [self = shared_from_this()](error_code ec, size_t) {
      if (ec) return self->Abort("write header", ec);
      if (self->stall_seconds_ > 0) {
        self->timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(self->stall_seconds_)));
        self->timer_.async_wait([self](error_code ec2) {
          if (!ec2) self->SendBody();
        });
        return;
      }
      self->SendBody();
    });
  }

  void SendBody() {
    if (remaining_ == 0) return FinishBody();
    if (!streaming_) {
      streaming_ = true;
      srv_.throttle.BeginStream();
    }
    srv_.throttle.Acquire(static_cast<size_t>(std::min<uint64_t>(remaining_, 1 << 20)),
                          [self = shared_from_this()](size_t granted) { self->OnGrant(granted); });
  }

  void OnGrant(size_t granted) {
    if (granted == 0 || !socket_.is_open()) return Abort("throttle", asio::error::operation_aborted);
    chunk_.resize(granted);
    ssize_t n = ::pread(file_->fd, chunk_.data(), granted, static_cast<off_t>(offset_));
    if (n <= 0) {
      // The file shrank while it was being served: the body cannot be completed.
      srv_.Log(fmt::format("{}: pread at offset {} returned {}", path_, offset_, n));
      Close();
      EndResponse();
      return;
    }
    asio::async_write(socket_, asio::buffer(chunk_.data(), static_cast<size_t>(n)),
                      [self = shared_from_this()](error_code ec, size_t written) {
                        if (ec) return self->Abort("write body", ec);
                        self->srv_.stats.OnPayload(self->path_, written);
                        self->offset_ += written;
                        self->remaining_ -= written;
                        self->SendBody();
                      });
  }

  void FinishBody() {
    file_.reset();
    EndResponse();
    if (truncated_ || !keep_alive_) {
      // A truncated body must end the connection, or the client would wait for the rest.
      error_code ec;
      socket_.shutdown(tcp::socket::shutdown_send, ec);
      socket_.close(ec);
      return;
    }
    ReadRequest();
  }

  void EndResponse() {
    if (in_response_) srv_.stats.OnResponseEnd();
    in_response_ = false;
    if (streaming_) srv_.throttle.EndStream();
    streaming_ = false;
  }

  void Abort(const char* what, error_code ec) {
    if (!srv_.stopping && ec != asio::error::operation_aborted && ec != asio::error::broken_pipe &&
        ec != asio::error::connection_reset) {
      srv_.Log(fmt::format("{} {}: {}", what, path_, ec.message()));
    }
    Close();
    EndResponse();
  }

  // --- simple responses -------------------------------------------------------------------------

  void WriteSimple(http::status status, const std::string& text, bool keep_alive, bool counted) {
    auto res = std::make_shared<http::response<http::string_body>>(status, 11);
    res->set(http::field::server, "rap-netsim");
    res->set(http::field::content_type, "text/plain");
    res->body() = text + "\n";
    res->keep_alive(keep_alive);
    res->prepare_payload();
    if (counted) srv_.stats.OnStatus(static_cast<unsigned>(status));
    WriteMessage(res, keep_alive, counted);
  }

  void WriteJson(http::status status, const std::string& json) {
    auto res = std::make_shared<http::response<http::string_body>>(status, 11);
    res->set(http::field::server, "rap-netsim");
    res->set(http::field::content_type, "application/json");
    res->set(http::field::cache_control, "no-store");
    res->body() = json + "\n";
    res->keep_alive(keep_alive_);
    res->prepare_payload();
    WriteMessage(res, keep_alive_, false);
  }

  void WriteMessage(std::shared_ptr<http::response<http::string_body>> res, bool keep_alive, bool counted) {
    http::async_write(socket_, *res, [self = shared_from_this(), res, keep_alive, counted](error_code ec, size_t) {
      if (counted) self->EndResponse();
      if (ec) return self->Abort("write", ec);
      if (!keep_alive) {
        error_code ec2;
        self->socket_.shutdown(tcp::socket::shutdown_send, ec2);
        self->socket_.close(ec2);
        return;
      }
      self->ReadRequest();
    });
  }

  // --- control endpoint (control.cc) ------------------------------------------------------------

  void HandleControl(const std::string& query) {
    const std::string_view cmd = std::string_view(path_).substr(std::min(path_.size(), kControlPrefix.size()));
    ControlAnswer answer = AnswerControl(srv_, cmd, path_, query);
    WriteJson(static_cast<http::status>(answer.status), answer.json);
  }

  Server::Impl& srv_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::request<http::string_body> req_;
  std::string path_;
  std::string query_;
  bool keep_alive_ = true;
  bool in_response_ = false;
  bool streaming_ = false;  // between Throttle::BeginStream and EndStream
  std::optional<OpenFile> file_;
  std::optional<http::response<http::empty_body>> res_;
  std::optional<http::response_serializer<http::empty_body>> serializer_;
  std::vector<char> chunk_;
  uint64_t offset_ = 0;
  uint64_t remaining_ = 0;
  bool truncated_ = false;
  double stall_seconds_ = 0;
};

void Server::Impl::Accept() {
  acceptor.async_accept([this](error_code ec, tcp::socket socket) {
    if (stopping) return;
    if (ec) {
      Log("accept: " + ec.message());
    } else {
      error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto session = std::make_shared<Session>(*this, std::move(socket));
      for (auto it = sessions.begin(); it != sessions.end();) {
        it = it->second.expired() ? sessions.erase(it) : std::next(it);
      }
      sessions[next_session_id++] = session;
      session->Start();
    }
    Accept();
  });
}

// A test that crashes cannot stop its server: the orphan notices that its parent changed.
void Server::Impl::WatchParent() {
  if (getppid() != options.watch_parent) {
    Log("parent process exited; stopping");
    return StopOnIoThread();
  }
  parent_timer.expires_after(std::chrono::milliseconds(500));
  parent_timer.async_wait([this](error_code ec) {
    if (!ec && !stopping) WatchParent();
  });
}

void Server::Impl::StopOnIoThread() {
  if (stopping) return;
  stopping = true;
  error_code ec;
  acceptor.close(ec);
  signals.cancel(ec);
  parent_timer.cancel();
  throttle.Cancel();
  for (auto& [id, weak] : sessions) {
    if (auto s = weak.lock()) s->Close();
  }
  sessions.clear();
}

Result<std::unique_ptr<Server>> Server::Create(ServerOptions options) {
  std::error_code fec;
  auto root = std::filesystem::canonical(options.root, fec);
  if (fec || !std::filesystem::is_directory(root)) {
    return Status::NotFound(fmt::format("root '{}': not a directory", options.root.string()));
  }
  options.root = root;
  auto impl = std::make_unique<Impl>(std::move(options));
  for (const FaultRule& rule : impl->options.faults) impl->faults.Add(rule);
  error_code ec;
  auto address = asio::ip::make_address(impl->options.bind, ec);
  if (ec) return Status::InvalidArgument(fmt::format("bind address '{}': {}", impl->options.bind, ec.message()));
  tcp::endpoint endpoint(address, impl->options.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::IOError(fmt::format("listen on {}:{}: {}", impl->options.bind, impl->options.port, ec.message()));
  }
  if (impl->options.handle_signals) {
    // Installed now, before the caller announces the port: a signal that arrives before Run() is
    // queued by asio and still stops the server cleanly.
    impl->signals.add(SIGINT, ec);
    if (!ec) impl->signals.add(SIGTERM, ec);
    if (ec) return Status::IOError(fmt::format("install SIGINT/SIGTERM handlers: {}", ec.message()));
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

uint16_t Server::port() const {
  error_code ec;
  auto ep = impl_->acceptor.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

void Server::Run() {
  Impl& s = *impl_;
  if (s.options.handle_signals) {
    s.signals.async_wait([&s](error_code ec, int) {
      if (!ec) s.StopOnIoThread();
    });
  }
  if (s.options.watch_parent > 0) s.WatchParent();
  s.Accept();
  s.io.run();
}

void Server::Stop() {
  asio::post(impl_->io, [impl = impl_.get()] { impl->StopOnIoThread(); });
}

}  // namespace rap::netsim
