#include "testing/netsim_fixture.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rap/util/clock.h"
#include "testing/paths.h"

extern char** environ;

namespace rap::testing {

static std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string HttpResponse::Header(const std::string& name) const {
  auto it = headers.find(Lower(name));
  return it == headers.end() ? std::string() : it->second;
}

// --- RawHttpClient ----------------------------------------------------------------------------

Result<std::unique_ptr<RawHttpClient>> RawHttpClient::Connect(uint16_t port, double timeout_seconds) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IOError(fmt::format("socket: {}", std::strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int err = errno;
    ::close(fd);
    return Status::IOError(fmt::format("connect 127.0.0.1:{}: {}", port, std::strerror(err)));
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return std::unique_ptr<RawHttpClient>(new RawHttpClient(fd, timeout_seconds));
}

RawHttpClient::~RawHttpClient() {
  if (fd_ >= 0) ::close(fd_);
}

long RawHttpClient::Fill() {
  // Large reads, and a poll only when nothing is waiting: a benchmark reads hundreds of MiB/s
  // through this client.
  constexpr size_t kStep = 256 * 1024;
  if (!buffer_) buffer_ = std::make_unique<char[]>(kStep);
  ssize_t n = ::recv(fd_, buffer_.get(), kStep, MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    pollfd p{fd_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(timeout_seconds_ * 1000));
    if (r <= 0) return r == 0 ? -2 : -3;
    n = ::recv(fd_, buffer_.get(), kStep, 0);
  }
  if (n < 0) return errno == ECONNRESET ? -1 : -3;
  pending_.append(buffer_.get(), static_cast<size_t>(n));
  return n;
}

Result<HttpResponse> RawHttpClient::Request(const std::string& method, const std::string& target,
                                            const std::vector<std::pair<std::string, std::string>>& headers) {
  if (fd_ < 0) return Status::IOError("raw HTTP client: the connection is closed");
  std::string req = fmt::format("{} {} HTTP/1.1\r\nHost: 127.0.0.1\r\n", method, target);
  for (const auto& [k, v] : headers) req += fmt::format("{}: {}\r\n", k, v);
  req += "\r\n";
  Stopwatch watch;
  for (size_t sent = 0; sent < req.size();) {
    ssize_t n = ::send(fd_, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return Status::IOError(fmt::format("raw HTTP client: send {} {}: {}", method, target, std::strerror(errno)));
    sent += static_cast<size_t>(n);
  }
  HttpResponse res;
  auto fail = [&](long code) {
    res.reset = code == -1;
    res.closed = code == 0 || code == -1;
    res.timed_out = code == -2;
    res.total_seconds = watch.ElapsedSeconds();
    ::close(fd_);
    fd_ = -1;
    return res;
  };
  // Header block.
  size_t end = 0;
  while ((end = pending_.find("\r\n\r\n")) == std::string::npos) {
    if (pending_.size() > 64 * 1024) return Status::Corrupt(fmt::format("{} {}: response header over 64 KiB", method, target));
    long n = Fill();
    if (n <= 0) return fail(n);
    if (res.first_byte_seconds == 0) res.first_byte_seconds = watch.ElapsedSeconds();
  }
  if (res.first_byte_seconds == 0) res.first_byte_seconds = watch.ElapsedSeconds();
  std::string head = pending_.substr(0, end);
  pending_.erase(0, end + 4);
  res.headers_received = true;
  size_t line_end = head.find("\r\n");
  std::string status_line = head.substr(0, line_end);
  if (status_line.size() < 12 || status_line.compare(0, 5, "HTTP/") != 0) {
    return Status::Corrupt(fmt::format("{} {}: bad status line '{}'", method, target, status_line));
  }
  std::from_chars(status_line.data() + 9, status_line.data() + 12, res.status);
  size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    size_t e = head.find("\r\n", pos);
    if (e == std::string::npos) e = head.size();
    std::string line = head.substr(pos, e - pos);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      res.headers[Lower(line.substr(0, colon))] = value;
    }
    pos = e + 2;
  }
  uint64_t length = 0;
  if (method != "HEAD" && res.status != 204 && res.status != 304) {
    std::string cl = res.Header("content-length");
    auto [p, ec] = std::from_chars(cl.data(), cl.data() + cl.size(), length);
    if (ec != std::errc() || p != cl.data() + cl.size()) {
      return Status::Corrupt(fmt::format("{} {}: missing or bad Content-Length '{}'", method, target, cl));
    }
  }
  if (keep_body_) res.body.reserve(static_cast<size_t>(std::min<uint64_t>(length, 64 << 20)));  // grows if larger
  auto consume = [&] {
    size_t take = static_cast<size_t>(std::min<uint64_t>(pending_.size(), length - res.body_bytes));
    if (keep_body_) res.body.append(pending_, 0, take);
    pending_.erase(0, take);
    res.body_bytes += take;
  };
  consume();
  while (res.body_bytes < length) {
    long n = Fill();
    if (n <= 0) return fail(n);
    consume();
  }
  res.complete = true;
  res.total_seconds = watch.ElapsedSeconds();
  if (Lower(res.Header("connection")) == "close") {
    res.closed = true;
    ::close(fd_);
    fd_ = -1;
  }
  return res;
}

// --- NetsimServer -----------------------------------------------------------------------------

std::string NetsimServer::BinaryPath() {
  const char* env = std::getenv("RAP_NETSIM_BINARY");
  if (env && *env) return env;
  return BinaryDir() + "/tools/rap-netsim";
}

std::string NetsimServer::url() const { return fmt::format("http://127.0.0.1:{}", port_); }

static std::string Tail(const std::string& path) {
  std::string s = ReadFileToString(path);
  return s.size() > 2000 ? s.substr(s.size() - 2000) : s;
}

Result<std::unique_ptr<NetsimServer>> NetsimServer::Start(const NetsimOptions& options) {
  std::string binary = BinaryPath();
  if (::access(binary.c_str(), X_OK) != 0) {
    return Status::NotFound(fmt::format("rap-netsim binary '{}' not found (build the rap-netsim target)", binary));
  }
  std::unique_ptr<NetsimServer> server(new NetsimServer());
  std::string templ = (std::filesystem::temp_directory_path() / "rap-netsim-XXXXXX").string();
  if (!::mkdtemp(templ.data())) return Status::IOError(fmt::format("mkdtemp {}: {}", templ, std::strerror(errno)));
  server->dir_ = templ;
  std::string port_file = server->dir_ + "/port";
  server->log_path_ = server->dir_ + "/log";

  std::vector<std::string> args = {binary,       "--root",       options.root,       "--latency", options.latency,
                                   "--throughput", options.throughput, "--port", "0",       "--port-file",
                                   port_file,    "--exit-with-parent"};
  for (const std::string& f : options.faults) {
    args.push_back("--fault");
    args.push_back(f);
  }
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, server->log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  int rc = ::posix_spawn(&server->pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    server->pid_ = -1;
    return Status::IOError(fmt::format("spawn {}: {}", binary, std::strerror(rc)));
  }

  Stopwatch watch;
  while (true) {
    int wstatus = 0;
    if (::waitpid(server->pid_, &wstatus, WNOHANG) == server->pid_) {
      server->pid_ = -1;
      return Status::IOError(fmt::format("rap-netsim exited during start-up: {}", Tail(server->log_path_)));
    }
    std::string text = ReadFileToString(port_file);
    unsigned port = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (ec == std::errc() && port > 0 && port < 65536) {
      server->port_ = static_cast<uint16_t>(port);
      auto health = server->Control("health");
      if (health.ok()) return server;
    }
    if (watch.ElapsedSeconds() > 20) {
      return Status::Timeout(fmt::format("rap-netsim did not answer within 20 s: {}", Tail(server->log_path_)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Status NetsimServer::Stop() {
  if (pid_ < 0) return Status::OK();
  ::kill(pid_, SIGTERM);
  Stopwatch watch;
  int wstatus = 0;
  while (::waitpid(pid_, &wstatus, WNOHANG) != pid_) {
    if (watch.ElapsedSeconds() > 10) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &wstatus, 0);
      pid_ = -1;
      return Status::Timeout("rap-netsim did not exit within 10 s of SIGTERM");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  pid_ = -1;
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return Status::Internal(fmt::format("rap-netsim exited with status {}: {}", wstatus, Tail(log_path_)));
  }
  return Status::OK();
}

NetsimServer::~NetsimServer() {
  Status st = Stop();
  if (!st.ok()) std::fprintf(stderr, "rap-netsim fixture: %s\n", st.ToString().c_str());  // e.g. a sanitizer report
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

Result<std::string> NetsimServer::Control(const std::string& command) {
  RAP_ASSIGN_OR_RETURN(auto client, RawHttpClient::Connect(port_, 10));
  RAP_ASSIGN_OR_RETURN(HttpResponse res, client->Request("GET", "/_netsim/" + command));
  if (!res.complete || res.status != 200) {
    return Status::IOError(fmt::format("rap-netsim /_netsim/{}: status {}: {}", command, res.status, res.body));
  }
  return res.body;
}

static NetsimCounters CountersFrom(const nlohmann::json& j) {
  NetsimCounters c;
  c.requests = j.value("requests", uint64_t{0});
  c.gets = j.value("gets", uint64_t{0});
  c.heads = j.value("heads", uint64_t{0});
  c.range_gets = j.value("range_gets", uint64_t{0});
  c.payload_bytes = j.value("payload_bytes", uint64_t{0});
  return c;
}

Result<NetsimStats> NetsimServer::Stats() {
  RAP_ASSIGN_OR_RETURN(std::string body, Control("stats"));
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Corrupt("rap-netsim /_netsim/stats: not a JSON object: " + body);
  NetsimStats s;
  s.json = body;
  s.total = CountersFrom(j);
  s.max_active_responses = j.value("max_active_responses", uint64_t{0});
  if (j.contains("paths") && j["paths"].is_object()) {
    for (const auto& [path, v] : j["paths"].items()) s.paths[path] = CountersFrom(v);
  }
  for (const char* key : {"status", "faults"}) {
    if (!j.contains(key) || !j[key].is_object()) continue;
    auto& out = std::string(key) == "status" ? s.status : s.faults;
    for (const auto& [k, v] : j[key].items()) out[k] = v.is_number_unsigned() ? v.get<uint64_t>() : 0;
  }
  if (j.contains("reads") && j["reads"].is_array()) {
    for (const auto& r : j["reads"]) {
      if (!r.is_array() || r.size() != 3 || !r[0].is_string() || !r[1].is_number_unsigned() || !r[2].is_number_unsigned()) {
        return Status::Corrupt("rap-netsim /_netsim/stats: a 'reads' element is not [path, first, length]: " + r.dump());
      }
      s.reads.push_back({r[0].get<std::string>(), r[1].get<uint64_t>(), r[2].get<uint64_t>()});
    }
  }
  s.reads_dropped = j.value("reads_dropped", uint64_t{0});
  return s;
}

Status NetsimServer::ResetStats() { return Control("reset").status(); }

Status NetsimServer::SetProfile(const std::string& latency, const std::string& throughput) {
  return Control(fmt::format("config?latency={}&throughput={}", latency, throughput)).status();
}

Status NetsimServer::AddFault(const std::string& spec) { return Control("fault?" + spec).status(); }

Status NetsimServer::ClearFaults() { return Control("faults/clear").status(); }

}  // namespace rap::testing
