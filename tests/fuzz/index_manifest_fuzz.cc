// The RAP index manifest (index/manifest.h): JSON -> Manifest, with every field checked; a manifest
// that parses must survive a write/parse round trip unchanged.
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "rap/index/manifest.h"

RAP_FUZZ_TARGET(index_manifest) {
  using namespace rap::index;
  auto m = ManifestFromJson(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!m.ok()) return 0;
  (void)m->LiveOrdinal("a.parquet");
  const std::string json = ManifestToJson(*m);
  auto again = ManifestFromJson(json, "again.json");
  if (!again.ok() || ManifestToJson(*again) != json) __builtin_trap();
  return 0;
}
