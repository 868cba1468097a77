// LruCache: values kept in least-recently-used order within a byte budget, thread-safe. The one LRU
// of rap's caches of decoded pages: the Parquet dictionary cache (rap/format/dictionary_cache.h) and
// the RAP index page cache (rap/index/page_cache.h) wrap it with their keys and byte charges.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace rap::util {

struct CacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t evictions = 0;
  int64_t entries = 0;
  int64_t bytes = 0;
};

// `Value` is default-constructible, and its default (a null pointer) means "absent".
template <typename Key, typename Value, typename Hash = std::hash<Key>>
class LruCache {
 public:
  explicit LruCache(int64_t budget_bytes) : budget_(budget_bytes) {}

  // The value, made the most recent (a hit), or Value{} (a miss).
  Value Get(const Key& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) {
      ++stats_.misses;
      return Value{};
    }
    lru_.splice(lru_.begin(), lru_, it->second);
    ++stats_.hits;
    return it->second->value;
  }

  // True when present, without touching the order or the counters.
  bool Contains(const Key& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    return map_.count(key) > 0;
  }

  // Inserts (or replaces) `value`, charged `bytes`, and evicts the least recently used values beyond
  // the budget; a value larger than the whole budget is not kept.
  void Put(Key key, Value value, int64_t bytes) {
    if (bytes > budget_) return;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it != map_.end()) {
      stats_.bytes -= it->second->bytes;
      lru_.erase(it->second);
      map_.erase(it);
    }
    lru_.push_front(Item{key, std::move(value), bytes});
    map_.emplace(std::move(key), lru_.begin());
    stats_.bytes += bytes;
    while (stats_.bytes > budget_ && !lru_.empty()) {
      stats_.bytes -= lru_.back().bytes;
      map_.erase(lru_.back().key);
      lru_.pop_back();
      ++stats_.evictions;
    }
    stats_.entries = static_cast<int64_t>(map_.size());
  }

  CacheStats stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

 private:
  struct Item {
    Key key;
    Value value;
    int64_t bytes = 0;
  };
  const int64_t budget_;
  mutable std::mutex mu_;
  std::list<Item> lru_;  // front = most recent
  std::unordered_map<Key, typename std::list<Item>::iterator, Hash> map_;
  CacheStats stats_;
};

}  // namespace rap::util
