// Value encodings of data pages: decoders and encoders for PLAIN, dictionary indices, RLE booleans,
// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT.
//
// Values cross this interface in one uniform representation per physical type:
//   BOOLEAN                      one byte per value, 0 or 1
//   INT32/FLOAT                  4 little-endian bytes per value
//   INT64/DOUBLE                 8 bytes;  INT96: 12 bytes;  FIXED_LEN_BYTE_ARRAY: type_length bytes
//   BYTE_ARRAY                   appended to a BinaryOut (Arrow-style int32 offsets + data)
//   dictionary-encoded pages     int32 indices into the dictionary page's values
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rap/format/metadata.h"
#include "rap/util/result.h"
#include "rap/util/uninit_vector.h"

namespace rap::parquet {

// Arrow-style binary output: offsets starts with {0} and gets one entry per value appended.
struct BinaryOut {
  UninitVector<int32_t>* offsets;
  ByteVector* data;
};

class ValueDecoder {
 public:
  virtual ~ValueDecoder() = default;
  // Decodes exactly n fixed-width values into out (n * width bytes). Corrupt if fewer remain.
  virtual Status DecodeFixed(uint8_t* out, int64_t n) = 0;
  // Decodes exactly n BYTE_ARRAY values, appending to out.
  virtual Status DecodeBinary(int64_t n, BinaryOut out) = 0;
  // Dictionary-encoded pages only: decodes exactly n indices. They are checked only against the
  // page's bit width, not the dictionary size (the caller knows it and must check).
  virtual Status DecodeIndices(int32_t* out, int64_t n) = 0;
  // Skips exactly n values without materialising them where the encoding allows.
  virtual Status Skip(int64_t n) = 0;
  // PLAIN fixed-width pages only: the bytes of the next n values where they lie in the page (no copy),
  // moving past them; nullptr for other encodings (use DecodeFixed). Corrupt if fewer remain.
  virtual Result<const uint8_t*> TakePlainFixed(int64_t n) {
    (void)n;
    return static_cast<const uint8_t*>(nullptr);
  }
};

// `data` is the page's value section (after levels); it must outlive the decoder. `num_values` is
// the number of non-null values the section holds (an upper bound for validation).
// PLAIN_DICTIONARY/RLE_DICTIONARY give an index decoder (DecodeIndices).
Result<std::unique_ptr<ValueDecoder>> MakeValueDecoder(Encoding encoding, Type type, int32_t type_length,
                                                      std::span<const uint8_t> data, int64_t num_values);

class ValueEncoder {
 public:
  virtual ~ValueEncoder() = default;
  virtual void PutFixed(const uint8_t* values, int64_t n) = 0;
  // n values: value i is data[offsets[i], offsets[i+1]).
  virtual void PutBinary(const int32_t* offsets, const uint8_t* data, int64_t n) = 0;
  virtual void PutIndices(const int32_t* indices, int64_t n) = 0;  // dictionary indices
  // Bytes the encoded output would have now (for page-size decisions).
  virtual size_t EstimatedSize() const = 0;
  // Appends the encoded section to out and resets the encoder.
  virtual void Finish(std::string* out) = 0;
};

// For RLE_DICTIONARY, `dictionary_size` sets the index bit width. Unsupported combinations (e.g.
// DELTA_BINARY_PACKED for DOUBLE) give NotSupported.
Result<std::unique_ptr<ValueEncoder>> MakeValueEncoder(Encoding encoding, Type type, int32_t type_length,
                                                      int32_t dictionary_size = 0);

// Width in bytes of one value of a fixed-width physical type in the representation above
// (BOOLEAN 1, INT32/FLOAT 4, INT64/DOUBLE 8, INT96 12, FLBA type_length), or -1 for BYTE_ARRAY.
int PhysicalWidth(Type type, int32_t type_length);

}  // namespace rap::parquet
