// Key ranges: prefix-bound comparison, the --range / --prefix text forms, the normalised encoding.
#include "rap/index/key_range.h"

#include <algorithm>
#include <cstring>

namespace rap::index {

int CompareKeyToPrefix(const std::vector<KeyColumn>& columns, const Key& key, const Key& prefix) {
  const size_t n = std::min({columns.size(), key.parts.size(), prefix.parts.size()});
  for (size_t i = 0; i < n; ++i) {
    const int c = CompareKeyPart(columns[i].type, key.parts[i], prefix.parts[i]);
    if (c != 0) return c;
  }
  return 0;
}

namespace {

bool AboveLo(const std::vector<KeyColumn>& columns, const Key& key, const std::optional<KeyBound>& lo) {
  if (!lo) return true;
  const int c = CompareKeyToPrefix(columns, key, lo->key);
  return lo->inclusive ? c >= 0 : c > 0;
}

bool BelowHi(const std::vector<KeyColumn>& columns, const Key& key, const std::optional<KeyBound>& hi) {
  if (!hi) return true;
  const int c = CompareKeyToPrefix(columns, key, hi->key);
  return hi->inclusive ? c <= 0 : c < 0;
}

}  // namespace

bool KeyInRange(const std::vector<KeyColumn>& columns, const Key& key, const KeyRange& range) {
  return AboveLo(columns, key, range.lo) && BelowHi(columns, key, range.hi);
}

bool RangeOverlaps(const std::vector<KeyColumn>& columns, const KeyRange& range, const Key& min, const Key& max) {
  // Keys in [min, max] exist above lo iff max is above lo; below hi iff min is below hi. Both can
  // hold with no key in between only when the range is empty, which the entries then show.
  return AboveLo(columns, max, range.lo) && BelowHi(columns, min, range.hi);
}

namespace {

std::vector<std::string> SplitParts(std::string_view text, size_t max_parts) {
  std::vector<std::string> out;
  size_t at = 0;
  while (out.size() + 1 < max_parts) {
    const size_t p = text.find(',', at);
    if (p == std::string_view::npos) break;
    out.emplace_back(text.substr(at, p - at));
    at = p + 1;
  }
  out.emplace_back(text.substr(at));
  return out;
}

Result<Key> ParsePrefixKey(const std::vector<KeyColumn>& columns, const std::vector<std::string>& parts,
                           std::string_view what) {
  if (parts.empty() || parts.size() > columns.size()) {
    return Status::InvalidArgument(std::string(what) + ": give 1 to " + std::to_string(columns.size()) +
                                   " key part(s), got " + std::to_string(parts.size()));
  }
  const std::vector<KeyColumn> leading(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(parts.size()));
  auto key = ParseKey(leading, parts);
  if (!key.ok()) return Status::InvalidArgument(std::string(what) + ": " + key.status().message());
  return std::move(*key);
}

}  // namespace

Result<KeyRange> ParseKeyRange(const std::vector<KeyColumn>& columns, std::string_view text) {
  const size_t dots = text.find("..");
  if (dots == std::string_view::npos) {
    return Status::InvalidArgument("range '" + std::string(text) +
                                   "': expected LO..HI (also LO..<HI, LO<..HI, LO.., ..HI)");
  }
  std::string_view lo = text.substr(0, dots);
  std::string_view hi = text.substr(dots + 2);
  KeyRange r;
  bool lo_exclusive = false, hi_exclusive = false;
  if (!lo.empty() && lo.back() == '<') {
    lo_exclusive = true;
    lo.remove_suffix(1);
  }
  if (!hi.empty() && hi.front() == '<') {
    hi_exclusive = true;
    hi.remove_prefix(1);
  }
  const std::string what = "range '" + std::string(text) + "'";
  if (!lo.empty()) {
    RAP_ASSIGN_OR_RETURN(Key k, ParsePrefixKey(columns, SplitParts(lo, columns.size()), what + " lower bound"));
    r.lo = KeyBound{std::move(k), !lo_exclusive};
  } else if (lo_exclusive) {
    return Status::InvalidArgument(what + ": '<' needs a lower bound before it");
  }
  if (!hi.empty()) {
    RAP_ASSIGN_OR_RETURN(Key k, ParsePrefixKey(columns, SplitParts(hi, columns.size()), what + " upper bound"));
    r.hi = KeyBound{std::move(k), !hi_exclusive};
  } else if (hi_exclusive) {
    return Status::InvalidArgument(what + ": '<' needs an upper bound after it");
  }
  return r;
}

Result<KeyRange> PrefixRange(const std::vector<KeyColumn>& columns, const std::vector<std::string>& parts) {
  RAP_ASSIGN_OR_RETURN(Key k, ParsePrefixKey(columns, parts, "prefix"));
  return PrefixRangeOf(columns, std::move(k));
}

Result<KeyRange> PrefixRangeOf(const std::vector<KeyColumn>& columns, Key k) {
  if (k.parts.empty() || k.parts.size() > columns.size()) {
    return Status::InvalidArgument("prefix: give 1 to " + std::to_string(columns.size()) + " key part(s), got " +
                                   std::to_string(k.parts.size()));
  }
  KeyRange r;
  const size_t last = k.parts.size() - 1;
  if (IsIntegerKey(columns[last].type)) {
    r.lo = KeyBound{k, true};
    r.hi = KeyBound{std::move(k), true};
    return r;
  }
  r.lo = KeyBound{k, true};
  // The smallest string above every string with the prefix: the prefix without its trailing 0xFF
  // bytes, last byte + 1. None (all 0xFF, or empty): every value of the leading parts.
  std::string succ = k.parts[last].s;
  while (!succ.empty() && static_cast<unsigned char>(succ.back()) == 0xFF) succ.pop_back();
  if (!succ.empty()) {
    succ.back() = static_cast<char>(static_cast<unsigned char>(succ.back()) + 1);
    Key hi = k;
    hi.parts[last].s = std::move(succ);
    r.hi = KeyBound{std::move(hi), false};
  } else if (last > 0) {
    Key hi = k;
    hi.parts.pop_back();
    r.hi = KeyBound{std::move(hi), true};
  }
  return r;
}

std::string FormatKeyRange(const std::vector<KeyColumn>& columns, const KeyRange& range) {
  auto text = [&](const Key& k) {
    const std::vector<KeyColumn> leading(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(k.parts.size()));
    std::string s;
    for (const std::string& t : KeyTexts(leading, k)) s += (s.empty() ? "" : ",") + t;
    return s;
  };
  std::string out;
  if (range.lo) out += text(range.lo->key) + (range.lo->inclusive ? "" : "<");
  out += "..";
  if (range.hi) out += (range.hi->inclusive ? "" : "<") + text(range.hi->key);
  return out;
}

std::string NormalizedKey(const std::vector<KeyColumn>& columns, const Key& key) {
  std::string out;
  for (size_t i = 0; i < key.parts.size() && i < columns.size(); ++i) {
    const KeyPart& p = key.parts[i];
    if (IsIntegerKey(columns[i].type)) {
      const uint64_t u = static_cast<uint64_t>(p.i) ^ (uint64_t{1} << 63);
      for (int b = 7; b >= 0; --b) out.push_back(static_cast<char>((u >> (8 * b)) & 0xFF));
    } else {
      for (char c : p.s) {
        out.push_back(c);
        if (c == '\0') out.push_back('\xFF');
      }
      out.push_back('\0');
      out.push_back('\0');
    }
  }
  return out;
}

Result<Key> KeyFromNormalized(const std::vector<KeyColumn>& columns, std::string_view bytes) {
  Key key;
  size_t at = 0;
  for (size_t i = 0; i < columns.size() && at < bytes.size(); ++i) {
    KeyPart p;
    if (IsIntegerKey(columns[i].type)) {
      if (bytes.size() - at < 8) {
        return Status::InvalidArgument("normalised key: column '" + columns[i].name + "' at byte " + std::to_string(at) +
                                       " needs 8 bytes, " + std::to_string(bytes.size() - at) + " left");
      }
      uint64_t u = 0;
      for (int b = 0; b < 8; ++b) u = (u << 8) | static_cast<unsigned char>(bytes[at + static_cast<size_t>(b)]);
      p.i = static_cast<int64_t>(u ^ (uint64_t{1} << 63));
      if (columns[i].type == KeyType::kInt32 && (p.i < INT32_MIN || p.i > INT32_MAX)) {
        return Status::InvalidArgument("normalised key: column '" + columns[i].name + "' at byte " + std::to_string(at) +
                                       ": " + std::to_string(p.i) + " is not an int32");
      }
      at += 8;
    } else {
      bool ended = false;
      while (at < bytes.size()) {
        const char c = bytes[at];
        if (c != '\0') {
          p.s.push_back(c);
          ++at;
          continue;
        }
        if (at + 1 >= bytes.size()) break;
        const unsigned char next = static_cast<unsigned char>(bytes[at + 1]);
        at += 2;
        if (next == 0x00) {
          ended = true;
          break;
        }
        if (next != 0xFF) break;
        p.s.push_back('\0');
      }
      if (!ended) {
        return Status::InvalidArgument("normalised key: column '" + columns[i].name + "' is not terminated by 00 00 "
                                       "(or has a 00 not followed by FF) before byte " + std::to_string(at));
      }
    }
    key.parts.push_back(std::move(p));
  }
  if (at != bytes.size()) {
    return Status::InvalidArgument("normalised key: " + std::to_string(bytes.size() - at) + " trailing byte(s) at byte " +
                                   std::to_string(at));
  }
  return key;
}

}  // namespace rap::index
