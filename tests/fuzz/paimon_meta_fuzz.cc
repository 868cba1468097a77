// Paimon metadata (src/table/paimon/paimon_meta.cc): snapshot and schema JSON, manifest lists and
// manifests (Avro object containers or ORC files), BinaryRow partitions and keys, index manifests
// and deletion-vector index files (the vector at the offset and length of the input's first 4 bytes). Any bytes parse
// or give an error, never a crash, a hang or an unbounded allocation. The first input byte picks
// the parser.
#include <optional>
#include <string>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "table/paimon/paimon_meta.h"

RAP_FUZZ_TARGET(paimon_meta) {
  using namespace rap::table::paimon;
  if (size < 1) return 0;
  std::span<const uint8_t> bytes(data + 1, size - 1);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 7) {
    case 0:
      (void)ParseSnapshot(text, "snapshot-1");
      break;
    case 1:
      (void)ParseSchema(text, "schema-0");
      break;
    case 2: {
      auto records = ReadManifestRecords(bytes, "manifest-list");
      if (records.ok()) (void)ParseManifestList(*records, "manifest-list");
      break;
    }
    case 3: {
      auto records = ReadManifestRecords(bytes, "manifest");
      if (records.ok()) (void)ParseManifest(*records, "manifest");
      break;
    }
    case 5: {
      auto records = ReadManifestRecords(bytes, "index-manifest");
      if (records.ok()) (void)ParseIndexManifest(*records, "index-manifest");
      break;
    }
    case 6: {
      if (bytes.size() < 4) break;
      DeletionVectorRange range;
      range.data_file = "data-0.parquet";
      range.offset = bytes[0] | (bytes[1] << 8);
      range.length = bytes[2] | (bytes[3] << 8);
      range.cardinality = bytes.size() % 3 == 0 ? std::optional<int64_t>() : std::optional<int64_t>(bytes.size() % 5);
      (void)ParseDeletionVector(bytes.subspan(4), range, uint64_t{1} << 20, "index-0");
      break;
    }
    default: {
      static const std::vector<std::string> types = {"INT", "STRING", "BIGINT", "DOUBLE", "BOOLEAN", "VARCHAR"};
      const size_t arity = size > 1 ? data[1] % 7 : 0;
      std::vector<std::string> t;
      for (size_t i = 0; i < arity; ++i) t.push_back(types[(i * 7 + size) % types.size()]);
      auto row = DecodeBinaryRow(text, t, "row");
      if (row.ok() && row->size() == 2) (void)CompareDatum((*row)[0], (*row)[1]);
      break;
    }
  }
  return 0;
}
