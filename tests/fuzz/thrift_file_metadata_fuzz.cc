// FileMetaData (the footer) from Thrift compact bytes, then the schema tree built from it; a decoded
// footer must survive an encode/decode round trip.
#include <cstdlib>
#include <span>

#include "fuzz/fuzz_target.h"
#include "rap/format/schema.h"
#include "rap/format/thrift.h"

RAP_FUZZ_TARGET(thrift_file_metadata) {
  using namespace rap::parquet;
  auto md = DecodeFileMetaData(std::span<const uint8_t>(data, size));
  if (!md.ok()) return 0;
  (void)SchemaDescriptor::Make(md->schema, "fuzz");
  std::string again;
  EncodeFileMetaData(*md, &again);
  auto md2 = DecodeFileMetaData(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(again.data()), again.size()));
  if (!md2.ok()) std::abort();  // what we encode we must decode
  return 0;
}
