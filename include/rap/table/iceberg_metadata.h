// Apache Iceberg table metadata (`*.metadata.json`, the Iceberg table spec v1-v3): schemas with field
// ids (as rap types plus Parquet field-id trees), partition specs, snapshots, and the choice of a
// snapshot (current, by id, as of a time). v1 legacy fields (`schema`, `partition-spec`, snapshots
// with `manifests` instead of a manifest list) are read too.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/read/field_id_tree.h"
#include "rap/util/result.h"

namespace rap::table::iceberg {

struct IcebergSchema {
  int32_t schema_id = 0;
  SchemaPtr schema;                          // top-level columns as rap types
  std::vector<read::FieldIdTree> field_ids;  // per top-level column
  std::map<int32_t, std::string> primitive;  // field id -> Iceberg primitive type ("int", "decimal(9,2)", ...)
  // Per top-level column: its v3 `initial-default` (the value of files written before it was added) in
  // the text form table::MakePartitionArray parses; nullopt: NULL.
  std::vector<std::optional<std::string>> initial_defaults;
};

struct PartitionField {
  int32_t source_id = 0;
  int32_t field_id = 0;
  std::string name;
  std::string transform;  // "identity", "bucket[16]", "hour", "void", ...
};

struct PartitionSpec {
  int32_t spec_id = 0;
  std::vector<PartitionField> fields;
  // True when no field partitions (every field void): deletes of such a spec apply table-wide.
  bool Unpartitioned() const;
};

struct Snapshot {
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;  // 0 in v1
  int64_t timestamp_ms = 0;
  std::string manifest_list;           // empty for a v1 snapshot that lists `manifests`
  std::vector<std::string> manifests;  // v1 only
  std::optional<int32_t> schema_id;
};

struct TableMetadata {
  int format_version = 1;
  std::string location;
  std::vector<IcebergSchema> schemas;
  int32_t current_schema_id = 0;
  std::vector<PartitionSpec> specs;
  int32_t default_spec_id = 0;  // `default-spec-id` (v1 metadata with a single `partition-spec`: 0)
  std::optional<int64_t> current_snapshot_id;  // none: the table has no snapshot (empty)
  std::vector<Snapshot> snapshots;
  std::map<std::string, std::string> properties;

  const IcebergSchema* Schema(int32_t id) const;
  const PartitionSpec* Spec(int32_t id) const;
};

// Parses a metadata JSON document. `what` names it in messages. Corrupt naming the field on anything
// malformed; NotSupported for types rap does not read (variant, geometry, geography, unknown).
Result<TableMetadata> ParseTableMetadata(std::string_view json, const std::string& what);

// The snapshot to read: `snapshot_id` when given, else the last one committed at or before `as_of_ms`
// when given, else the current one. Null when the table has no snapshot (and none was asked for).
Result<const Snapshot*> SelectSnapshot(const TableMetadata& metadata, std::optional<int64_t> snapshot_id,
                                       std::optional<int64_t> as_of_ms, const std::string& what);

// The table property `schema.name-mapping.default` (a JSON array of {"field-id", "names", "fields"}):
// Corrupt naming `what` when malformed.
Result<read::NameMapping> ParseNameMapping(std::string_view json, const std::string& what);

// `--as-of`: milliseconds since the epoch, or a UTC time "YYYY-MM-DD[ |T]HH:MM:SS[.fff][Z]" or a date.
Result<int64_t> ParseAsOf(std::string_view text);

// `--location-map OLD=NEW`: the pair; InvalidArgument without '=' or with an empty OLD.
Result<std::pair<std::string, std::string>> ParseLocationMapping(std::string_view text);

}  // namespace rap::table::iceberg
