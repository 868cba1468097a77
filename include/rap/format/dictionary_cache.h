// DictionaryCache: decoded dictionary pages kept across column chunk reads (a server's lookups of
// the same files), in an LRU within a byte budget. Thread-safe. A dictionary is identified by its
// file's identity (a string the caller chooses: path, size and ETag, so a rewritten file never
// shares an entry) and the file offset of the dictionary page.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace rap::parquet {

namespace internal {
struct PhysicalValues;  // page_reader.h: the decoded values
}  // namespace internal

struct DictionaryCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t evictions = 0;
  int64_t entries = 0;
  int64_t bytes = 0;
};

class DictionaryCache {
 public:
  using Value = std::shared_ptr<const internal::PhysicalValues>;
  explicit DictionaryCache(int64_t budget_bytes) : budget_(budget_bytes) {}

  // Null when absent (counts a miss).
  Value Get(const std::string& file, uint64_t offset);
  // True when present, without touching the LRU order or the counters.
  bool Contains(const std::string& file, uint64_t offset) const;
  // Inserts (or replaces) and evicts the least recently used dictionaries beyond the budget; one
  // larger than the whole budget is not kept.
  void Put(const std::string& file, uint64_t offset, Value dictionary);
  DictionaryCacheStats stats() const;

  // Bytes held by decoded values (the cache charge).
  static int64_t Bytes(const internal::PhysicalValues& values);

 private:
  static std::string Key(const std::string& file, uint64_t offset);
  struct Item {
    std::string key;
    Value value;
    int64_t bytes = 0;
  };
  const int64_t budget_;
  mutable std::mutex mu_;
  std::list<Item> lru_;  // front = most recent
  std::unordered_map<std::string, std::list<Item>::iterator> map_;
  DictionaryCacheStats stats_;
};

}  // namespace rap::parquet
