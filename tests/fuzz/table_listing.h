// The fuzz targets of the table formats' detection (iceberg_table, paimon_table): the input is a
// listing of objects under a table root, one per line, "path" or "path<TAB>content" (paths relative
// to the root "t"), written into a MemoryStore. Object names come from a store's listing, which rap
// does not control.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "fuzz/memory_store.h"

namespace rap::fuzz {

inline std::shared_ptr<MemoryStore> StoreFromListing(const uint8_t* data, size_t size) {
  auto store = std::make_shared<MemoryStore>();
  std::string_view input(reinterpret_cast<const char*>(data), size);
  int objects = 0;
  for (size_t start = 0; start < input.size() && objects < 256; ++objects) {
    size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view line = input.substr(start, end - start);
    const size_t tab = line.find('\t');
    store->Set("t/" + std::string(line.substr(0, tab)),
               tab == std::string_view::npos ? std::string() : std::string(line.substr(tab + 1)));
    start = end + 1;
  }
  return store;
}

}  // namespace rap::fuzz
