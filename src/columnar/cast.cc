// Lossless casts to the table's column types (rap/columnar/cast.h).
#include <cstring>
#include <limits>

#include "rap/columnar/cast.h"

namespace rap::columnar {

namespace {

Buffer ZeroBuffer(size_t n) {
  Buffer b = Buffer::Allocate(n);
  if (n) std::memset(b.mutable_data(), 0, n);
  return b;
}

bool IsSignedInt(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kInt64;
}

int64_t IntAt(const ArrayData& a, int64_t i) {
  switch (a.type->id) {
    case TypeId::kInt8: return a.values<int8_t>()[i];
    case TypeId::kInt16: return a.values<int16_t>()[i];
    case TypeId::kInt32: case TypeId::kDate32: return a.values<int32_t>()[i];
    default: return a.values<int64_t>()[i];
  }
}

template <typename T, typename Fn>
Result<ArrayPtr> MapFixed(const ArrayData& a, const DataTypePtr& to, Fn&& fn) {
  auto out = std::make_shared<ArrayData>();
  out->type = to;
  out->length = a.length;
  out->null_count = a.null_count;
  Buffer validity;
  if (!a.buffers.empty() && !a.buffers[0].empty()) {
    validity = ZeroBuffer(static_cast<size_t>((a.length + 7) / 8));
    int64_t nulls = 0;
    for (int64_t i = 0; i < a.length; ++i) {
      if (!a.IsNull(i)) validity.mutable_data()[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
      else ++nulls;
    }
    out->null_count = nulls;
  }
  Buffer values = Buffer::Allocate(sizeof(T) * static_cast<size_t>(a.length));
  T* dst = reinterpret_cast<T*>(values.mutable_data());
  for (int64_t i = 0; i < a.length; ++i) {
    if (a.IsNull(i)) {
      dst[i] = T{};
      continue;
    }
    RAP_ASSIGN_OR_RETURN(dst[i], fn(i));
  }
  out->buffers = {validity, values};
  return ArrayPtr(out);
}

}  // namespace

Result<ArrayPtr> CastArray(const ArrayPtr& array, const DataTypePtr& type) {
  const DataType& from = *array->type;
  const DataType& to = *type;
  if (from.id == to.id && (from.id != TypeId::kTimestamp || from.unit == to.unit) &&
      (from.id != TypeId::kDecimal128 || (from.precision == to.precision && from.scale == to.scale))) {
    if (from.timezone == to.timezone) return array;
    auto copy = std::make_shared<ArrayData>(*array);  // only the time zone annotation differs
    copy->type = type;
    return ArrayPtr(copy);
  }
  auto fail = [&]() -> Status {
    return Status::NotSupported("a file column of type " + from.ToString() + " cannot be read as the table's " +
                                to.ToString() + " without losing values");
  };
  const ArrayData& a = *array;
  if (IsSignedInt(from.id) && IsSignedInt(to.id) && from.FixedWidth() <= to.FixedWidth()) {
    switch (to.id) {
      case TypeId::kInt16: return MapFixed<int16_t>(a, type, [&](int64_t i) -> Result<int16_t> { return static_cast<int16_t>(IntAt(a, i)); });
      case TypeId::kInt32: return MapFixed<int32_t>(a, type, [&](int64_t i) -> Result<int32_t> { return static_cast<int32_t>(IntAt(a, i)); });
      case TypeId::kInt64: return MapFixed<int64_t>(a, type, [&](int64_t i) -> Result<int64_t> { return IntAt(a, i); });
      default: return fail();
    }
  }
  if (to.id == TypeId::kFloat64 && (from.id == TypeId::kFloat32 || from.id == TypeId::kInt8 ||
                                    from.id == TypeId::kInt16 || from.id == TypeId::kInt32)) {
    return MapFixed<double>(a, type, [&](int64_t i) -> Result<double> {
      return from.id == TypeId::kFloat32 ? static_cast<double>(a.values<float>()[i]) : static_cast<double>(IntAt(a, i));
    });
  }
  if (to.id == TypeId::kDecimal128 && IsSignedInt(from.id)) {
    // Every value of the integer type must fit the integer digits of the decimal.
    const int digits = from.id == TypeId::kInt8 ? 3 : from.id == TypeId::kInt16 ? 5 : from.id == TypeId::kInt32 ? 10 : 19;
    if (to.precision - to.scale < digits) return fail();
    return MapFixed<__int128>(a, type, [&](int64_t i) -> Result<__int128> {
      __int128 v = IntAt(a, i);
      for (int k = 0; k < to.scale; ++k) v *= 10;
      return v;
    });
  }
  if (to.id == TypeId::kDecimal128 && from.id == TypeId::kDecimal128 && to.scale >= from.scale &&
      to.precision - to.scale >= from.precision - from.scale) {
    return MapFixed<__int128>(a, type, [&](int64_t i) -> Result<__int128> {
      __int128 v = a.values<__int128>()[i];
      for (int k = from.scale; k < to.scale; ++k) v *= 10;
      return v;
    });
  }
  if (to.id == TypeId::kTimestamp && (from.id == TypeId::kTimestamp || from.id == TypeId::kDate32)) {
    const int64_t to_per = UnitsPerSecond(to.unit);
    const int64_t from_per = from.id == TypeId::kDate32 ? 1 : UnitsPerSecond(from.unit);
    const int64_t mul = from.id == TypeId::kDate32 ? 86400 * to_per : (to_per >= from_per ? to_per / from_per : 1);
    const int64_t div = from.id != TypeId::kDate32 && to_per < from_per ? from_per / to_per : 1;
    return MapFixed<int64_t>(a, type, [&](int64_t i) -> Result<int64_t> {
      int64_t v = IntAt(a, i);
      if (div > 1) {
        if (v % div != 0) return fail();
        return v / div;
      }
      if (v > std::numeric_limits<int64_t>::max() / mul || v < std::numeric_limits<int64_t>::min() / mul) return fail();
      return v * mul;
    });
  }
  return fail();
}

}  // namespace rap::columnar
