// LocalStore: the ObjectStore over the local filesystem (pread). Private to src/io; reached
// through OpenUrl() for plain paths and file:// URLs.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rap/io/object_store.h"

namespace rap::io {

class LocalStore final : public ObjectStore {
 public:
  std::string endpoint() const override { return "file"; }
  bool is_remote() const override { return false; }

  Result<ObjectInfo> Head(const std::string& path) override;
  Result<std::vector<Buffer>> ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                         const ReadOptions& options, ReadStats* stats) override;
  Result<std::pair<Buffer, ObjectInfo>> ReadTail(const std::string& path, uint64_t n, const ReadOptions& options,
                                                 ReadStats* stats) override;
  Result<std::vector<ObjectInfo>> List(const std::string& prefix) override;
  Status Put(const std::string& path, const Buffer& data) override;
  Status PutIfAbsent(const std::string& path, const Buffer& data) override;
  Status Delete(const std::string& path) override;

  // Descriptors cached for reads (at most kMaxOpenFiles; see Acquire in local_store.cc).
  static constexpr size_t kMaxOpenFiles = 64;

 private:
  struct OpenFile {
    int fd = -1;
    dev_t dev = 0;
    ino_t ino = 0;
    OpenFile() = default;
    OpenFile(const OpenFile&) = delete;
    OpenFile& operator=(const OpenFile&) = delete;
    ~OpenFile();
  };
  // The file at `path` as it is now: a cached descriptor when the path still names the same inode,
  // else a newly opened one; the ObjectInfo (size, ETag) of that file.
  Result<std::pair<std::shared_ptr<const OpenFile>, ObjectInfo>> Acquire(const std::string& path);
  void Forget(const std::string& path);  // drops the cached descriptor of `path`, if any

  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<OpenFile>> open_;
};

}  // namespace rap::io
