// fnv1a64: the hash behind result fingerprints and key bucketing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rap {

inline constexpr uint64_t kFnv1a64Offset = 0xcbf29ce484222325ULL;
inline constexpr uint64_t kFnv1a64Prime = 0x100000001b3ULL;

// Incremental FNV-1a, 64 bit.
class Fnv1a64 {
 public:
  void Update(const void* data, size_t n) {
    auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < n; ++i) {
      h_ ^= p[i];
      h_ *= kFnv1a64Prime;
    }
  }
  void Update(std::string_view s) { Update(s.data(), s.size()); }
  // Little-endian bytes of an integer.
  void UpdateU64(uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
    Update(b, 8);
  }
  void UpdateU8(uint8_t v) { Update(&v, 1); }
  uint64_t digest() const { return h_; }
  // "fnv1a64:" followed by 16 lowercase hex digits.
  std::string ToString() const;

 private:
  uint64_t h_ = kFnv1a64Offset;
};

inline uint64_t HashFnv1a64(std::string_view s) {
  Fnv1a64 h;
  h.Update(s);
  return h.digest();
}

}  // namespace rap
