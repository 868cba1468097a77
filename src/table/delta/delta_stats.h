// Delta `add.stats` (numRecords, minValues, maxValues, nullCount JSON) as per-column bounds the
// Scanner can prune files with before opening them (read::ScanFile::column_stats). Internal to
// src/table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/read/expr.h"

namespace rap::table {

// One entry per field of `schema` (nullopt where nothing safe is known); empty when `stats_json` is
// empty or not an object. `physical_names` (may be empty) gives the stats key per field (column
// mapping). Only bounds that hold for every value are kept:
// - integers, dates and decimals (up to 15 digits when written as JSON numbers): min and max as written;
// - timestamps: widened by one millisecond each way (writers truncate them to milliseconds);
// - strings: the min only (writers truncate long values, so a written max may be below the true max);
// - floats, booleans, binary and nested columns: nullCount only (NaN is not ordered in stats).
std::vector<std::optional<read::ColumnStats>> DeltaFileStats(const std::string& stats_json, const Schema& schema,
                                                             const std::vector<std::string>& physical_names);

}  // namespace rap::table
