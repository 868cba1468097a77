// Paimon metadata (src/table/paimon/paimon_meta.cc): snapshot and schema JSON, manifest lists and
// manifests (Avro object containers or ORC files), and BinaryRow partitions and keys. Any bytes parse
// or give an error, never a crash, a hang or an unbounded allocation. The first input byte picks
// the parser.
#include <string>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "table/paimon/paimon_meta.h"

RAP_FUZZ_TARGET(paimon_meta) {
  using namespace rap::table::paimon;
  if (size < 1) return 0;
  std::span<const uint8_t> bytes(data + 1, size - 1);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 5) {
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
