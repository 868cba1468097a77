// Test helpers for the Parquet writer: Arrow array builders, random schemas and data (nulls, empty
// and long strings, extreme and special values, nesting), value comparison, and a read-back of a
// whole file through the format-level decoders (footer, schema, ReadColumnChunk, AssembleField).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/format/metadata.h"
#include "rap/format/writer_options.h"
#include "rap/util/result.h"

namespace rap::testing {

// --- builders ---------------------------------------------------------------------------------
// `valid` empty = no validity buffer.
ArrayPtr MakeInt64Array(const std::vector<int64_t>& values, const std::vector<bool>& valid = {});
ArrayPtr MakeDoubleArray(const std::vector<double>& values, const std::vector<bool>& valid = {});
ArrayPtr MakeStringArray(const std::vector<std::string>& values, const std::vector<bool>& valid = {},
                         TypeId id = TypeId::kString);
ArrayPtr MakeFixedArray(DataTypePtr type, const std::string& bytes, int64_t length,
                        const std::vector<bool>& valid = {});
ArrayPtr MakeListArray(DataTypePtr type, const std::vector<int32_t>& offsets, ArrayPtr child,
                       const std::vector<bool>& valid = {});
ArrayPtr MakeStructArray(DataTypePtr type, std::vector<ArrayPtr> children, int64_t length,
                         const std::vector<bool>& valid = {});
RecordBatch MakeBatch(SchemaPtr schema, std::vector<ArrayPtr> columns);

// --- random data ------------------------------------------------------------------------------
struct RandomDataOptions {
  double null_probability = 0.2;
  int max_list_length = 4;
  int max_string_length = 24;
  double long_string_probability = 0.01;  // strings of a few KiB
};

// A random type. `depth` > 0 allows list/struct/map nesting; only types that read back to the same
// Arrow type are produced (no time32[s]/timestamp[s]).
DataTypePtr RandomType(std::mt19937_64& rng, int depth);
SchemaPtr RandomSchema(std::mt19937_64& rng, int num_fields, int max_depth);
ArrayPtr RandomArray(std::mt19937_64& rng, const DataType& type, bool nullable, int64_t length,
                     const RandomDataOptions& options);
RecordBatch RandomBatch(std::mt19937_64& rng, const SchemaPtr& schema, int64_t rows, const RandomDataOptions& options);
// Random layout settings that every reader must accept for `schema` (encodings valid per type).
parquet::WriterOptions RandomOptions(std::mt19937_64& rng, const Schema& schema);

// --- comparison -------------------------------------------------------------------------------
// Element i of a equals element j of b: nulls, bytes of fixed values (NaN bit patterns included),
// binary bytes, list lengths and elements, struct fields. Type ids must match (names may differ).
// On mismatch returns a description, else "".
std::string CompareValues(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j);
// Compares the rows of `expected` (concatenated) with the rows of `actual` (concatenated).
std::string CompareBatches(const std::vector<RecordBatch>& expected, const std::vector<RecordBatch>& actual);

// --- read-back --------------------------------------------------------------------------------
// One batch per row group, decoded with the format-level reader (ReadColumnChunk + AssembleField).
Result<std::vector<RecordBatch>> ReadBackFormatLevel(const std::string& file);
// Walks the page headers of every column chunk and compares them with the OffsetIndex (offsets,
// sizes, first rows of pages as decoded) and the ColumnIndex (null pages and counts, min <= value
// <= max for the page's values where the Arrow bytes are the physical bytes). "" when consistent.
std::string CheckPageIndex(const std::string& file);

}  // namespace rap::testing

#include "format/writer_testing_impl.h"
