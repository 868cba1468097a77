#include "table/path_util.h"

namespace rap::table {

namespace {
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

Result<std::string> PercentDecode(const std::string& s, const std::string& what) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
    int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      return Status::Corrupt(what + ": malformed %-escape at character " + std::to_string(i) + " of '" + s +
                             "' (expected %XX with two hex digits)");
    }
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string RelativeTo(const std::string& root, const std::string& path) {
  if (root.empty()) return path;
  std::string prefix = root == "/" ? root : root + "/";
  if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) return "";
  return path.substr(prefix.size());
}

std::string TrimTrailingSlash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::vector<std::string> SplitPath(const std::string& p) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    if (end > start) out.push_back(p.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace rap::table
