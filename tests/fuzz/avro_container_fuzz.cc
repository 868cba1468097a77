// The Avro module on its own (rap/avro/object_container.h, src/avro/): any bytes as an object
// container file — magic, header metadata map, writer's schema JSON (schema_check.cc, then Avro C),
// codec, blocks, sync markers, every datum walked against the schema before Avro C decodes it —
// decode into value trees or give an error, never a crash, a hang or an unbounded allocation. The
// Iceberg and Paimon targets reach it through their manifests; this one has no table layer in front.
#include "fuzz/fuzz_target.h"
#include "rap/avro/object_container.h"

RAP_FUZZ_TARGET(avro_container) {
  rap::avro::ReadLimits limits;
  limits.max_records = 1 << 16;
  limits.max_block_bytes = 4 << 20;
  (void)rap::avro::ReadContainerFile(std::span<const uint8_t>(data, size), "fuzz.avro", limits);
  return 0;
}
