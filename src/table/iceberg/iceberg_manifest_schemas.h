// The Avro schemas rap writes Iceberg manifests and manifest lists in (the Iceberg spec's
// manifest_entry with its data_file, and manifest_file), with the spec's field ids, for format
// versions 1 and 2 — only the fields rap writes (every other optional field is absent, which
// readers take as unknown), for an unpartitioned spec. Private to src/table/iceberg.
#pragma once

#include <string>

namespace rap::table::iceberg {

std::string ManifestEntrySchema(int format_version);
std::string ManifestFileSchema(int format_version);

}  // namespace rap::table::iceberg
