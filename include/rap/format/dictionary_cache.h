// DictionaryCache: decoded dictionary pages kept across column chunk reads (a server's lookups of
// the same files), in an LRU within a byte budget. Thread-safe. A dictionary is identified by its
// file's identity (a string the caller chooses: path, size and ETag, so a rewritten file never
// shares an entry) and the file offset of the dictionary page.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "rap/util/lru_cache.h"

namespace rap::parquet {

namespace internal {
struct PhysicalValues;  // page_reader.h: the decoded values
}  // namespace internal

using DictionaryCacheStats = util::CacheStats;

class DictionaryCache {
 public:
  using Value = std::shared_ptr<const internal::PhysicalValues>;
  explicit DictionaryCache(int64_t budget_bytes) : cache_(budget_bytes) {}

  // Null when absent (counts a miss).
  Value Get(const std::string& file, uint64_t offset) { return cache_.Get(Key(file, offset)); }
  // True when present, without touching the LRU order or the counters.
  bool Contains(const std::string& file, uint64_t offset) const { return cache_.Contains(Key(file, offset)); }
  // Inserts (or replaces) and evicts the least recently used dictionaries beyond the budget; one
  // larger than the whole budget is not kept.
  void Put(const std::string& file, uint64_t offset, Value dictionary);
  DictionaryCacheStats stats() const { return cache_.stats(); }

  // Bytes held by decoded values (the cache charge).
  static int64_t Bytes(const internal::PhysicalValues& values);

 private:
  static std::string Key(const std::string& file, uint64_t offset);
  util::LruCache<std::string, Value> cache_;
};

}  // namespace rap::parquet
