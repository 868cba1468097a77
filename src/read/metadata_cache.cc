// Process-wide LRU cache of parsed Parquet metadata with a byte budget.
#include "rap/read/metadata_cache.h"

namespace rap::read {

std::shared_ptr<const parquet::OffsetIndex> FileMetadata::offset_index(int row_group, int column) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = offset_.find({row_group, column});
  return it == offset_.end() ? nullptr : it->second;
}

std::shared_ptr<const parquet::ColumnIndex> FileMetadata::column_index(int row_group, int column) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = column_.find({row_group, column});
  return it == column_.end() ? nullptr : it->second;
}

void FileMetadata::set_offset_index(int row_group, int column, std::shared_ptr<const parquet::OffsetIndex> index,
                                    uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (offset_.emplace(std::make_pair(row_group, column), std::move(index)).second) index_bytes_ += bytes;
}

void FileMetadata::set_column_index(int row_group, int column, std::shared_ptr<const parquet::ColumnIndex> index,
                                    uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (column_.emplace(std::make_pair(row_group, column), std::move(index)).second) index_bytes_ += bytes;
}

uint64_t FileMetadata::charge() const {
  std::lock_guard<std::mutex> lock(mu_);
  // Decoded thrift structures take a few times their compact encoding.
  return 4 * footer_length_ + 4 * index_bytes_ + 1024;
}

MetadataCache& MetadataCache::Global() {
  static MetadataCache* cache = new MetadataCache(256ULL << 20);  // never destroyed: used at exit
  return *cache;
}

std::string MetadataCache::Key(const std::string& endpoint, const std::string& path, const std::string& etag) {
  std::string k = endpoint;
  k += '\n';
  k += path;
  k += '\n';
  k += etag;
  return k;
}

FileMetadataPtr MetadataCache::Get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    stats_.misses++;
    return nullptr;
  }
  stats_.hits++;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return it->second.metadata;
}

void MetadataCache::Put(const std::string& key, FileMetadataPtr metadata) {
  const uint64_t charge = metadata->charge();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    bytes_ -= it->second.charge;
    lru_.erase(it->second.lru);
    entries_.erase(it);
  }
  if (charge > budget_) return;
  lru_.push_front(key);
  entries_[key] = Entry{std::move(metadata), charge, lru_.begin()};
  bytes_ += charge;
  EvictLocked();
}

void MetadataCache::Recharge(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  const uint64_t charge = it->second.metadata->charge();
  bytes_ = bytes_ - it->second.charge + charge;
  it->second.charge = charge;
  EvictLocked();
}

void MetadataCache::EvictLocked() {
  while (bytes_ > budget_ && !lru_.empty()) {
    auto it = entries_.find(lru_.back());
    bytes_ -= it->second.charge;
    entries_.erase(it);
    lru_.pop_back();
    stats_.evictions++;
  }
}

void MetadataCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  lru_.clear();
  bytes_ = 0;
}

void MetadataCache::set_budget(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  budget_ = bytes;
  EvictLocked();
}

MetadataCacheStats MetadataCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  MetadataCacheStats s = stats_;
  s.entries = static_cast<int64_t>(entries_.size());
  s.bytes = bytes_;
  return s;
}

}  // namespace rap::read
