// PageCache: LRU of decoded index pages within a byte budget.
#include "rap/index/page_cache.h"

namespace rap::index {

uint64_t PageCache::Intern(const std::string& fragment_identity) {
  std::lock_guard<std::mutex> lock(mu_);
  return interned_.try_emplace(fragment_identity, interned_.size() + 1).first->second;
}

std::shared_ptr<const RecordBatch> PageCache::Get(PageKey key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  ++stats_.hits;
  return it->second->page;
}

void PageCache::Put(PageKey key, std::shared_ptr<const RecordBatch> page, int64_t bytes) {
  if (bytes > budget_) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it != map_.end()) {
    stats_.bytes -= it->second->bytes;
    lru_.erase(it->second);
    map_.erase(it);
  }
  lru_.push_front({key, std::move(page), bytes});
  map_[key] = lru_.begin();
  stats_.bytes += bytes;
  while (stats_.bytes > budget_ && !lru_.empty()) {
    stats_.bytes -= lru_.back().bytes;
    map_.erase(lru_.back().key);
    lru_.pop_back();
    ++stats_.evictions;
  }
  stats_.entries = static_cast<int64_t>(map_.size());
}

PageCacheStats PageCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

namespace {
int64_t ArrayBytes(const ArrayData& a) {
  int64_t n = static_cast<int64_t>(sizeof(ArrayData));
  for (const Buffer& b : a.buffers) n += static_cast<int64_t>(b.size());
  for (const ArrayPtr& c : a.children) n += ArrayBytes(*c);
  return n;
}
}  // namespace

int64_t PageCache::BatchBytes(const RecordBatch& batch) {
  int64_t n = static_cast<int64_t>(sizeof(RecordBatch));
  for (const ArrayPtr& c : batch.columns) n += ArrayBytes(*c);
  return n;
}

}  // namespace rap::index
