// Directory/prefix tables: every Parquet file under a prefix, recursively, in path order, with
// Hive-style partition directories (`key=value/`) turned into partition values. Files and folders
// whose name starts with '.' or '_' (`_SUCCESS`, `_delta_log/`, `.part-0.crc`, `.tmp/`) and files
// that do not end in `.parquet` are ignored, like Spark and Arrow datasets do.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rap/io/object_store.h"
#include "rap/table/table.h"
#include "rap/table/table_format.h"
#include "rap/util/result.h"

namespace rap::table {

// Hive writes a NULL partition value as this directory value.
inline constexpr const char* kHiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__";

// Splits "a=1/b=x%2Fy/part-0.parquet" into [("a","1"), ("b","x/y")] (values %-decoded, the Hive
// default partition becomes nullopt). Path segments without '=' are not partition directories.
// Error (Corrupt) when the directories name the same key twice or a %-escape is malformed.
Result<std::vector<std::pair<std::string, std::optional<std::string>>>> ParseHivePartitions(
    const std::string& relative_path);

// True when a path segment is ignored by listings ('.'/'_' prefixed).
bool IsHiddenName(const std::string& segment);

// Lists the table under `root` of `store`. Every file must carry the same partition keys in the same
// order, else InvalidArgument naming the first file that differs. `root` may also name a single
// `.parquet` object, which gives a one-file table.
Result<TableSnapshot> ListDirectoryTable(const io::ObjectStorePtr& store, const std::string& root);
// The same from a probe's listing (OpenTable: the listing the table formats looked at).
Result<TableSnapshot> ListDirectoryTable(TableProbe& probe);

}  // namespace rap::table
