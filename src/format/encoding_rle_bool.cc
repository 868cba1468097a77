// RLE-encoded booleans (Encoding::RLE for BOOLEAN value sections): a 4-byte little-endian length,
// then the RLE/bit-packed hybrid with bit width 1.
#include "format/bit_util.h"
#include "format/encoding_internal.h"
#include "rap/format/levels.h"

namespace rap::parquet::internal {

namespace {

class RleBoolDecoder final : public DecoderBase {
 public:
  // `body` is the hybrid data after the length prefix.
  RleBoolDecoder(const uint8_t* body, uint32_t len, int64_t num_values)
      : DecoderBase(Encoding::RLE, Type::BOOLEAN, num_values), len_(len), decoder_(body, len, 1) {}

  Status DecodeFixed(uint8_t* out, int64_t n) override {
    RAP_RETURN_NOT_OK(Take(n));
    RAP_ASSIGN_OR_RETURN(int64_t got, decoder_.GetBatch(out, n));
    if (got != n) return Short(n, got);
    return Status::OK();
  }
  Status Skip(int64_t n) override {
    RAP_RETURN_NOT_OK(Take(n));
    RAP_ASSIGN_OR_RETURN(int64_t got, decoder_.Skip(n));
    if (got != n) return Short(n, got);
    return Status::OK();
  }

 private:
  Status Short(int64_t n, int64_t got) const {
    return Corrupt("expected " + std::to_string(n) + " values, the " + std::to_string(len_) +
                       "-byte run data ends after " + std::to_string(got),
                   4 + len_, 4 + len_);
  }
  uint32_t len_;
  RleBitPackedDecoder decoder_;
};

class RleBoolEncoder final : public EncoderBase {
 public:
  void PutFixed(const uint8_t* values, int64_t n) override {
    for (int64_t i = 0; i < n; ++i) rle_.Put(values[i] ? 1 : 0);
  }
  size_t EstimatedSize() const override { return 4 + rle_.EstimatedSize(); }
  void Finish(std::string* out) override {
    std::string body;
    rle_.Finish(&body);
    AppendLE<uint32_t>(out, static_cast<uint32_t>(body.size()));
    out->append(body);
  }

 private:
  RleBitPackedEncoder rle_{1};
};

}  // namespace

Result<DecoderPtr> MakeRleBoolDecoder(std::span<const uint8_t> data, int64_t num_values) {
  if (data.size() < 4) {
    if (num_values == 0 && data.empty()) return DecoderPtr(new RleBoolDecoder(nullptr, 0, 0));
    return Status::Corrupt("RLE BOOLEAN: the 4-byte length prefix at byte 0 is truncated (" +
                           std::to_string(data.size()) + "-byte value section)");
  }
  const uint32_t len = LoadLE<uint32_t>(data.data());
  if (len > data.size() - 4) {
    return Status::Corrupt("RLE BOOLEAN: length prefix " + std::to_string(len) + " at byte 0 exceeds the " +
                           std::to_string(data.size() - 4) + " bytes that follow it");
  }
  return DecoderPtr(new RleBoolDecoder(data.data() + 4, len, num_values));
}

EncoderPtr MakeRleBoolEncoder() { return EncoderPtr(new RleBoolEncoder()); }

}  // namespace rap::parquet::internal
