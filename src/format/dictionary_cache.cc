// DictionaryCache: decoded dictionary pages in a util::LruCache keyed by file identity and offset.
#include "rap/format/dictionary_cache.h"

#include "page_reader.h"

namespace rap::parquet {

std::string DictionaryCache::Key(const std::string& file, uint64_t offset) {
  std::string k = file;
  k.push_back('\0');
  k += std::to_string(offset);
  return k;
}

void DictionaryCache::Put(const std::string& file, uint64_t offset, Value dictionary) {
  if (!dictionary) return;
  const int64_t bytes = Bytes(*dictionary) + static_cast<int64_t>(file.size() + 64);
  cache_.Put(Key(file, offset), std::move(dictionary), bytes);
}

int64_t DictionaryCache::Bytes(const internal::PhysicalValues& values) {
  return static_cast<int64_t>(sizeof(internal::PhysicalValues) + values.fixed.size() + values.data.size() +
                              values.offsets.size() * sizeof(int32_t));
}

}  // namespace rap::parquet
