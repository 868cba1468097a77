// Text renderings of one value of an array: for people (CLI output) and as JSON (server responses,
// `rap cat --format json`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rap/columnar/array.h"

namespace rap::columnar {

// Human-readable value for CLI output ("null" for nulls, JSON-ish for nested values).
std::string FormatValue(const ArrayData& array, int64_t i);
// The value as a JSON text: numbers and booleans bare (floats always with a "." or an exponent),
// strings, binary (0x hex), dates, times and timestamps quoted, NaN/inf as strings, JSON columns
// inlined as JSON values (when valid JSON), lists as arrays, structs and maps as objects.
std::string FormatJsonValue(const ArrayData& array, int64_t i);
// `s` as a quoted JSON string (", \ and control characters escaped; a byte that starts no
// well-formed UTF-8 sequence becomes U+FFFD, so the result is always valid JSON).
std::string JsonQuote(std::string_view s);

}  // namespace rap::columnar
