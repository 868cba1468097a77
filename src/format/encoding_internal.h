// Private pieces shared by the value decoders/encoders of encoding_*.cc: a base class with the
// bookkeeping every decoder needs (value budget, uniform error messages) and the per-encoding
// factories that MakeValueDecoder/MakeValueEncoder dispatch to.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "rap/format/encoding.h"
#include "rap/format/metadata.h"

namespace rap::parquet::internal {

// Base of all decoders: `what` is e.g. "PLAIN INT32", used as the prefix of every error message.
class DecoderBase : public ValueDecoder {
 public:
  DecoderBase(Encoding encoding, Type type, int64_t num_values)
      : what_(std::string(EncodingName(encoding)) + " " + TypeName(type)), values_left_(num_values) {}

  Status DecodeFixed(uint8_t*, int64_t) override { return WrongKind("fixed-width"); }
  Status DecodeBinary(int64_t, BinaryOut) override { return WrongKind("BYTE_ARRAY"); }
  Status DecodeIndices(int32_t*, int64_t) override { return WrongKind("dictionary index"); }

 protected:
  // Takes n values from the page's budget; Corrupt if more are asked for than the page holds.
  Status Take(int64_t n) {
    if (n < 0) return Status::InvalidArgument(what_ + ": negative value count " + std::to_string(n));
    if (n > values_left_) {
      return Status::Corrupt(what_ + ": asked for " + std::to_string(n) + " values but the page holds only " +
                             std::to_string(values_left_) + " more");
    }
    values_left_ -= n;
    return Status::OK();
  }
  Status WrongKind(const char* kind) const {
    return Status::InvalidArgument(what_ + " decoder does not produce " + std::string(kind) + " values");
  }
  // "<what>: <msg> at byte <pos> of the <size>-byte value section"
  Status Corrupt(const std::string& msg, size_t pos, size_t size) const {
    return Status::Corrupt(what_ + ": " + msg + " at byte " + std::to_string(pos) + " of the " + std::to_string(size) +
                           "-byte value section");
  }
  const std::string& what() const { return what_; }

 private:
  std::string what_;
  int64_t values_left_;
};

// Base of all encoders: calls of the wrong kind are programming errors (asserted in debug builds,
// ignored otherwise).
class EncoderBase : public ValueEncoder {
 public:
  void PutFixed(const uint8_t*, int64_t) override { assert(false && "this encoder takes no fixed-width values"); }
  void PutBinary(const int32_t*, const uint8_t*, int64_t) override {
    assert(false && "this encoder takes no BYTE_ARRAY values");
  }
  void PutIndices(const int32_t*, int64_t) override { assert(false && "this encoder takes no dictionary indices"); }
};

using DecoderPtr = std::unique_ptr<ValueDecoder>;
using EncoderPtr = std::unique_ptr<ValueEncoder>;

Result<DecoderPtr> MakePlainDecoder(Type type, int32_t type_length, std::span<const uint8_t> data, int64_t num_values);
Result<DecoderPtr> MakeDictIndexDecoder(Encoding encoding, Type type, std::span<const uint8_t> data,
                                        int64_t num_values);
Result<DecoderPtr> MakeRleBoolDecoder(std::span<const uint8_t> data, int64_t num_values);
Result<DecoderPtr> MakeDeltaBinaryPackedDecoder(Type type, std::span<const uint8_t> data, int64_t num_values);
Result<DecoderPtr> MakeDeltaLengthDecoder(std::span<const uint8_t> data, int64_t num_values);
Result<DecoderPtr> MakeDeltaByteArrayDecoder(Type type, int32_t type_length, std::span<const uint8_t> data,
                                             int64_t num_values);
Result<DecoderPtr> MakeByteStreamSplitDecoder(Type type, int32_t type_length, std::span<const uint8_t> data,
                                              int64_t num_values);

EncoderPtr MakePlainEncoder(Type type, int32_t type_length);
EncoderPtr MakeDictIndexEncoder(int32_t dictionary_size);
EncoderPtr MakeRleBoolEncoder();
EncoderPtr MakeDeltaBinaryPackedEncoder(Type type);
EncoderPtr MakeDeltaLengthEncoder();
EncoderPtr MakeDeltaByteArrayEncoder(Type type, int32_t type_length);
EncoderPtr MakeByteStreamSplitEncoder(Type type, int32_t type_length);

}  // namespace rap::parquet::internal
