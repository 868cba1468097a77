// Private bit-level helpers of the format module: little-endian loads/stores, ULEB128 varints and
// zigzag, and bit unpacking of groups of 8 values (the unit of Parquet's bit-packed runs).
//
// Hand-written because no Debian library exposes Parquet's LSB-first bit packing; the unpackers are
// templates over the bit width so that each group of 8 compiles to straight-line shifts and masks
// (no per-bit loops) — this is the hot loop of level, dictionary-index and delta decoding.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace rap::parquet::internal {

static_assert(std::endian::native == std::endian::little, "rap's format layer assumes a little-endian host");

template <typename T>
inline T LoadLE(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
inline void AppendLE(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

inline uint64_t ZigZagEncode(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
inline int64_t ZigZagDecode(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

// Reads a ULEB128 varint of at most 10 bytes (64 bits) from data[*pos, size). Returns false if the
// varint is truncated or longer than 64 bits; *pos is advanced only on success.
inline bool ReadUleb128(const uint8_t* data, size_t size, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  size_t p = *pos;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p >= size) return false;
    const uint8_t b = data[p++];
    if (shift == 63 && (b & 0x7e) != 0) return false;  // more than 64 bits
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *pos = p;
      *out = v;
      return true;
    }
  }
  return false;
}

inline void AppendUleb128(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Unpacks 8 values of W bits (LSB-first) from `in` into out[0..8). Reads up to W + 8 bytes from
// `in` (the W bytes of the group plus up to 8 bytes of slack): callers guarantee them readable.
// W may exceed the width of T by one (33 for uint32_t, 65 for uint64_t, as DELTA_BINARY_PACKED
// allows, PARQUET-2435): each value then keeps its low bits, i.e. it wraps modulo 2^bits(T).
template <typename T, int W>
inline void Unpack8(const uint8_t* in, T* out) {
  static_assert(W >= 0 && W <= 65);
  if constexpr (W == 0) {
    for (int i = 0; i < 8; ++i) out[i] = 0;
  } else {
    constexpr int kKept = W > 64 ? 64 : W;  // bits of each value that survive in 64 bits
    constexpr uint64_t kMask = kKept == 64 ? ~uint64_t{0} : ((uint64_t{1} << kKept) - 1);
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      const int bit = i * W;
      const int byte = bit >> 3;
      const int shift = bit & 7;
      uint64_t v = LoadLE<uint64_t>(in + byte) >> shift;
      if (shift + kKept > 64) v |= static_cast<uint64_t>(in[byte + 8]) << (64 - shift);
      out[i] = static_cast<T>(v & kMask);
    }
  }
}

// Unpacks `groups` groups of 8 W-bit values. `avail` is the number of readable bytes at `in`; the
// groups need groups * W of them, and the last groups are unpacked from a zero-padded copy so that
// nothing past in + avail is read. Missing bytes (avail < groups * W) read as zero bits.
template <typename T, int W>
void UnpackGroupsW(const uint8_t* in, size_t avail, T* out, int64_t groups) {
  int64_t g = 0;
  // Fast path: the group plus 9 bytes of slack lies inside the buffer.
  while (g < groups && static_cast<size_t>(g * W) + W + 9 <= avail) {
    Unpack8<T, W>(in + g * W, out + g * 8);
    ++g;
  }
  for (; g < groups; ++g) {
    uint8_t pad[65 + 16] = {};
    const size_t start = static_cast<size_t>(g) * W;
    if (start < avail) std::memcpy(pad, in + start, std::min<size_t>(W, avail - start));
    Unpack8<T, W>(pad, out + g * 8);
  }
}

template <typename T>
using UnpackFn = void (*)(const uint8_t*, size_t, T*, int64_t);

template <typename T, int... Ws>
constexpr auto MakeUnpackTable(std::integer_sequence<int, Ws...>) {
  struct Table {
    UnpackFn<T> fns[sizeof...(Ws)];
  };
  return Table{{&UnpackGroupsW<T, Ws>...}};
}

// Unpacks `groups` groups of 8 values of `bit_width` bits: 0..bits(T), or bits(T) + 1, where each
// value wraps to its low bits(T) bits (DELTA_BINARY_PACKED's 33 and 65, see Unpack8).
template <typename T>
inline void UnpackGroups(const uint8_t* in, size_t avail, int bit_width, T* out, int64_t groups) {
  static constexpr auto kTable = MakeUnpackTable<T>(std::make_integer_sequence<int, sizeof(T) * 8 + 2>{});
  kTable.fns[bit_width](in, avail, out, groups);
}

// Packs 8 values of `bit_width` bits (LSB-first) and appends the bit_width bytes to out.
inline void Pack8(const uint64_t* values, int bit_width, std::string* out) {
  if (bit_width == 0) return;
  const uint64_t mask = bit_width == 64 ? ~uint64_t{0} : ((uint64_t{1} << bit_width) - 1);
  uint64_t acc = 0;
  int acc_bits = 0;
  for (int i = 0; i < 8; ++i) {
    const uint64_t v = values[i] & mask;
    acc |= v << acc_bits;
    const int total = acc_bits + bit_width;
    if (total >= 64) {
      AppendLE<uint64_t>(out, acc);
      acc = acc_bits == 0 ? 0 : v >> (64 - acc_bits);
      acc_bits = total - 64;
    } else {
      acc_bits = total;
    }
  }
  // 8 * bit_width is a multiple of 8 bits, so acc_bits is too.
  for (int b = 0; b < acc_bits; b += 8) out->push_back(static_cast<char>((acc >> b) & 0xff));
}

}  // namespace rap::parquet::internal
