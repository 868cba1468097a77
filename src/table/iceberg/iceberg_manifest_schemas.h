// The Avro schemas rap writes Iceberg manifests and manifest lists in (the Iceberg spec's
// manifest_entry with its data_file, and manifest_file), with the spec's field ids, for format
// versions 1 and 2 — only the fields rap writes (every other optional field is absent, which
// readers take as unknown). Private to src/table/iceberg.
#pragma once

#include <string>

namespace rap::table::iceberg {

// `partition_type`: the data_file's `partition` record type (iceberg_commit_partition.h's
// PartitionStructSchema; the default is an unpartitioned spec's empty record).
inline constexpr const char* kUnpartitionedType = R"({"type": "record", "name": "r102", "fields": []})";
std::string ManifestEntrySchema(int format_version, const std::string& partition_type = kUnpartitionedType);
std::string ManifestFileSchema(int format_version);

}  // namespace rap::table::iceberg
