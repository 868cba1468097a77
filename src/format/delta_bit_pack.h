// Private core of DELTA_BINARY_PACKED, shared by the INT32/INT64 value codec and the length/prefix
// streams of DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.
//
// Layout: <block size> <miniblocks per block> <total value count> <first value (zigzag)> as ULEB128
// varints, then blocks of <min delta (zigzag varint)> <one bit-width byte per miniblock> <miniblocks
// bit-packed LSB-first>. T is uint32_t for INT32 streams and uint64_t for INT64 streams: all delta
// arithmetic wraps around in T, which is how writers compute deltas that overflow.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "format/bit_util.h"
#include "rap/format/levels.h"
#include "rap/util/result.h"

namespace rap::parquet::internal {

// Bound on values per miniblock: the decoder buffers one miniblock (at most 512 KiB of uint64).
inline constexpr uint64_t kMaxDeltaMiniblockValues = 1 << 16;

template <typename T>
class DeltaBitPackReader {
  static_assert(std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>);

 public:
  // Parses the header of the stream at data[0, size). `what` prefixes error messages; `offset` is the
  // stream's position in the value section (for messages); `max_values` bounds the total count.
  Status Init(const uint8_t* data, size_t size, std::string what, size_t offset, int64_t max_values) {
    data_ = data;
    size_ = size;
    pos_ = 0;
    buf_pos_ = buf_len_ = 0;
    what_ = std::move(what);
    offset_ = offset;
    uint64_t block_size = 0, miniblocks = 0, total = 0, first = 0;
    if (!ReadUleb128(data_, size_, &pos_, &block_size)) return Error("block size varint is truncated or too long");
    if (!ReadUleb128(data_, size_, &pos_, &miniblocks)) return Error("miniblock count varint is truncated or too long");
    if (!ReadUleb128(data_, size_, &pos_, &total)) return Error("total value count varint is truncated or too long");
    if (!ReadUleb128(data_, size_, &pos_, &first)) return Error("first value varint is truncated or too long");
    if (block_size == 0 || block_size % 8 != 0 || miniblocks == 0 || miniblocks > block_size ||
        miniblocks >= std::numeric_limits<uint32_t>::max() ||
        block_size % miniblocks != 0 || (block_size / miniblocks) % 8 != 0 ||
        block_size / miniblocks > kMaxDeltaMiniblockValues) {
      return Error("invalid block layout: block size " + std::to_string(block_size) + " with " +
                       std::to_string(miniblocks) + " miniblocks (expected a multiple of 8 values per miniblock, at most " +
                       std::to_string(kMaxDeltaMiniblockValues) + ")",
                   0);
    }
    block_size_ = block_size;
    miniblocks_ = static_cast<uint32_t>(miniblocks);
    values_per_mini_ = static_cast<uint32_t>(block_size / miniblocks);
    // Every block needs at least its min delta and bit-width bytes, so the bytes bound the count.
    const uint64_t max_blocks = (size_ - pos_) / (uint64_t{1} + miniblocks_);
    const uint64_t max_by_bytes = 1 + max_blocks * block_size_;
    if (total > static_cast<uint64_t>(max_values) || total > max_by_bytes) {
      return Error("total value count " + std::to_string(total) + " exceeds " +
                       (total > static_cast<uint64_t>(max_values)
                            ? "the page's value count " + std::to_string(max_values)
                            : "what the " + std::to_string(size_) + "-byte stream can hold"),
                   0);
    }
    total_ = left_ = static_cast<int64_t>(total);
    last_ = static_cast<T>(ZigZagDecode(first));
    first_pending_ = total_ > 0;
    widths_.assign(miniblocks_, 0);
    mini_idx_ = miniblocks_;  // no block read yet
    return Status::OK();
  }

  int64_t total_values() const { return total_; }
  int64_t values_left() const { return left_; }
  // Position just past the bytes consumed so far; after all values were read, the stream's end.
  size_t position() const { return pos_; }

  // Decodes the next n values into out (n * sizeof(T) bytes, any alignment); out == nullptr skips.
  Status Get(void* out, int64_t n) {
    if (n > left_) {
      return Error("asked for " + std::to_string(n) + " values but only " + std::to_string(left_) + " of " +
                   std::to_string(total_) + " remain");
    }
    uint8_t* dst = static_cast<uint8_t*>(out);
    if (n > 0 && first_pending_) {
      if (dst) {
        std::memcpy(dst, &last_, sizeof(T));
        dst += sizeof(T);
      }
      first_pending_ = false;
      --left_;
      --n;
    }
    while (n > 0) {
      if (buf_pos_ == buf_len_) RAP_RETURN_NOT_OK(NextMiniblock());
      const int64_t k = std::min<int64_t>(n, buf_len_ - buf_pos_);
      if (dst) {
        std::memcpy(dst, buf_.data() + buf_pos_, static_cast<size_t>(k) * sizeof(T));
        dst += k * sizeof(T);
      }
      buf_pos_ += static_cast<uint32_t>(k);
      left_ -= k;
      n -= k;
    }
    return Status::OK();
  }

 private:
  Status Error(const std::string& msg, size_t at) const {
    return Status::Corrupt(what_ + ": " + msg + " at byte " + std::to_string(offset_ + at) + " of the value section");
  }
  Status Error(const std::string& msg) const { return Error(msg, pos_); }

  Status NextMiniblock() {
    if (mini_idx_ == miniblocks_) {
      const size_t block_pos = pos_;
      uint64_t zz = 0;
      if (!ReadUleb128(data_, size_, &pos_, &zz)) return Error("block min delta varint is truncated or too long");
      min_delta_ = static_cast<T>(ZigZagDecode(zz));
      if (size_ - pos_ < miniblocks_) {
        return Error("block bit widths (" + std::to_string(miniblocks_) + " bytes) are truncated", block_pos);
      }
      std::memcpy(widths_.data(), data_ + pos_, miniblocks_);
      pos_ += miniblocks_;
      mini_idx_ = 0;
    }
    const int w = widths_[mini_idx_];
    // One bit more than T is allowed (PARQUET-2435): writers that compute INT32 deltas in 64 bits
    // (DuckDB) emit 33-bit miniblocks, and 65 bits for INT64; the arithmetic below wraps in T, so
    // keeping each delta's low bits(T) bits gives the exact values.
    if (w > static_cast<int>(sizeof(T) * 8) + 1) {
      return Error("miniblock bit width " + std::to_string(w) + " exceeds " + std::to_string(sizeof(T) * 8 + 1));
    }
    // Deltas still expected (the first value is not a delta).
    const uint64_t needed = std::min<uint64_t>(values_per_mini_, static_cast<uint64_t>(left_));
    const size_t full_bytes = static_cast<size_t>(values_per_mini_) * w / 8;
    const size_t avail = size_ - pos_;
    if (full_bytes > avail) {
      // Only the stream's last miniblock may be cut short, and only after its last needed value.
      const size_t needed_bytes = static_cast<size_t>((needed * w + 7) / 8);
      if (needed_bytes > avail) {
        return Error("miniblock of " + std::to_string(values_per_mini_) + " values at " + std::to_string(w) +
                     " bits needs " + std::to_string(full_bytes) + " bytes, " + std::to_string(avail) + " remain");
      }
    }
    buf_.resize(values_per_mini_);
    UnpackGroups<T>(data_ + pos_, avail, w, buf_.data(), values_per_mini_ / 8);
    pos_ += std::min(full_bytes, avail);
    ++mini_idx_;
    T last = last_;
    const T min_delta = min_delta_;
    for (uint64_t i = 0; i < needed; ++i) {
      last = static_cast<T>(last + min_delta + buf_[i]);
      buf_[i] = last;
    }
    last_ = last;
    buf_pos_ = 0;
    buf_len_ = static_cast<uint32_t>(needed);
    return Status::OK();
  }

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  std::string what_;
  size_t offset_ = 0;
  uint64_t block_size_ = 0;
  uint32_t miniblocks_ = 0;
  uint32_t values_per_mini_ = 0;
  int64_t total_ = 0;
  int64_t left_ = 0;
  bool first_pending_ = false;
  T last_ = 0;
  T min_delta_ = 0;
  std::vector<uint8_t> widths_;
  uint32_t mini_idx_ = 0;
  std::vector<T> buf_;  // the current miniblock's decoded values
  uint32_t buf_pos_ = 0;
  uint32_t buf_len_ = 0;
};

// Writer with the layout every mainstream writer uses: blocks of 128 values in 4 miniblocks of 32.
template <typename T>
class DeltaBitPackWriter {
  static_assert(std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>);
  using S = std::make_signed_t<T>;
  static constexpr int kBlockSize = 128;
  static constexpr int kMiniblocks = 4;
  static constexpr int kPerMini = kBlockSize / kMiniblocks;

 public:
  void Put(T v) {
    if (total_ == 0) {
      first_ = v;
    } else {
      deltas_[n_deltas_++] = static_cast<T>(v - last_);
      if (n_deltas_ == kBlockSize) FlushBlock();
    }
    last_ = v;
    ++total_;
  }
  int64_t count() const { return total_; }
  size_t EstimatedSize() const { return 4 * 10 + blocks_.size() + static_cast<size_t>(n_deltas_) * sizeof(T) + 16; }
  // Appends header and blocks to out and resets.
  void Finish(std::string* out) {
    if (n_deltas_ > 0) FlushBlock();
    AppendUleb128(out, kBlockSize);
    AppendUleb128(out, kMiniblocks);
    AppendUleb128(out, static_cast<uint64_t>(total_));
    AppendUleb128(out, ZigZagEncode(static_cast<int64_t>(static_cast<S>(first_))));
    out->append(blocks_);
    blocks_.clear();
    total_ = 0;
    n_deltas_ = 0;
  }

 private:
  void FlushBlock() {
    S min_delta = static_cast<S>(deltas_[0]);
    for (int i = 1; i < n_deltas_; ++i) min_delta = std::min(min_delta, static_cast<S>(deltas_[i]));
    AppendUleb128(&blocks_, ZigZagEncode(static_cast<int64_t>(min_delta)));
    uint64_t packed[kBlockSize] = {};
    int widths[kMiniblocks] = {};
    for (int m = 0; m < kMiniblocks; ++m) {
      T max = 0;
      for (int i = m * kPerMini; i < std::min(n_deltas_, (m + 1) * kPerMini); ++i) {
        const T rel = static_cast<T>(deltas_[i] - static_cast<T>(min_delta));
        packed[i] = rel;
        max = std::max(max, rel);
      }
      widths[m] = BitWidth(max);
      blocks_.push_back(static_cast<char>(widths[m]));
    }
    for (int m = 0; m < kMiniblocks && m * kPerMini < n_deltas_; ++m) {
      for (int g = 0; g < kPerMini / 8; ++g) Pack8(packed + m * kPerMini + g * 8, widths[m], &blocks_);
    }
    n_deltas_ = 0;
  }

  T first_ = 0;
  T last_ = 0;
  int64_t total_ = 0;
  T deltas_[kBlockSize] = {};
  int n_deltas_ = 0;
  std::string blocks_;
};

}  // namespace rap::parquet::internal
