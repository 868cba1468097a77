// The gather ("take") kernel: rows of an array by index, for late materialisation in scans, the
// lookup's row picks, sorting before a write, and constant (partition) columns.
#pragma once

#include <cstdint>
#include <span>

#include "rap/columnar/array.h"
#include "rap/util/result.h"

namespace rap::columnar {

// The rows `indices` of `array`, in that order (copies; any type, nested included; an index may
// repeat). Indices must be in [0, length): InvalidArgument names the first one that is not. The
// result has a validity buffer when `array` has one.
Result<ArrayPtr> TakeArray(const ArrayData& array, std::span<const int64_t> indices);
Result<ArrayPtr> TakeArray(const ArrayPtr& array, std::span<const int64_t> indices);

// A constant column: `value` (a 1-row array) repeated `length` times.
Result<ArrayPtr> RepeatValue(const ArrayData& value, int64_t length);

}  // namespace rap::columnar
