// DictionaryCache: LRU of decoded dictionary pages within a byte budget.
#include "rap/format/dictionary_cache.h"

#include "page_reader.h"

namespace rap::parquet {

std::string DictionaryCache::Key(const std::string& file, uint64_t offset) {
  std::string k = file;
  k.push_back('\0');
  k += std::to_string(offset);
  return k;
}

DictionaryCache::Value DictionaryCache::Get(const std::string& file, uint64_t offset) {
  const std::string key = Key(file, offset);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  ++stats_.hits;
  return it->second->value;
}

bool DictionaryCache::Contains(const std::string& file, uint64_t offset) const {
  const std::string key = Key(file, offset);
  std::lock_guard<std::mutex> lock(mu_);
  return map_.count(key) > 0;
}

void DictionaryCache::Put(const std::string& file, uint64_t offset, Value dictionary) {
  if (!dictionary) return;
  const int64_t bytes = Bytes(*dictionary) + static_cast<int64_t>(file.size() + 64);
  if (bytes > budget_) return;
  std::string key = Key(file, offset);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it != map_.end()) {
    stats_.bytes -= it->second->bytes;
    lru_.erase(it->second);
    map_.erase(it);
  }
  lru_.push_front({key, std::move(dictionary), bytes});
  map_[std::move(key)] = lru_.begin();
  stats_.bytes += bytes;
  while (stats_.bytes > budget_ && !lru_.empty()) {
    stats_.bytes -= lru_.back().bytes;
    map_.erase(lru_.back().key);
    lru_.pop_back();
    ++stats_.evictions;
  }
  stats_.entries = static_cast<int64_t>(map_.size());
}

DictionaryCacheStats DictionaryCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

int64_t DictionaryCache::Bytes(const internal::PhysicalValues& values) {
  return static_cast<int64_t>(sizeof(internal::PhysicalValues) + values.fixed.size() + values.data.size() +
                              values.offsets.size() * sizeof(int32_t));
}

}  // namespace rap::parquet
