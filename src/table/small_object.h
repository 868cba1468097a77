// Whole small objects (table metadata: Iceberg metadata JSON and manifests, Paimon snapshots,
// schemas and manifests, version hints) read under a size limit, in one request where the store
// allows it. Private to src/table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rap/io/object_store.h"
#include "rap/util/result.h"

namespace rap::table {

// The whole object at `path`, at most `limit` bytes: ResourceExhausted naming the object, its size
// and `what` (e.g. "Iceberg metadata files") when larger; NotFound as the store reports it. One GET
// of the last limit + 1 bytes (the whole object, or proof that it is too large) where the store
// answers a suffix range with the object's size; a HEAD and a GET otherwise.
Result<std::string> ReadSmallObject(const io::ObjectStorePtr& store, const std::string& path, uint64_t limit,
                                    std::string_view what);

}  // namespace rap::table
