// Lossless casts between array types (a file's column read as the table's column type).
#pragma once

#include "rap/columnar/array.h"
#include "rap/util/result.h"

namespace rap::columnar {

// Converts `array` to `type` when that loses nothing: integer widening, integer/float32 to float64,
// integer and decimal to a decimal that holds every value, timestamp unit changes (to a coarser unit
// only when exact), date32 to timestamp; a different time zone annotation only relabels. NotSupported
// else.
Result<ArrayPtr> CastArray(const ArrayPtr& array, const DataTypePtr& type);

}  // namespace rap::columnar
