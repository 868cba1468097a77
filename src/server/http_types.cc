// Request helpers of the HTTP transport (src/server/http_types.h) and the JSON error body
// (src/server/http_server.h): no Beast or Asio here.
#include "server/http_types.h"

#include <fmt/format.h>

#include "server/http_server.h"
#include "rap/columnar/array_format.h"

namespace rap::server {

std::string ErrorJson(int status, std::string_view code, std::string_view message) {
  return fmt::format("{{\"error\":{{\"status\":{},\"code\":{},\"message\":{}}}}}\n", status, columnar::JsonQuote(code),
                     columnar::JsonQuote(message));
}

bool PercentDecode(std::string_view s, bool plus_is_space, std::string* out) {
  out->clear();
  out->reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size()) return false;
      const int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (s[i] == '+' && plus_is_space) {
      out->push_back(' ');
    } else {
      out->push_back(s[i]);
    }
  }
  return true;
}

bool ParseQuery(std::string_view q, std::vector<std::pair<std::string, std::string>>* out) {
  size_t pos = 0;
  while (pos <= q.size()) {
    size_t amp = q.find('&', pos);
    if (amp == std::string_view::npos) amp = q.size();
    const std::string_view part = q.substr(pos, amp - pos);
    if (!part.empty()) {
      const size_t eq = part.find('=');
      std::string k, v;
      if (!PercentDecode(part.substr(0, eq), true, &k)) return false;
      if (eq != std::string_view::npos && !PercentDecode(part.substr(eq + 1), true, &v)) return false;
      out->emplace_back(std::move(k), std::move(v));
    }
    pos = amp + 1;
  }
  return true;
}

}  // namespace rap::server
