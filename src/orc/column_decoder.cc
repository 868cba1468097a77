// Stripe column decoding: presence, integers, floating point, booleans and the nested types.
#include "orc/column_decoder.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace rap::orc {

std::string StripeContext::Where(uint32_t column) const {
  return tail->name + ": stripe " + std::to_string(stripe) + " column " + std::to_string(column) + " (" +
         tail->types.ToString(column) + ")";
}

Result<std::optional<StreamCursor>> StripeContext::Stream(uint32_t column, StreamKind kind) const {
  if (parts) {
    for (const auto& [part, raw] : *parts) {
      if (part.stream.column != column || part.stream.kind != kind) continue;
      const std::string what =
          Where(column) + " " + StreamKindName(kind) + " stream at offset " + std::to_string(part.stream.offset);
      if (raw.size() != part.length) return Status::Internal(what + ": part was not fetched");
      RAP_ASSIGN_OR_RETURN(Buffer bytes, DecompressStream(tail->compression, tail->compression_block_size, raw, what,
                                                          part.offset));
      StreamCursor cursor{what, std::move(bytes), 0};
      if (part.positioned) {
        if (part.skip_bytes > cursor.data.size()) {
          return Status::Corrupt(what + ": the row index position " + std::to_string(part.skip_bytes) +
                                 " is past the " + std::to_string(cursor.data.size()) +
                                 " decompressed bytes of its chunk");
        }
        cursor.data = cursor.data.Slice(part.skip_bytes, cursor.data.size() - part.skip_bytes);
        cursor.skip = part.skip_values;
        cursor.partial = true;
      }
      return std::optional<StreamCursor>(std::move(cursor));
    }
    return std::optional<StreamCursor>();
  }
  for (const StreamInfo& s : footer->streams) {
    if (s.column != column || s.kind != kind) continue;
    const std::string what =
        Where(column) + " " + StreamKindName(kind) + " stream at offset " + std::to_string(s.offset);
    Buffer raw;
    if (fetched && s.length == 0) {
      raw = Buffer();  // (empty streams are not fetched)
    } else if (fetched) {
      auto it = std::find_if(fetched->begin(), fetched->end(),
                             [&](const auto& f) { return f.first.offset == s.offset && f.first.length == s.length; });
      if (it == fetched->end()) return Status::Internal(what + " was not fetched");
      raw = it->second;
    } else {
      raw = file.Slice(s.offset, s.length);
    }
    RAP_ASSIGN_OR_RETURN(Buffer bytes, DecompressStream(tail->compression, tail->compression_block_size, raw, what,
                                                        s.offset));
    return std::optional<StreamCursor>(StreamCursor{what, std::move(bytes), 0});
  }
  return std::optional<StreamCursor>();
}

Result<StreamCursor> StripeContext::Required(uint32_t column, StreamKind kind, const char* reader) const {
  RAP_ASSIGN_OR_RETURN(std::optional<StreamCursor> s, Stream(column, kind));
  if (!s) return Status::Corrupt(Where(column) + ": " + StreamKindName(kind) + " stream not found in " + reader);
  return std::move(*s);
}

Result<Presence> ReadPresence(const StripeContext& ctx, uint32_t column, size_t n, const uint8_t* parent) {
  Presence p;
  p.valid.assign(n, 1);
  if (parent) std::memcpy(p.valid.data(), parent, n);
  size_t parent_count = 0;
  for (uint8_t v : p.valid) parent_count += v;
  RAP_ASSIGN_OR_RETURN(std::optional<StreamCursor> present, ctx.Stream(column, StreamKind::kPresent));
  if (!present) {
    p.count = parent_count;
    return p;
  }
  std::vector<uint8_t> bits(parent_count);
  RAP_RETURN_NOT_OK(DecodeBoolRle(&*present, parent_count, bits.data()));
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (p.valid[i]) p.valid[i] = bits[k++];
  }
  for (uint8_t v : p.valid) p.count += v;
  return p;
}

void SetValidity(const Presence& p, ArrayData* out) {
  out->length = static_cast<int64_t>(p.size());
  out->null_count = static_cast<int64_t>(p.size() - p.count);
  out->buffers.clear();
  if (out->null_count == 0) {
    out->buffers.emplace_back();
    return;
  }
  Buffer bitmap = Buffer::Allocate((p.size() + 7) / 8);
  std::memset(bitmap.mutable_data(), 0, bitmap.size());
  for (size_t i = 0; i < p.size(); ++i) {
    if (p.valid[i]) bitmap.mutable_data()[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
  }
  out->buffers.push_back(std::move(bitmap));
}

namespace {

// Scatters `count` values of T into the non-null slots of an n-value buffer (zero at nulls).
template <typename T, typename Src>
Buffer Scatter(const Presence& p, const Src* values) {
  Buffer b = Buffer::Allocate(std::max<size_t>(p.size(), 1) * sizeof(T));
  T* out = reinterpret_cast<T*>(b.mutable_data());
  size_t k = 0;
  for (size_t i = 0; i < p.size(); ++i) out[i] = p.valid[i] ? static_cast<T>(values[k++]) : T{};
  return b.Slice(0, p.size() * sizeof(T));
}

Result<ArrayPtr> DecodeIntegers(const StripeContext& ctx, uint32_t column, const Presence& p, DataTypePtr type) {
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  SetValidity(p, out.get());
  std::vector<int64_t> vals(p.count);
  if (p.count > 0) {
    RAP_ASSIGN_OR_RETURN(StreamCursor data, ctx.Required(column, StreamKind::kData, "IntegerColumn"));
    RAP_RETURN_NOT_OK(DecodeIntRle(&data, ctx.RleV2(column), true, p.count, vals.data()));
  }
  switch (type->id) {
    case TypeId::kInt16:
      out->buffers.push_back(Scatter<int16_t>(p, vals.data()));
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
      out->buffers.push_back(Scatter<int32_t>(p, vals.data()));
      break;
    default:
      out->buffers.push_back(Scatter<int64_t>(p, vals.data()));
      break;
  }
  return out;
}

Result<ArrayPtr> DecodeBytes(const StripeContext& ctx, uint32_t column, const Presence& p, DataTypePtr type) {
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  SetValidity(p, out.get());
  std::vector<uint8_t> vals(p.count);
  if (p.count > 0) {
    RAP_ASSIGN_OR_RETURN(StreamCursor data, ctx.Required(column, StreamKind::kData, "ByteColumn"));
    if (type->id == TypeId::kBool) {
      RAP_RETURN_NOT_OK(DecodeBoolRle(&data, p.count, vals.data()));
    } else {
      RAP_RETURN_NOT_OK(DecodeByteRle(&data, p.count, vals.data()));
    }
  }
  if (type->id == TypeId::kBool) {
    Buffer bits = Buffer::Allocate(std::max<size_t>((p.size() + 7) / 8, 1));
    std::memset(bits.mutable_data(), 0, bits.size());
    size_t k = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p.valid[i] && vals[k++]) bits.mutable_data()[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    }
    out->buffers.push_back(bits.Slice(0, (p.size() + 7) / 8));
  } else {
    out->buffers.push_back(Scatter<int8_t>(p, vals.data()));
  }
  return out;
}

template <typename T>
Result<ArrayPtr> DecodeFloats(const StripeContext& ctx, uint32_t column, const Presence& p, DataTypePtr type) {
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  SetValidity(p, out.get());
  std::vector<T> vals(p.count);
  if (p.count > 0) {
    RAP_ASSIGN_OR_RETURN(StreamCursor data, ctx.Required(column, StreamKind::kData, "DoubleColumn"));
    if (data.remaining() / sizeof(T) < p.count) {
      return data.Error(std::to_string(p.count) + " values of " + std::to_string(sizeof(T)) + " bytes need " +
                        std::to_string(p.count * sizeof(T)) + " bytes, the stream has " +
                        std::to_string(data.remaining()));
    }
    std::memcpy(vals.data(), data.data.data(), p.count * sizeof(T));  // IEEE 754 little-endian
  }
  out->buffers.push_back(Scatter<T>(p, vals.data()));
  return out;
}

// The LENGTH stream of a list or map: one unsigned length per non-null row, as int32 offsets.
Result<Buffer> ReadOffsets(const StripeContext& ctx, uint32_t column, const Presence& p, size_t* total) {
  std::vector<int64_t> lens(p.count);
  if (p.count > 0) {
    RAP_ASSIGN_OR_RETURN(StreamCursor len, ctx.Required(column, StreamKind::kLength, "ListColumn"));
    RAP_RETURN_NOT_OK(DecodeIntRle(&len, ctx.RleV2(column), false, p.count, lens.data()));
  }
  Buffer b = Buffer::Allocate((p.size() + 1) * sizeof(int32_t));
  int32_t* off = reinterpret_cast<int32_t*>(b.mutable_data());
  uint64_t acc = 0;
  size_t k = 0;
  off[0] = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p.valid[i]) {
      const uint64_t l = static_cast<uint64_t>(lens[k++]);
      if (l > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()) - acc) {
        return Status::Corrupt(ctx.Where(column) +
                               ": the lengths of the stripe's lists add up to more than 2^31-1 children");
      }
      acc += l;
    }
    off[i + 1] = static_cast<int32_t>(acc);
  }
  *total = acc;
  return b;
}

Result<ArrayPtr> DecodeNested(const StripeContext& ctx, uint32_t column, const Presence& p, DataTypePtr type) {
  const OrcType& t = ctx.tail->types.nodes[column];
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  SetValidity(p, out.get());
  if (t.kind == TypeKind::kStruct) {
    for (uint32_t sub : t.subtypes) {
      RAP_ASSIGN_OR_RETURN(ArrayPtr child, DecodeColumn(ctx, sub, p.size(), p.valid.data()));
      out->children.push_back(std::move(child));
    }
    return out;
  }
  size_t total = 0;
  RAP_ASSIGN_OR_RETURN(Buffer offsets, ReadOffsets(ctx, column, p, &total));
  out->buffers.push_back(std::move(offsets));
  if (t.kind == TypeKind::kList) {
    RAP_ASSIGN_OR_RETURN(ArrayPtr child, DecodeColumn(ctx, t.subtypes[0], total, nullptr));
    out->children.push_back(std::move(child));
    return out;
  }
  // map: child 0 is struct<key, value> without nulls
  auto entries = std::make_shared<ArrayData>();
  entries->type = type->children.at(0).type;
  entries->length = static_cast<int64_t>(total);
  entries->buffers.emplace_back();
  for (uint32_t sub : t.subtypes) {
    RAP_ASSIGN_OR_RETURN(ArrayPtr child, DecodeColumn(ctx, sub, total, nullptr));
    entries->children.push_back(std::move(child));
  }
  out->children.push_back(std::move(entries));
  return out;
}

}  // namespace

Result<ArrayPtr> DecodeColumn(const StripeContext& ctx, uint32_t column, size_t n, const uint8_t* parent) {
  const OrcType& t = ctx.tail->types.nodes.at(column);
  if (n > ctx.max_values) {
    return Status::ResourceExhausted(ctx.Where(column) + ": " + std::to_string(n) +
                                     " values in one stripe, more than the " + std::to_string(ctx.max_values) +
                                     " rap decodes at once");
  }
  RAP_ASSIGN_OR_RETURN(DataTypePtr type, ctx.tail->types.ArrowType(column));
  RAP_ASSIGN_OR_RETURN(Presence p, ReadPresence(ctx, column, n, parent));
  const EncodingKind enc = ctx.Encoding(column);
  const bool dictionary = enc == EncodingKind::kDictionary || enc == EncodingKind::kDictionaryV2;
  const bool string_like = t.kind == TypeKind::kString || t.kind == TypeKind::kVarchar || t.kind == TypeKind::kChar;
  if (dictionary && !string_like) {
    return Status::Corrupt(ctx.Where(column) + ": encoding " + EncodingKindName(enc) + " is only valid for strings");
  }
  switch (t.kind) {
    case TypeKind::kBoolean:
    case TypeKind::kByte:
      return DecodeBytes(ctx, column, p, type);
    case TypeKind::kShort:
    case TypeKind::kInt:
    case TypeKind::kLong:
    case TypeKind::kDate:
      return DecodeIntegers(ctx, column, p, type);
    case TypeKind::kFloat:
      return DecodeFloats<float>(ctx, column, p, type);
    case TypeKind::kDouble:
      return DecodeFloats<double>(ctx, column, p, type);
    case TypeKind::kString:
    case TypeKind::kVarchar:
    case TypeKind::kChar:
    case TypeKind::kBinary:
      return DecodeStringColumn(ctx, column, p, type);
    case TypeKind::kDecimal:
      return DecodeDecimalColumn(ctx, column, p, type);
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampInstant:
      return DecodeTimestampColumn(ctx, column, p, type);
    case TypeKind::kStruct:
    case TypeKind::kList:
    case TypeKind::kMap:
      return DecodeNested(ctx, column, p, type);
    case TypeKind::kUnion:
      break;
  }
  return Status::NotSupported(ctx.Where(column) + ": union types are not supported");
}

}  // namespace rap::orc
