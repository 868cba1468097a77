// Small HTTP helpers of the remote stores: header parsing, Content-Range, Retry-After, URL
// encoding. Private to src/io.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rap/util/buffer.h"

namespace rap::io {

struct ContentRange {
  uint64_t first = 0;
  uint64_t last = 0;                   // inclusive
  std::optional<uint64_t> total;       // absent for "*"
  bool unsatisfied = false;            // "bytes */N" (416)
};

// Parses "bytes a-b/total", "bytes a-b/*" and "bytes */total". False when malformed.
bool ParseContentRange(std::string_view value, ContentRange* out);

// Retry-After: delta seconds or an HTTP date. nullopt when absent or malformed.
std::optional<double> ParseRetryAfter(std::string_view value);

// Last-Modified (HTTP date) to Unix milliseconds; 0 when malformed.
int64_t ParseHttpDateMs(std::string_view value);

// Parses a decimal uint64 (whole string); nullopt on anything else or overflow.
std::optional<uint64_t> ParseUint64(std::string_view s);

// AWS-style URI encoding: everything except A-Z a-z 0-9 - _ . ~ (and '/' when keep_slash).
std::string UriEncode(std::string_view s, bool keep_slash);

// Lowercase ASCII.
std::string ToLower(std::string_view s);

// Strips surrounding quotes and a weak-validator prefix from an ETag.
std::string NormalizeEtag(std::string_view etag);

// Memory for a response body of `size` bytes, allocated before the request is issued. Bodies of
// 1 MiB and more get their own pre-faulted mapping (mmap MAP_POPULATE): faulting the pages in one
// call costs less than faulting them one by one inside the receive loop, and it happens on the
// thread that issues the read instead of the transfer thread. Smaller ones (and any size when
// mmap fails) come from Buffer::Allocate. An empty Buffer when the memory cannot be had.
Buffer AllocateBodyBuffer(size_t size);

}  // namespace rap::io
