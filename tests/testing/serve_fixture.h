// Helpers for tests of `rap serve` (header-only; only tests linking rap::server include it): an
// in-process Server on a free loopback port, and checks of response documents.
#pragma once

#include <memory>
#include <regex>
#include <sstream>
#include <string>

#include "rap/server/server.h"
#include "testing/curl_client.h"

namespace rap::testing {

// A Server on 127.0.0.1:<free port> (port 0), without access log unless asked; stopped by the destructor.
class ServeFixture {
 public:
  static Result<std::unique_ptr<ServeFixture>> Start(server::ServerOptions o) {
    o.host = "127.0.0.1";
    o.port = 0;
    RAP_ASSIGN_OR_RETURN(auto s, server::Server::Start(std::move(o)));
    auto f = std::unique_ptr<ServeFixture>(new ServeFixture());
    f->server_ = std::move(s);
    return f;
  }
  server::Server& server() { return *server_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }
  uint16_t port() const { return server_->port(); }
  std::unique_ptr<CurlClient> Client(double timeout_s = 30) const { return std::make_unique<CurlClient>(url(), timeout_s); }

 private:
  ServeFixture() = default;
  std::unique_ptr<server::Server> server_;
};

// Whether `text` is valid Prometheus text exposition (0.0.4): every line a comment (# HELP/# TYPE)
// or `name{labels} value`; "" when valid, else the first bad line.
inline std::string PrometheusProblem(const std::string& text) {
  static const std::regex sample(
      R"(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*")(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*")*\})? [-+]?([0-9.eE+-]+|NaN|\+Inf|-Inf)$)");
  static const std::regex comment(R"(^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*$)");
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (!std::regex_match(line, line[0] == '#' ? comment : sample)) return line;
  }
  return "";
}

// The value of the sample `name{labels}` (exact text before the space), or -1 when absent.
inline double PrometheusValue(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 && line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return -1;
}

}  // namespace rap::testing
