// LocalStore: the ObjectStore over the local filesystem (pread). Private to src/io; reached
// through OpenUrl() for plain paths and file:// URLs.
#pragma once

#include <string>
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
};

}  // namespace rap::io
