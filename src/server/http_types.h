// The server's view of one HTTP exchange, free of Boost.Beast types so the endpoints (and their
// compile times) do not depend on it: the parsed request, and a Responder that sends a whole
// response or streams one with chunked transfer encoding. http_responder.cc implements Responder.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rap/util/status.h"

namespace rap::server {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as received: "/v1/tables/events/lookup?key=1"
  std::string path;    // percent-decoded path without the query
  std::vector<std::pair<std::string, std::string>> query;  // percent-decoded, in order
  std::map<std::string, std::string> headers;             // names lower-cased
  std::string body;
  std::string remote;       // "127.0.0.1:50312"
  double received_s = 0;    // NowSeconds() when the whole request had arrived
  double deadline_s = 0;    // NowSeconds() past which the request is answered 503

  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
  std::vector<std::string> QueryAll(const std::string& name) const {
    std::vector<std::string> out;
    for (const auto& [k, v] : query) {
      if (k == name) out.push_back(v);
    }
    return out;
  }
  std::optional<std::string> Query(const std::string& name) const {
    for (const auto& [k, v] : query) {
      if (k == name) return v;
    }
    return std::nullopt;
  }
};

class Responder {
 public:
  virtual ~Responder() = default;
  // A complete response with Content-Length.
  virtual Status Send(int status, std::string_view content_type, std::string body, const HeaderList& extra = {}) = 0;
  // A streamed response (Transfer-Encoding: chunked): BeginStream, any number of Write, EndStream.
  virtual Status BeginStream(int status, std::string_view content_type, const HeaderList& extra = {}) = 0;
  virtual Status Write(std::string_view data) = 0;
  virtual Status EndStream() = 0;
  // Ends a started stream without its last chunk and closes the connection, so the client sees an
  // incomplete response (for errors after the status line was sent in a format without an error channel).
  virtual void AbortStream() = 0;
  virtual bool started() const = 0;          // a status line was sent
  virtual uint64_t bytes_sent() const = 0;   // body bytes so far
};

// Percent-decodes `s` ('+' as space when `plus_is_space`); false on a malformed escape.
bool PercentDecode(std::string_view s, bool plus_is_space, std::string* out);
// Splits "a=1&b=2" into decoded pairs; false on a malformed escape.
bool ParseQuery(std::string_view query, std::vector<std::pair<std::string, std::string>>* out);

}  // namespace rap::server
