// Bounds-checked reading of the Avro binary encoding's primitives (zig-zag varints, lengths) over a
// byte span whose position is a byte offset in the file (`base` + position). Private to src/avro.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "rap/util/result.h"

namespace rap::avro {

class BinaryReader {
 public:
  BinaryReader(std::span<const uint8_t> bytes, const std::string& what, uint64_t base = 0)
      : b_(bytes), what_(what), base_(base) {}
  size_t pos() const { return pos_; }
  size_t left() const { return b_.size() - pos_; }
  uint64_t offset() const { return base_ + pos_; }  // in the file
  const uint8_t* here() const { return b_.data() + pos_; }
  Status Error(const std::string& structure, const std::string& problem) const {
    return Status::Corrupt(what_ + ": " + structure + " at byte offset " + std::to_string(offset()) + ": " + problem);
  }
  // A zig-zag varint long (at most 10 bytes).
  Result<int64_t> Long(const char* structure) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos_ >= b_.size()) return Error(structure, "the varint runs past the end");
      uint8_t byte = b_[pos_++];
      if (shift == 63 && (byte & 0x7e)) return Error(structure, "the varint overflows 64 bits");
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
    }
    return Error(structure, "the varint is longer than 10 bytes");
  }
  // A length that must be >= 0 and fit in the bytes left.
  Result<size_t> Length(const char* structure) {
    const uint64_t at = offset();
    RAP_ASSIGN_OR_RETURN(int64_t n, Long(structure));
    if (n < 0 || static_cast<uint64_t>(n) > left()) {
      return Status::Corrupt(what_ + ": " + structure + " at byte offset " + std::to_string(at) + ": length " +
                             std::to_string(n) + " but " + std::to_string(left()) + " bytes are left");
    }
    return static_cast<size_t>(n);
  }
  Status Skip(size_t n, const char* structure) {
    if (n > left()) {
      return Error(structure, "needs " + std::to_string(n) + " bytes, " + std::to_string(left()) + " are left");
    }
    pos_ += n;
    return Status::OK();
  }

 private:
  std::span<const uint8_t> b_;
  const std::string& what_;
  uint64_t base_;
  size_t pos_ = 0;
};

}  // namespace rap::avro
