// FormatValue: human-readable values of Arrow-layout arrays for the CLI (JSON-ish for nested values).
// The rules (README "Output values"): floats print so that they read back as the same float, bit
// for bit, and always look like floats (13165.0, -0.0, 1e+300; a float16 as its own shortest text);
// NaN and infinities as NaN, inf, -inf (quoted in JSON); binary (BYTE_ARRAY without a string type,
// FIXED_LEN_BYTE_ARRAY without a logical type) as 0x followed by lowercase hex; INTERVAL as an ISO
// 8601 duration; timestamps and times adjusted to UTC end in Z; JSON columns are inlined as JSON
// values in JSON output; JSON strings are valid UTF-8 (U+FFFD for a byte that is not).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rap/columnar/array_format.h"
#include "rap/util/hex.h"

namespace rap::columnar {

// ---------------------------------------------------------------------------------------------
// Formatting

namespace {

// Days since 1970-01-01 -> civil date (H. Hinnant's algorithm).
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t yy = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yy + (*m <= 2 ? 1 : 0);
}

std::string FormatDate(int64_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return fmt::format("{:04}-{:02}-{:02}", y, m, d);
}

std::string FormatFraction(int64_t frac, TimeUnit u) {
  switch (u) {
    case TimeUnit::kSecond: return "";
    case TimeUnit::kMilli: return fmt::format(".{:03}", frac);
    case TimeUnit::kMicro: return fmt::format(".{:06}", frac);
    case TimeUnit::kNano: return fmt::format(".{:09}", frac);
  }
  return "";
}

std::string FormatTimeOfDay(int64_t v, TimeUnit u, const std::string& timezone) {
  const int64_t per = UnitsPerSecond(u);
  int64_t secs = v / per, frac = v % per;
  if (frac < 0) {
    frac += per;
    secs -= 1;
  }
  int64_t sod = ((secs % 86400) + 86400) % 86400;
  return fmt::format("{:02}:{:02}:{:02}{}", sod / 3600, (sod / 60) % 60, sod % 60, FormatFraction(frac, u)) +
         (timezone.empty() ? "" : "Z");
}

std::string FormatTimestamp(int64_t v, const DataType& t) {
  const int64_t per = UnitsPerSecond(t.unit);
  int64_t secs = v / per, frac = v % per;
  if (frac < 0) {
    frac += per;
    secs -= 1;
  }
  int64_t days = secs / 86400, sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    days -= 1;
  }
  return FormatDate(days) + " " +
         fmt::format("{:02}:{:02}:{:02}{}", sod / 3600, (sod / 60) % 60, sod % 60, FormatFraction(frac, t.unit)) +
         (t.timezone.empty() ? "" : "Z");
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    v = mant ? std::nanf("") : INFINITY;
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

std::string FormatDecimal(const uint8_t* p, int32_t scale) {
  uint64_t lo, hi;
  std::memcpy(&lo, p, 8);
  std::memcpy(&hi, p + 8, 8);
  bool neg = (hi >> 63) != 0;
  unsigned __int128 v = (static_cast<unsigned __int128>(hi) << 64) | lo;
  if (neg) v = ~v + 1;
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  if (scale > 0) {
    while (static_cast<int32_t>(digits.size()) <= scale) digits.push_back('0');
    digits.insert(digits.begin() + scale, '.');
  }
  if (neg) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  if (scale < 0) digits.append(static_cast<size_t>(-scale), '0');
  return digits;
}

// Parquet INTERVAL (3 little-endian uint32: months, days, milliseconds) as an ISO 8601 duration,
// e.g. P1Y2M3DT4H5M6.007S; zero parts are left out, all zero is PT0S.
std::string FormatInterval(const uint8_t* p) {
  uint32_t months, days, millis;
  std::memcpy(&months, p, 4);
  std::memcpy(&days, p + 4, 4);
  std::memcpy(&millis, p + 8, 4);
  std::string s = "P";
  if (months / 12) s += fmt::format("{}Y", months / 12);
  if (months % 12) s += fmt::format("{}M", months % 12);
  if (days) s += fmt::format("{}D", days);
  if (millis || s == "P") {
    s += "T";
    const uint32_t h = millis / 3600000, m = millis / 60000 % 60, sec = millis / 1000 % 60, ms = millis % 1000;
    if (h) s += fmt::format("{}H", h);
    if (m) s += fmt::format("{}M", m);
    if (sec || ms || (!h && !m)) s += ms ? fmt::format("{}.{:03}S", sec, ms) : fmt::format("{}S", sec);
  }
  return s;
}

std::string Hex(const uint8_t* p, size_t n) { return LowerHex(std::string_view(reinterpret_cast<const char*>(p), n)); }

// The length of the well-formed UTF-8 sequence at s[i] (1 to 4 bytes; Unicode's table 3-7: no
// overlong forms, no surrogates, nothing above U+10FFFF), or 0 when the byte there starts none.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  const size_t left = s.size() - i;
  auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xbf) {
    return b(i + k) >= lo && b(i + k) <= hi;
  };
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return left >= 2 && cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    return left >= 3 && cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    return left >= 4 && cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

// JSON text is UTF-8 (RFC 8259): a byte that starts no well-formed UTF-8 sequence becomes U+FFFD, so
// that the output always parses; text and csv output print the bytes as they are.
std::string JsonQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const size_t n = Utf8SequenceLength(s, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD";
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out.push_back(c);
        }
    }
    ++i;
  }
  out.push_back('"');
  return out;
}

namespace {

// The shortest text that reads back as the same value of type F (fmt's shortest round-trip
// formatting, as std::to_chars: a float32 prints as 0.1, not 0.10000000149011612), with ".0" added
// when it would look like an integer (13165.0, -0.0). JSON has no NaN or infinities: in JSON mode
// they are quoted.
template <typename F>
std::string FormatFloat(F v, bool json) {
  if (std::isnan(v)) return json ? "\"NaN\"" : "NaN";
  if (std::isinf(v)) return json ? (v > 0 ? "\"inf\"" : "\"-inf\"") : (v > 0 ? "inf" : "-inf");
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

// The float16 nearest to `d` (ties to even), as its 16 bits: how a reader of the printed text gets
// the float16 back.
uint16_t DoubleToHalf(double d) {
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  if (std::isnan(d)) return 0x7e00;
  const double a = std::fabs(d);
  if (a >= 65520.0) return sign | 0x7c00;  // halfway between the largest float16 (65504) and 2^16, and above
  if (a < std::ldexp(1.0, -14)) {  // subnormal: a multiple of 2^-24 (1024 rounds up into the smallest normal)
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0));
  }
  int e;
  (void)std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  double mant = std::nearbyint(std::ldexp(a, 11 - e));  // [1024, 2048]
  int exp = e - 1;
  if (mant == 2048) {
    mant = 1024;
    ++exp;
  }
  if (exp > 15) return sign | 0x7c00;
  return sign | static_cast<uint16_t>(((exp + 15) << 10) | (static_cast<int>(mant) - 1024));
}

// A float16 as the shortest decimal that reads back as the same float16 (1 to 5 significant
// digits: 0.1, not the float32 text of its value, 0.099975586), in FormatFloat's style.
std::string FormatHalf(uint16_t h, bool json) {
  const float v = HalfToFloat(h);
  if (!std::isfinite(v)) return FormatFloat(v, json);
  for (int digits = 1; digits <= 5; ++digits) {
    const std::string text = fmt::format("{:.{}e}", v, digits - 1);
    double shorter = 0;
    std::from_chars(text.data(), text.data() + text.size(), shorter);  // locale-independent, as fmt
    if (DoubleToHalf(shorter) == h) return FormatFloat(shorter, json);
  }
  return FormatFloat(v, json);  // not reached: 5 significant digits identify every float16
}

// A JSON value's text without the whitespace between its tokens (one line, numbers and keys exactly
// as written); `text` must be valid JSON.
std::string CompactJson(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < text.size()) {
        out.push_back(text[++i]);
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
      out.push_back(c);
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      out.push_back(c);
    }
  }
  return out;
}

// Binary: 0x and lowercase hex of every byte, so that it never reads as text.
std::string FormatBinary(const uint8_t* p, size_t n) { return "0x" + Hex(p, n); }

// `nested`: inside a list, struct or map (strings are quoted); `json`: the whole value is JSON.
std::string FormatImpl(const ArrayData& a, int64_t i, bool nested, bool json) {
  if (a.IsNull(i)) return "null";
  const DataType& t = *a.type;
  const int64_t j = a.offset + i;
  auto quote = [&](std::string s) { return nested ? JsonQuote(s) : s; };
  switch (t.id) {
    case TypeId::kNull: return "null";
    case TypeId::kBool: return ((a.buffers[1].data()[j >> 3] >> (j & 7)) & 1) ? "true" : "false";
    case TypeId::kInt8: return std::to_string(a.values<int8_t>()[i]);
    case TypeId::kInt16: return std::to_string(a.values<int16_t>()[i]);
    case TypeId::kInt32: return std::to_string(a.values<int32_t>()[i]);
    case TypeId::kInt64: return std::to_string(a.values<int64_t>()[i]);
    case TypeId::kUInt8: return std::to_string(a.values<uint8_t>()[i]);
    case TypeId::kUInt16: return std::to_string(a.values<uint16_t>()[i]);
    case TypeId::kUInt32: return std::to_string(a.values<uint32_t>()[i]);
    case TypeId::kUInt64: return std::to_string(a.values<uint64_t>()[i]);
    case TypeId::kFloat16: {
      uint16_t h;
      std::memcpy(&h, a.buffers[1].data() + j * 2, 2);
      return FormatHalf(h, json);
    }
    case TypeId::kFloat32: return FormatFloat(a.values<float>()[i], json);
    case TypeId::kFloat64: return FormatFloat(a.values<double>()[i], json);
    case TypeId::kString: {
      const int32_t* o = a.offsets();
      std::string s(reinterpret_cast<const char*>(a.buffers[2].data()) + o[i], static_cast<size_t>(o[i + 1] - o[i]));
      // A JSON column in JSON output is the JSON value itself when the text is valid JSON (as DuckDB
      // prints it): the text as written, on one line (numbers keep every digit, keys their order and
      // duplicates). Text that is not valid JSON (nor UTF-8) stays a string.
      if (json && t.extension == "json") {
        std::string_view text = s;
        if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a byte order mark is not part of the value
        if (nlohmann::json::accept(text)) return CompactJson(text);
      }
      return quote(std::move(s));
    }
    case TypeId::kBinary: {
      const int32_t* o = a.offsets();
      return quote(FormatBinary(a.buffers[2].data() + o[i], static_cast<size_t>(o[i + 1] - o[i])));
    }
    case TypeId::kFixedSizeBinary: {
      const uint8_t* p = a.buffers[1].data() + j * t.byte_width;
      if (t.extension == "interval" && t.byte_width == 12) return quote(FormatInterval(p));
      if (t.extension == "uuid" && t.byte_width == 16) {
        const std::string h = Hex(p, 16);
        return quote(h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" +
                     h.substr(20));
      }
      return quote(FormatBinary(p, static_cast<size_t>(t.byte_width)));
    }
    case TypeId::kDecimal128: return FormatDecimal(a.buffers[1].data() + j * 16, t.scale);
    case TypeId::kDate32: return quote(FormatDate(a.values<int32_t>()[i]));
    case TypeId::kTime32: return quote(FormatTimeOfDay(a.values<int32_t>()[i], t.unit, t.timezone));
    case TypeId::kTime64: return quote(FormatTimeOfDay(a.values<int64_t>()[i], t.unit, t.timezone));
    case TypeId::kTimestamp: return quote(FormatTimestamp(a.values<int64_t>()[i], t));
    case TypeId::kList: {
      const int32_t* o = a.offsets();
      std::string s = "[";
      for (int32_t k = o[i]; k < o[i + 1]; ++k) {
        if (k != o[i]) s += ", ";
        s += FormatImpl(*a.children[0], k, true, json);
      }
      return s + "]";
    }
    case TypeId::kMap: {
      const int32_t* o = a.offsets();
      const ArrayData& entries = *a.children[0];
      std::string s = "{";
      for (int32_t k = o[i]; k < o[i + 1]; ++k) {
        if (k != o[i]) s += ", ";
        const int64_t e = entries.offset + k;
        std::string key = FormatImpl(*entries.children[0], e, true, json);
        if (key.empty() || key[0] != '"') key = JsonQuote(key);
        s += key + ": " + FormatImpl(*entries.children[1], e, true, json);
      }
      return s + "}";
    }
    case TypeId::kStruct: {
      std::string s = "{";
      for (size_t c = 0; c < a.children.size(); ++c) {
        if (c) s += ", ";
        s += JsonQuote(t.children[c].name) + ": " + FormatImpl(*a.children[c], j, true, json);
      }
      return s + "}";
    }
  }
  return "?";
}

}  // namespace

std::string FormatValue(const ArrayData& array, int64_t i) { return FormatImpl(array, i, false, false); }
std::string FormatJsonValue(const ArrayData& array, int64_t i) { return FormatImpl(array, i, true, true); }

}  // namespace rap::columnar
