// A blob column (docs/layouts.md "A blob column"): every non-key column of a row serialised into one
// JSON object in a string column, so that a lookup reads one column per key. The folded columns'
// schema travels in the file footer's key-value metadata under kBlobMetadataKey, which lets a reader
// (Index::Lookup, `rap lookup`, the server) decode the blob back into the original columns with their
// types and nulls.
//
// Row encoding: {"name": value, ...} over the folded columns in schema order, each value as
// FormatJsonValue writes it (numbers and booleans bare, NaN/inf as strings, strings quoted — a JSON
// extension column too —, binary and fixed-size binary as "0x" + hex, dates, times and timestamps
// quoted, decimals as decimal text, lists as arrays, structs as objects, null as null).
// Supported folded types: every type except map, float16 and null (CheckBlobField refuses them), and
// dates/timestamps in years 0000–9999.
//
// Metadata value (JSON): {"column": "blob", "fields": [FIELD, ...]} with FIELD = {"name": s,
// "nullable": b, "type": TYPE} and TYPE = {"id": "int64" | "timestamp" | ..., optional "unit"
// ("s"|"ms"|"us"|"ns"), "tz", "precision", "scale", "width", "extension", and "children": [FIELD...]
// for list and struct}.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/format/metadata.h"
#include "rap/util/result.h"

namespace rap::parquet {

inline constexpr char kBlobMetadataKey[] = "rap.blob";

struct BlobSpec {
  std::string column = "blob";  // the blob column's name
  std::vector<Field> fields;    // the folded columns, in their original order
};

std::string BlobSpecToJson(const BlobSpec& spec);
Result<BlobSpec> ParseBlobSpec(std::string_view json);
// The spec in a footer's key-value metadata; nullopt when the file has no blob column. A malformed
// value is Corrupt.
Result<std::optional<BlobSpec>> FindBlobSpec(const std::vector<KeyValue>& key_value_metadata);

// OK when `field` (and everything nested in it) decodes back from its JSON form.
Status CheckBlobField(const Field& field);

// A blob layout of a schema: the key columns kept, in the given order, then the blob column folding
// every other column (in schema order). InvalidArgument for an unknown key, a column already named
// like the blob column, or a column CheckBlobField refuses.
struct BlobLayout {
  BlobSpec spec;
  SchemaPtr schema;         // keys + the blob column
  std::vector<int> keys;    // indexes of the key columns in the input schema
  std::vector<int> folded;  // indexes of the folded columns in the input schema
};
Result<BlobLayout> PlanBlobLayout(const Schema& input, const std::vector<std::string>& keys);
// `batch` (of the input schema) in the layout's schema.
Result<RecordBatch> ToBlobBatch(const BlobLayout& layout, const RecordBatch& batch);

// The blob column (non-null strings, extension "json") of `columns` (folded fields of `spec`, same
// order, equal lengths).
Result<ArrayPtr> EncodeBlob(const BlobSpec& spec, std::span<const ArrayPtr> columns, int64_t num_rows);

// The folded columns `wanted` (indexes into spec.fields) of every row of `blob`. InvalidArgument
// names the row and the field of a value that does not decode.
Result<std::vector<ArrayPtr>> DecodeBlob(const BlobSpec& spec, const ArrayData& blob, std::span<const int> wanted);

}  // namespace rap::parquet
