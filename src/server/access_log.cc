// Access log (src/server/access_log.h).
#include "server/access_log.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

namespace rap::server {

AccessLog::~AccessLog() {
  if (owned_ && file_) std::fclose(file_);
}

Status AccessLog::Open(const std::string& spec) {
  if (spec.empty()) return Status::OK();
  if (spec == "-") {
    file_ = stderr;
    return Status::OK();
  }
  file_ = std::fopen(spec.c_str(), "a");
  if (!file_) return Status::IOError("access log " + spec + ": " + std::strerror(errno));
  owned_ = true;
  return Status::OK();
}

void AccessLog::Write(const CompletedRequest& c) {
  if (!file_) return;
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char ts[32];
  std::strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
  const HttpRequest* r = c.request;
  std::string path = r && !r->path.empty() ? r->path : "-";
  if (path.size() > 256) path = path.substr(0, 256) + "...";
  for (char& ch : path) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == '"') ch = '?';
  }
  const std::string line =
      fmt::format("{}.{:03d}Z {} \"{} {}\" {} {} {:.3f}ms{}{}\n", ts, static_cast<int>(ms),
                  r && !r->remote.empty() ? r->remote : "-", r && !r->method.empty() ? r->method : "-", path, c.status,
                  c.bytes, c.seconds * 1e3, c.reject_reason.empty() ? "" : " ", c.reject_reason);
  std::lock_guard<std::mutex> lock(mu_);
  std::fputs(line.c_str(), file_);
  std::fflush(file_);
}

}  // namespace rap::server
