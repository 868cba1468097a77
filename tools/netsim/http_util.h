// Small HTTP helpers of rap-netsim that need no Beast: URL decoding, query strings, the Range
// header (RFC 9110 §14) and mapping a URL path to a file under the served root.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "rap/util/result.h"

namespace rap::netsim {

// Decodes %XX escapes ('+' stays '+': paths, not forms). Fails on a malformed escape or a NUL.
Result<std::string> PercentDecode(std::string_view text);

// "a=1&b=x%20y" -> {a:1, b:"x y"}; a key without '=' maps to "". ',' also separates pairs so that
// a CLI spec like "kind=reset,count=2" reads the same as a query string.
Result<std::map<std::string, std::string>> ParseQuery(std::string_view query);

struct RangeRequest {
  enum Kind {
    kNone,           // no Range header: the whole file, 200
    kSingle,         // one satisfiable range [first, last], 206
    kUnsatisfiable,  // 416 with Content-Range: bytes */size
    kIgnored,        // several ranges or another unit: ignored as RFC 9110 allows, 200
  };
  Kind kind = kNone;
  uint64_t first = 0;
  uint64_t last = 0;  // inclusive
};

// Parses a Range header value against an object of `size` bytes: "bytes=a-b", "bytes=a-",
// "bytes=-n". A syntactically invalid byte range is rejected (416) rather than ignored, so that a
// client bug shows up in tests.
RangeRequest ParseRange(std::string_view header, uint64_t size);

// Maps the decoded URL path (starting with '/') to a regular file under `root` (canonical).
// Rejects "..", empty or "." segments after the first, backslashes and anything that resolves
// (through symlinks) outside root. Returns NotFound for a missing file or a directory.
Result<std::filesystem::path> ResolveUnderRoot(const std::filesystem::path& root, std::string_view url_path);

}  // namespace rap::netsim
