// PageCache: decoded index pages (a fragment page's rows as a record batch) in an LRU cache within
// a byte budget, shared by every lookup of an Index. Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "rap/format/array.h"

namespace rap::index {

struct PageCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t evictions = 0;
  int64_t entries = 0;
  int64_t bytes = 0;
};

class PageCache {
 public:
  explicit PageCache(int64_t budget_bytes) : budget_(budget_bytes) {}

  // Null when absent (counts a miss).
  std::shared_ptr<const RecordBatch> Get(const std::string& key);
  // Inserts (or replaces) and evicts least recently used pages beyond the budget. A page larger
  // than the budget is not kept.
  void Put(const std::string& key, std::shared_ptr<const RecordBatch> page, int64_t bytes);
  PageCacheStats stats() const;

  // Bytes held by the batch's buffers (the cache charge).
  static int64_t BatchBytes(const RecordBatch& batch);

 private:
  struct Item {
    std::string key;
    std::shared_ptr<const RecordBatch> page;
    int64_t bytes = 0;
  };
  const int64_t budget_;
  mutable std::mutex mu_;
  std::list<Item> lru_;  // front = most recent
  std::unordered_map<std::string, std::list<Item>::iterator> map_;
  PageCacheStats stats_;
};

}  // namespace rap::index
