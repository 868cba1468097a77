// Exact text literals: dates, timestamps, decimals, integers and floats as filter expressions and
// Delta partition values write them. Hand-written because the formats are tiny and exact (no locale,
// no rounding), which std::chrono parsing and strtod alone are not. Leading and trailing blanks and
// tabs are ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rap::columnar {

// Days since 1970-01-01 for "YYYY-MM-DD" (proleptic Gregorian).
std::optional<int32_t> ParseDate(std::string_view s);
// Microseconds since the epoch for "YYYY-MM-DD[( |T)HH:MM[:SS[.f{1,9}]]][Z|+HH:MM|-HH:MM]" (date only
// = midnight; digits past the microsecond are truncated).
std::optional<int64_t> ParseTimestampMicros(std::string_view s);
// An exact decimal ("-12.5", "1E+3", "0.00"): the unscaled value at `scale`; nullopt when it is not a
// number, needs more than 38 digits, or has non-zero digits beyond `scale`.
std::optional<__int128> ParseDecimal(std::string_view s, int32_t scale);
// Exact integer in [INT64_MIN, INT64_MAX].
std::optional<int64_t> ParseInt64(std::string_view s);
// A float/double literal (decimal or scientific notation, plus "NaN", "Infinity", "-Infinity").
std::optional<double> ParseDouble(std::string_view s);

}  // namespace rap::columnar
