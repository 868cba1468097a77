// Buffer: an immutable, reference-counted byte span. Slicing shares the owner (zero-copy), which is
// how merged range responses are handed back as the exact ranges a reader asked for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rap {

class Buffer {
 public:
  Buffer() = default;
  Buffer(std::shared_ptr<const void> owner, const uint8_t* data, size_t size)
      : owner_(std::move(owner)), data_(data), size_(size) {}

  // Takes ownership of the vector's storage (no copy).
  static Buffer FromVector(std::vector<uint8_t>&& bytes);
  static Buffer FromString(std::string&& bytes);
  static Buffer Copy(const void* data, size_t size);
  static Buffer Copy(std::string_view s) { return Copy(s.data(), s.size()); }
  // Uninitialised, writable storage of `size` bytes; fill it through mutable_data() before sharing.
  static Buffer Allocate(size_t size);

  const uint8_t* data() const { return data_; }
  uint8_t* mutable_data() { return const_cast<uint8_t*>(data_); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<const uint8_t> span() const { return {data_, size_}; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_), size_}; }
  const uint8_t& operator[](size_t i) const { return data_[i]; }

  // A view of [offset, offset+length) sharing this buffer's owner. Clamped to the buffer.
  Buffer Slice(size_t offset, size_t length) const;
  Buffer Slice(size_t offset) const { return Slice(offset, offset <= size_ ? size_ - offset : 0); }

  const std::shared_ptr<const void>& owner() const { return owner_; }
  bool operator==(const Buffer& o) const {
    return size_ == o.size_ && (size_ == 0 || std::memcmp(data_, o.data_, size_) == 0);
  }

 private:
  std::shared_ptr<const void> owner_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace rap
