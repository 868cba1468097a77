// Dictionary indices of PLAIN_DICTIONARY / RLE_DICTIONARY data pages: one byte holding the bit
// width, then the RLE/bit-packed hybrid. Indices are checked against the dictionary size by the
// column reader, which knows it; here they are only checked to fit the declared bit width.
#include <algorithm>

#include "format/encoding_internal.h"
#include "rap/format/levels.h"

namespace rap::parquet::internal {

namespace {

class DictIndexDecoder final : public DecoderBase {
 public:
  DictIndexDecoder(Encoding encoding, Type type, std::span<const uint8_t> data, int64_t num_values)
      : DecoderBase(encoding, type, num_values),
        size_(data.size()),
        decoder_(data.empty() ? nullptr : data.data() + 1, data.empty() ? 0 : data.size() - 1,
                 data.empty() ? 0 : data[0]) {}

  Status DecodeIndices(int32_t* out, int64_t n) override {
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
    return Corrupt("expected " + std::to_string(n) + " indices, the data ends after " + std::to_string(got), size_,
                   size_);
  }
  size_t size_;
  RleBitPackedDecoder decoder_;
};

class DictIndexEncoder final : public EncoderBase {
 public:
  explicit DictIndexEncoder(int bit_width) : bit_width_(bit_width), rle_(bit_width) {}
  void PutIndices(const int32_t* indices, int64_t n) override { rle_.PutBatch(indices, n); }
  size_t EstimatedSize() const override { return 1 + rle_.EstimatedSize(); }
  void Finish(std::string* out) override {
    out->push_back(static_cast<char>(bit_width_));
    rle_.Finish(out);
  }

 private:
  int bit_width_;
  RleBitPackedEncoder rle_;
};

}  // namespace

Result<DecoderPtr> MakeDictIndexDecoder(Encoding encoding, Type type, std::span<const uint8_t> data,
                                        int64_t num_values) {
  if (data.empty() && num_values > 0) {
    return Status::Corrupt(std::string(EncodingName(encoding)) + " " + TypeName(type) +
                           ": the bit width byte at byte 0 is missing (empty value section)");
  }
  if (!data.empty() && data[0] > 32) {
    return Status::Corrupt(std::string(EncodingName(encoding)) + " " + TypeName(type) + ": index bit width " +
                           std::to_string(data[0]) + " at byte 0 is not in 0..32");
  }
  return DecoderPtr(new DictIndexDecoder(encoding, type, data, num_values));
}

EncoderPtr MakeDictIndexEncoder(int32_t dictionary_size) {
  const int width = BitWidth(dictionary_size > 1 ? static_cast<uint64_t>(dictionary_size - 1) : 0);
  return EncoderPtr(new DictIndexEncoder(width));
}

}  // namespace rap::parquet::internal
