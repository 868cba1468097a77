// An ObjectStore over bytes held in memory, so that the fuzz targets drive the real read paths
// (footer, page index, pages; Delta log listing) with no I/O.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rap/io/object_store.h"

namespace rap::fuzz {

class MemoryStore : public io::ObjectStore {
 public:
  void Set(const std::string& path, std::string bytes) { objects_[path] = std::move(bytes); }

  std::string endpoint() const override { return "memory"; }
  bool is_remote() const override { return false; }

  Result<io::ObjectInfo> Head(const std::string& path) override {
    auto it = objects_.find(path);
    if (it == objects_.end()) return Status::NotFound("memory store: no object " + path);
    return Info(it->first, it->second);
  }

  Result<std::vector<Buffer>> ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                         const io::ReadOptions& options, io::ReadStats* stats) override {
    (void)options;
    auto it = objects_.find(path);
    if (it == objects_.end()) return Status::NotFound("memory store: no object " + path);
    std::vector<Buffer> out;
    for (const ByteRange& r : ranges) {
      if (r.offset > it->second.size() || r.length > it->second.size() - r.offset) {
        return Status::IOError("memory store: range beyond the end of " + path);
      }
      out.push_back(Slice(it->second, r.offset, r.length));
    }
    if (stats != nullptr) stats->requests.resize(stats->requests.size() + ranges.size());
    return out;
  }

  Result<std::pair<Buffer, io::ObjectInfo>> ReadTail(const std::string& path, uint64_t n,
                                                     const io::ReadOptions& options, io::ReadStats* stats) override {
    (void)options;
    auto it = objects_.find(path);
    if (it == objects_.end()) return Status::NotFound("memory store: no object " + path);
    const uint64_t size = it->second.size();
    const uint64_t take = n < size ? n : size;
    if (stats != nullptr) stats->requests.resize(stats->requests.size() + 1);
    return std::make_pair(Slice(it->second, size - take, take), Info(it->first, it->second));
  }

  Result<std::vector<io::ObjectInfo>> List(const std::string& prefix) override {
    std::vector<io::ObjectInfo> out;
    for (const auto& [path, bytes] : objects_) {
      if (path.compare(0, prefix.size(), prefix) == 0) out.push_back(Info(path, bytes));
    }
    return out;
  }

  Status Put(const std::string& path, const Buffer& data) override {
    objects_[path] = std::string(reinterpret_cast<const char*>(data.data()), data.size());
    return Status::OK();
  }

 private:
  static io::ObjectInfo Info(const std::string& path, const std::string& bytes) {
    io::ObjectInfo info;
    info.path = path;
    info.size = bytes.size();
    info.etag = "m" + std::to_string(bytes.size());
    return info;
  }
  static Buffer Slice(const std::string& bytes, uint64_t offset, uint64_t length) {
    return Buffer::Copy(bytes.data() + offset, length);
  }

  std::map<std::string, std::string> objects_;
};

}  // namespace rap::fuzz
