// Iceberg data-file metrics (manifest lower_bounds, upper_bounds in the spec's single-value binary
// serialization; null_value_counts; record_count) as per-column bounds the Scanner prunes files with
// before opening them (read::ScanFile::column_stats), as Delta's add.stats are. Private to
// src/table/iceberg.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rap/read/expr.h"
#include "rap/table/iceberg_metadata.h"
#include "table/iceberg/iceberg_manifest.h"

namespace rap::table::iceberg {

// One entry per top-level column of `schema` (nullopt where nothing safe is known). Bounds are kept for
// int, long, date, time, timestamp(tz)(_ns), decimal and string columns (a 4-byte bound of a column
// promoted from int to long is widened); float and double columns (NaN) and binary, uuid, fixed and
// nested columns give their null counts only.
// The spec's single-value serialization of integers: little-endian 4- or 8-byte values (int, long,
// date, time, timestamps; sign-extended), and a decimal's unscaled value, big-endian two's complement
// of at most 16 bytes. nullopt for any other length.
std::optional<__int128> LittleEndianInt(const std::string& b);
std::optional<__int128> BigEndianInt(const std::string& b);

std::vector<std::optional<read::ColumnStats>> IcebergFileStats(const ContentFile& file, const IcebergSchema& schema);

}  // namespace rap::table::iceberg
