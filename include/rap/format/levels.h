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
  Result<int64_t> GetBatch(uint8_t* out, int64_t n);  // bit widths 0..8 (RLE booleans)
  // Skips up to n values without unpacking whole groups; returns the number skipped.
  Result<int64_t> Skip(int64_t n);
  // Bit width 1 only (flat definition levels): skips up to n values without unpacking them (RLE runs
  // by their count, bit-packed groups by a popcount of their bytes), adding the number of 1s among
  // them to *ones; returns the number skipped (less than n only at the end of data).
  Result<int64_t> SkipCountingOnes(int64_t n, int64_t* ones);
  // Byte offset just past the run being consumed (after the last value: the end of the data used).
  size_t position() const { return pos_; }

 private:
  template <typename T>
  Result<int64_t> GetBatchImpl(T* out, int64_t n);
  // Starts the next run with at least one value; false at the end of the data.
  Result<bool> NextRun();
  Status CheckWidth(int max_width) const;
  Status Truncated(size_t at, const char* what) const;

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;             // end of the current run's bytes
  int bit_width_ = 0;
  int64_t rle_left_ = 0;       // values left in the current RLE run
  uint32_t rle_value_ = 0;
  int64_t packed_left_ = 0;    // values left in the current bit-packed run (buffered ones included)
  size_t packed_pos_ = 0;      // byte position of the next unread group of the bit-packed run
  uint32_t buffered_[8] = {};  // one unpacked group, partly consumed
  int buffered_idx_ = 0;
  int buffered_len_ = 0;
};

class RleBitPackedEncoder {
 public:
  explicit RleBitPackedEncoder(int bit_width);
  void Put(uint64_t value);
  void PutBatch(const int16_t* values, int64_t n);
  void PutBatch(const int32_t* values, int64_t n);
  // Appends the encoded bytes to out (no length prefix) and resets.
  void Finish(std::string* out);
  // Bytes Finish() would append now (exact for flushed runs, an upper bound for pending values).
  size_t EstimatedSize() const;

 private:
  void FlushBuffered(bool done);
  void FlushLiteralRun(bool update_indicator);
  void FlushRepeatedRun();
  void Flush();

  int bit_width_;
  std::string buf_;
  uint64_t buffered_[8] = {};     // values not yet emitted (at most one group)
  int num_buffered_ = 0;
  uint64_t current_value_ = 0;
  int64_t repeat_count_ = 0;      // how often current_value_ repeated so far
  int64_t literal_count_ = 0;     // values in the open literal run
  int64_t literal_indicator_ = -1;  // position of the open literal run's header byte in buf_
};

// Decodes `num_values` levels of a data page v1 section encoded with `encoding` (RLE: 4-byte
// little-endian length prefix then hybrid data; BIT_PACKED: MSB-first packing, no prefix).
// Returns the number of bytes consumed from `data`.
Result<size_t> DecodeLevelsV1(Encoding encoding, int bit_width, std::span<const uint8_t> data, int64_t num_values,
                              int16_t* out);
// Data page v2: hybrid data without prefix, exactly `data.size()` bytes.
Status DecodeLevelsV2(int bit_width, std::span<const uint8_t> data, int64_t num_values, int16_t* out);

}  // namespace rap::parquet
