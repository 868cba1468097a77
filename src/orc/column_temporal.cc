// Decimal and timestamp columns.
//   decimal: DATA holds each value's unscaled digits as an unbounded zigzag base-128 varint, and
//     SECONDARY (signed integer RLE) its scale; values are rescaled to the column's scale.
//   timestamp: DATA (signed integer RLE) holds seconds since 2015-01-01 00:00:00, SECONDARY
//     (unsigned integer RLE) the nanoseconds with their trailing decimal zeros removed: the low 3
//     bits z say that (z + 1) zeros were dropped (z = 0: none).
#include <cstring>

#include "orc/column_decoder.h"
#include "orc/timezone.h"

namespace rap::orc {

namespace {

using Int128 = __int128;  // GCC/Clang: the decimal128 arithmetic

constexpr int64_t kOrcEpochSeconds = 1420070400;  // 2015-01-01 00:00:00 UTC
// Seconds that stay inside int64 nanoseconds with room for a zone offset and a second's fraction.
constexpr int64_t kMaxSeconds = INT64_MAX / 1000000000 - 2 * 86400;

Result<Int128> ReadVarInt128(StreamCursor* s) {
  unsigned __int128 v = 0;
  for (int shift = 0;; shift += 7) {
    if (shift > 126) return s->Error("a decimal value is longer than 128 bits");
    RAP_ASSIGN_OR_RETURN(uint8_t b, s->Byte());
    if (shift == 126 && (b & 0x7c)) return s->Error("a decimal value is longer than 128 bits");
    v |= static_cast<unsigned __int128>(b & 0x7f) << shift;
    if (b < 0x80) break;
  }
  return static_cast<Int128>(v >> 1) ^ -static_cast<Int128>(v & 1);
}

}  // namespace

Result<ArrayPtr> DecodeDecimalColumn(const StripeContext& ctx, uint32_t column, const Presence& p, DataTypePtr type) {
  const int32_t scale = type->scale;
  auto out = std::make_shared<ArrayData>();
  out->type = std::move(type);
  SetValidity(p, out.get());
  std::vector<Int128> vals(p.count);
  const std::vector<uint32_t>& version = ctx.tail->version;
  const uint32_t precision = ctx.tail->types.nodes[column].precision;
  // Decimal64 v2 (files of version UNSTABLE-PRE-2.0, precision 1..18): DATA holds the unscaled
  // values at the column's scale as signed integer RLE v2; there is no SECONDARY stream.
  if (version.size() >= 2 && version[0] == 1 && version[1] == 9999 && precision >= 1 && precision <= 18) {
    if (p.count > 0) {
      RAP_ASSIGN_OR_RETURN(StreamCursor data, ctx.Required(column, StreamKind::kData, "Decimal64ColumnV2"));
      std::vector<int64_t> v64(p.count);
      RAP_RETURN_NOT_OK(DecodeIntRleV2(&data, true, p.count, v64.data()));
      for (size_t i = 0; i < p.count; ++i) vals[i] = v64[i];
    }
  } else if (p.count > 0) {
    RAP_ASSIGN_OR_RETURN(StreamCursor data, ctx.Required(column, StreamKind::kData, "DecimalColumn"));
    RAP_ASSIGN_OR_RETURN(StreamCursor sec, ctx.Required(column, StreamKind::kSecondary, "DecimalColumn"));
    std::vector<int64_t> scales(p.count);
    RAP_RETURN_NOT_OK(DecodeIntRle(&sec, ctx.RleV2(column), true, p.count, scales.data()));
    for (size_t i = 0; i < p.count; ++i) {
      RAP_ASSIGN_OR_RETURN(Int128 v, ReadVarInt128(&data));
      int64_t diff = scale - scales[i];
      if (diff < -38 || diff > 38) {
        return sec.Error("value " + std::to_string(i) + " has scale " + std::to_string(scales[i]) +
                         ", too far from the column's scale " + std::to_string(scale));
      }
      for (; diff > 0; --diff) v *= 10;
      for (; diff < 0; ++diff) v /= 10;
      vals[i] = v;
    }
  }
  Buffer b = Buffer::Allocate(std::max<size_t>(p.size(), 1) * 16);
  std::memset(b.mutable_data(), 0, b.size());
  size_t k = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p.valid[i]) std::memcpy(b.mutable_data() + i * 16, &vals[k++], 16);  // little-endian two's complement
  }
  out->buffers.push_back(b.Slice(0, p.size() * 16));
  return out;
}

Result<ArrayPtr> DecodeTimestampColumn(const StripeContext& ctx, uint32_t column, const Presence& p, DataTypePtr type) {
  // TIMESTAMP: seconds from 2015-01-01 00:00:00 in the writer's zone, given back as the writer's
  // wall clock; TIMESTAMP_INSTANT: seconds from 2015-01-01 00:00:00 UTC, given back as UTC.
  const bool instant = ctx.tail->types.nodes[column].kind == TypeKind::kTimestampInstant;
  std::shared_ptr<const TimeZone> zone;
  int64_t epoch = kOrcEpochSeconds;
  if (!instant) {
    auto z = TimeZone::Load(ctx.footer->writer_timezone);
    if (!z.ok()) return z.status().WithContext(ctx.Where(column) + ": the stripe's writer time zone");
    zone = *z;
    epoch -= zone->OffsetAt(kOrcEpochSeconds);
  }
  auto out = std::make_shared<ArrayData>();
  out->type = std::move(type);
  SetValidity(p, out.get());
  std::vector<int64_t> secs(p.count), nanos(p.count);
  if (p.count > 0) {
    RAP_ASSIGN_OR_RETURN(StreamCursor data, ctx.Required(column, StreamKind::kData, "TimestampColumn"));
    RAP_ASSIGN_OR_RETURN(StreamCursor sec, ctx.Required(column, StreamKind::kSecondary, "TimestampColumn"));
    RAP_RETURN_NOT_OK(DecodeIntRle(&data, ctx.RleV2(column), true, p.count, secs.data()));
    RAP_RETURN_NOT_OK(DecodeIntRle(&sec, ctx.RleV2(column), false, p.count, nanos.data()));
  }
  Buffer b = Buffer::Allocate(std::max<size_t>(p.size(), 1) * 8);
  int64_t* v = reinterpret_cast<int64_t*>(b.mutable_data());
  size_t k = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (!p.valid[i]) {
      v[i] = 0;
      continue;
    }
    // Read as a signed value, as Apache ORC C++ does: its writer, given a negative fraction (pyarrow
    // splits a time before 1970 into seconds and nanoseconds truncating toward zero), writes the
    // negative nanoseconds shifted; its reader shifts them back arithmetically.
    const int64_t raw = nanos[k];
    int64_t ns = raw >> 3;
    const uint32_t zeros = static_cast<uint32_t>(raw & 7);
    if (zeros != 0) {
      for (uint32_t z = 0; z <= zeros && ns > -1000000000 && ns < 1000000000; ++z) ns *= 10;
    }
    if (ns > 999999999 || ns < -999999999) {
      return Status::Corrupt(ctx.Where(column) + ": value " + std::to_string(k) + " has " + std::to_string(ns) +
                             " nanoseconds (more than a second)");
    }
    int64_t s = 0;
    if (__builtin_add_overflow(secs[k], epoch, &s) || s > kMaxSeconds || s < -kMaxSeconds) {
      return Status::Corrupt(ctx.Where(column) + ": value " + std::to_string(k) + " (" + std::to_string(secs[k]) +
                             " s from 2015) does not fit a 64-bit nanosecond timestamp");
    }
    // Writers truncate toward zero when they split a negative time into seconds and nanoseconds:
    // a time before 1970 with a fraction of at least a millisecond is one second too late.
    if (s < 0 && ns > 999999) s -= 1;  // (not for a negative fraction: it is exact already)
    if (zone) s += zone->OffsetAt(s);  // the writer's wall clock
    v[i] = s * 1000000000 + ns;
    ++k;
  }
  out->buffers.push_back(b.Slice(0, p.size() * 8));
  return out;
}

}  // namespace rap::orc
