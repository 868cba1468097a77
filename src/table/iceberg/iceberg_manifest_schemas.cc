#include "table/iceberg/iceberg_manifest_schemas.h"

namespace rap::table::iceberg {
namespace {

// data_file's metrics: maps from field id, written as arrays of key/value records (Avro maps have
// string keys).
constexpr const char* kMetrics = R"(
  {"name": "column_sizes", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k117_v118", "fields": [
    {"name": "key", "type": "int", "field-id": 117}, {"name": "value", "type": "long", "field-id": 118}]}}], "doc": "Map of column id to total size on disk", "default": null, "field-id": 108},
  {"name": "value_counts", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k119_v120", "fields": [
    {"name": "key", "type": "int", "field-id": 119}, {"name": "value", "type": "long", "field-id": 120}]}}], "doc": "Map of column id to total count, including null and NaN", "default": null, "field-id": 109},
  {"name": "null_value_counts", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k121_v122", "fields": [
    {"name": "key", "type": "int", "field-id": 121}, {"name": "value", "type": "long", "field-id": 122}]}}], "doc": "Map of column id to null value count", "default": null, "field-id": 110},
  {"name": "lower_bounds", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k126_v127", "fields": [
    {"name": "key", "type": "int", "field-id": 126}, {"name": "value", "type": "bytes", "field-id": 127}]}}], "doc": "Map of column id to lower bound", "default": null, "field-id": 125},
  {"name": "upper_bounds", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k129_v130", "fields": [
    {"name": "key", "type": "int", "field-id": 129}, {"name": "value", "type": "bytes", "field-id": 130}]}}], "doc": "Map of column id to upper bound", "default": null, "field-id": 128}
)";

constexpr const char* kPartitions = R"(
{"name": "partitions", "type": ["null", {"type": "array", "items": {"type": "record", "name": "r508", "fields": [
  {"name": "contains_null", "type": "boolean", "doc": "True if any file has a null partition value", "field-id": 509},
  {"name": "contains_nan", "type": ["null", "boolean"], "doc": "True if any file has a nan partition value", "default": null, "field-id": 518},
  {"name": "lower_bound", "type": ["null", "bytes"], "doc": "Partition lower bound for all files", "default": null, "field-id": 510},
  {"name": "upper_bound", "type": ["null", "bytes"], "doc": "Partition upper bound for all files", "default": null, "field-id": 511}
]}, "element-id": 508}], "doc": "Summary for each partition", "default": null, "field-id": 507}
)";

}  // namespace

std::string ManifestEntrySchema(int format_version, const std::string& partition_type) {
  const bool v1 = format_version == 1;
  std::string s = R"({"type": "record", "name": "manifest_entry", "fields": [
{"name": "status", "type": "int", "field-id": 0},)";
  if (v1) {
    s += R"({"name": "snapshot_id", "type": "long", "field-id": 1},)";
  } else {
    s += R"({"name": "snapshot_id", "type": ["null", "long"], "default": null, "field-id": 1},
{"name": "sequence_number", "type": ["null", "long"], "default": null, "field-id": 3},
{"name": "file_sequence_number", "type": ["null", "long"], "default": null, "field-id": 4},)";
  }
  s += R"({"name": "data_file", "type": {"type": "record", "name": "r2", "fields": [)";
  if (!v1) {
    s += R"({"name": "content", "type": "int", "doc": "Contents of the file: 0=data, 1=position deletes, 2=equality deletes", "field-id": 134},)";
  }
  s += R"(
  {"name": "file_path", "type": "string", "doc": "Location URI with FS scheme", "field-id": 100},
  {"name": "file_format", "type": "string", "doc": "File format name: avro, orc, or parquet", "field-id": 101},
  {"name": "partition", "type": )" + partition_type +
       R"(, "doc": "Partition data tuple, schema based on the partition spec", "field-id": 102},
  {"name": "record_count", "type": "long", "doc": "Number of records in the file", "field-id": 103},
  {"name": "file_size_in_bytes", "type": "long", "doc": "Total file size in bytes", "field-id": 104},)";
  if (v1) s += R"({"name": "block_size_in_bytes", "type": "long", "doc": "Deprecated. Always write a default in v1", "field-id": 105},)";
  s += kMetrics;
  s += R"(]}, "field-id": 2}]})";
  return s;
}

std::string ManifestFileSchema(int format_version) {
  const bool v1 = format_version == 1;
  std::string s = R"({"type": "record", "name": "manifest_file", "fields": [
{"name": "manifest_path", "type": "string", "doc": "Location URI with FS scheme", "field-id": 500},
{"name": "manifest_length", "type": "long", "doc": "Total file size in bytes", "field-id": 501},
{"name": "partition_spec_id", "type": "int", "doc": "Spec ID used to write", "field-id": 502},)";
  if (v1) {
    s += R"(
{"name": "added_snapshot_id", "type": ["null", "long"], "doc": "Snapshot ID that added the manifest", "default": null, "field-id": 503},
{"name": "added_data_files_count", "type": ["null", "int"], "doc": "Added entry count", "default": null, "field-id": 504},
{"name": "existing_data_files_count", "type": ["null", "int"], "doc": "Existing entry count", "default": null, "field-id": 505},
{"name": "deleted_data_files_count", "type": ["null", "int"], "doc": "Deleted entry count", "default": null, "field-id": 506},)";
    s += kPartitions;
    s += R"(,
{"name": "added_rows_count", "type": ["null", "long"], "doc": "Added rows count", "default": null, "field-id": 512},
{"name": "existing_rows_count", "type": ["null", "long"], "doc": "Existing rows count", "default": null, "field-id": 513},
{"name": "deleted_rows_count", "type": ["null", "long"], "doc": "Deleted rows count", "default": null, "field-id": 514}
]})";
    return s;
  }
  s += R"(
{"name": "content", "type": "int", "doc": "Contents of the manifest: 0=data, 1=deletes", "field-id": 517},
{"name": "sequence_number", "type": "long", "doc": "Sequence number when the manifest was added", "field-id": 515},
{"name": "min_sequence_number", "type": "long", "doc": "Lowest sequence number in the manifest", "field-id": 516},
{"name": "added_snapshot_id", "type": "long", "doc": "Snapshot ID that added the manifest", "field-id": 503},
{"name": "added_files_count", "type": "int", "doc": "Added entry count", "field-id": 504},
{"name": "existing_files_count", "type": "int", "doc": "Existing entry count", "field-id": 505},
{"name": "deleted_files_count", "type": "int", "doc": "Deleted entry count", "field-id": 506},
{"name": "added_rows_count", "type": "long", "doc": "Added rows count", "field-id": 512},
{"name": "existing_rows_count", "type": "long", "doc": "Existing rows count", "field-id": 513},
{"name": "deleted_rows_count", "type": "long", "doc": "Deleted rows count", "field-id": 514},
)";
  s += kPartitions;
  s += "\n]}";
  return s;
}

}  // namespace rap::table::iceberg
