// WithDiskCache (rap/io/disk_cache.h): an ObjectStore decorator that answers versioned ranged reads
// from a DiskCache and fills it with what the inner store returns.
#include <utility>
#include <vector>

#include "rap/io/disk_cache.h"
#include "rap/io/store_options.h"
#include "rap/util/units.h"

namespace rap::io {

namespace {

class DiskCachedStore final : public ObjectStore {
 public:
  DiskCachedStore(ObjectStorePtr inner, std::shared_ptr<DiskCache> cache)
      : inner_(std::move(inner)), cache_(std::move(cache)) {}

  std::string endpoint() const override { return inner_->endpoint(); }
  bool is_remote() const override { return inner_->is_remote(); }
  Result<ObjectInfo> Head(const std::string& path) override { return inner_->Head(path); }

  Result<std::vector<Buffer>> ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                         const ReadOptions& options, ReadStats* stats) override {
    return Cached(path, ranges, options, stats, false);
  }
  Result<std::vector<Buffer>> ReadRangesNative(const std::string& path, std::span<const ByteRange> ranges,
                                               const ReadOptions& options, ReadStats* stats) override {
    return Cached(path, ranges, options, stats, true);
  }
  Result<std::pair<Buffer, ObjectInfo>> ReadTail(const std::string& path, uint64_t n, const ReadOptions& options,
                                                 ReadStats* stats) override {
    return inner_->ReadTail(path, n, options, stats);
  }
  Result<std::vector<ObjectInfo>> List(const std::string& prefix) override { return inner_->List(prefix); }
  Status Put(const std::string& path, const Buffer& data) override { return inner_->Put(path, data); }
  Status PutIfAbsent(const std::string& path, const Buffer& data) override { return inner_->PutIfAbsent(path, data); }
  Status Delete(const std::string& path) override { return inner_->Delete(path); }

 private:
  std::string KeyOf(const std::string& path, const std::string& etag, const ByteRange& r) const {
    return inner_->endpoint() + "\n" + path + "\n" + etag + "\n" + std::to_string(r.offset) + "\n" +
           std::to_string(r.length);
  }

  Result<std::vector<Buffer>> Cached(const std::string& path, std::span<const ByteRange> ranges,
                                     const ReadOptions& options, ReadStats* stats, bool native) {
    auto read = [&](std::span<const ByteRange> rs) {
      return native ? inner_->ReadRangesNative(path, rs, options, stats) : inner_->ReadRanges(path, rs, options, stats);
    };
    if (options.expected_etag.empty()) return read(ranges);
    std::vector<Buffer> out(ranges.size());
    std::vector<ByteRange> missing;
    std::vector<size_t> missing_at;
    for (size_t i = 0; i < ranges.size(); ++i) {
      std::optional<Buffer> hit = cache_->Get(KeyOf(path, options.expected_etag, ranges[i]));
      if (hit) {
        out[i] = std::move(*hit);
      } else {
        missing.push_back(ranges[i]);
        missing_at.push_back(i);
      }
    }
    if (missing.empty()) {
      if (stats != nullptr) FinalizeReadStats(stats);
      return out;
    }
    RAP_ASSIGN_OR_RETURN(std::vector<Buffer> got, read(missing));
    for (size_t j = 0; j < got.size() && j < missing.size(); ++j) {
      cache_->Put(KeyOf(path, options.expected_etag, missing[j]), got[j]);
      out[missing_at[j]] = std::move(got[j]);
    }
    return out;
  }

  ObjectStorePtr inner_;
  std::shared_ptr<DiskCache> cache_;
};

}  // namespace

ObjectStorePtr WithDiskCache(ObjectStorePtr inner, std::shared_ptr<DiskCache> cache) {
  if (!inner || !cache) return inner;
  return std::make_shared<DiskCachedStore>(std::move(inner), std::move(cache));
}

Result<std::shared_ptr<DiskCache>> DiskCacheFor(const StoreOptions& options) {
  const std::string dir = options.Get("RAP_CACHE_DIR");
  if (dir.empty()) return std::shared_ptr<DiskCache>();
  uint64_t bytes = kDefaultDiskCacheBytes;
  if (std::string size = options.Get("RAP_CACHE_SIZE"); !size.empty()) {
    auto parsed = ParseByteSize(size);
    if (!parsed.ok()) return parsed.status().WithContext("RAP_CACHE_SIZE");
    bytes = *parsed;
  }
  return DiskCache::Shared(dir, bytes);
}

}  // namespace rap::io
