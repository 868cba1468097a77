// DELTA_LENGTH_BYTE_ARRAY (delta-packed lengths, then all bytes back to back) and DELTA_BYTE_ARRAY
// (delta-packed prefix lengths shared with the previous value, then the suffixes as
// DELTA_LENGTH_BYTE_ARRAY), for BYTE_ARRAY and (DELTA_BYTE_ARRAY only) FIXED_LEN_BYTE_ARRAY.
#include <cstring>
#include <limits>

#include "format/delta_bit_pack.h"
#include "format/encoding_internal.h"

namespace rap::parquet::internal {

namespace {

constexpr int64_t kChunk = 256;  // lengths decoded per step

// Walks a whole int32 delta stream once: checks every value is non-negative and returns the stream's
// end position and the sum of its values.
Status ScanLengths(DeltaBitPackReader<uint32_t> reader, const std::string& what, size_t offset, size_t* end,
                   uint64_t* sum) {
  uint32_t buf[kChunk];
  *sum = 0;
  for (int64_t i = 0; reader.values_left() > 0;) {
    const int64_t k = std::min(kChunk, reader.values_left());
    RAP_RETURN_NOT_OK(reader.Get(buf, k));
    for (int64_t j = 0; j < k; ++j) {
      if (static_cast<int32_t>(buf[j]) < 0) {
        return Status::Corrupt(what + ": length " + std::to_string(static_cast<int32_t>(buf[j])) + " of value " +
                               std::to_string(i + j) + " is negative (stream at byte " + std::to_string(offset) +
                               " of the value section)");
      }
      *sum += buf[j];
    }
    i += k;
  }
  *end = reader.position();
  return Status::OK();
}

// The DELTA_LENGTH_BYTE_ARRAY layout: lengths, then the concatenated bytes.
class LengthsAndBytes {
 public:
  Status Init(const uint8_t* data, size_t size, const std::string& what, size_t offset, int64_t max_values) {
    what_ = what;
    RAP_RETURN_NOT_OK(lengths_.Init(data, size, what + " lengths", offset, max_values));
    size_t end = 0;
    uint64_t sum = 0;
    RAP_RETURN_NOT_OK(ScanLengths(lengths_, what_ + " lengths", offset, &end, &sum));
    if (sum > size - end) {
      return Status::Corrupt(what_ + ": the lengths add up to " + std::to_string(sum) + " bytes but " +
                             std::to_string(size - end) + " follow them at byte " + std::to_string(offset + end) +
                             " of the value section");
    }
    bytes_ = data + end;
    end_ = end + sum;
    return Status::OK();
  }
  int64_t count() const { return lengths_.total_values(); }
  int64_t left() const { return lengths_.values_left(); }
  // Byte position just past the stream (lengths and bytes) relative to its start.
  size_t end() const { return end_; }
  Status NextLengths(uint32_t* out, int64_t n) { return lengths_.Get(out, n); }
  // The next `len` bytes; within bounds because Init checked the sum of all lengths.
  const uint8_t* TakeBytes(size_t len) {
    const uint8_t* p = bytes_;
    bytes_ += len;
    return p;
  }

 private:
  std::string what_;
  DeltaBitPackReader<uint32_t> lengths_;
  const uint8_t* bytes_ = nullptr;
  size_t end_ = 0;
};

Status OffsetOverflow(const std::string& what, uint64_t bytes) {
  return Status::ResourceExhausted(what + ": " + std::to_string(bytes) +
                                   " bytes of values exceed the 2 GiB limit of int32 offsets");
}

class DeltaLengthDecoder final : public DecoderBase {
 public:
  explicit DeltaLengthDecoder(int64_t num_values)
      : DecoderBase(Encoding::DELTA_LENGTH_BYTE_ARRAY, Type::BYTE_ARRAY, num_values) {}
  Status Init(std::span<const uint8_t> data, int64_t num_values) {
    return stream_.Init(data.data(), data.size(), what(), 0, num_values);
  }

  Status DecodeBinary(int64_t n, BinaryOut out) override {
    RAP_RETURN_NOT_OK(Take(n));
    if (out.offsets->empty()) out.offsets->push_back(0);
    const size_t off0 = out.offsets->size();
    // Lengths land in the new offset slots and are turned into offsets in place.
    out.offsets->resize(off0 + static_cast<size_t>(n));
    int32_t* offs = out.offsets->data() + off0;
    Status st = stream_.NextLengths(reinterpret_cast<uint32_t*>(offs), n);
    if (!st.ok()) {
      out.offsets->resize(off0);
      return st;
    }
    const int64_t base = offs[-1];
    uint64_t total = 0;
    for (int64_t i = 0; i < n; ++i) total += static_cast<uint32_t>(offs[i]);
    if (static_cast<uint64_t>(base) + total > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      out.offsets->resize(off0);
      return OffsetOverflow(what(), static_cast<uint64_t>(base) + total);
    }
    int32_t cur = static_cast<int32_t>(base);
    for (int64_t i = 0; i < n; ++i) offs[i] = cur += offs[i];
    if (total > 0) {
      const size_t data0 = out.data->size();
      out.data->resize(data0 + total);
      std::memcpy(out.data->data() + data0, stream_.TakeBytes(total), total);
    }
    return Status::OK();
  }

  Status Skip(int64_t n) override {
    RAP_RETURN_NOT_OK(Take(n));
    uint32_t buf[kChunk];
    while (n > 0) {
      const int64_t k = std::min(n, kChunk);
      RAP_RETURN_NOT_OK(stream_.NextLengths(buf, k));
      uint64_t sum = 0;
      for (int64_t j = 0; j < k; ++j) sum += buf[j];
      stream_.TakeBytes(sum);
      n -= k;
    }
    return Status::OK();
  }

 private:
  LengthsAndBytes stream_;
};

class DeltaByteArrayDecoder final : public DecoderBase {
 public:
  DeltaByteArrayDecoder(Type type, int32_t type_length, int64_t num_values)
      : DecoderBase(Encoding::DELTA_BYTE_ARRAY, type, num_values), type_length_(type_length) {}

  Status Init(std::span<const uint8_t> data, int64_t num_values) {
    RAP_RETURN_NOT_OK(prefixes_.Init(data.data(), data.size(), what() + " prefix lengths", 0, num_values));
    size_t end = 0;
    uint64_t sum = 0;
    RAP_RETURN_NOT_OK(ScanLengths(prefixes_, what() + " prefix lengths", 0, &end, &sum));
    RAP_RETURN_NOT_OK(suffixes_.Init(data.data() + end, data.size() - end, what() + " suffixes", end, num_values));
    if (suffixes_.count() != prefixes_.total_values()) {
      return Status::Corrupt(what() + ": " + std::to_string(prefixes_.total_values()) + " prefix lengths but " +
                             std::to_string(suffixes_.count()) + " suffixes (suffix stream at byte " +
                             std::to_string(end) + " of the value section)");
    }
    return Status::OK();
  }

  Status DecodeBinary(int64_t n, BinaryOut out) override {
    if (type_length_ > 0) return WrongKind("BYTE_ARRAY");
    RAP_RETURN_NOT_OK(Take(n));
    if (out.offsets->empty()) out.offsets->push_back(0);
    return Walk(n, [&](int64_t) -> Status {
      const uint64_t size = out.data->size() + last_.size();
      if (size > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) return OffsetOverflow(what(), size);
      const size_t at = out.data->size();
      out.data->resize(static_cast<size_t>(size));
      if (!last_.empty()) std::memcpy(out.data->data() + at, last_.data(), last_.size());
      out.offsets->push_back(static_cast<int32_t>(size));
      return Status::OK();
    });
  }

  Status DecodeFixed(uint8_t* out, int64_t n) override {
    if (type_length_ <= 0) return WrongKind("fixed-width");
    RAP_RETURN_NOT_OK(Take(n));
    return Walk(n, [&](int64_t i) -> Status {
      if (last_.size() != static_cast<size_t>(type_length_)) {
        return Status::Corrupt(what() + ": value of " + std::to_string(last_.size()) + " bytes in a column of " +
                               std::to_string(type_length_) + "-byte values");
      }
      std::memcpy(out + i * type_length_, last_.data(), last_.size());
      return Status::OK();
    });
  }

  // Every value is rebuilt (the next one may share its prefix) but none is output.
  Status Skip(int64_t n) override {
    RAP_RETURN_NOT_OK(Take(n));
    return Walk(n, [](int64_t) { return Status::OK(); });
  }

 private:
  // Rebuilds the next n values one by one into last_, calling emit(i) after each.
  template <typename Emit>
  Status Walk(int64_t n, Emit&& emit) {
    uint32_t prefix[kChunk], suffix[kChunk];
    for (int64_t i = 0; i < n;) {
      const int64_t k = std::min(n - i, kChunk);
      RAP_RETURN_NOT_OK(prefixes_.Get(prefix, k));
      RAP_RETURN_NOT_OK(suffixes_.NextLengths(suffix, k));
      for (int64_t j = 0; j < k; ++j) {
        if (prefix[j] > last_.size()) {
          return Status::Corrupt(what() + ": prefix length " + std::to_string(prefix[j]) + " of value " +
                                 std::to_string(decoded_) + " exceeds the " + std::to_string(last_.size()) +
                                 "-byte previous value");
        }
        last_.resize(prefix[j]);
        last_.append(reinterpret_cast<const char*>(suffixes_.TakeBytes(suffix[j])), suffix[j]);
        ++decoded_;
        RAP_RETURN_NOT_OK(emit(i + j));
      }
      i += k;
    }
    return Status::OK();
  }

  const int32_t type_length_;  // > 0 for FIXED_LEN_BYTE_ARRAY
  DeltaBitPackReader<uint32_t> prefixes_;
  LengthsAndBytes suffixes_;
  std::string last_;
  int64_t decoded_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Encoders

class DeltaLengthEncoder final : public EncoderBase {
 public:
  void PutBinary(const int32_t* offsets, const uint8_t* data, int64_t n) override {
    for (int64_t i = 0; i < n; ++i) lengths_.Put(static_cast<uint32_t>(offsets[i + 1] - offsets[i]));
    if (n > 0) bytes_.append(reinterpret_cast<const char*>(data + offsets[0]), static_cast<size_t>(offsets[n] - offsets[0]));
  }
  size_t EstimatedSize() const override { return lengths_.EstimatedSize() + bytes_.size(); }
  void Finish(std::string* out) override {
    lengths_.Finish(out);
    out->append(bytes_);
    bytes_.clear();
  }

 private:
  DeltaBitPackWriter<uint32_t> lengths_;
  std::string bytes_;
};

class DeltaByteArrayEncoder final : public EncoderBase {
 public:
  explicit DeltaByteArrayEncoder(int32_t type_length) : type_length_(type_length) {}
  void PutBinary(const int32_t* offsets, const uint8_t* data, int64_t n) override {
    for (int64_t i = 0; i < n; ++i) {
      Put(data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
    }
  }
  void PutFixed(const uint8_t* values, int64_t n) override {
    for (int64_t i = 0; i < n; ++i) Put(values + i * type_length_, static_cast<size_t>(type_length_));
  }
  size_t EstimatedSize() const override {
    return prefixes_.EstimatedSize() + suffix_lengths_.EstimatedSize() + suffixes_.size();
  }
  void Finish(std::string* out) override {
    prefixes_.Finish(out);
    suffix_lengths_.Finish(out);
    out->append(suffixes_);
    suffixes_.clear();
    last_.clear();
  }

 private:
  void Put(const uint8_t* v, size_t len) {
    const size_t max = std::min(len, last_.size());
    size_t p = 0;
    while (p < max && static_cast<uint8_t>(last_[p]) == v[p]) ++p;
    prefixes_.Put(static_cast<uint32_t>(p));
    suffix_lengths_.Put(static_cast<uint32_t>(len - p));
    suffixes_.append(reinterpret_cast<const char*>(v + p), len - p);
    last_.assign(reinterpret_cast<const char*>(v), len);
  }
  const int32_t type_length_;
  DeltaBitPackWriter<uint32_t> prefixes_;
  DeltaBitPackWriter<uint32_t> suffix_lengths_;
  std::string suffixes_;
  std::string last_;
};

}  // namespace

Result<DecoderPtr> MakeDeltaLengthDecoder(std::span<const uint8_t> data, int64_t num_values) {
  auto dec = std::make_unique<DeltaLengthDecoder>(num_values);
  RAP_RETURN_NOT_OK(dec->Init(data, num_values));
  return DecoderPtr(std::move(dec));
}

Result<DecoderPtr> MakeDeltaByteArrayDecoder(Type type, int32_t type_length, std::span<const uint8_t> data,
                                             int64_t num_values) {
  auto dec = std::make_unique<DeltaByteArrayDecoder>(type, type == Type::FIXED_LEN_BYTE_ARRAY ? type_length : 0,
                                                     num_values);
  RAP_RETURN_NOT_OK(dec->Init(data, num_values));
  return DecoderPtr(std::move(dec));
}

EncoderPtr MakeDeltaLengthEncoder() { return EncoderPtr(new DeltaLengthEncoder()); }

EncoderPtr MakeDeltaByteArrayEncoder(Type type, int32_t type_length) {
  return EncoderPtr(new DeltaByteArrayEncoder(type == Type::FIXED_LEN_BYTE_ARRAY ? type_length : 0));
}

}  // namespace rap::parquet::internal
