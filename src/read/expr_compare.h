// Fast paths of filter evaluation (internal to src/read): a column compared with one literal, as a
// tight loop of native comparisons over the values buffer instead of the generic per-value visitor
// (which widens every integer to __int128 and three-way compares every string). The result is the
// same; the caller still applies NULLs from the validity bitmap.
#pragma once

#include <cstdint>

#include "rap/columnar/array.h"
#include "rap/read/expr.h"

namespace rap::read::internal {

// Writes 1 (TRUE) or 0 (FALSE) per row of `a` into `out` for `a[i] op lit`, ignoring NULLs, and
// returns true; returns false (writing nothing) when no fast path covers the type, op and literal.
bool CompareFast(const ArrayData& a, CompareOp op, const Value& lit, uint8_t* out);

}  // namespace rap::read::internal
