#include "io/http_util.h"

#include <curl/curl.h>
#include <sys/mman.h>

#include <cctype>
#include <charconv>
#include <memory>
#include <new>

namespace rap::io {

std::optional<uint64_t> ParseUint64(std::string_view s) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

static std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool ParseContentRange(std::string_view value, ContentRange* out) {
  value = Trim(value);
  if (value.substr(0, 6) != "bytes ") return false;
  value.remove_prefix(6);
  size_t slash = value.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view span = value.substr(0, slash), total = value.substr(slash + 1);
  ContentRange cr;
  if (total != "*") {
    cr.total = ParseUint64(total);
    if (!cr.total) return false;
  }
  if (span == "*") {
    if (!cr.total) return false;
    cr.unsatisfied = true;
    *out = cr;
    return true;
  }
  size_t dash = span.find('-');
  if (dash == std::string_view::npos) return false;
  auto first = ParseUint64(span.substr(0, dash));
  auto last = ParseUint64(span.substr(dash + 1));
  if (!first || !last || *last < *first) return false;
  if (cr.total && *last >= *cr.total) return false;
  cr.first = *first;
  cr.last = *last;
  *out = cr;
  return true;
}

std::optional<double> ParseRetryAfter(std::string_view value) {
  value = Trim(value);
  if (value.empty()) return std::nullopt;
  if (auto secs = ParseUint64(value)) return static_cast<double>(*secs);
  std::string s(value);
  time_t t = curl_getdate(s.c_str(), nullptr);
  if (t < 0) return std::nullopt;
  double delta = static_cast<double>(t - time(nullptr));
  return delta > 0 ? delta : 0.0;
}

int64_t ParseHttpDateMs(std::string_view value) {
  std::string s(Trim(value));
  if (s.empty()) return 0;
  time_t t = curl_getdate(s.c_str(), nullptr);
  return t < 0 ? 0 : static_cast<int64_t>(t) * 1000;
}

std::string UriEncode(std::string_view s, bool keep_slash) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3);
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string NormalizeEtag(std::string_view etag) {
  etag = Trim(etag);
  if (etag.substr(0, 2) == "W/") etag.remove_prefix(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return std::string(etag);
}

Buffer AllocateBodyBuffer(size_t size) {
  constexpr size_t kMapThreshold = 1 << 20;
  try {
    if (size >= kMapThreshold) {
      void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
      if (p != MAP_FAILED) {
        std::shared_ptr<const void> owner(p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
        return Buffer(std::move(owner), static_cast<const uint8_t*>(p), size);
      }
    }
    return Buffer::Allocate(size);
  } catch (const std::bad_alloc&) {
    return Buffer();  // runs inside curl callbacks: no exception may leave
  }
}

}  // namespace rap::io
