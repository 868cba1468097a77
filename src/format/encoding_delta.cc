// DELTA_BINARY_PACKED for INT32 and INT64 value sections (decoder and encoder). The bit-level work
// lives in delta_bit_pack.h, shared with the delta byte-array encodings.
#include "format/delta_bit_pack.h"
#include "format/encoding_internal.h"

namespace rap::parquet::internal {

namespace {

template <typename T>
class DeltaBinaryPackedDecoder final : public DecoderBase {
 public:
  DeltaBinaryPackedDecoder(Type type, int64_t num_values) : DecoderBase(Encoding::DELTA_BINARY_PACKED, type, num_values) {}
  Status Init(std::span<const uint8_t> data, int64_t num_values) {
    return reader_.Init(data.data(), data.size(), what(), 0, num_values);
  }
  Status DecodeFixed(uint8_t* out, int64_t n) override {
    RAP_RETURN_NOT_OK(Take(n));
    return reader_.Get(out, n);
  }
  // Deltas must be decoded to follow the running sum, but nothing is stored.
  Status Skip(int64_t n) override {
    RAP_RETURN_NOT_OK(Take(n));
    return reader_.Get(nullptr, n);
  }

 private:
  DeltaBitPackReader<T> reader_;
};

template <typename T>
class DeltaBinaryPackedEncoder final : public EncoderBase {
 public:
  void PutFixed(const uint8_t* values, int64_t n) override {
    for (int64_t i = 0; i < n; ++i) writer_.Put(LoadLE<T>(values + i * sizeof(T)));
  }
  size_t EstimatedSize() const override { return writer_.EstimatedSize(); }
  void Finish(std::string* out) override { writer_.Finish(out); }

 private:
  DeltaBitPackWriter<T> writer_;
};

}  // namespace

Result<DecoderPtr> MakeDeltaBinaryPackedDecoder(Type type, std::span<const uint8_t> data, int64_t num_values) {
  if (type == Type::INT32) {
    auto dec = std::make_unique<DeltaBinaryPackedDecoder<uint32_t>>(type, num_values);
    RAP_RETURN_NOT_OK(dec->Init(data, num_values));
    return DecoderPtr(std::move(dec));
  }
  auto dec = std::make_unique<DeltaBinaryPackedDecoder<uint64_t>>(type, num_values);
  RAP_RETURN_NOT_OK(dec->Init(data, num_values));
  return DecoderPtr(std::move(dec));
}

EncoderPtr MakeDeltaBinaryPackedEncoder(Type type) {
  if (type == Type::INT32) return EncoderPtr(new DeltaBinaryPackedEncoder<uint32_t>());
  return EncoderPtr(new DeltaBinaryPackedEncoder<uint64_t>());
}

}  // namespace rap::parquet::internal
