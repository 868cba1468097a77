// Literal parsing (rap/columnar/literal.h) for filter expressions and Delta partition values. Hand-written because the
// formats are tiny and exact (no locale, no rounding), which std::chrono parsing and strtod are not.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "rap/columnar/literal.h"
#include "rap/util/civil_date.h"

namespace rap::columnar {

namespace {

// Reads exactly `n` digits at s[*pos].
bool Digits(std::string_view s, size_t* pos, int n, int64_t* out) {
  int64_t v = 0;
  for (int i = 0; i < n; ++i) {
    if (*pos >= s.size() || s[*pos] < '0' || s[*pos] > '9') return false;
    v = v * 10 + (s[*pos] - '0');
    ++*pos;
  }
  *out = v;
  return true;
}

// "YYYY-MM-DD" at the start of s (an optional leading '-' or '+' and 4+ year digits are accepted).
bool ParseDatePart(std::string_view s, size_t* pos, int64_t* days) {
  bool neg = false;
  if (*pos < s.size() && (s[*pos] == '-' || s[*pos] == '+')) {
    neg = s[*pos] == '-';
    ++*pos;
  }
  size_t start = *pos;
  int64_t year = 0;
  while (*pos < s.size() && s[*pos] >= '0' && s[*pos] <= '9' && *pos - start < 6) year = year * 10 + (s[(*pos)++] - '0');
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

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<int32_t> ParseDate(std::string_view s) {
  s = Trim(s);
  size_t pos = 0;
  int64_t days = 0;
  if (!ParseDatePart(s, &pos, &days) || pos != s.size()) return std::nullopt;
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return static_cast<int32_t>(days);
}

std::optional<int64_t> ParseTimestampMicros(std::string_view s) {
  s = Trim(s);
  size_t pos = 0;
  int64_t days = 0;
  if (!ParseDatePart(s, &pos, &days)) return std::nullopt;
  int64_t hh = 0, mm = 0, ss = 0, micros = 0;
  if (pos < s.size() && (s[pos] == ' ' || s[pos] == 'T')) {
    ++pos;
    if (!Digits(s, &pos, 2, &hh) || hh > 23) return std::nullopt;
    if (pos >= s.size() || s[pos] != ':') return std::nullopt;
    ++pos;
    if (!Digits(s, &pos, 2, &mm) || mm > 59) return std::nullopt;
    if (pos < s.size() && s[pos] == ':') {
      ++pos;
      if (!Digits(s, &pos, 2, &ss) || ss > 59) return std::nullopt;
      if (pos < s.size() && s[pos] == '.') {
        ++pos;
        int n = 0;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
          if (n < 6) micros = micros * 10 + (s[pos] - '0');
          ++n;
          ++pos;
        }
        if (n == 0 || n > 9) return std::nullopt;
        for (int i = n; i < 6; ++i) micros *= 10;
      }
    }
  }
  int64_t offset_s = 0;
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-') && pos > 10) {
    int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int64_t oh = 0, om = 0;
    if (!Digits(s, &pos, 2, &oh) || oh > 18) return std::nullopt;
    if (pos < s.size() && s[pos] == ':') ++pos;
    if (!Digits(s, &pos, 2, &om) || om > 59) return std::nullopt;
    offset_s = sign * (oh * 3600 + om * 60);
  }
  if (pos != s.size()) return std::nullopt;
  // |days| < 10^6 years * 366, so the seconds fit in int64; the microseconds do only within about
  // 292,000 years of 1970 (a year such as 400448 overflowed here, found by the where fuzz target):
  // outside that range the text is not a timestamp rap can represent.
  int64_t seconds = days * 86400 + hh * 3600 + mm * 60 + ss - offset_s;
  int64_t us = 0;
  if (__builtin_mul_overflow(seconds, int64_t{1000000}, &us) || __builtin_add_overflow(us, micros, &us)) {
    return std::nullopt;
  }
  return us;
}

std::optional<__int128> ParseDecimal(std::string_view s, int32_t scale) {
  s = Trim(s);
  if (s.empty() || scale < 0 || scale > 76) return std::nullopt;
  size_t pos = 0;
  bool neg = false;
  if (s[pos] == '-' || s[pos] == '+') neg = s[pos++] == '-';
  std::string digits;
  int frac = 0;
  bool dot = false, any = false;
  for (; pos < s.size(); ++pos) {
    char c = s[pos];
    if (c >= '0' && c <= '9') {
      any = true;
      if (!(digits.empty() && c == '0')) digits.push_back(c);
      if (dot) ++frac;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!any) return std::nullopt;
  int64_t exp = 0;
  if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
    ++pos;
    bool eneg = false;
    if (pos < s.size() && (s[pos] == '-' || s[pos] == '+')) eneg = s[pos++] == '-';
    size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && exp < 100000) exp = exp * 10 + (s[pos++] - '0');
    if (pos == start) return std::nullopt;
    if (eneg) exp = -exp;
  }
  if (pos != s.size()) return std::nullopt;
  // value = digits * 10^(shift) at the target scale.
  int64_t shift = static_cast<int64_t>(scale) - frac + exp;
  if (shift < 0) {
    // The dropped digits must be zeros.
    int64_t drop = -shift;
    if (drop > static_cast<int64_t>(digits.size())) {
      for (char c : digits) {
        if (c != '0') return std::nullopt;
      }
      digits.clear();
    } else {
      for (size_t i = digits.size() - static_cast<size_t>(drop); i < digits.size(); ++i) {
        if (digits[i] != '0') return std::nullopt;
      }
      digits.resize(digits.size() - static_cast<size_t>(drop));
    }
    shift = 0;
  }
  if (static_cast<int64_t>(digits.size()) + shift > 38 && !digits.empty()) return std::nullopt;
  __int128 v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  for (int64_t i = 0; i < shift && !digits.empty(); ++i) v *= 10;
  return neg ? -v : v;
}

std::optional<int64_t> ParseInt64(std::string_view s) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  size_t pos = 0;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') neg = s[pos++] == '-';
  if (pos == s.size()) return std::nullopt;
  unsigned __int128 v = 0;
  for (; pos < s.size(); ++pos) {
    if (s[pos] < '0' || s[pos] > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(s[pos] - '0');
    if (v > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()) + 1) return std::nullopt;
  }
  if (!neg && v > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return neg ? static_cast<int64_t>(-static_cast<__int128>(v)) : static_cast<int64_t>(v);
}

std::optional<double> ParseDouble(std::string_view s) {
  s = Trim(s);
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity" || s == "+Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  if (s.empty()) return std::nullopt;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return std::nullopt;
  }
  std::string copy(s);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return v;
}

}  // namespace rap::columnar
