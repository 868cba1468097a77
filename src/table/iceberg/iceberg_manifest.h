// Iceberg manifest lists and manifests (Avro, rap/avro/object_container.h) as the entries a scan
// needs, with the spec's sequence-number inheritance applied. Private to src/table/iceberg.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rap/avro/value.h"
#include "rap/util/result.h"

namespace rap::table::iceberg {

// The manifest list's summary of one partition field over a manifest's files (field_summary): bounds
// in the single-value binary serialization of the field's result type.
struct FieldSummary {
  bool contains_null = true;
  std::optional<std::string> lower, upper;
};

struct ManifestFile {
  std::string path;
  int32_t spec_id = 0;
  int content = 0;  // 0 data, 1 deletes
  int64_t sequence_number = 0;
  int64_t added_snapshot_id = 0;
  std::vector<FieldSummary> partitions;  // one per field of the manifest's spec; empty when not written
};

struct ContentFile {
  int status = 1;   // 0 existing, 1 added, 2 deleted
  int content = 0;  // 0 data, 1 position deletes, 2 equality deletes
  int64_t data_sequence_number = 0;
  int32_t spec_id = 0;
  std::string file_path;
  std::string file_format;  // "PARQUET", "PUFFIN", ...
  std::string partition_key;  // the partition tuple, serialised for equality tests
  std::vector<avro::Value> partition;  // the partition tuple's values, one per field of the spec
  int64_t record_count = 0;
  int64_t file_size = 0;
  std::map<int32_t, std::string> lower_bounds, upper_bounds;
  std::map<int32_t, int64_t> null_counts;
  std::vector<int32_t> equality_ids;
  std::optional<std::string> referenced_data_file;
  std::optional<int64_t> content_offset, content_size;
};

// The manifests of a manifest list (v1 lists: data manifests, sequence number 0).
Result<std::vector<ManifestFile>> ParseManifestList(std::span<const uint8_t> bytes, const std::string& what);

// The entries of a manifest, sequence numbers inherited from `manifest` where null (v1: 0).
Result<std::vector<ContentFile>> ParseManifest(std::span<const uint8_t> bytes, const ManifestFile& manifest,
                                               const std::string& what);

}  // namespace rap::table::iceberg
