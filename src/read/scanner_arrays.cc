// Array helpers of the Scanner: constant (partition) columns, row take for late materialisation,
// all-NULL columns for columns a file lacks, and lossless casts to the table's column types.
#include <cstring>
#include <limits>

#include "rap/read/scanner.h"

namespace rap::read {

namespace {

Buffer ZeroBuffer(size_t n) {
  Buffer b = Buffer::Allocate(n);
  if (n) std::memset(b.mutable_data(), 0, n);
  return b;
}

bool IsFixed(const DataType& t) { return t.FixedWidth() > 0; }

}  // namespace

Result<ArrayPtr> RepeatValue(const ArrayData& value, int64_t length) {
  if (value.length != 1) return Status::InvalidArgument("RepeatValue: expected a 1-row array");
  std::vector<int64_t> idx(static_cast<size_t>(length), 0);
  return TakeRows(value, idx);
}

Result<ArrayPtr> TakeRows(const ArrayData& a, const std::vector<int64_t>& indices) {
  const DataType& t = *a.type;
  const int64_t n = static_cast<int64_t>(indices.size());
  for (int64_t i : indices) {
    if (i < 0 || i >= a.length) return Status::Internal("TakeRows: index out of range");
  }
  auto out = std::make_shared<ArrayData>();
  out->type = a.type;
  out->length = n;
  const bool has_validity = !a.buffers.empty() && !a.buffers[0].empty();
  Buffer validity;
  if (has_validity) {
    validity = ZeroBuffer(static_cast<size_t>((n + 7) / 8));
    for (int64_t k = 0; k < n; ++k) {
      if (!a.IsNull(indices[static_cast<size_t>(k)])) validity.mutable_data()[k >> 3] |= static_cast<uint8_t>(1u << (k & 7));
      else ++out->null_count;
    }
  }
  if (t.id == TypeId::kNull) {
    out->null_count = n;
    return ArrayPtr(out);
  }
  if (t.id == TypeId::kBool) {
    Buffer bits = ZeroBuffer(static_cast<size_t>((n + 7) / 8));
    const uint8_t* src = a.buffers[1].data();
    for (int64_t k = 0; k < n; ++k) {
      int64_t j = indices[static_cast<size_t>(k)] + a.offset;
      if ((src[j >> 3] >> (j & 7)) & 1) bits.mutable_data()[k >> 3] |= static_cast<uint8_t>(1u << (k & 7));
    }
    out->buffers = {validity, bits};
    return ArrayPtr(out);
  }
  if (IsFixed(t)) {
    const size_t w = static_cast<size_t>(t.FixedWidth());
    Buffer values = Buffer::Allocate(w * static_cast<size_t>(n));
    const uint8_t* src = a.buffers[1].data() + a.offset * static_cast<int64_t>(w);
    for (int64_t k = 0; k < n; ++k) {
      std::memcpy(values.mutable_data() + k * w, src + indices[static_cast<size_t>(k)] * static_cast<int64_t>(w), w);
    }
    out->buffers = {validity, values};
    return ArrayPtr(out);
  }
  if (t.IsBinaryLike()) {
    const int32_t* off = a.offsets();
    const uint8_t* data = a.buffers[2].data();
    int64_t total = 0;
    for (int64_t i : indices) total += off[i + 1] - off[i];
    if (total > std::numeric_limits<int32_t>::max()) {
      return Status::ResourceExhausted("TakeRows: more than 2^31-1 bytes of string data in one batch");
    }
    Buffer offsets = Buffer::Allocate(static_cast<size_t>(n + 1) * 4);
    Buffer bytes = Buffer::Allocate(static_cast<size_t>(total));
    int32_t pos = 0;
    std::memcpy(offsets.mutable_data(), &pos, 4);
    for (int64_t k = 0; k < n; ++k) {
      int64_t i = indices[static_cast<size_t>(k)];
      int32_t len = off[i + 1] - off[i];
      if (len) std::memcpy(bytes.mutable_data() + pos, data + off[i], static_cast<size_t>(len));
      pos += len;
      std::memcpy(offsets.mutable_data() + (k + 1) * 4, &pos, 4);
    }
    out->buffers = {validity, offsets, bytes};
    return ArrayPtr(out);
  }
  return Status::NotSupported("TakeRows: type " + t.ToString());
}

Result<ArrayPtr> MakeNullArray(const DataTypePtr& type, int64_t length) {
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = length;
  out->null_count = length;
  Buffer validity = ZeroBuffer(static_cast<size_t>((length + 7) / 8));
  if (type->id == TypeId::kNull) return ArrayPtr(out);
  if (type->id == TypeId::kBool) {
    out->buffers = {validity, ZeroBuffer(static_cast<size_t>((length + 7) / 8))};
  } else if (IsFixed(*type)) {
    out->buffers = {validity, ZeroBuffer(static_cast<size_t>(type->FixedWidth()) * static_cast<size_t>(length))};
  } else if (type->IsBinaryLike()) {
    out->buffers = {validity, ZeroBuffer(static_cast<size_t>(length + 1) * 4), Buffer()};
  } else if (type->id == TypeId::kStruct) {
    out->buffers = {validity};
    for (const Field& f : type->children) {
      RAP_ASSIGN_OR_RETURN(ArrayPtr child, MakeNullArray(f.type, length));
      out->children.push_back(std::move(child));
    }
  } else if ((type->id == TypeId::kList || type->id == TypeId::kMap) && type->children.size() == 1) {
    out->buffers = {validity, ZeroBuffer(static_cast<size_t>(length + 1) * 4)};  // every list empty
    RAP_ASSIGN_OR_RETURN(ArrayPtr child, MakeNullArray(type->children[0].type, 0));
    out->children.push_back(std::move(child));
  } else {
    return Status::NotSupported("a missing column of type " + type->ToString() + " cannot be filled with NULLs");
  }
  return ArrayPtr(out);
}

namespace {

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

int64_t Per(TimeUnit u) {
  switch (u) {
    case TimeUnit::kSecond: return 1;
    case TimeUnit::kMilli: return 1000;
    case TimeUnit::kMicro: return 1000000;
    case TimeUnit::kNano: return 1000000000;
  }
  return 1;
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
    const int64_t to_per = Per(to.unit);
    const int64_t from_per = from.id == TypeId::kDate32 ? 1 : Per(from.unit);
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

}  // namespace rap::read
