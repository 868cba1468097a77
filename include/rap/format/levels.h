// Repetition/definition levels: the RLE/bit-packed hybrid and the deprecated BIT_PACKED encoding.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <vector>

#include "rap/format/metadata.h"
#include "rap/util/result.h"

namespace rap::parquet {

// Number of bits needed to store values 0..max_value.
int BitWidth(uint64_t max_value);

// Decoder for the RLE/bit-packed hybrid (no length prefix: callers strip it). Also used for
// dictionary indices and RLE booleans.
class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  RleBitPackedDecoder(const uint8_t* data, size_t size, int bit_width);
  // Decodes up to n values; returns the number decoded (less than n only at the end of data) or
  // Corrupt on malformed runs.
  Result<int64_t> GetBatch(int32_t* out, int64_t n);
  Result<int64_t> GetBatch(int16_t* out, int64_t n);
  Result<int64_t> Skip(int64_t n);
  size_t position() const { return pos_; }

 private:
  bool NextRun();
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  int bit_width_ = 0;
  int64_t rle_left_ = 0;       // values left in the current RLE run
  uint64_t rle_value_ = 0;
  int64_t packed_left_ = 0;    // values left in the current bit-packed run
  size_t packed_pos_ = 0;      // byte position of the bit-packed values
  uint64_t packed_bit_ = 0;    // bit offset inside the bit-packed run
  bool error_ = false;
};

class RleBitPackedEncoder {
 public:
  explicit RleBitPackedEncoder(int bit_width);
  void Put(uint64_t value);
  void PutBatch(const int16_t* values, int64_t n);
  void PutBatch(const int32_t* values, int64_t n);
  // Appends the encoded bytes to out (no length prefix) and resets.
  void Finish(std::string* out);

 private:
  void FlushPending(bool final);
  int bit_width_;
  std::string buf_;
  std::vector<uint64_t> pending_;  // values not yet emitted
};

// Decodes `num_values` levels of a data page v1 section encoded with `encoding` (RLE: 4-byte
// little-endian length prefix then hybrid data; BIT_PACKED: MSB-first packing, no prefix).
// Returns the number of bytes consumed from `data`.
Result<size_t> DecodeLevelsV1(Encoding encoding, int bit_width, std::span<const uint8_t> data, int64_t num_values,
                              int16_t* out);
// Data page v2: hybrid data without prefix, exactly `data.size()` bytes.
Status DecodeLevelsV2(int bit_width, std::span<const uint8_t> data, int64_t num_values, int16_t* out);

}  // namespace rap::parquet
