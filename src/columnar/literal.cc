// Literal parsing (rap/columnar/literal.h): the one text grammar for values, shared by filter
// expressions, Delta partition values and statistics, and the column builders. Hand-written because
// the formats are tiny and exact (no locale, no rounding), which std::chrono parsing and strtod are not.
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "rap/columnar/literal.h"
#include "rap/util/civil_date.h"

namespace rap::columnar {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string Lower(std::string_view s) {
  std::string l(s);
  for (auto& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l;
}

// Reads exactly `n` digits at s[*pos].
bool Digits(std::string_view s, size_t* pos, int n, int64_t* out) {
  int64_t v = 0;
  for (int i = 0; i < n; ++i) {
    if (*pos >= s.size() || !IsDigit(s[*pos])) return false;
    v = v * 10 + (s[*pos] - '0');
    ++*pos;
  }
  *out = v;
  return true;
}

// "[+-]YYYY[YY]-MM-DD" at s[*pos].
bool DatePart(std::string_view s, size_t* pos, int64_t* days) {
  bool neg = false;
  if (*pos < s.size() && (s[*pos] == '-' || s[*pos] == '+')) {
    neg = s[*pos] == '-';
    ++*pos;
  }
  const size_t start = *pos;
  int64_t year = 0;
  while (*pos < s.size() && IsDigit(s[*pos]) && *pos - start < 6) year = year * 10 + (s[(*pos)++] - '0');
  if (*pos - start < 4) return false;
  if (neg) year = -year;
  int64_t month = 0, day = 0;
  if (*pos >= s.size() || s[*pos] != '-') return false;
  ++*pos;
  if (!Digits(s, pos, 2, &month) || month < 1 || month > 12) return false;
  if (*pos >= s.size() || s[*pos] != '-') return false;
  ++*pos;
  if (!Digits(s, pos, 2, &day) || day < 1 || day > DaysInMonth(year, static_cast<unsigned>(month))) return false;
  *days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return true;
}

// "HH:MM[:SS[.fraction]]" at s[*pos] -> nanoseconds of the day.
bool TimePart(std::string_view s, size_t* pos, int64_t* nanos) {
  int64_t h = 0, mi = 0, sec = 0, frac = 0;
  if (!Digits(s, pos, 2, &h) || h > 23) return false;
  if (*pos >= s.size() || s[*pos] != ':') return false;
  ++*pos;
  if (!Digits(s, pos, 2, &mi) || mi > 59) return false;
  if (*pos < s.size() && s[*pos] == ':') {
    ++*pos;
    if (!Digits(s, pos, 2, &sec) || sec > 60) return false;  // 60: a leap second as written
    if (*pos < s.size() && s[*pos] == '.') {
      ++*pos;
      int digits = 0;
      for (; *pos < s.size() && IsDigit(s[*pos]); ++*pos) {
        if (digits < 9) {
          frac = frac * 10 + (s[*pos] - '0');
          ++digits;
        }
      }
      for (; digits < 9; ++digits) frac *= 10;
    }
  }
  *nanos = ((h * 60 + mi) * 60 + sec) * 1'000'000'000LL + frac;
  return true;
}

// "Z" or "(+|-)HH[[:]MM]" at s[*pos] -> seconds east of UTC.
bool ZonePart(std::string_view s, size_t* pos, int64_t* offset_s) {
  if (s[*pos] == 'Z' || s[*pos] == 'z') {
    ++*pos;
    return true;
  }
  if (s[*pos] != '+' && s[*pos] != '-') return false;
  const int64_t sign = s[*pos] == '-' ? -1 : 1;
  ++*pos;
  int64_t oh = 0, om = 0;
  if (!Digits(s, pos, 2, &oh) || oh > 23) return false;
  if (*pos < s.size() && s[*pos] == ':') ++*pos;
  if (*pos < s.size() && !Digits(s, pos, 2, &om)) return false;
  if (om > 59) return false;
  *offset_s = sign * (oh * 3600 + om * 60);
  return true;
}

Status Invalid(std::string_view s, std::string_view what) {
  return Status::InvalidArgument(fmt::format("value '{}' is not {}", s, what));
}

}  // namespace

Status ParseDate(std::string_view s, int32_t* days) {
  s = Trim(s);
  size_t pos = 0;
  int64_t d = 0;
  if (!DatePart(s, &pos, &d) || pos != s.size()) return Invalid(s, "a date (YYYY-MM-DD)");
  if (d < std::numeric_limits<int32_t>::min() || d > std::numeric_limits<int32_t>::max()) {
    return Invalid(s, "a date within int32 days");
  }
  *days = static_cast<int32_t>(d);
  return Status::OK();
}

Status ParseTimeOfDay(std::string_view s, int64_t* nanos_of_day) {
  s = Trim(s);
  size_t pos = 0;
  if (!TimePart(s, &pos, nanos_of_day)) return Invalid(s, "a time (HH:MM[:SS[.fraction]][Z])");
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) ++pos;  // a time adjusted to UTC, as rendered
  if (pos != s.size()) return Invalid(s, "a time (HH:MM[:SS[.fraction]][Z])");
  return Status::OK();
}

Status ParseTimestamp(std::string_view s, TimestampLiteral* out) {
  s = Trim(s);
  size_t pos = 0;
  int64_t days = 0, nanos = 0, offset_s = 0;
  if (!DatePart(s, &pos, &days)) return Invalid(s, "a timestamp (YYYY-MM-DD[ HH:MM[:SS[.fraction]]][zone])");
  if (pos < s.size() && (s[pos] == ' ' || s[pos] == 'T' || s[pos] == 't')) {
    ++pos;
    if (!TimePart(s, &pos, &nanos)) return Invalid(s, "a timestamp: bad time of day (HH:MM[:SS[.fraction]])");
  }
  if (pos < s.size() && !ZonePart(s, &pos, &offset_s)) return Invalid(s, "a timestamp: bad UTC offset");
  if (pos != s.size()) return Invalid(s, "a timestamp");
  // |days| < 10^6 years * 366, so the seconds always fit in int64.
  out->seconds = days * 86400 + nanos / 1'000'000'000 - offset_s;
  out->nanos = static_cast<int32_t>(nanos % 1'000'000'000);
  return Status::OK();
}

Status ParseDecimal(std::string_view s, int32_t scale, __int128* out) {
  s = Trim(s);
  if (scale < 0 || scale > 76) return Status::InvalidArgument(fmt::format("decimal scale {} is out of range", scale));
  size_t pos = 0;
  bool neg = false;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) neg = s[pos++] == '-';
  std::string digits;
  int frac = 0;
  bool dot = false, any = false;
  for (; pos < s.size(); ++pos) {
    const char c = s[pos];
    if (IsDigit(c)) {
      any = true;
      if (!(digits.empty() && c == '0')) digits.push_back(c);
      if (dot) ++frac;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!any) return Invalid(s, "a decimal number");
  int64_t exp = 0;
  if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
    ++pos;
    bool eneg = false;
    if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) eneg = s[pos++] == '-';
    const size_t start = pos;
    while (pos < s.size() && IsDigit(s[pos]) && exp < 100000) exp = exp * 10 + (s[pos++] - '0');
    if (pos == start) return Invalid(s, "a decimal number (empty exponent)");
    if (eneg) exp = -exp;
  }
  if (pos != s.size()) return Invalid(s, "a decimal number");
  // value = digits * 10^shift at the target scale; dropped digits must be zeros.
  int64_t shift = static_cast<int64_t>(scale) - frac + exp;
  if (shift < 0) {
    const size_t drop = static_cast<size_t>(std::min<int64_t>(-shift, static_cast<int64_t>(digits.size())));
    for (size_t i = digits.size() - drop; i < digits.size(); ++i) {
      if (digits[i] != '0') {
        return Status::InvalidArgument(fmt::format("value '{}' has more than {} decimal places", s, scale));
      }
    }
    digits.resize(digits.size() - drop);
    shift = 0;
  }
  if (!digits.empty() && static_cast<int64_t>(digits.size()) + shift > 38) {
    return Status::InvalidArgument(fmt::format("value '{}' needs more than 38 digits at scale {}", s, scale));
  }
  __int128 v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  for (int64_t i = 0; i < shift && !digits.empty(); ++i) v *= 10;
  *out = neg ? -v : v;
  return Status::OK();
}

Status ParseInteger(std::string_view s, __int128* out) {
  s = Trim(s);
  size_t pos = 0;
  bool neg = false;
  if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) neg = s[pos++] == '-';
  if (pos == s.size()) return Invalid(s, "an integer");
  constexpr unsigned __int128 kLimit = static_cast<unsigned __int128>(1) << 64;
  unsigned __int128 v = 0;
  for (; pos < s.size(); ++pos) {
    if (!IsDigit(s[pos])) return Invalid(s, "an integer");
    v = v * 10 + static_cast<unsigned>(s[pos] - '0');
    if (v > kLimit) return Status::InvalidArgument(fmt::format("value '{}' does not fit 64 bits", s));
  }
  if (!neg && v == kLimit) return Status::InvalidArgument(fmt::format("value '{}' does not fit 64 bits", s));
  *out = neg ? -static_cast<__int128>(v) : static_cast<__int128>(v);
  return Status::OK();
}

Status ParseDouble(std::string_view s, double* out) {
  s = Trim(s);
  const std::string lower = Lower(s);
  if (lower == "nan" || lower == "+nan" || lower == "-nan") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return Status::OK();
  }
  if (lower == "inf" || lower == "infinity" || lower == "+inf" || lower == "+infinity") {
    *out = std::numeric_limits<double>::infinity();
    return Status::OK();
  }
  if (lower == "-inf" || lower == "-infinity") {
    *out = -std::numeric_limits<double>::infinity();
    return Status::OK();
  }
  std::string_view body = s;
  const bool plus = !body.empty() && body.front() == '+';
  if (plus) body.remove_prefix(1);
  if (body.empty() || !(IsDigit(body.front()) || body.front() == '.' || (body.front() == '-' && !plus))) {
    return Invalid(s, "a number");
  }
  auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), *out);
  if (p != body.data() + body.size()) return Invalid(s, "a number");
  if (ec == std::errc::result_out_of_range) {
    // Beyond double's range: strtod's rounding (±Infinity, or ±0 for tiny magnitudes), as written.
    const std::string copy(body);
    *out = std::strtod(copy.c_str(), nullptr);
    return Status::OK();
  }
  if (ec != std::errc()) return Invalid(s, "a number");
  return Status::OK();
}

Status ParseBool(std::string_view s, bool* out) {
  const std::string l = Lower(Trim(s));
  if (l == "true" || l == "1" || l == "t" || l == "yes") {
    *out = true;
  } else if (l == "false" || l == "0" || l == "f" || l == "no") {
    *out = false;
  } else {
    return Invalid(s, "a boolean");
  }
  return Status::OK();
}

std::optional<int32_t> ParseDate(std::string_view s) {
  int32_t d = 0;
  if (!ParseDate(s, &d).ok()) return std::nullopt;
  return d;
}

std::optional<int64_t> ParseTimestampMicros(std::string_view s) {
  TimestampLiteral t;
  if (!ParseTimestamp(s, &t).ok()) return std::nullopt;
  // The microseconds fit int64 only within about 292,000 years of 1970 (the year 400448 overflowed
  // here, found by the where fuzz target): outside that range the text is no timestamp rap represents.
  int64_t us = 0;
  if (__builtin_mul_overflow(t.seconds, int64_t{1000000}, &us) || __builtin_add_overflow(us, t.nanos / 1000, &us)) {
    return std::nullopt;
  }
  return us;
}

std::optional<__int128> ParseDecimal(std::string_view s, int32_t scale) {
  __int128 v = 0;
  if (!ParseDecimal(s, scale, &v).ok()) return std::nullopt;
  return v;
}

std::optional<int64_t> ParseInt64(std::string_view s) {
  __int128 v = 0;
  if (!ParseInteger(s, &v).ok()) return std::nullopt;
  if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<double> ParseDouble(std::string_view s) {
  double v = 0;
  if (!ParseDouble(s, &v).ok()) return std::nullopt;
  return v;
}

}  // namespace rap::columnar
