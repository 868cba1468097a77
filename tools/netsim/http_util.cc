#include "netsim/http_util.h"

#include <algorithm>
#include <charconv>
#include <system_error>

#include <fmt/format.h>

namespace rap::netsim {

namespace fs = std::filesystem;

static int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) {
        return Status::InvalidArgument(fmt::format("URL '{}': truncated %-escape at offset {}", text, i));
      }
      int h = HexValue(text[i + 1]);
      int l = HexValue(text[i + 2]);
      if (h < 0 || l < 0) return Status::InvalidArgument(fmt::format("URL '{}': bad %-escape at offset {}", text, i));
      c = static_cast<char>(h * 16 + l);
      i += 2;
    }
    if (c == '\0') return Status::InvalidArgument(fmt::format("URL '{}': NUL byte at offset {}", text, i));
    out.push_back(c);
  }
  return out;
}

Result<std::map<std::string, std::string>> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t end = query.find_first_of("&,", pos);
    if (end == std::string_view::npos) end = query.size();
    std::string_view pair = query.substr(pos, end - pos);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      RAP_ASSIGN_OR_RETURN(std::string key, PercentDecode(pair.substr(0, eq)));
      std::string value;
      if (eq != std::string_view::npos) {
        RAP_ASSIGN_OR_RETURN(value, PercentDecode(pair.substr(eq + 1)));
      }
      out[std::move(key)] = std::move(value);
    }
    pos = end + 1;
  }
  return out;
}

// Parses a non-empty run of decimal digits; false on anything else or overflow.
static bool ParseU64(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

static std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

RangeRequest ParseRange(std::string_view header, uint64_t size) {
  RangeRequest r;
  header = Trim(header);
  if (header.empty()) return r;
  constexpr std::string_view kPrefix = "bytes=";
  if (header.size() < kPrefix.size() || header.substr(0, kPrefix.size()) != kPrefix) {
    r.kind = RangeRequest::kIgnored;  // another range unit
    return r;
  }
  std::string_view spec = Trim(header.substr(kPrefix.size()));
  if (spec.find(',') != std::string_view::npos) {
    r.kind = RangeRequest::kIgnored;  // multiple ranges: served whole (200), as RFC 9110 permits
    return r;
  }
  r.kind = RangeRequest::kUnsatisfiable;
  size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return r;
  std::string_view a = Trim(spec.substr(0, dash));
  std::string_view b = Trim(spec.substr(dash + 1));
  uint64_t first = 0, last = 0;
  if (a.empty()) {  // suffix range: the last n bytes
    uint64_t n = 0;
    if (!ParseU64(b, &n) || n == 0 || size == 0) return r;
    r.first = n >= size ? 0 : size - n;
    r.last = size - 1;
  } else {
    if (!ParseU64(a, &first)) return r;
    if (b.empty()) {
      last = size == 0 ? 0 : size - 1;
    } else if (!ParseU64(b, &last) || last < first) {
      return r;
    }
    if (first >= size) return r;
    r.first = first;
    r.last = last >= size ? size - 1 : last;
  }
  r.kind = RangeRequest::kSingle;
  return r;
}

Result<fs::path> ResolveUnderRoot(const fs::path& root, std::string_view url_path) {
  if (url_path.empty() || url_path.front() != '/') {
    return Status::InvalidArgument(fmt::format("path '{}': expected an absolute URL path", url_path));
  }
  fs::path rel;
  size_t pos = 1;
  while (pos <= url_path.size()) {
    size_t end = url_path.find('/', pos);
    if (end == std::string_view::npos) end = url_path.size();
    std::string_view seg = url_path.substr(pos, end - pos);
    if (seg == ".." || seg == "." || seg.find('\\') != std::string_view::npos) {
      return Status::AccessDenied(fmt::format("path '{}': segment '{}' is not allowed", url_path, seg));
    }
    if (!seg.empty()) rel /= std::string(seg);
    pos = end + 1;
  }
  if (rel.empty()) return Status::NotFound(fmt::format("path '{}': not a file", url_path));
  std::error_code ec;
  fs::path full = fs::canonical(root / rel, ec);
  if (ec) return Status::NotFound(fmt::format("path '{}': no such file under {}", url_path, root.string()));
  // canonical() resolved symlinks: the result must still lie under the (canonical) root.
  auto [root_end, full_it] = std::mismatch(root.begin(), root.end(), full.begin(), full.end());
  if (root_end != root.end()) {
    return Status::AccessDenied(fmt::format("path '{}': resolves outside the served root", url_path));
  }
  (void)full_it;
  if (!fs::is_regular_file(full, ec)) return Status::NotFound(fmt::format("path '{}': not a regular file", url_path));
  return full;
}

}  // namespace rap::netsim
