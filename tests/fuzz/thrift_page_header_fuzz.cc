// One PageHeader at the start of the bytes (the header of every page of every column chunk).
#include <cstdlib>
#include <span>

#include "fuzz/fuzz_target.h"
#include "rap/format/thrift.h"

RAP_FUZZ_TARGET(thrift_page_header) {
  using namespace rap::parquet;
  size_t header_size = 0;
  auto h = DecodePageHeader(std::span<const uint8_t>(data, size), &header_size);
  if (!h.ok()) return 0;
  if (header_size > size) std::abort();  // the header lies within the bytes it was decoded from
  std::string again;
  EncodePageHeader(*h, &again);
  size_t again_size = 0;
  auto h2 = DecodePageHeader(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(again.data()), again.size()),
                             &again_size);
  if (!h2.ok() || again_size != again.size()) std::abort();
  return 0;
}
