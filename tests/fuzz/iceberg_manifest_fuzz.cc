// Iceberg manifest lists and manifests (Avro object container files, rap/avro/object_container.h,
// through src/table/iceberg/iceberg_manifest.cc): any bytes decode or give an error, never a crash,
// a hang or an unbounded allocation. The first input byte picks list (even) or manifest (odd).
#include "fuzz/fuzz_target.h"
#include "table/iceberg/iceberg_manifest.h"

RAP_FUZZ_TARGET(iceberg_manifest) {
  using namespace rap::table::iceberg;
  if (size < 1) return 0;
  std::span<const uint8_t> bytes(data + 1, size - 1);
  if (data[0] % 2 == 0) {
    (void)ParseManifestList(bytes, "fuzz.avro");
  } else {
    ManifestFile m;
    m.sequence_number = 3;
    (void)ParseManifest(bytes, m, "fuzz.avro");
  }
  return 0;
}
