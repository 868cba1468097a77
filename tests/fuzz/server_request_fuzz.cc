// The server's request parsing (server/requests.h): the scan body (then its "where" through
// ParseExpr, as the endpoint does) and the lookup's POST body and GET query string, for an index of
// one or two key columns. The first byte picks the parser; the rest is the body / query. A request
// that parses must be well-formed: every key has as many parts as the index has key columns, the
// limit is -1 or non-negative.
#include <string>
#include <utility>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_target.h"
#include "rap/read/expr.h"
#include "server/requests.h"

RAP_FUZZ_TARGET(server_request) {
  using namespace rap::server;
  rap::fuzz::FuzzInput in(data, size);
  const uint8_t pick = in.Byte();
  const std::string text = in.RestString();
  const size_t key_columns = 1 + (pick >> 7);
  switch (pick % 3) {
    case 0: {
      ScanRequest r;
      if (!ParseScanRequest(text, &r).empty()) return 0;
      if (r.limit < -1) __builtin_trap();
      if (!r.where.empty()) (void)rap::read::ParseExpr(r.where);
      return 0;
    }
    case 1: {
      LookupRequest r;
      if (!ParseLookupPost(text, key_columns, &r).empty()) return 0;
      for (const auto& k : r.keys) {
        if (k.size() != key_columns) __builtin_trap();
      }
      if (r.limit < -1) __builtin_trap();
      return 0;
    }
    default: {
      HttpRequest req;
      req.method = "GET";
      if (!ParseQuery(text, &req.query)) return 0;
      LookupRequest r;
      if (!ParseLookupGet(req, key_columns, &r).empty()) return 0;
      for (const auto& k : r.keys) {
        if (k.size() != key_columns) __builtin_trap();
      }
      if (r.limit < -1) __builtin_trap();
      return 0;
    }
  }
}
