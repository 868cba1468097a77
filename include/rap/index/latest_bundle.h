// The latest-version bundle `_manifest/_latest.json`: a copy of the newest manifest together with
// the schema files it names, so that a fresh process opens an index in one round (docs/index-format.md
// "The latest bundle"). It is a cache: the numbered manifests stay the truth, a reader probes the
// bundle's version + 1 and reloads when a newer version exists, and a missing, damaged or stale
// bundle only costs the older path (the hint, then the manifest).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "rap/index/manifest.h"
#include "rap/io/object_store.h"
#include "rap/util/buffer.h"
#include "rap/util/status.h"

namespace rap::index {

inline constexpr int kLatestBundleFormat = 1;
// A manifest whose bundle (manifest and schema files) would pass this is not bundled; readers then
// take the hint path.
inline constexpr uint64_t kLatestBundleMaxBytes = 4ull << 20;

struct LatestBundle {
  Manifest manifest;
  // Schema file path (relative to the index directory, as in Manifest::schemas) -> its bytes.
  std::map<std::string, Buffer> schema_files;
};

std::string LatestBundlePath(const std::string& index_dir);

std::string LatestBundleToJson(const LatestBundle& b);
// `what` names the object in errors (Corrupt: JSON syntax with its byte offset, a missing or
// mistyped member, bad base64, a schema file the manifest does not name).
Result<LatestBundle> LatestBundleFromJson(std::string_view text, const std::string& what);

// Writes the bundle of `m` (reading its schema files from the index); when it would exceed
// kLatestBundleMaxBytes, deletes any older bundle instead, so that readers take the hint path.
Status WriteLatestBundle(io::ObjectStore& store, const std::string& index_dir, const Manifest& m);

// The bundle of the index at `index_dir`; nullopt when there is none or it does not parse (a
// damaged cache is ignored: the hint path, read in the same round, answers). Store errors other
// than NotFound are returned.
Result<std::optional<LatestBundle>> ReadLatestBundle(io::ObjectStore& store, const std::string& index_dir);

}  // namespace rap::index
