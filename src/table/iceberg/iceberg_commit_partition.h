// The partition side of a replace snapshot (rap/table/iceberg_commit.h): the Avro type of the new
// manifest's `partition` struct, derived from the table's default spec as the Iceberg spec says (one
// optional field per partition field, under its name made a valid Avro name, with its field id, of the
// transform's result type), each new file's tuple as a record of that type, the spec as the manifest
// header's `partition-spec`, and the manifest list's field summaries of the tuples. Private to
// src/table/iceberg.
#pragma once

#include <string>
#include <vector>

#include "rap/avro/value.h"
#include "rap/table/iceberg_metadata.h"
#include "rap/util/result.h"

namespace rap::table::iceberg {

// The `partition` record type (Avro schema JSON) of `spec`'s tuples, the source columns' types from
// `schema`. NotSupported naming `what` and the field for a transform or type rap does not write.
Result<std::string> PartitionStructSchema(const PartitionSpec& spec, const IcebergSchema& schema,
                                          const std::string& what);

// The spec's fields as JSON (`[{"name", "transform", "source-id", "field-id"}, ...]`).
std::string PartitionSpecJson(const PartitionSpec& spec);

// A tuple (one value per field of `spec`; empty: every field null) as a record of PartitionStructSchema.
avro::Value PartitionRecord(const PartitionSpec& spec, const std::vector<avro::Value>& tuple);

// The manifest list's `partitions` of a manifest of files with `tuples` (each as PartitionRecord
// takes it): per field, contains_null, contains_nan, and the lower and upper bound of the non-null
// values in the single-value serialization of the field's result type. Corrupt naming `what` when a
// value is not of that type.
Result<avro::Value> PartitionSummaries(const PartitionSpec& spec, const IcebergSchema& schema,
                                       const std::vector<std::vector<avro::Value>>& tuples, const std::string& what);

}  // namespace rap::table::iceberg
