// In-memory Arrow-layout arrays: types, validation, slicing, concatenation and value formatting.
#include "rap/columnar/array.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace rap::columnar {

// ---------------------------------------------------------------------------------------------
// Types

int DataType::FixedWidth() const {
  switch (id) {
    case TypeId::kBool: return 0;
    case TypeId::kInt8: case TypeId::kUInt8: return 1;
    case TypeId::kInt16: case TypeId::kUInt16: case TypeId::kFloat16: return 2;
    case TypeId::kInt32: case TypeId::kUInt32: case TypeId::kFloat32: case TypeId::kDate32: case TypeId::kTime32:
      return 4;
    case TypeId::kInt64: case TypeId::kUInt64: case TypeId::kFloat64: case TypeId::kTime64: case TypeId::kTimestamp:
      return 8;
    case TypeId::kDecimal128: return 16;
    case TypeId::kFixedSizeBinary: return byte_width;
    default: return -1;
  }
}

namespace {

const char* UnitName(TimeUnit u) {
  switch (u) {
    case TimeUnit::kSecond: return "s";
    case TimeUnit::kMilli: return "ms";
    case TimeUnit::kMicro: return "us";
    case TimeUnit::kNano: return "ns";
  }
  return "?";
}

std::string FieldToString(const Field& f) {
  return f.name + ": " + (f.type ? f.type->ToString() : std::string("<null type>")) + (f.nullable ? "" : " not null");
}

}  // namespace

std::string DataType::ToString() const {
  std::string s;
  switch (id) {
    case TypeId::kNull: s = "null"; break;
    case TypeId::kBool: s = "bool"; break;
    case TypeId::kInt8: s = "int8"; break;
    case TypeId::kInt16: s = "int16"; break;
    case TypeId::kInt32: s = "int32"; break;
    case TypeId::kInt64: s = "int64"; break;
    case TypeId::kUInt8: s = "uint8"; break;
    case TypeId::kUInt16: s = "uint16"; break;
    case TypeId::kUInt32: s = "uint32"; break;
    case TypeId::kUInt64: s = "uint64"; break;
    case TypeId::kFloat16: s = "halffloat"; break;
    case TypeId::kFloat32: s = "float"; break;
    case TypeId::kFloat64: s = "double"; break;
    case TypeId::kString: s = "string"; break;
    case TypeId::kBinary: s = "binary"; break;
    case TypeId::kFixedSizeBinary: s = fmt::format("fixed_size_binary[{}]", byte_width); break;
    case TypeId::kDecimal128: s = fmt::format("decimal128({}, {})", precision, scale); break;
    case TypeId::kDate32: s = "date32[day]"; break;
    case TypeId::kTime32: s = fmt::format("time32[{}]", UnitName(unit)); break;
    case TypeId::kTime64: s = fmt::format("time64[{}]", UnitName(unit)); break;
    case TypeId::kTimestamp:
      s = timezone.empty() ? fmt::format("timestamp[{}]", UnitName(unit))
                           : fmt::format("timestamp[{}, tz={}]", UnitName(unit), timezone);
      break;
    case TypeId::kList:
      s = "list<" + (children.empty() ? std::string("?") : FieldToString(children[0])) + ">";
      break;
    case TypeId::kStruct: {
      s = "struct<";
      for (size_t i = 0; i < children.size(); ++i) {
        if (i) s += ", ";
        s += FieldToString(children[i]);
      }
      s += ">";
      break;
    }
    case TypeId::kMap: {
      const DataType* entries = children.empty() ? nullptr : children[0].type.get();
      if (entries && entries->children.size() == 2 && entries->children[0].type && entries->children[1].type) {
        s = "map<" + entries->children[0].type->ToString() + ", " + entries->children[1].type->ToString() + ">";
      } else {
        s = "map<?>";
      }
      break;
    }
  }
  if (!extension.empty()) s += " (" + extension + ")";
  return s;
}

DataTypePtr MakeType(TypeId id) {
  auto t = std::make_shared<DataType>();
  t->id = id;
  return t;
}

DataTypePtr MakeFixedSizeBinary(int32_t width) {
  auto t = std::make_shared<DataType>();
  t->id = TypeId::kFixedSizeBinary;
  t->byte_width = width;
  return t;
}

DataTypePtr MakeDecimal(int32_t precision, int32_t scale) {
  auto t = std::make_shared<DataType>();
  t->id = TypeId::kDecimal128;
  t->precision = precision;
  t->scale = scale;
  return t;
}

DataTypePtr MakeTemporal(TypeId id, TimeUnit unit, std::string timezone) {
  auto t = std::make_shared<DataType>();
  t->id = id;
  t->unit = id == TypeId::kDate32 ? TimeUnit::kSecond : unit;
  t->timezone = std::move(timezone);
  return t;
}

DataTypePtr MakeList(Field item) {
  auto t = std::make_shared<DataType>();
  t->id = TypeId::kList;
  t->children.push_back(std::move(item));
  return t;
}

DataTypePtr MakeStruct(std::vector<Field> fields) {
  auto t = std::make_shared<DataType>();
  t->id = TypeId::kStruct;
  t->children = std::move(fields);
  return t;
}

DataTypePtr MakeMap(Field key, Field value, bool value_nullable) {
  key.nullable = false;
  value.nullable = value_nullable;
  auto t = std::make_shared<DataType>();
  t->id = TypeId::kMap;
  t->children.push_back(Field{"entries", MakeStruct({std::move(key), std::move(value)}), false});
  return t;
}

int Schema::FieldIndex(const std::string& name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Validation

namespace {

int64_t CountNulls(const ArrayData& a) {
  if (a.type && a.type->id == TypeId::kNull) return a.length;
  if (a.buffers.empty() || a.buffers[0].empty()) return 0;
  int64_t n = 0;
  for (int64_t i = 0; i < a.length; ++i) n += a.IsNull(i) ? 1 : 0;
  return n;
}

size_t ExpectedBuffers(TypeId id) {
  switch (id) {
    case TypeId::kNull: return 0;
    case TypeId::kStruct: return 1;
    case TypeId::kString: case TypeId::kBinary: return 3;
    default: return 2;
  }
}

Status ValidateImpl(const ArrayData& a, const std::string& where) {
  if (!a.type) return Status::Corrupt(where + ": array has no type");
  const DataType& t = *a.type;
  const std::string ctx = where + " (" + t.ToString() + ")";
  if (a.length < 0 || a.offset < 0) {
    return Status::Corrupt(fmt::format("{}: negative length {} or offset {}", ctx, a.length, a.offset));
  }
  const int64_t end = a.offset + a.length;
  size_t want = ExpectedBuffers(t.id);
  if (t.id == TypeId::kNull) {
    if (a.null_count != a.length && a.null_count != -1) {
      return Status::Corrupt(fmt::format("{}: null array has null_count {} != length {}", ctx, a.null_count, a.length));
    }
    return Status::OK();
  }
  if (a.buffers.size() != want) {
    return Status::Corrupt(fmt::format("{}: has {} buffers, expected {}", ctx, a.buffers.size(), want));
  }
  if (!a.buffers[0].empty() && static_cast<int64_t>(a.buffers[0].size()) < (end + 7) / 8) {
    return Status::Corrupt(
        fmt::format("{}: validity bitmap has {} bytes, expected at least {}", ctx, a.buffers[0].size(), (end + 7) / 8));
  }
  if (a.null_count != -1) {
    int64_t actual = CountNulls(a);
    if (actual != a.null_count) {
      return Status::Corrupt(fmt::format("{}: null_count {} but the bitmap has {} nulls", ctx, a.null_count, actual));
    }
  }
  const int width = t.FixedWidth();
  if (t.id == TypeId::kBool) {
    if (static_cast<int64_t>(a.buffers[1].size()) < (end + 7) / 8) {
      return Status::Corrupt(fmt::format("{}: value bitmap has {} bytes, expected at least {}", ctx,
                                         a.buffers[1].size(), (end + 7) / 8));
    }
  } else if (width > 0) {
    if (static_cast<int64_t>(a.buffers[1].size()) < end * width) {
      return Status::Corrupt(
          fmt::format("{}: values buffer has {} bytes, expected at least {}", ctx, a.buffers[1].size(), end * width));
    }
  } else if (t.id == TypeId::kFixedSizeBinary) {
    if (width < 0) return Status::Corrupt(fmt::format("{}: negative byte width", ctx));
  }
  if (t.IsBinaryLike() || t.id == TypeId::kList || t.id == TypeId::kMap) {
    if (static_cast<int64_t>(a.buffers[1].size()) < (end + 1) * 4) {
      return Status::Corrupt(fmt::format("{}: offsets buffer has {} bytes, expected at least {}", ctx,
                                         a.buffers[1].size(), (end + 1) * 4));
    }
    const int32_t* offs = a.offsets();
    if (offs[0] < 0) return Status::Corrupt(fmt::format("{}: first offset {} is negative", ctx, offs[0]));
    for (int64_t i = 0; i < a.length; ++i) {
      if (offs[i + 1] < offs[i]) {
        return Status::Corrupt(
            fmt::format("{}: offsets decrease at element {} ({} -> {})", ctx, i, offs[i], offs[i + 1]));
      }
    }
    int64_t limit;
    if (t.IsBinaryLike()) {
      limit = static_cast<int64_t>(a.buffers[2].size());
    } else {
      if (a.children.size() != 1 || !a.children[0]) {
        return Status::Corrupt(fmt::format("{}: has {} children, expected 1", ctx, a.children.size()));
      }
      limit = a.children[0]->length;
    }
    if (offs[a.length] > limit) {
      return Status::Corrupt(fmt::format("{}: last offset {} is past the end of the {} ({})", ctx, offs[a.length],
                                         t.IsBinaryLike() ? "data buffer" : "child array", limit));
    }
  }
  if (t.id == TypeId::kList || t.id == TypeId::kMap) {
    if (t.children.size() != 1) return Status::Corrupt(ctx + ": type must have exactly one child field");
    if (t.id == TypeId::kMap) {
      const auto& et = a.children[0]->type;
      if (!et || et->id != TypeId::kStruct || et->children.size() != 2) {
        return Status::Corrupt(ctx + ": map entries must be a struct<key, value>");
      }
    }
    return ValidateImpl(*a.children[0], where + ".item");
  }
  if (t.id == TypeId::kStruct) {
    if (a.children.size() != t.children.size()) {
      return Status::Corrupt(
          fmt::format("{}: has {} children, type has {} fields", ctx, a.children.size(), t.children.size()));
    }
    for (size_t i = 0; i < a.children.size(); ++i) {
      if (!a.children[i]) return Status::Corrupt(fmt::format("{}: child {} is missing", ctx, i));
      if (a.children[i]->length < end) {
        return Status::Corrupt(fmt::format("{}: child '{}' has length {}, expected at least {}", ctx,
                                           t.children[i].name, a.children[i]->length, end));
      }
      RAP_RETURN_NOT_OK(ValidateImpl(*a.children[i], where + "." + t.children[i].name));
    }
  }
  return Status::OK();
}

}  // namespace

Status ValidateArray(const ArrayData& array) { return ValidateImpl(array, "array"); }

ArrayPtr SliceArray(const ArrayPtr& array, int64_t offset, int64_t length) {
  auto out = std::make_shared<ArrayData>(*array);
  offset = std::clamp<int64_t>(offset, 0, array->length);
  length = std::clamp<int64_t>(length, 0, array->length - offset);
  out->offset = array->offset + offset;
  out->length = length;
  if (array->type && array->type->id == TypeId::kNull) {
    out->null_count = length;
  } else if (array->null_count == 0 || array->buffers.empty() || array->buffers[0].empty()) {
    out->null_count = 0;
  } else if (offset == 0 && length == array->length) {
    out->null_count = array->null_count;
  } else {
    out->null_count = -1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Concatenation

namespace {

void CopyBits(const uint8_t* src, int64_t src_off, uint8_t* dst, int64_t dst_off, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    int64_t s = src_off + i, d = dst_off + i;
    bool bit = (src[s >> 3] >> (s & 7)) & 1;
    if (bit) {
      dst[d >> 3] |= static_cast<uint8_t>(1u << (d & 7));
    } else {
      dst[d >> 3] &= static_cast<uint8_t>(~(1u << (d & 7)));
    }
  }
}

Result<ArrayPtr> ConcatImpl(const std::vector<ArrayPtr>& arrays) {
  const DataTypePtr& type = arrays[0]->type;
  const std::string type_str = type->ToString();
  int64_t total = 0;
  int64_t nulls = 0;
  bool any_validity = false;
  for (const auto& a : arrays) {
    if (!a->type || a->type->ToString() != type_str) {
      return Status::InvalidArgument("ConcatArrays: arrays have different types (" + type_str + " vs " +
                                     (a->type ? a->type->ToString() : std::string("none")) + ")");
    }
    total += a->length;
    int64_t nc = a->null_count >= 0 ? a->null_count : CountNulls(*a);
    nulls += nc;
    if (nc > 0) any_validity = true;
  }
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = total;
  out->null_count = nulls;
  if (type->id == TypeId::kNull) {
    out->null_count = total;
    return out;
  }
  out->buffers.resize(ExpectedBuffers(type->id));
  if (any_validity) {
    Buffer bm = Buffer::Allocate(static_cast<size_t>((total + 7) / 8));
    std::memset(bm.mutable_data(), 0xff, bm.size());
    int64_t pos = 0;
    for (const auto& a : arrays) {
      if (!a->buffers.empty() && !a->buffers[0].empty()) CopyBits(a->buffers[0].data(), a->offset, bm.mutable_data(), pos, a->length);
      pos += a->length;
    }
    out->buffers[0] = std::move(bm);
  }
  const int width = type->FixedWidth();
  if (type->id == TypeId::kBool) {
    Buffer vals = Buffer::Allocate(static_cast<size_t>((total + 7) / 8));
    std::memset(vals.mutable_data(), 0, vals.size());
    int64_t pos = 0;
    for (const auto& a : arrays) {
      CopyBits(a->buffers[1].data(), a->offset, vals.mutable_data(), pos, a->length);
      pos += a->length;
    }
    out->buffers[1] = std::move(vals);
  } else if (width >= 0 && type->id != TypeId::kStruct) {
    Buffer vals = Buffer::Allocate(static_cast<size_t>(total * width));
    size_t pos = 0;
    for (const auto& a : arrays) {
      size_t n = static_cast<size_t>(a->length * width);
      if (n) std::memcpy(vals.mutable_data() + pos, a->buffers[1].data() + a->offset * width, n);
      pos += n;
    }
    out->buffers[1] = std::move(vals);
  } else if (type->IsBinaryLike() || type->id == TypeId::kList || type->id == TypeId::kMap) {
    Buffer offs = Buffer::Allocate(static_cast<size_t>((total + 1) * 4));
    auto* o = reinterpret_cast<int32_t*>(offs.mutable_data());
    int64_t pos = 0;
    int64_t base = 0;
    o[0] = 0;
    std::vector<ArrayPtr> child_parts;
    std::string data;
    for (const auto& a : arrays) {
      const int32_t* ao = a->offsets();
      for (int64_t i = 0; i < a->length; ++i) {
        int64_t v = base + (ao[i + 1] - ao[0]);
        if (v > INT32_MAX) return Status::ResourceExhausted("ConcatArrays: result exceeds 2^31-1 offsets");
        o[pos + i + 1] = static_cast<int32_t>(v);
      }
      int64_t span = a->length ? ao[a->length] - ao[0] : 0;
      if (type->IsBinaryLike()) {
        if (span) data.append(reinterpret_cast<const char*>(a->buffers[2].data()) + ao[0], static_cast<size_t>(span));
      } else if (a->length) {
        child_parts.push_back(SliceArray(a->children[0], ao[0], span));
      }
      base += span;
      pos += a->length;
    }
    out->buffers[1] = std::move(offs);
    if (type->IsBinaryLike()) {
      out->buffers[2] = Buffer::FromString(std::move(data));
    } else {
      if (child_parts.empty()) child_parts.push_back(SliceArray(arrays[0]->children[0], 0, 0));
      RAP_ASSIGN_OR_RETURN(ArrayPtr child, ConcatImpl(child_parts));
      out->children.push_back(std::move(child));
    }
  } else if (type->id == TypeId::kStruct) {
    for (size_t c = 0; c < type->children.size(); ++c) {
      std::vector<ArrayPtr> parts;
      for (const auto& a : arrays) parts.push_back(SliceArray(a->children[c], a->offset, a->length));
      RAP_ASSIGN_OR_RETURN(ArrayPtr child, ConcatImpl(parts));
      out->children.push_back(std::move(child));
    }
  }
  return out;
}

}  // namespace

Result<ArrayPtr> ConcatArrays(const std::vector<ArrayPtr>& arrays) {
  if (arrays.empty()) return Status::InvalidArgument("ConcatArrays: no arrays");
  for (const auto& a : arrays) {
    if (!a || !a->type) return Status::InvalidArgument("ConcatArrays: null array or type");
  }
  if (arrays.size() == 1 && arrays[0]->offset == 0) return arrays[0];
  return ConcatImpl(arrays);
}

int64_t UnitsPerSecond(TimeUnit u) {
  switch (u) {
    case TimeUnit::kSecond: return 1;
    case TimeUnit::kMilli: return 1000;
    case TimeUnit::kMicro: return 1000000;
    case TimeUnit::kNano: return 1000000000;
  }
  return 1;
}

namespace {

Buffer ZeroBuffer(size_t n) {
  Buffer b = Buffer::Allocate(n);
  if (n) std::memset(b.mutable_data(), 0, n);
  return b;
}

}  // namespace

Result<ArrayPtr> MakeNullArray(const DataTypePtr& type, int64_t length) {
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = length;
  out->null_count = length;
  Buffer validity = ZeroBuffer(static_cast<size_t>((length + 7) / 8));
  if (type->id == TypeId::kNull) return ArrayPtr(out);
  if (type->id == TypeId::kBool) {
    out->buffers = {validity, ZeroBuffer(static_cast<size_t>((length + 7) / 8))};
  } else if (type->FixedWidth() > 0) {
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

}  // namespace rap::columnar
