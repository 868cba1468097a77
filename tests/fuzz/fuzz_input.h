// Reading the control bytes at the start of a fuzz input (which encoding, which type, how many
// values), then the rest as the payload. Missing bytes read as 0, so every input is usable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace rap::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() {
    const uint16_t lo = Byte();
    return static_cast<uint16_t>(lo | (Byte() << 8));
  }
  uint32_t U24() {
    const uint32_t lo = U16();
    return lo | (static_cast<uint32_t>(Byte()) << 16);
  }
  std::span<const uint8_t> Rest() const {
    return pos_ < size_ ? std::span<const uint8_t>(data_ + pos_, size_ - pos_) : std::span<const uint8_t>();
  }
  std::string RestString() const {
    auto r = Rest();
    return std::string(reinterpret_cast<const char*>(r.data()), r.size());
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace rap::fuzz
