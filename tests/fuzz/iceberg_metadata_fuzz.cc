// Iceberg table metadata JSON (rap/table/iceberg_metadata.h): any bytes parse to metadata or give an
// error; a snapshot is then chosen (current, by id, as of a time) without crashing.
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "rap/table/iceberg_metadata.h"

RAP_FUZZ_TARGET(iceberg_metadata) {
  using namespace rap::table::iceberg;
  auto m = ParseTableMetadata(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.metadata.json");
  if (!m.ok()) return 0;
  (void)SelectSnapshot(*m, std::nullopt, std::nullopt, "fuzz");
  if (!m->snapshots.empty()) {
    (void)SelectSnapshot(*m, m->snapshots.front().snapshot_id, std::nullopt, "fuzz");
    (void)SelectSnapshot(*m, std::nullopt, m->snapshots.front().timestamp_ms, "fuzz");
  }
  return 0;
}
