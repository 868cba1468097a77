// A read-only view of an index store in which some objects (the schema files of a latest bundle)
// are served from memory: the index opens from the bundle without a request per schema file.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "rap/io/object_store.h"
#include "rap/util/buffer.h"

namespace rap::index {

class BundledFilesStore final : public io::ObjectStore {
 public:
  // `files`: store path (as the index joins it) -> the object's bytes.
  BundledFilesStore(io::ObjectStorePtr inner, std::map<std::string, Buffer> files)
      : inner_(std::move(inner)), files_(std::move(files)) {}
  std::string endpoint() const override { return inner_->endpoint(); }
  bool is_remote() const override { return inner_->is_remote(); }
  Result<io::ObjectInfo> Head(const std::string& path) override;
  Result<std::vector<Buffer>> ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                         const io::ReadOptions& options, io::ReadStats* stats) override;
  Result<std::pair<Buffer, io::ObjectInfo>> ReadTail(const std::string& path, uint64_t n, const io::ReadOptions& options,
                                                     io::ReadStats* stats) override;
  Result<std::vector<io::ObjectInfo>> List(const std::string& prefix) override { return inner_->List(prefix); }
  Status Put(const std::string& path, const Buffer&) override {
    return Status::NotSupported("bundled files of " + path + ": read-only");
  }

 private:
  io::ObjectStorePtr inner_;
  std::map<std::string, Buffer> files_;
};

}  // namespace rap::index
