// Delta Lake schemaString (metaData.schemaString, Spark's StructType JSON) -> rap::Schema, and the
// typed reading of serialised partition values (protocol "Partition Value Serialization").
//
// Type mapping: string->string, binary->binary, boolean->bool, byte/short/integer/long->int8..int64,
// float/double->float32/float64, decimal(p,s)->decimal128(p,s), date->date32,
// timestamp->timestamp[us, tz=UTC], timestamp_ntz->timestamp[us], struct/array/map->struct/list/map.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/read/expr.h"
#include "rap/read/field_id_tree.h"
#include "rap/util/result.h"

namespace rap::table {

enum class ColumnMappingMode { kNone, kName, kId };

struct DeltaSchema {
  SchemaPtr schema;                         // logical names
  std::vector<std::string> physical_names;  // per top-level field (== logical name without mapping)
  // True when a nested field (inside a struct/array/map) carries a physical name different from its
  // logical name; such columns need renaming below the top level.
  bool nested_physical_names = false;
  // When nested_physical_names: per top-level field, its type with the physical names of nested
  // struct fields (what the data files hold); else empty.
  std::vector<DataTypePtr> physical_types;
  // Mode id: per top-level field, its delta.columnMapping.id and those of the fields inside it (the
  // Scanner finds columns by Parquet field_id with them); else empty.
  std::vector<read::FieldIdTree> field_ids;
};

// Parses a schemaString. `mode` decides whether delta.columnMapping.physicalName is used (name and
// id mode alike: partition values and statistics are keyed by physical name in both) and, in mode
// id, delta.columnMapping.id (the Parquet field_id data files are read by).
// Unknown types (e.g. variant) give NotSupported naming the field and the type.
Result<DeltaSchema> ParseDeltaSchema(const std::string& schema_string, ColumnMappingMode mode);

// Parses a Delta type name of a primitive ("long", "decimal(10,2)", ...).
Result<DataTypePtr> ParseDeltaPrimitiveType(const std::string& name);

// A constant column of `length` rows holding one partition value of `type`, parsed from its
// serialised form: integers and floats in decimal, booleans "true"/"false", decimals as plain or
// scientific decimal strings, dates "YYYY-MM-DD", timestamps "YYYY-MM-DD HH:MM:SS[.ffffff]" (or ISO
// 8601 with 'T' and a trailing 'Z'), strings and binary as-is. nullopt and "" are NULL.
// InvalidArgument names the column and the value when it does not parse.
Result<ArrayPtr> MakePartitionArray(const std::string& column, const DataType& type,
                                    const std::optional<std::string>& value, int64_t length);

}  // namespace rap::table
