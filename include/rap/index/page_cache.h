// PageCache: decoded index pages (a fragment page's rows as a record batch) in an LRU cache within
// a byte budget, shared by every lookup of an Index. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "rap/columnar/array.h"
#include "rap/util/lru_cache.h"

namespace rap::index {

using PageCacheStats = util::CacheStats;

// A page of one fragment version: `fragment` is PageCache::Intern of the fragment's identity
// (path, size and ETag), so a lookup hashes two integers instead of a path per page.
struct PageKey {
  uint64_t fragment = 0;
  int64_t page = 0;
  bool operator==(const PageKey&) const = default;
};

class PageCache {
 public:
  explicit PageCache(int64_t budget_bytes) : cache_(budget_bytes) {}

  // A stable number for a fragment identity: the same string always gets the same number. The
  // table grows by one entry per fragment version ever loaded (a few hundred bytes each).
  uint64_t Intern(const std::string& fragment_identity);
  // Null when absent (counts a miss).
  std::shared_ptr<const RecordBatch> Get(PageKey key) { return cache_.Get(key); }
  // Inserts (or replaces) and evicts least recently used pages beyond the budget. A page larger
  // than the budget is not kept.
  void Put(PageKey key, std::shared_ptr<const RecordBatch> page, int64_t bytes) {
    cache_.Put(key, std::move(page), bytes);
  }
  PageCacheStats stats() const { return cache_.stats(); }

  // Bytes held by the batch's buffers (the cache charge).
  static int64_t BatchBytes(const RecordBatch& batch);

 private:
  struct Hash {
    size_t operator()(const PageKey& k) const {
      return std::hash<uint64_t>()(k.fragment * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(k.page));
    }
  };
  util::LruCache<PageKey, std::shared_ptr<const RecordBatch>, Hash> cache_;
  std::mutex intern_mu_;
  std::unordered_map<std::string, uint64_t> interned_;
};

// DataPageCache: the data files' pages decoded whole (one flat column's values of one page, as an
// Arrow array), in an LRU within a byte budget, shared by every lookup of an Index. A hot key's
// lookup then neither reads nor decodes its pages: it slices its rows out of the cached arrays.
// Keyed by the file's interned identity (path, size and ETag: a rewritten file never shares an
// entry) and the page's file offset (unique within a file). Thread-safe.
struct DataPageKey {
  uint64_t file = 0;
  int64_t offset = 0;
  bool operator==(const DataPageKey&) const = default;
};

using DataPageCacheStats = util::CacheStats;

class DataPageCache {
 public:
  explicit DataPageCache(int64_t budget_bytes) : cache_(budget_bytes) {}
  uint64_t Intern(const std::string& file_identity);
  // Null when absent (counts a miss).
  ArrayPtr Get(DataPageKey key) { return cache_.Get(key); }
  void Put(DataPageKey key, ArrayPtr page) {
    const int64_t bytes = ArrayBytes(*page);
    cache_.Put(key, std::move(page), bytes);
  }
  DataPageCacheStats stats() const { return cache_.stats(); }
  static int64_t ArrayBytes(const ArrayData& array);

 private:
  struct Hash {
    size_t operator()(const DataPageKey& k) const {
      return std::hash<uint64_t>()(k.file * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(k.offset));
    }
  };
  util::LruCache<DataPageKey, ArrayPtr, Hash> cache_;
  std::mutex intern_mu_;
  std::unordered_map<std::string, uint64_t> interned_;
};

}  // namespace rap::index
