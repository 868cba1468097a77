// The RLE/bit-packed hybrid (levels, dictionary indices, RLE booleans) and the deprecated
// BIT_PACKED level encoding.
#include "rap/format/levels.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>

#include "format/bit_util.h"

namespace rap::parquet {

using internal::AppendUleb128;
using internal::ReadUleb128;
using internal::UnpackGroups;

namespace {
constexpr int kMaxHybridBitWidth = 32;
}  // namespace

int BitWidth(uint64_t max_value) { return max_value == 0 ? 0 : 64 - std::countl_zero(max_value); }

// ---------------------------------------------------------------------------------------------
// Decoder

RleBitPackedDecoder::RleBitPackedDecoder(const uint8_t* data, size_t size, int bit_width)
    : data_(data), size_(size), bit_width_(bit_width) {}

Status RleBitPackedDecoder::CheckWidth(int max_width) const {
  if (bit_width_ < 0 || bit_width_ > std::min(max_width, kMaxHybridBitWidth)) {
    return Status::Corrupt("RLE/bit-packed hybrid: bit width " + std::to_string(bit_width_) + " is not in 0.." +
                           std::to_string(std::min(max_width, kMaxHybridBitWidth)) + " for this value type");
  }
  return Status::OK();
}

Status RleBitPackedDecoder::Truncated(size_t at, const char* what) const {
  return Status::Corrupt("RLE/bit-packed hybrid: " + std::string(what) + " at byte " + std::to_string(at) + " of " +
                         std::to_string(size_) + " is truncated");
}

Result<bool> RleBitPackedDecoder::NextRun() {
  while (pos_ < size_) {
    const size_t header_pos = pos_;
    uint64_t header = 0;
    if (!ReadUleb128(data_, size_, &pos_, &header)) return Truncated(header_pos, "run header");
    if (header > std::numeric_limits<uint32_t>::max()) {
      return Status::Corrupt("RLE/bit-packed hybrid: run header " + std::to_string(header) + " at byte " +
                             std::to_string(header_pos) + " exceeds 32 bits");
    }
    const int64_t count = static_cast<int64_t>(header >> 1);
    if (header & 1) {
      // Bit-packed run of count groups of 8 values. A run cut short by the end of the section keeps
      // the values whose bits are present (some writers do not pad the last group).
      const size_t avail = size_ - pos_;
      const uint64_t bytes = static_cast<uint64_t>(count) * bit_width_;
      int64_t values = count * 8;
      packed_pos_ = pos_;
      if (bytes > avail) {
        values = static_cast<int64_t>(avail * 8 / bit_width_);
        pos_ = size_;
      } else {
        pos_ += bytes;
      }
      packed_left_ = values;
      buffered_idx_ = buffered_len_ = 0;
      if (values > 0) return true;
    } else {
      const size_t value_bytes = (bit_width_ + 7) / 8;
      if (size_ - pos_ < value_bytes) return Truncated(pos_, "RLE run value");
      uint64_t value = 0;
      for (size_t i = 0; i < value_bytes; ++i) value |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
      if (bit_width_ < 64 && (value >> bit_width_) != 0) {
        return Status::Corrupt("RLE/bit-packed hybrid: RLE run value " + std::to_string(value) + " at byte " +
                               std::to_string(pos_) + " does not fit in bit width " + std::to_string(bit_width_));
      }
      pos_ += value_bytes;
      rle_value_ = static_cast<uint32_t>(value);
      rle_left_ = count;
      if (count > 0) return true;
    }
  }
  return false;
}

template <typename T>
Result<int64_t> RleBitPackedDecoder::GetBatchImpl(T* out, int64_t n) {
  RAP_RETURN_NOT_OK(CheckWidth(static_cast<int>(sizeof(T) * 8)));
  using U = std::make_unsigned_t<T>;
  int64_t done = 0;
  while (done < n) {
    if (rle_left_ > 0) {
      const int64_t k = std::min(n - done, rle_left_);
      std::fill(out + done, out + done + k, static_cast<T>(rle_value_));
      rle_left_ -= k;
      done += k;
      continue;
    }
    if (packed_left_ > 0) {
      if (buffered_idx_ < buffered_len_) {
        const int64_t k = std::min<int64_t>(n - done, buffered_len_ - buffered_idx_);
        for (int64_t i = 0; i < k; ++i) out[done + i] = static_cast<T>(buffered_[buffered_idx_ + i]);
        buffered_idx_ += static_cast<int>(k);
        packed_left_ -= k;
        done += k;
        continue;
      }
      const size_t avail = packed_pos_ < size_ ? size_ - packed_pos_ : 0;
      const int64_t groups = std::min(n - done, packed_left_) / 8;
      if (groups > 0) {
        UnpackGroups<U>(data_ + packed_pos_, avail, bit_width_, reinterpret_cast<U*>(out + done), groups);
        packed_pos_ += static_cast<size_t>(groups) * bit_width_;
        packed_left_ -= groups * 8;
        done += groups * 8;
        continue;
      }
      UnpackGroups<uint32_t>(data_ + packed_pos_, avail, bit_width_, buffered_, 1);
      packed_pos_ += bit_width_;
      buffered_idx_ = 0;
      buffered_len_ = static_cast<int>(std::min<int64_t>(8, packed_left_));
      continue;
    }
    RAP_ASSIGN_OR_RETURN(bool more, NextRun());
    if (!more) break;
  }
  return done;
}

Result<int64_t> RleBitPackedDecoder::GetBatch(int32_t* out, int64_t n) { return GetBatchImpl(out, n); }
Result<int64_t> RleBitPackedDecoder::GetBatch(int16_t* out, int64_t n) { return GetBatchImpl(out, n); }
Result<int64_t> RleBitPackedDecoder::GetBatch(uint8_t* out, int64_t n) {
  return GetBatchImpl(reinterpret_cast<int8_t*>(out), n);
}

Result<int64_t> RleBitPackedDecoder::SkipCountingOnes(int64_t n, int64_t* ones) {
  if (bit_width_ != 1) {
    return Status::InvalidArgument("RLE/bit-packed hybrid: counting ones needs bit width 1, not " +
                                   std::to_string(bit_width_));
  }
  int64_t done = 0;
  while (done < n) {
    if (rle_left_ > 0) {
      const int64_t k = std::min(n - done, rle_left_);
      rle_left_ -= k;
      done += k;
      *ones += rle_value_ ? k : 0;
      continue;
    }
    if (packed_left_ > 0) {
      if (buffered_idx_ < buffered_len_) {
        const int64_t k = std::min<int64_t>(n - done, buffered_len_ - buffered_idx_);
        for (int64_t i = 0; i < k; ++i) *ones += buffered_[buffered_idx_ + i];
        buffered_idx_ += static_cast<int>(k);
        packed_left_ -= k;
        done += k;
        continue;
      }
      // Whole groups of 8 one-bit values are one byte each, inside the data (NextRun keeps only
      // the values whose bits are present).
      const int64_t groups = std::min(n - done, packed_left_) / 8;
      if (groups > 0) {
        const uint8_t* g = data_ + packed_pos_;
        int64_t c = 0, i = 0;
        for (; i + 8 <= groups; i += 8) {  // 64 values per word (no popcnt instruction assumed)
          uint64_t w;
          std::memcpy(&w, g + i, 8);
          c += std::popcount(w);
        }
        for (; i < groups; ++i) c += std::popcount(static_cast<unsigned>(g[i]));
        *ones += c;
        packed_pos_ += static_cast<size_t>(groups);
        packed_left_ -= groups * 8;
        done += groups * 8;
        continue;
      }
      const size_t avail = packed_pos_ < size_ ? size_ - packed_pos_ : 0;
      UnpackGroups<uint32_t>(data_ + packed_pos_, avail, bit_width_, buffered_, 1);
      packed_pos_ += 1;
      buffered_idx_ = 0;
      buffered_len_ = static_cast<int>(std::min<int64_t>(8, packed_left_));
      continue;
    }
    RAP_ASSIGN_OR_RETURN(bool more, NextRun());
    if (!more) break;
  }
  return done;
}

Result<int64_t> RleBitPackedDecoder::Skip(int64_t n) {
  RAP_RETURN_NOT_OK(CheckWidth(kMaxHybridBitWidth));
  int64_t done = 0;
  while (done < n) {
    if (rle_left_ > 0) {
      const int64_t k = std::min(n - done, rle_left_);
      rle_left_ -= k;
      done += k;
      continue;
    }
    if (packed_left_ > 0) {
      if (buffered_idx_ < buffered_len_) {
        const int64_t k = std::min<int64_t>(n - done, buffered_len_ - buffered_idx_);
        buffered_idx_ += static_cast<int>(k);
        packed_left_ -= k;
        done += k;
        continue;
      }
      const int64_t groups = std::min(n - done, packed_left_) / 8;
      if (groups > 0) {
        packed_pos_ += static_cast<size_t>(groups) * bit_width_;
        packed_left_ -= groups * 8;
        done += groups * 8;
        continue;
      }
      const size_t avail = packed_pos_ < size_ ? size_ - packed_pos_ : 0;
      UnpackGroups<uint32_t>(data_ + packed_pos_, avail, bit_width_, buffered_, 1);
      packed_pos_ += bit_width_;
      buffered_idx_ = 0;
      buffered_len_ = static_cast<int>(std::min<int64_t>(8, packed_left_));
      continue;
    }
    RAP_ASSIGN_OR_RETURN(bool more, NextRun());
    if (!more) break;
  }
  return done;
}

// ---------------------------------------------------------------------------------------------
// Encoder: runs of at least 8 equal values become RLE runs, everything else bit-packed runs of up
// to 63 groups (one header byte reserved up front and patched when the run closes).

RleBitPackedEncoder::RleBitPackedEncoder(int bit_width) : bit_width_(std::clamp(bit_width, 0, 64)) {}

void RleBitPackedEncoder::Put(uint64_t value) {
  if (value == current_value_ && (repeat_count_ > 0 || num_buffered_ > 0)) {
    ++repeat_count_;
    if (repeat_count_ > 8) return;  // continuation of a run that will be written as RLE
  } else {
    if (repeat_count_ >= 8) FlushRepeatedRun();
    repeat_count_ = 1;
    current_value_ = value;
  }
  buffered_[num_buffered_++] = value;
  if (num_buffered_ == 8) FlushBuffered(false);
}

namespace {
// Put for each value, except that inside a run already bound to be written as RLE (more than 8
// equal values) the equal values that follow are counted in one tight loop: the definition levels
// of a column without nulls are one long run (an index fragment's covering records: 8 leaves of
// millions of levels each, where per-value Put was a tenth of `rap index build --cover`).
template <typename T, typename U>
void PutRuns(RleBitPackedEncoder& enc, uint64_t& current, int64_t& repeat, const T* values, int64_t n) {
  int64_t i = 0;
  while (i < n) {
    const uint64_t v = static_cast<U>(values[i]);
    if (repeat > 8 && v == current) {
      int64_t j = i + 1;
      while (j < n && static_cast<U>(values[j]) == v) ++j;
      repeat += j - i;
      i = j;
      continue;
    }
    enc.Put(v);
    ++i;
  }
}
}  // namespace

void RleBitPackedEncoder::PutBatch(const int16_t* values, int64_t n) {
  PutRuns<int16_t, uint16_t>(*this, current_value_, repeat_count_, values, n);
}

void RleBitPackedEncoder::PutBatch(const int32_t* values, int64_t n) {
  PutRuns<int32_t, uint32_t>(*this, current_value_, repeat_count_, values, n);
}

void RleBitPackedEncoder::FlushBuffered(bool done) {
  if (repeat_count_ >= 8) {
    // The buffered values belong to the repeated run now.
    num_buffered_ = 0;
    if (literal_count_ != 0) FlushLiteralRun(true);
    return;
  }
  literal_count_ += num_buffered_;
  const int64_t groups = (literal_count_ + 7) / 8;
  FlushLiteralRun(done || groups + 1 >= 64);
  repeat_count_ = 0;
}

void RleBitPackedEncoder::FlushLiteralRun(bool update_indicator) {
  if (literal_indicator_ < 0) {
    literal_indicator_ = static_cast<int64_t>(buf_.size());
    buf_.push_back(0);
  }
  if (num_buffered_ > 0) {
    for (int i = num_buffered_; i < 8; ++i) buffered_[i] = 0;
    internal::Pack8(buffered_, bit_width_, &buf_);
    num_buffered_ = 0;
  }
  if (update_indicator) {
    const int64_t groups = (literal_count_ + 7) / 8;
    buf_[static_cast<size_t>(literal_indicator_)] = static_cast<char>((groups << 1) | 1);
    literal_indicator_ = -1;
    literal_count_ = 0;
  }
}

void RleBitPackedEncoder::FlushRepeatedRun() {
  AppendUleb128(&buf_, static_cast<uint64_t>(repeat_count_) << 1);
  const int value_bytes = (bit_width_ + 7) / 8;
  for (int i = 0; i < value_bytes; ++i) buf_.push_back(static_cast<char>((current_value_ >> (8 * i)) & 0xff));
  num_buffered_ = 0;
  repeat_count_ = 0;
}

void RleBitPackedEncoder::Flush() {
  if (literal_count_ == 0 && repeat_count_ == 0 && num_buffered_ == 0) return;
  const bool all_repeat = literal_count_ == 0 && (repeat_count_ == num_buffered_ || num_buffered_ == 0);
  if (repeat_count_ > 0 && all_repeat) {
    FlushRepeatedRun();
  } else {
    literal_count_ += num_buffered_;
    FlushLiteralRun(true);
    repeat_count_ = 0;
  }
}

void RleBitPackedEncoder::Finish(std::string* out) {
  Flush();
  out->append(buf_);
  buf_.clear();
  num_buffered_ = 0;
  current_value_ = 0;
  repeat_count_ = 0;
  literal_count_ = 0;
  literal_indicator_ = -1;
}

size_t RleBitPackedEncoder::EstimatedSize() const {
  // Pending values: at worst one literal group plus a header, or an RLE run header and value.
  return buf_.size() + static_cast<size_t>(bit_width_) + 1 + 10 + static_cast<size_t>(bit_width_ + 7) / 8;
}

// ---------------------------------------------------------------------------------------------
// Levels

namespace {

Status CheckLevelArgs(int bit_width, int64_t num_values, const char* what) {
  if (bit_width < 0 || bit_width > 16) {
    return Status::Corrupt(std::string(what) + ": level bit width " + std::to_string(bit_width) + " is not in 0..16");
  }
  if (num_values < 0) {
    return Status::Corrupt(std::string(what) + ": negative number of levels " + std::to_string(num_values));
  }
  return Status::OK();
}

// The deprecated BIT_PACKED encoding: values packed MSB-first, no header; kept for old files.
Result<size_t> DecodeBitPackedMsbFirst(int bit_width, std::span<const uint8_t> data, int64_t num_values,
                                       int16_t* out) {
  const uint64_t bits = static_cast<uint64_t>(num_values) * static_cast<uint64_t>(bit_width);
  const uint64_t bytes = (bits + 7) / 8;
  if (bytes > data.size()) {
    return Status::Corrupt("BIT_PACKED levels: " + std::to_string(num_values) + " levels of " +
                           std::to_string(bit_width) + " bits need " + std::to_string(bytes) + " bytes at byte 0, " +
                           std::to_string(data.size()) + " available");
  }
  if (bit_width == 0) {
    std::fill(out, out + num_values, int16_t{0});
    return size_t{0};
  }
  const uint8_t* p = data.data();
  uint64_t acc = 0;  // bits not yet consumed, right-aligned
  int acc_bits = 0;
  size_t byte = 0;
  const uint32_t mask = (1u << bit_width) - 1;
  for (int64_t i = 0; i < num_values; ++i) {
    while (acc_bits < bit_width) {
      acc = (acc << 8) | p[byte++];
      acc_bits += 8;
    }
    out[i] = static_cast<int16_t>((acc >> (acc_bits - bit_width)) & mask);
    acc_bits -= bit_width;
  }
  return static_cast<size_t>(bytes);
}

}  // namespace

Result<size_t> DecodeLevelsV1(Encoding encoding, int bit_width, std::span<const uint8_t> data, int64_t num_values,
                              int16_t* out) {
  RAP_RETURN_NOT_OK(CheckLevelArgs(bit_width, num_values, "data page v1 levels"));
  if (encoding == Encoding::BIT_PACKED) return DecodeBitPackedMsbFirst(bit_width, data, num_values, out);
  if (encoding != Encoding::RLE) {
    return Status::Corrupt("data page v1 levels: encoding " + std::to_string(static_cast<int>(encoding)) +
                           " is not RLE (3) or BIT_PACKED (4)");
  }
  if (data.size() < 4) {
    return Status::Corrupt("RLE levels: 4-byte length prefix at byte 0 is truncated (" + std::to_string(data.size()) +
                           " bytes available)");
  }
  const uint32_t len = internal::LoadLE<uint32_t>(data.data());
  if (len > data.size() - 4) {
    return Status::Corrupt("RLE levels: length prefix " + std::to_string(len) + " at byte 0 exceeds the " +
                           std::to_string(data.size() - 4) + " bytes that follow it");
  }
  RleBitPackedDecoder dec(data.data() + 4, len, bit_width);
  RAP_ASSIGN_OR_RETURN(int64_t got, dec.GetBatch(out, num_values));
  if (got != num_values) {
    return Status::Corrupt("RLE levels: expected " + std::to_string(num_values) + " levels, the " +
                           std::to_string(len) + "-byte section holds only " + std::to_string(got));
  }
  return static_cast<size_t>(len) + 4;
}

Status DecodeLevelsV2(int bit_width, std::span<const uint8_t> data, int64_t num_values, int16_t* out) {
  RAP_RETURN_NOT_OK(CheckLevelArgs(bit_width, num_values, "data page v2 levels"));
  RleBitPackedDecoder dec(data.data(), data.size(), bit_width);
  RAP_ASSIGN_OR_RETURN(int64_t got, dec.GetBatch(out, num_values));
  if (got != num_values) {
    return Status::Corrupt("data page v2 levels: expected " + std::to_string(num_values) + " levels, the " +
                           std::to_string(data.size()) + "-byte section holds only " + std::to_string(got));
  }
  return Status::OK();
}

}  // namespace rap::parquet
