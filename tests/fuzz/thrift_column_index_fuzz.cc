// ColumnIndex (page index: per-page min/max/null counts) from Thrift compact bytes.
#include <cstdlib>
#include <span>

#include "fuzz/fuzz_target.h"
#include "rap/format/thrift.h"

RAP_FUZZ_TARGET(thrift_column_index) {
  using namespace rap::parquet;
  auto ci = DecodeColumnIndex(std::span<const uint8_t>(data, size));
  if (!ci.ok()) return 0;
  std::string again;
  EncodeColumnIndex(*ci, &again);
  if (!DecodeColumnIndex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(again.data()), again.size())).ok()) {
    std::abort();
  }
  return 0;
}
