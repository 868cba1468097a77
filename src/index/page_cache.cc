// PageCache: decoded index pages, DataPageCache: decoded data pages, each in a util::LruCache;
// fragment and file identities interned.
#include "rap/index/page_cache.h"

namespace rap::index {

uint64_t PageCache::Intern(const std::string& fragment_identity) {
  std::lock_guard<std::mutex> lock(intern_mu_);
  return interned_.try_emplace(fragment_identity, interned_.size() + 1).first->second;
}

uint64_t DataPageCache::Intern(const std::string& file_identity) {
  std::lock_guard<std::mutex> lock(intern_mu_);
  return interned_.try_emplace(file_identity, interned_.size() + 1).first->second;
}

int64_t DataPageCache::ArrayBytes(const ArrayData& a) {
  int64_t n = static_cast<int64_t>(sizeof(ArrayData));
  for (const Buffer& b : a.buffers) n += static_cast<int64_t>(b.size());
  for (const ArrayPtr& c : a.children) n += ArrayBytes(*c);
  return n;
}

int64_t PageCache::BatchBytes(const RecordBatch& batch) {
  int64_t n = static_cast<int64_t>(sizeof(RecordBatch));
  for (const ArrayPtr& c : batch.columns) n += DataPageCache::ArrayBytes(*c);
  return n;
}

}  // namespace rap::index
