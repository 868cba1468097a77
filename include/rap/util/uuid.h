// Random identifiers for what table formats name by UUID (Delta's metaData.id, Iceberg's and
// Paimon's manifest, snapshot and metadata file names) and the wall clock they record.
#pragma once

#include <cstdint>
#include <string>

namespace rap {

// A random UUID, version 4 ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", lower-case hex).
std::string RandomUuid();

// Milliseconds since the Unix epoch (the system clock).
int64_t UnixMillis();

}  // namespace rap
