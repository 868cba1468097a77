// The server's request parsing (pure, no I/O; a fuzz target drives each): the scan body and the
// lookup's GET query and POST body. Each returns "" on success, else the problem (the 400's message).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "server/http_types.h"

namespace rap::server {

// POST /v1/tables/{name}/scan: {"columns": [...], "where": "...", "limit": N}, every key optional.
struct ScanRequest {
  std::vector<std::string> columns;
  std::string where;
  int64_t limit = -1;
  std::string index;      // "index": only this index of the table (rap scan --index)
  bool no_index = false;  // "no_index": true: never an index (rap scan --no-index)
};

std::string ParseScanRequest(const std::string& body, ScanRequest* r);

// GET|POST /v1/tables/{name}/lookup (docs/server.md).
struct LookupRequest {
  std::vector<std::vector<std::string>> keys;  // texts per key column
  std::vector<std::string> columns;
  int64_t limit = -1;
  std::vector<std::string> page_tokens;
  std::string range;   // GET ?range=LO..HI (rap lookup --range syntax): every key in it, in key order
  std::string prefix;  // GET ?prefix=P (rap lookup --prefix)
};

// ?key=42&key=43&columns=a,b&limit=10&page_token=T; `key_columns` of the index's key.
std::string ParseLookupGet(const HttpRequest& req, size_t key_columns, LookupRequest* r);
// {"keys": [42, "x", ["a", 1]], "columns": ["a", "b"], "limit": 10, "page_tokens": ["", "T"]}.
std::string ParseLookupPost(const std::string& body, size_t key_columns, LookupRequest* r);

}  // namespace rap::server
