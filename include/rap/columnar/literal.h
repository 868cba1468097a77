// Exact text literals — the one grammar rap accepts for values written as text: filter expressions,
// Delta partition values and statistics, and the text/CSV/JSON column builders. Hand-written because
// the formats are tiny and exact (no locale, no rounding), which std::chrono parsing and strtod alone
// are not. Leading and trailing white space is ignored.
//
// Grammar (every parser below accepts exactly this; the Status forms say what was wrong):
//   integer   := [+-] digit+
//   double    := [+-] (digit+ [. digit*] | . digit+) [(e|E) [+-] digit+] | NaN | [+-](Infinity | inf),
//                the names in any case; a magnitude beyond double's range is ±Infinity / ±0
//   decimal   := [+-] digit* [. digit*] [(e|E) [+-] digit+]  (at least one digit; exact at the scale)
//   date      := [+-] YYYY[YY] - MM - DD                       (proleptic Gregorian, 4–6 year digits)
//   time      := HH:MM[:SS[.fraction]][Z|z]                  (SS ≤ 60; fraction digits past 9 ignored;
//                                                              Z marks a time adjusted to UTC)
//   timestamp := date [(T|t| ) time] [Z | z | (+|-)HH[[:]MM]]  (no zone = UTC)
//   boolean   := true | false | t | f | yes | no | 1 | 0      (any case)
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "rap/util/status.h"

namespace rap::columnar {

// A timestamp literal: whole seconds since the epoch (UTC, zone applied) and the nanoseconds within
// that second, in [0, 1e9).
struct TimestampLiteral {
  int64_t seconds = 0;
  int32_t nanos = 0;
};

// ---- Status forms: InvalidArgument naming the value and what is wrong with it ----
Status ParseDate(std::string_view s, int32_t* days);
Status ParseTimeOfDay(std::string_view s, int64_t* nanos_of_day);
Status ParseTimestamp(std::string_view s, TimestampLiteral* out);
// The unscaled value at `scale`; errors when it is not a number, needs more than 38 digits, or has
// non-zero digits beyond `scale`.
Status ParseDecimal(std::string_view s, int32_t scale, __int128* out);
// Any integer in [-2^64, 2^64 - 1]: callers check their own type's range.
Status ParseInteger(std::string_view s, __int128* out);
Status ParseDouble(std::string_view s, double* out);
Status ParseBool(std::string_view s, bool* out);

// ---- Optional forms for callers that only need "is it a value of this type" ----
// Days since 1970-01-01.
std::optional<int32_t> ParseDate(std::string_view s);
// Microseconds since the epoch (digits past the microsecond are truncated); nullopt beyond int64.
std::optional<int64_t> ParseTimestampMicros(std::string_view s);
std::optional<__int128> ParseDecimal(std::string_view s, int32_t scale);
// Exact integer in [INT64_MIN, INT64_MAX].
std::optional<int64_t> ParseInt64(std::string_view s);
std::optional<double> ParseDouble(std::string_view s);

}  // namespace rap::columnar
