// The server's request-target parsing (server/http_types.h): percent-decoding and the query string
// split into decoded pairs, as every GET /v1/tables/{name}/lookup?key=... goes through it.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz/fuzz_target.h"
#include "server/http_types.h"

RAP_FUZZ_TARGET(server_query) {
  using namespace rap::server;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string decoded;
  if (PercentDecode(text, /*plus_is_space=*/true, &decoded) && decoded.size() > text.size()) __builtin_trap();
  std::vector<std::pair<std::string, std::string>> pairs;
  (void)ParseQuery(text, &pairs);
  return 0;
}
