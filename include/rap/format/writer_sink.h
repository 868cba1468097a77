// Byte sinks the Parquet writer appends the file to. The writer itself only encodes into buffers;
// a sink decides where the bytes go and makes the result appear atomically: nothing is visible at
// the destination until Close() succeeds, and a sink destroyed (or aborted) before that leaves
// nothing behind.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace rap::parquet {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Status Append(std::span<const uint8_t> bytes) = 0;
  Status Append(std::string_view bytes) {
    return Append(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
  // Bytes appended so far (the file offset of the next byte).
  virtual uint64_t position() const = 0;
  // Publishes the bytes (rename, Put, ...). After Close the sink takes no more bytes.
  virtual Status Close() = 0;
  // Drops everything written so far; nothing is published. Safe to call more than once.
  virtual void Abort() = 0;
};

// Keeps the bytes in memory; Close() is a no-op. TakeBuffer() hands them over.
class MemorySink : public ByteSink {
 public:
  Status Append(std::span<const uint8_t> bytes) override;
  uint64_t position() const override { return data_.size(); }
  Status Close() override;
  void Abort() override { data_.clear(); }
  const std::string& data() const { return data_; }
  Buffer TakeBuffer() { return Buffer::FromString(std::move(data_)); }

 private:
  std::string data_;
  bool closed_ = false;
};

// Writes a local file through a temporary sibling ("<path>.tmp-XXXXXX") and renames it over
// `path` on Close(), so `path` holds either its old content or the whole new file.
class LocalFileSink : public ByteSink {
 public:
  static Result<std::unique_ptr<LocalFileSink>> Open(const std::string& path);
  ~LocalFileSink() override;
  Status Append(std::span<const uint8_t> bytes) override;
  uint64_t position() const override { return position_; }
  Status Close() override;
  void Abort() override;
  const std::string& temp_path() const { return temp_path_; }

 private:
  LocalFileSink(std::string path, std::string temp_path, std::FILE* file)
      : path_(std::move(path)), temp_path_(std::move(temp_path)), file_(file) {}
  std::string path_;
  std::string temp_path_;
  std::FILE* file_;
  uint64_t position_ = 0;
  bool done_ = false;
};

// Buffers the whole file in memory and hands it to `commit` on Close() — the shape of an atomic
// object-store Put (see rap/read/object_store_sink.h). Abort() or destruction discards it.
class CommitSink : public ByteSink {
 public:
  using CommitFn = std::function<Status(const Buffer& file)>;
  explicit CommitSink(CommitFn commit) : commit_(std::move(commit)) {}
  Status Append(std::span<const uint8_t> bytes) override;
  uint64_t position() const override { return data_.size(); }
  Status Close() override;
  void Abort() override;

 private:
  CommitFn commit_;
  std::string data_;
  bool done_ = false;
};

}  // namespace rap::parquet
