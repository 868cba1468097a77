#include "testing/fault_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <sstream>

namespace rap::testing {

namespace {

bool SendAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Parses "bytes=a-b", "bytes=a-" and "bytes=-n" against `size`: false when absent or unsatisfiable.
bool ResolveRange(const std::string& h, uint64_t size, uint64_t* first, uint64_t* last) {
  if (h.rfind("bytes=", 0) != 0) return false;
  std::string spec = h.substr(6);
  size_t dash = spec.find('-');
  if (dash == std::string::npos) return false;
  std::string a = spec.substr(0, dash), b = spec.substr(dash + 1);
  if (a.empty()) {
    uint64_t n = std::stoull(b);
    if (n == 0 || size == 0) return false;
    *first = size - std::min(n, size);
    *last = size - 1;
    return true;
  }
  *first = std::stoull(a);
  *last = b.empty() ? size - 1 : std::min<uint64_t>(std::stoull(b), size - 1);
  return *first < size && *first <= *last;
}

}  // namespace

FaultServer::FaultServer() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(listen_fd_, 128) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(listen_fd_);
    listen_fd_ = -1;
    return;
  }
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

FaultServer::~FaultServer() {
  stop_ = true;
  stop_cv_.notify_all();
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (auto& t : threads_) t.join();
  for (int fd : client_fds_) ::close(fd);
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void FaultServer::AddObject(const std::string& path, std::string data) {
  std::lock_guard<std::mutex> lock(mu_);
  objects_[path] = std::move(data);
}

void FaultServer::QueueFaults(std::vector<FaultSpec> faults) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& f : faults) queue_.push_back(f);
}

void FaultServer::SetPersistentFault(FaultSpec f) {
  std::lock_guard<std::mutex> lock(mu_);
  persistent_ = f;
}

std::vector<FaultRequest> FaultServer::RequestLog() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

FaultSpec FaultServer::NextFault() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!queue_.empty()) {
    FaultSpec f = queue_.front();
    queue_.pop_front();
    return f;
  }
  return persistent_;
}

void FaultServer::AcceptLoop() {
  while (!stop_) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stop_) return;
      continue;
    }
    ++connections_;
    ++live_connections_;
    std::lock_guard<std::mutex> lock(mu_);
    client_fds_.push_back(fd);
    threads_.emplace_back([this, fd] {
      Serve(fd);
      --live_connections_;
    });
  }
}

void FaultServer::Serve(int fd) {
  std::string pending;
  char buf[8192];
  while (!stop_) {
    size_t end;
    while ((end = pending.find("\r\n\r\n")) == std::string::npos) {
      ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) {
        ::shutdown(fd, SHUT_RDWR);
        return;  // the destructor closes the fd
      }
      pending.append(buf, static_cast<size_t>(n));
    }
    std::string head = pending.substr(0, end);
    pending.erase(0, end + 4);
    FaultRequest req;
    std::istringstream in(head);
    std::string line;
    std::getline(in, line);
    std::istringstream rl(line);
    rl >> req.method >> req.path;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(' '));
      req.headers[Lower(line.substr(0, colon))] = v;
    }
    req.range = req.headers.count("range") ? req.headers["range"] : "";
    // A request body (PUT) is read; a PUT stores it as the object.
    std::string put_body;
    if (req.headers.count("content-length")) {
      size_t want = std::stoull(req.headers["content-length"]);
      if (req.headers.count("expect")) SendAll(fd, "HTTP/1.1 100 Continue\r\n\r\n");
      while (pending.size() < want) {
        ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
        if (n <= 0) return;
        pending.append(buf, static_cast<size_t>(n));
      }
      put_body = pending.substr(0, want);
      pending.erase(0, want);
    }
    ++requests_;
    std::string object;
    bool found;
    {
      std::lock_guard<std::mutex> lock(mu_);
      log_.push_back(req);
      auto it = objects_.find(req.path);
      found = it != objects_.end();
      if (found) object = it->second;
    }
    FaultSpec f = NextFault();
    bool head_only = req.method == "HEAD";
    auto simple = [&](int code, const char* reason, const std::string& extra) {
      std::string body = std::string(reason) + "\n";
      return SendAll(fd, "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\n" + extra + "\r\n" + (head_only ? "" : body));
    };
    std::string etag = f.fault == Fault::kChangeEtag ? "\"other-etag\"" : "\"etag-1\"";
    bool ok = true;
    switch (f.fault) {
      case Fault::kReset: {
        linger lg{1, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
        ::shutdown(fd, SHUT_RDWR);
        return;
      }
      case Fault::k503:
      case Fault::k429: {
        std::string extra = f.retry_after >= 0 ? "Retry-After: " + std::to_string(f.retry_after) + "\r\n" : "";
        ok = f.fault == Fault::k503 ? simple(503, "Service Unavailable", extra) : simple(429, "Too Many Requests", extra);
        if (!ok) return;
        continue;
      }
      case Fault::k404:
        if (!simple(404, "Not Found", "")) return;
        continue;
      case Fault::k403:
        if (!simple(403, "Forbidden", "")) return;
        continue;
      default:
        break;
    }
    if (req.method == "PUT") {
      {
        std::lock_guard<std::mutex> lock(mu_);
        objects_[req.path] = put_body;
      }
      if (!simple(200, "OK", "ETag: \"etag-1\"\r\n")) return;
      continue;
    }
    if (!found) {
      if (!simple(404, "Not Found", "")) return;
      continue;
    }
    uint64_t size = object.size(), first = 0, last = size ? size - 1 : 0;
    bool ranged = !req.range.empty() && f.fault != Fault::kIgnoreRange;
    if (ranged && !ResolveRange(req.range, size, &first, &last)) {
      if (!simple(416, "Range Not Satisfiable", "Content-Range: bytes */" + std::to_string(size) + "\r\n")) return;
      continue;
    }
    uint64_t count = size == 0 ? 0 : last - first + 1;
    if (f.fault == Fault::kLieRange && last + 1 < size) {
      ++first;
      ++last;
    }
    std::string body = object.substr(first, count);
    if (f.fault == Fault::kOversize) body += std::string(10, 'X');
    std::ostringstream hdr;
    hdr << "HTTP/1.1 " << (ranged ? "206 Partial Content" : "200 OK") << "\r\n";
    hdr << "Content-Length: " << body.size() << "\r\nETag: " << etag
        << "\r\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\n";
    if (ranged) hdr << "Content-Range: bytes " << first << "-" << last << "/" << size << "\r\n";
    hdr << "\r\n";
    if (head_only) {
      if (!SendAll(fd, hdr.str())) return;
      continue;
    }
    if (f.fault == Fault::kTruncate) {
      SendAll(fd, hdr.str() + body.substr(0, body.size() / 2));
      ::shutdown(fd, SHUT_RDWR);
      return;
    }
    if (f.fault == Fault::kStall) {
      SendAll(fd, hdr.str() + body.substr(0, std::min<size_t>(body.size() / 2, 16)));
      std::unique_lock<std::mutex> lock(mu_);
      stop_cv_.wait_for(lock, std::chrono::seconds(60), [&] { return stop_.load(); });
      return;
    }
    if (!SendAll(fd, hdr.str() + body)) return;
  }
}

}  // namespace rap::testing
