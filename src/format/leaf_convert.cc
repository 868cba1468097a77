// Dense physical values -> Arrow leaf arrays: booleans to bitmaps, narrowing of small integers,
// INT96 to timestamp[ns], decimals to 16-byte little-endian, strings/binary as offsets + data.
#include <cstring>

#include <fmt/format.h>

#include "format/page_reader.h"

namespace rap::parquet::internal {

namespace {

// Takes ownership of a decode buffer's storage (no copy).
template <class T>
Buffer OwnVector(UninitVector<T>&& v) {
  auto owner = std::make_shared<UninitVector<T>>(std::move(v));
  const auto* data = reinterpret_cast<const uint8_t*>(owner->data());
  const size_t size = owner->size() * sizeof(T);
  return Buffer(std::move(owner), data, size);
}

template <typename To, typename From>
Buffer Narrow(const ByteVector& fixed, int64_t n) {
  Buffer out = Buffer::Allocate(static_cast<size_t>(n) * sizeof(To));
  auto* dst = reinterpret_cast<To*>(out.mutable_data());
  for (int64_t i = 0; i < n; ++i) {
    From v;
    std::memcpy(&v, fixed.data() + i * static_cast<int64_t>(sizeof(From)), sizeof(From));
    dst[i] = static_cast<To>(v);
  }
  return out;
}

// Big-endian two's complement of `len` bytes -> 16-byte little-endian. Values wider than 16 bytes
// are accepted when the extra leading bytes are only sign extension.
bool BigEndianToDecimal128(const uint8_t* p, size_t len, uint8_t* out) {
  const bool neg = len > 0 && (p[0] & 0x80) != 0;
  if (len > 16) {
    for (size_t i = 0; i < len - 16; ++i) {
      if (p[i] != (neg ? 0xff : 0x00)) return false;
    }
    p += len - 16;
    len = 16;
  }
  std::memset(out, neg ? 0xff : 0x00, 16);
  for (size_t i = 0; i < len; ++i) out[i] = p[len - 1 - i];
  return true;
}

Buffer SignExtendToDecimal(const ByteVector& fixed, int64_t n, int width) {
  Buffer out = Buffer::Allocate(static_cast<size_t>(n) * 16);
  uint8_t* dst = out.mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    int64_t v;
    if (width == 4) {
      int32_t v32;
      std::memcpy(&v32, fixed.data() + i * 4, 4);
      v = v32;
    } else {
      std::memcpy(&v, fixed.data() + i * 8, 8);
    }
    const int64_t hi = v < 0 ? -1 : 0;
    std::memcpy(dst + i * 16, &v, 8);
    std::memcpy(dst + i * 16 + 8, &hi, 8);
  }
  return out;
}

// INT96 (8 bytes nanoseconds of the day, 4 bytes Julian day) -> nanoseconds since the Unix epoch.
// Out-of-range values wrap like other readers do (unsigned arithmetic, no UB).
Buffer Int96ToNanos(const ByteVector& fixed, int64_t n) {
  constexpr int64_t kJulianEpochDay = 2440588;
  constexpr uint64_t kNanosPerDay = 86400ULL * 1000000000ULL;
  Buffer out = Buffer::Allocate(static_cast<size_t>(n) * 8);
  auto* dst = reinterpret_cast<uint64_t*>(out.mutable_data());
  for (int64_t i = 0; i < n; ++i) {
    uint64_t nanos;
    int32_t day;
    std::memcpy(&nanos, fixed.data() + i * 12, 8);
    std::memcpy(&day, fixed.data() + i * 12 + 8, 4);
    dst[i] = static_cast<uint64_t>(static_cast<int64_t>(day) - kJulianEpochDay) * kNanosPerDay + nanos;
  }
  return out;
}

Buffer PackBits(const ByteVector& bytes, int64_t n) {
  Buffer out = Buffer::Allocate(static_cast<size_t>((n + 7) / 8));
  uint8_t* dst = out.mutable_data();
  std::memset(dst, 0, out.size());
  for (int64_t i = 0; i < n; ++i) {
    if (bytes[static_cast<size_t>(i)]) dst[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
  }
  return out;
}

}  // namespace

Result<ArrayPtr> PhysicalToArrow(PhysicalValues&& v, const ColumnDescriptor& column, const DataTypePtr& type) {
  auto a = std::make_shared<ArrayData>();
  a->type = type;
  a->length = v.count;
  const int64_t n = v.count;
  const Type pt = column.physical_type;
  if (type->id == TypeId::kDecimal128) {
    a->buffers = {Buffer(), Buffer()};
    if (pt == Type::INT32 || pt == Type::INT64) {
      a->buffers[1] = SignExtendToDecimal(v.fixed, n, pt == Type::INT32 ? 4 : 8);
      return a;
    }
    Buffer out = Buffer::Allocate(static_cast<size_t>(n) * 16);
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t* p;
      size_t len;
      if (pt == Type::FIXED_LEN_BYTE_ARRAY) {
        p = v.fixed.data() + i * column.type_length;
        len = static_cast<size_t>(column.type_length);
      } else {
        p = v.data.data() + v.offsets[static_cast<size_t>(i)];
        len = static_cast<size_t>(v.offsets[static_cast<size_t>(i) + 1] - v.offsets[static_cast<size_t>(i)]);
      }
      if (!BigEndianToDecimal128(p, len, out.mutable_data() + i * 16)) {
        return Status::Corrupt(fmt::format("column '{}': decimal value {} of {} bytes does not fit in 128 bits",
                                           column.dotted_path, i, len));
      }
    }
    a->buffers[1] = std::move(out);
    return a;
  }
  switch (pt) {
    case Type::BOOLEAN:
      a->buffers = {Buffer(), PackBits(v.fixed, n)};
      return a;
    case Type::INT32:
      switch (type->id) {
        case TypeId::kInt8: a->buffers = {Buffer(), Narrow<int8_t, int32_t>(v.fixed, n)}; return a;
        case TypeId::kUInt8: a->buffers = {Buffer(), Narrow<uint8_t, int32_t>(v.fixed, n)}; return a;
        case TypeId::kInt16: a->buffers = {Buffer(), Narrow<int16_t, int32_t>(v.fixed, n)}; return a;
        case TypeId::kUInt16: a->buffers = {Buffer(), Narrow<uint16_t, int32_t>(v.fixed, n)}; return a;
        default: break;
      }
      break;
    case Type::INT96:
      a->buffers = {Buffer(), Int96ToNanos(v.fixed, n)};
      return a;
    case Type::BYTE_ARRAY: {
      Buffer offsets = OwnVector(std::move(v.offsets));
      a->buffers = {Buffer(), std::move(offsets), OwnVector(std::move(v.data))};
      return a;
    }
    default:
      break;
  }
  // Same width and representation: hand the decoded bytes over without a copy.
  const int width = type->FixedWidth();
  if (width <= 0 || static_cast<size_t>(width) * static_cast<size_t>(n) != v.fixed.size()) {
    return Status::Internal(fmt::format("column '{}': cannot convert {} values to {}", column.dotted_path,
                                        TypeName(pt), type->ToString()));
  }
  a->buffers = {Buffer(), OwnVector(std::move(v.fixed))};
  return a;
}

}  // namespace rap::parquet::internal
