// BYTE_STREAM_SPLIT: the K bytes of each value are scattered into K streams of N bytes (stream b
// holds byte b of every value), for FLOAT, DOUBLE, INT32, INT64 and FIXED_LEN_BYTE_ARRAY.
#include <cstring>

#include "format/encoding_internal.h"

namespace rap::parquet::internal {

namespace {

// Gathers n values starting at value `pos` from K streams of `stride` bytes each. Works in blocks
// of 64 values: each stream's 64 bytes are copied to a small buffer first, so every cache line of
// a stream is read once in full (streams a power of two apart would otherwise evict each other's
// lines on every value), then the block is transposed from L1.
template <int K>
void Gather(const uint8_t* src, size_t stride, size_t pos, uint8_t* out, int64_t n) {
  constexpr int kBlock = 64;
  uint8_t tmp[K][kBlock];
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (int b = 0; b < K; ++b) std::memcpy(tmp[b], src + b * stride + pos + static_cast<size_t>(i), kBlock);
    uint8_t* o = out + i * K;
    for (int j = 0; j < kBlock; ++j) {
      for (int b = 0; b < K; ++b) o[j * K + b] = tmp[b][j];
    }
  }
  for (; i < n; ++i) {
    for (int b = 0; b < K; ++b) out[i * K + b] = src[b * stride + pos + static_cast<size_t>(i)];
  }
}

void GatherAny(int k, const uint8_t* src, size_t stride, size_t pos, uint8_t* out, int64_t n) {
  for (int b = 0; b < k; ++b) {
    const uint8_t* s = src + b * stride + pos;
    for (int64_t i = 0; i < n; ++i) out[i * k + b] = s[i];
  }
}

class ByteStreamSplitDecoder final : public DecoderBase {
 public:
  ByteStreamSplitDecoder(Type type, int width, std::span<const uint8_t> data, int64_t num_values)
      : DecoderBase(Encoding::BYTE_STREAM_SPLIT, type, num_values),
        width_(width),
        data_(data),
        count_(data.size() / static_cast<size_t>(width)) {}

  Status DecodeFixed(uint8_t* out, int64_t n) override {
    RAP_RETURN_NOT_OK(Advance(n));
    const size_t pos = pos_ - static_cast<size_t>(n);
    switch (width_) {
      case 4: Gather<4>(data_.data(), count_, pos, out, n); break;
      case 8: Gather<8>(data_.data(), count_, pos, out, n); break;
      case 2: Gather<2>(data_.data(), count_, pos, out, n); break;
      case 16: Gather<16>(data_.data(), count_, pos, out, n); break;
      default: GatherAny(width_, data_.data(), count_, pos, out, n); break;
    }
    return Status::OK();
  }
  Status Skip(int64_t n) override { return Advance(n); }

 private:
  Status Advance(int64_t n) {
    RAP_RETURN_NOT_OK(Take(n));
    if (static_cast<uint64_t>(n) > count_ - pos_) {
      return Corrupt("expected " + std::to_string(n) + " values, the streams hold " + std::to_string(count_ - pos_) +
                         " more",
                     pos_, data_.size());
    }
    pos_ += static_cast<size_t>(n);
    return Status::OK();
  }
  const int width_;
  std::span<const uint8_t> data_;
  const size_t count_;  // values in the section
  size_t pos_ = 0;      // values consumed
};

class ByteStreamSplitEncoder final : public EncoderBase {
 public:
  explicit ByteStreamSplitEncoder(int width) : width_(width) {}
  void PutFixed(const uint8_t* values, int64_t n) override {
    buf_.append(reinterpret_cast<const char*>(values), static_cast<size_t>(n) * static_cast<size_t>(width_));
  }
  size_t EstimatedSize() const override { return buf_.size(); }
  void Finish(std::string* out) override {
    const size_t n = buf_.size() / static_cast<size_t>(width_);
    const size_t base = out->size();
    out->resize(base + buf_.size());
    char* dst = out->data() + base;
    for (int b = 0; b < width_; ++b) {
      char* s = dst + static_cast<size_t>(b) * n;
      for (size_t i = 0; i < n; ++i) s[i] = buf_[i * static_cast<size_t>(width_) + static_cast<size_t>(b)];
    }
    buf_.clear();
  }

 private:
  const int width_;
  std::string buf_;
};

}  // namespace

Result<DecoderPtr> MakeByteStreamSplitDecoder(Type type, int32_t type_length, std::span<const uint8_t> data,
                                              int64_t num_values) {
  const int width = PhysicalWidth(type, type_length);
  if (data.size() % static_cast<size_t>(width) != 0) {
    return Status::Corrupt(std::string("BYTE_STREAM_SPLIT ") + TypeName(type) + ": the " +
                           std::to_string(data.size()) + "-byte value section is not a multiple of the " +
                           std::to_string(width) + "-byte value width");
  }
  return DecoderPtr(new ByteStreamSplitDecoder(type, width, data, num_values));
}

EncoderPtr MakeByteStreamSplitEncoder(Type type, int32_t type_length) {
  return EncoderPtr(new ByteStreamSplitEncoder(PhysicalWidth(type, type_length)));
}

}  // namespace rap::parquet::internal
