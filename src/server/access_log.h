// AccessLog: one line per answered request —
//   2026-12-01T09:59:00.123Z 127.0.0.1:50312 "POST /v1/tables/events/scan" 200 1234 12.345ms [reason]
// The path is logged without its query string and no header is logged, so keys, page tokens and
// credentials never reach the log. Thread-safe; "-" writes to stderr, "" disables it.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include "rap/util/result.h"
#include "server/http_server.h"

namespace rap::server {

class AccessLog {
 public:
  AccessLog() = default;
  ~AccessLog();
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;

  Status Open(const std::string& spec);
  void Write(const CompletedRequest& c);

 private:
  std::mutex mu_;
  FILE* file_ = nullptr;
  bool owned_ = false;
};

}  // namespace rap::server
