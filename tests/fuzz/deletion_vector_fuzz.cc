// Delta deletion vectors (table/deletion_vector.h): the RoaringBitmapArray format on raw bytes, and
// an inline ("i") descriptor whose Z85 text is the input (Z85 decoding, size and cardinality checks).
#include <string>

#include "fuzz/fuzz_target.h"
#include "fuzz/memory_store.h"
#include "rap/table/deletion_vector.h"

RAP_FUZZ_TARGET(deletion_vector) {
  using namespace rap;
  auto rows = table::ParseRoaringBitmapArray(std::span<const uint8_t>(data, size), "fuzz", 1 << 20);
  if (rows.ok()) {
    for (size_t i = 1; i < rows->size(); ++i) {
      if ((*rows)[i - 1] >= (*rows)[i]) __builtin_trap();  // sorted and distinct
    }
  }
  table::DeletionVectorDescriptor dv;
  dv.storage_type = "i";
  dv.path_or_inline.assign(reinterpret_cast<const char*>(data), size);
  dv.size_in_bytes = static_cast<int64_t>(size);
  dv.cardinality = rows.ok() ? static_cast<int64_t>(rows->size()) : 0;
  (void)table::LoadDeletionVector(std::make_shared<fuzz::MemoryStore>(), "t", dv);
  return 0;
}
