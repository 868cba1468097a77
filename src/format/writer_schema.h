// Internal to the writer: the Arrow schema mapped to a Parquet schema, with one LeafColumn per
// Parquet leaf describing how to walk from a top-level Arrow array to the leaf values (for the
// definition/repetition levels) and how to convert leaf values to the physical representation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/format/metadata.h"
#include "rap/format/statistics.h"
#include "rap/util/result.h"

namespace rap::parquet::internal {

// How the leaf Arrow values become physical values (rap/format/encoding.h representation).
enum class ValueConversion {
  kNull,  // null type: every slot is null
  kBool,  // bitmap -> one byte per value
  kCopy,  // same width and bits (int32/64, uint32/64, floats, date, time, ts, FLBA, float16)
  kInt8,
  kInt16,  // sign-extend to INT32
  kUInt8,
  kUInt16,             // zero-extend to INT32
  kSecondsToMillis32,  // time32[s] -> INT32 TIME(ms)
  kSecondsToMillis64,  // timestamp[s] -> INT64 TIMESTAMP(ms)
  kTimestampToInt96,   // timestamp (any unit) -> INT96 (nanos of day, Julian day)
  kDecimalToInt32,
  kDecimalToInt64,
  kDecimalToFlba,
  kBinary,  // string/binary -> BYTE_ARRAY
};

// One level of Arrow nesting on the way from the top-level array to the leaf array.
struct PathStep {
  enum class Kind { kLeaf, kStruct, kList } kind = Kind::kLeaf;  // kList covers list and map
  bool nullable = false;    // an OPTIONAL Parquet node: definition level +1 when present
  int child_index = 0;      // kStruct: the child on the path; kList: 0 (map: the entries struct)
  int16_t def_present = 0;  // definition level once this node is known non-null
  int16_t rep_level = 0;    // kList: repetition level of the list's repeated node
};

struct LeafColumn {
  int top_level = 0;              // index of the top-level field
  std::vector<std::string> path;  // path_in_schema
  std::string dotted;             // path joined with '.'
  std::vector<PathStep> steps;    // steps.back().kind == kLeaf
  int16_t max_def = 0;
  int16_t max_rep = 0;
  Type physical = Type::INT32;
  int32_t type_length = 0;  // FLBA width
  ValueConversion conversion = ValueConversion::kCopy;
  int source_width = 0;                               // bytes per Arrow value (fixed-width sources)
  rap::TimeUnit source_unit = rap::TimeUnit::kMilli;  // kTimestampToInt96
  StatsKind stats_kind = StatsKind::kNone;
  const DataType* leaf_type = nullptr;
  int schema_index = 0;  // index of the leaf's SchemaElement
};

struct WriterSchema {
  std::vector<SchemaElement> elements;  // root first, depth-first
  std::vector<LeafColumn> leaves;       // in schema order
};

// Maps an Arrow schema to Parquet. NotSupported for types without a Parquet form (empty structs,
// non-UTC-adjustable oddities), InvalidArgument for malformed types (list without a child, ...).
Result<WriterSchema> MapSchema(const Schema& schema);

}  // namespace rap::parquet::internal
