// PLAIN encoding: decoders and encoders for every physical type.
//   fixed width (INT32, INT64, INT96, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY): values back to back, LE
//   BOOLEAN: one bit per value, LSB first
//   BYTE_ARRAY: 4-byte little-endian length, then the bytes, per value
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "format/bit_util.h"
#include "format/encoding_internal.h"

namespace rap::parquet {

int PhysicalWidth(Type type, int32_t type_length) {
  switch (type) {
    case Type::BOOLEAN: return 1;
    case Type::INT32:
    case Type::FLOAT: return 4;
    case Type::INT64:
    case Type::DOUBLE: return 8;
    case Type::INT96: return 12;
    case Type::FIXED_LEN_BYTE_ARRAY: return type_length;
    case Type::BYTE_ARRAY: return -1;
  }
  return -1;
}

namespace internal {

namespace {

// ---------------------------------------------------------------------------------------------
// Decoders

class PlainFixedDecoder final : public DecoderBase {
 public:
  PlainFixedDecoder(Type type, int width, std::span<const uint8_t> data, int64_t num_values)
      : DecoderBase(Encoding::PLAIN, type, num_values), width_(width), data_(data) {}

  Status DecodeFixed(uint8_t* out, int64_t n) override {
    RAP_ASSIGN_OR_RETURN(size_t bytes, Advance(n));
    if (bytes > 0) std::memcpy(out, data_.data() + pos_ - bytes, bytes);
    return Status::OK();
  }
  Status Skip(int64_t n) override { return Advance(n).status(); }
  Result<const uint8_t*> TakePlainFixed(int64_t n) override {
    RAP_ASSIGN_OR_RETURN(size_t bytes, Advance(n));
    return data_.data() + pos_ - bytes;
  }

 private:
  // Moves past n values; returns their byte size.
  Result<size_t> Advance(int64_t n) {
    RAP_RETURN_NOT_OK(Take(n));
    const size_t left = data_.size() - pos_;
    if (static_cast<uint64_t>(n) > left / static_cast<size_t>(width_)) {
      return Corrupt("expected " + std::to_string(n) + " values of " + std::to_string(width_) + " bytes, " +
                         std::to_string(left) + " bytes remain",
                     pos_, data_.size());
    }
    const size_t bytes = static_cast<size_t>(n) * static_cast<size_t>(width_);
    pos_ += bytes;
    return bytes;
  }
  const int width_;
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
};

// Each byte of bit-packed booleans expands to 8 bytes of 0/1 (little-endian: bit i -> byte i).
constexpr std::array<uint64_t, 256> MakeBitExpandTable() {
  std::array<uint64_t, 256> t{};
  for (int b = 0; b < 256; ++b) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>((b >> i) & 1) << (8 * i);
    t[b] = v;
  }
  return t;
}
constexpr std::array<uint64_t, 256> kBitExpand = MakeBitExpandTable();

class PlainBooleanDecoder final : public DecoderBase {
 public:
  PlainBooleanDecoder(std::span<const uint8_t> data, int64_t num_values)
      : DecoderBase(Encoding::PLAIN, Type::BOOLEAN, num_values), data_(data) {}

  Status DecodeFixed(uint8_t* out, int64_t n) override {
    RAP_RETURN_NOT_OK(Check(n));
    const uint8_t* p = data_.data();
    int64_t i = 0;
    for (; i < n && (bit_ & 7) != 0; ++i, ++bit_) out[i] = (p[bit_ >> 3] >> (bit_ & 7)) & 1;
    for (; i + 8 <= n; i += 8, bit_ += 8) std::memcpy(out + i, &kBitExpand[p[bit_ >> 3]], 8);
    for (; i < n; ++i, ++bit_) out[i] = (p[bit_ >> 3] >> (bit_ & 7)) & 1;
    return Status::OK();
  }
  Status Skip(int64_t n) override {
    RAP_RETURN_NOT_OK(Check(n));
    bit_ += static_cast<uint64_t>(n);
    return Status::OK();
  }

 private:
  Status Check(int64_t n) {
    RAP_RETURN_NOT_OK(Take(n));
    const uint64_t left = data_.size() * 8 - bit_;
    if (static_cast<uint64_t>(n) > left) {
      return Corrupt("expected " + std::to_string(n) + " bit-packed values, " + std::to_string(left) + " bits remain",
                     bit_ / 8, data_.size());
    }
    return Status::OK();
  }
  std::span<const uint8_t> data_;
  uint64_t bit_ = 0;
};

class PlainByteArrayDecoder final : public DecoderBase {
 public:
  PlainByteArrayDecoder(std::span<const uint8_t> data, int64_t num_values)
      : DecoderBase(Encoding::PLAIN, Type::BYTE_ARRAY, num_values), data_(data) {}

  Status DecodeBinary(int64_t n, BinaryOut out) override {
    RAP_RETURN_NOT_OK(Take(n));
    // Pass 1 walks the lengths (validating them); pass 2 copies with exact-size allocations.
    const size_t start = pos_;
    RAP_ASSIGN_OR_RETURN(uint64_t total, Walk(n));
    if (out.offsets->empty()) out.offsets->push_back(0);
    const int64_t base = out.offsets->back();
    if (static_cast<uint64_t>(base) + total > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return Status::ResourceExhausted(what() + ": " + std::to_string(base + total) +
                                       " bytes of values exceed the 2 GiB limit of int32 offsets");
    }
    const size_t off0 = out.offsets->size(), data0 = out.data->size();
    out.offsets->resize(off0 + static_cast<size_t>(n));
    out.data->resize(data0 + total);
    int32_t* offs = out.offsets->data() + off0;
    uint8_t* dst = out.data->data() + data0;
    const uint8_t* src = data_.data() + start;
    int32_t cur = static_cast<int32_t>(base);
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t len = LoadLE<uint32_t>(src);
      if (len > 0) std::memcpy(dst, src + 4, len);
      src += 4 + len;
      dst += len;
      cur += static_cast<int32_t>(len);
      offs[i] = cur;
    }
    return Status::OK();
  }
  Status Skip(int64_t n) override {
    RAP_RETURN_NOT_OK(Take(n));
    return Walk(n).status();
  }

 private:
  // Moves past n values, checking each length against the bytes left; returns their total size.
  Result<uint64_t> Walk(int64_t n) {
    uint64_t total = 0;
    size_t pos = pos_;
    const size_t size = data_.size();
    for (int64_t i = 0; i < n; ++i) {
      if (size - pos < 4) {
        return Corrupt("length of value " + std::to_string(i) + " of " + std::to_string(n) + " is truncated", pos,
                       size);
      }
      const uint32_t len = LoadLE<uint32_t>(data_.data() + pos);
      if (len > size - pos - 4) {
        return Corrupt("value length " + std::to_string(len) + " exceeds the " + std::to_string(size - pos - 4) +
                           " bytes that remain",
                       pos, size);
      }
      pos += 4 + len;
      total += len;
    }
    pos_ = pos;
    return total;
  }
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Encoders

class PlainFixedEncoder final : public EncoderBase {
 public:
  explicit PlainFixedEncoder(int width) : width_(width) {}
  void PutFixed(const uint8_t* values, int64_t n) override {
    buf_.append(reinterpret_cast<const char*>(values), static_cast<size_t>(n) * static_cast<size_t>(width_));
  }
  size_t EstimatedSize() const override { return buf_.size(); }
  void Finish(std::string* out) override {
    out->append(buf_);
    buf_.clear();
  }

 private:
  const int width_;
  std::string buf_;
};

class PlainBooleanEncoder final : public EncoderBase {
 public:
  void PutFixed(const uint8_t* values, int64_t n) override {
    for (int64_t i = 0; i < n; ++i) {
      if ((bits_ & 7) == 0) buf_.push_back(0);
      if (values[i]) buf_.back() = static_cast<char>(buf_.back() | (1 << (bits_ & 7)));
      ++bits_;
    }
  }
  size_t EstimatedSize() const override { return buf_.size(); }
  void Finish(std::string* out) override {
    out->append(buf_);
    buf_.clear();
    bits_ = 0;
  }

 private:
  std::string buf_;
  uint64_t bits_ = 0;
};

class PlainByteArrayEncoder final : public EncoderBase {
 public:
  void PutBinary(const int32_t* offsets, const uint8_t* data, int64_t n) override {
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t len = static_cast<uint32_t>(offsets[i + 1] - offsets[i]);
      AppendLE<uint32_t>(&buf_, len);
      buf_.append(reinterpret_cast<const char*>(data + offsets[i]), len);
    }
  }
  size_t EstimatedSize() const override { return buf_.size(); }
  void Finish(std::string* out) override {
    out->append(buf_);
    buf_.clear();
  }

 private:
  std::string buf_;
};

}  // namespace

Result<DecoderPtr> MakePlainDecoder(Type type, int32_t type_length, std::span<const uint8_t> data,
                                    int64_t num_values) {
  if (type == Type::BOOLEAN) return DecoderPtr(new PlainBooleanDecoder(data, num_values));
  if (type == Type::BYTE_ARRAY) return DecoderPtr(new PlainByteArrayDecoder(data, num_values));
  const int width = PhysicalWidth(type, type_length);
  if (width <= 0) {
    return Status::Corrupt(std::string("PLAIN ") + TypeName(type) + ": invalid value width " + std::to_string(width) +
                           " (type_length " + std::to_string(type_length) + ")");
  }
  return DecoderPtr(new PlainFixedDecoder(type, width, data, num_values));
}

EncoderPtr MakePlainEncoder(Type type, int32_t type_length) {
  if (type == Type::BOOLEAN) return EncoderPtr(new PlainBooleanEncoder());
  if (type == Type::BYTE_ARRAY) return EncoderPtr(new PlainByteArrayEncoder());
  return EncoderPtr(new PlainFixedEncoder(PhysicalWidth(type, type_length)));
}

}  // namespace internal
}  // namespace rap::parquet
