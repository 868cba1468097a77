// OffsetIndex (page index: page locations and first rows) from Thrift compact bytes.
#include <cstdlib>
#include <span>

#include "fuzz/fuzz_target.h"
#include "rap/format/thrift.h"

RAP_FUZZ_TARGET(thrift_offset_index) {
  using namespace rap::parquet;
  auto oi = DecodeOffsetIndex(std::span<const uint8_t>(data, size));
  if (!oi.ok()) return 0;
  std::string again;
  EncodeOffsetIndex(*oi, &again);
  if (!DecodeOffsetIndex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(again.data()), again.size())).ok()) {
    std::abort();
  }
  return 0;
}
