// Key comparison of the MergeReader: a three-way compare of two values of one key type.
#include <cmath>
#include <cstring>
#include <string_view>

#include "rap/read/merge_reader.h"

namespace rap::read {

namespace {

template <typename T>
int Cmp3(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

template <typename T>
int CmpFixed(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j) {
  return Cmp3(a.values<T>()[i], b.values<T>()[j]);
}

template <typename T>
int CmpFloat(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j) {
  const T x = a.values<T>()[i], y = b.values<T>()[j];
  const bool xn = std::isnan(x), yn = std::isnan(y);
  if (xn || yn) return Cmp3(xn, yn);  // NaN after every number, NaNs equal
  return Cmp3(x, y);
}

std::string_view BinaryAt(const ArrayData& a, int64_t i) {
  const int32_t* o = a.offsets();
  return {reinterpret_cast<const char*>(a.buffers[2].data()) + o[i], static_cast<size_t>(o[i + 1] - o[i])};
}

int CmpBytes(const uint8_t* x, size_t xn, const uint8_t* y, size_t yn) {
  const size_t n = xn < yn ? xn : yn;
  const int c = n ? std::memcmp(x, y, n) : 0;  // memcmp compares as unsigned char
  if (c != 0) return c < 0 ? -1 : 1;
  return Cmp3(xn, yn);
}

bool BoolAt(const ArrayData& a, int64_t i) {
  const int64_t k = i + a.offset;
  return (a.buffers[1].data()[k >> 3] >> (k & 7)) & 1;
}

}  // namespace

bool IsSupportedKeyType(const DataType& type) {
  switch (type.id) {
    case TypeId::kBool:
    case TypeId::kInt8: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64:
    case TypeId::kUInt8: case TypeId::kUInt16: case TypeId::kUInt32: case TypeId::kUInt64:
    case TypeId::kFloat32: case TypeId::kFloat64:
    case TypeId::kDate32: case TypeId::kTime32: case TypeId::kTime64: case TypeId::kTimestamp:
    case TypeId::kString: case TypeId::kBinary: case TypeId::kFixedSizeBinary:
      return true;
    default:
      return false;
  }
}

int CompareKeyValues(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j) {
  const bool an = a.IsNull(i), bn = b.IsNull(j);
  if (an || bn) return Cmp3(!an, !bn);  // NULL first
  switch (a.type->id) {
    case TypeId::kBool: return Cmp3(BoolAt(a, i), BoolAt(b, j));
    case TypeId::kInt8: return CmpFixed<int8_t>(a, i, b, j);
    case TypeId::kInt16: return CmpFixed<int16_t>(a, i, b, j);
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32: return CmpFixed<int32_t>(a, i, b, j);
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp: return CmpFixed<int64_t>(a, i, b, j);
    case TypeId::kUInt8: return CmpFixed<uint8_t>(a, i, b, j);
    case TypeId::kUInt16: return CmpFixed<uint16_t>(a, i, b, j);
    case TypeId::kUInt32: return CmpFixed<uint32_t>(a, i, b, j);
    case TypeId::kUInt64: return CmpFixed<uint64_t>(a, i, b, j);
    case TypeId::kFloat32: return CmpFloat<float>(a, i, b, j);
    case TypeId::kFloat64: return CmpFloat<double>(a, i, b, j);
    case TypeId::kString:
    case TypeId::kBinary: {
      const std::string_view x = BinaryAt(a, i), y = BinaryAt(b, j);
      return CmpBytes(reinterpret_cast<const uint8_t*>(x.data()), x.size(), reinterpret_cast<const uint8_t*>(y.data()),
                      y.size());
    }
    case TypeId::kFixedSizeBinary: {
      const size_t w = static_cast<size_t>(a.type->byte_width);
      return CmpBytes(a.buffers[1].data() + static_cast<size_t>(a.offset + i) * w, w,
                      b.buffers[1].data() + static_cast<size_t>(b.offset + j) * w, w);
    }
    default: return 0;  // rejected by IsSupportedKeyType before any comparison
  }
}

}  // namespace rap::read
