// Table snapshot -> Scanner input: the live files with their partition values as typed 1-row
// columns (Delta protocol serialisation, Hive directory values), the logical schema and the
// physical (in-file) column names.
#pragma once

#include "rap/read/scanner.h"
#include "rap/table/table.h"
#include "rap/util/result.h"

namespace rap::table {

Result<read::ScanSource> ToScanSource(const TableSnapshot& snapshot);

}  // namespace rap::table
