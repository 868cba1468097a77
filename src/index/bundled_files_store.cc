// BundledFilesStore: objects served from memory, everything else from the wrapped store.
#include "index/bundled_files_store.h"

namespace rap::index {

Result<io::ObjectInfo> BundledFilesStore::Head(const std::string& path) {
  const auto it = files_.find(path);
  if (it == files_.end()) return inner_->Head(path);
  return io::ObjectInfo{path, it->second.size(), "", 0};
}

Result<std::vector<Buffer>> BundledFilesStore::ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                                          const io::ReadOptions& options, io::ReadStats* stats) {
  const auto it = files_.find(path);
  if (it == files_.end()) return inner_->ReadRanges(path, ranges, options, stats);
  std::vector<Buffer> out;
  out.reserve(ranges.size());
  for (const ByteRange& r : ranges) {
    if (r.offset > it->second.size() || r.length > it->second.size() - r.offset) {
      return Status::IOError(path + ": range [" + std::to_string(r.offset) + ", +" + std::to_string(r.length) +
                             ") past the end of the bundled object (" + std::to_string(it->second.size()) + " bytes)");
    }
    out.push_back(it->second.Slice(r.offset, r.length));
  }
  return out;
}

Result<std::pair<Buffer, io::ObjectInfo>> BundledFilesStore::ReadTail(const std::string& path, uint64_t n,
                                                                      const io::ReadOptions& options,
                                                                      io::ReadStats* stats) {
  const auto it = files_.find(path);
  if (it == files_.end()) return inner_->ReadTail(path, n, options, stats);
  const uint64_t size = it->second.size();
  const uint64_t take = std::min<uint64_t>(n, size);
  return std::make_pair(it->second.Slice(size - take, take), io::ObjectInfo{path, size, "", 0});
}

}  // namespace rap::index
