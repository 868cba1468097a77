// The latest bundle of a RAP index (index/latest_bundle.h): JSON with an embedded manifest and
// base64 schema files -> LatestBundle, every member checked; a bundle that parses must survive a
// write/parse round trip unchanged (after one normalisation of its base64).
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "rap/index/latest_bundle.h"

RAP_FUZZ_TARGET(index_latest_bundle) {
  using namespace rap::index;
  auto b = LatestBundleFromJson(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!b.ok()) return 0;
  const std::string once = LatestBundleToJson(*b);
  auto again = LatestBundleFromJson(once, "again.json");
  if (!again.ok() || LatestBundleToJson(*again) != once) __builtin_trap();
  return 0;
}
