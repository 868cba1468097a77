// Reading Parquet checkpoint files (classic parts, V2 Parquet manifests and sidecars) into the
// replay's actions, through the Parquet FileReader.
#pragma once

#include <string>

#include "rap/io/object_store.h"
#include "table/delta/delta_actions.h"

namespace rap::table {

// Reads the add/remove/metaData/protocol/sidecar/checkpointMetadata columns of one checkpoint file.
Status ReadParquetCheckpointActions(const io::ObjectStorePtr& store, const std::string& path, DeltaActions* out);

}  // namespace rap::table
