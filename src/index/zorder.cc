// Z-order values (rap/index/zorder.h): order-preserving normalisation, per-column scaling by the
// column's range, bit interleaving.
#include "rap/index/zorder.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>

namespace rap::index {

using columnar::TypeId;

uint64_t ZNormalizeInt(int64_t v) { return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63); }

uint64_t ZNormalizeDouble(double v) {
  if (v == 0) v = 0.0;  // -0.0 equals 0.0
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  return (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
}

uint64_t ZNormalizeBytes(std::string_view v) {
  uint64_t x = 0;
  for (size_t i = 0; i < 8; ++i) {
    x = (x << 8) | (i < v.size() ? static_cast<uint8_t>(v[i]) : 0u);
  }
  return x;
}

Status CheckZOrderType(const std::string& column, const DataType& type) {
  switch (type.id) {
    case TypeId::kBool: case TypeId::kInt8: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64:
    case TypeId::kUInt8: case TypeId::kUInt16: case TypeId::kUInt32: case TypeId::kUInt64:
    case TypeId::kFloat32: case TypeId::kFloat64: case TypeId::kDate32: case TypeId::kTime32: case TypeId::kTime64:
    case TypeId::kTimestamp: case TypeId::kString: case TypeId::kBinary: case TypeId::kFixedSizeBinary:
      return Status::OK();
    default: break;
  }
  return Status::NotSupported("--cluster-by '" + column + "' has type " + type.ToString() +
                              "; Z-order clusters integers, floats, dates, times, timestamps, strings and binary");
}

ZNormal ZNormalAt(const ArrayData& a, int64_t row) {
  ZNormal z;
  if (a.IsNull(row)) return z;
  z.kind = ZNormal::kValue;
  switch (a.type->id) {
    case TypeId::kBool: {
      const int64_t j = row + a.offset;
      z.value = (a.buffers[1].data()[j >> 3] >> (j & 7)) & 1;
      break;
    }
    case TypeId::kInt8: z.value = ZNormalizeInt(a.values<int8_t>()[row]); break;
    case TypeId::kInt16: z.value = ZNormalizeInt(a.values<int16_t>()[row]); break;
    case TypeId::kInt32: case TypeId::kDate32: case TypeId::kTime32:
      z.value = ZNormalizeInt(a.values<int32_t>()[row]);
      break;
    case TypeId::kInt64: case TypeId::kTime64: case TypeId::kTimestamp:
      z.value = ZNormalizeInt(a.values<int64_t>()[row]);
      break;
    case TypeId::kUInt8: z.value = a.values<uint8_t>()[row]; break;
    case TypeId::kUInt16: z.value = a.values<uint16_t>()[row]; break;
    case TypeId::kUInt32: z.value = a.values<uint32_t>()[row]; break;
    case TypeId::kUInt64: z.value = a.values<uint64_t>()[row]; break;
    case TypeId::kFloat32: case TypeId::kFloat64: {
      const double d =
          a.type->id == TypeId::kFloat32 ? static_cast<double>(a.values<float>()[row]) : a.values<double>()[row];
      if (std::isnan(d)) {
        z.kind = ZNormal::kNaN;
        z.value = UINT64_MAX;
      } else {
        z.value = ZNormalizeDouble(d);
      }
      break;
    }
    case TypeId::kString: case TypeId::kBinary: {
      const int32_t* o = a.offsets();
      z.value = ZNormalizeBytes(std::string_view(reinterpret_cast<const char*>(a.buffers[2].data()) + o[row],
                                                 static_cast<size_t>(o[row + 1] - o[row])));
      break;
    }
    case TypeId::kFixedSizeBinary: {
      const size_t w = static_cast<size_t>(a.type->byte_width);
      const char* data = reinterpret_cast<const char*>(a.buffers[1].data());
      z.value = ZNormalizeBytes(std::string_view(data + static_cast<size_t>(row + a.offset) * w, w));
      break;
    }
    default: z.kind = ZNormal::kNull; break;  // excluded by CheckZOrderType
  }
  return z;
}

Result<ZOrderCurve> ZOrderCurve::Make(std::vector<ZRange> ranges) {
  if (ranges.empty() || ranges.size() > 8) {
    return Status::InvalidArgument(fmt::format("--cluster-by takes 1 to 8 columns, got {}", ranges.size()));
  }
  ZOrderCurve z;
  z.bits_ = 64 / static_cast<int>(ranges.size());
  for (const ZRange& r : ranges) z.range_bits_.push_back(r.empty() ? 0 : std::bit_width(r.max - r.min));
  z.ranges_ = std::move(ranges);
  return z;
}

uint64_t ZOrderCurve::Scale(size_t c, const ZNormal& v) const {
  const uint64_t ones = bits_ == 64 ? UINT64_MAX : (uint64_t{1} << bits_) - 1;
  if (v.kind == ZNormal::kNull) return 0;
  if (v.kind == ZNormal::kNaN) return ones;
  const ZRange& r = ranges_[c];
  if (r.empty()) return 0;
  const uint64_t x = v.value <= r.min ? 0 : (v.value >= r.max ? r.max - r.min : v.value - r.min);
  const int rb = range_bits_[c];
  return rb <= bits_ ? x << (bits_ - rb) : x >> (rb - bits_);
}

uint64_t ZOrderCurve::Interleave(std::span<const uint64_t> scaled) const {
  uint64_t z = 0;
  for (int i = bits_ - 1; i >= 0; --i) {
    for (uint64_t s : scaled) z = (z << 1) | ((s >> i) & 1);
  }
  return z;
}

Result<ArrayPtr> ZOrderCurve::ZValues(const std::vector<ArrayPtr>& cols, int64_t rows) const {
  if (cols.size() != ranges_.size()) {
    return Status::Internal(fmt::format("Z-order: {} columns for a curve of {}", cols.size(), ranges_.size()));
  }
  Buffer out = Buffer::Allocate(static_cast<size_t>(rows) * sizeof(int64_t));
  int64_t* z = reinterpret_cast<int64_t*>(out.mutable_data());
  std::vector<uint64_t> scaled(cols.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols.size(); ++c) scaled[c] = Scale(c, ZNormalAt(*cols[c], r));
    z[r] = static_cast<int64_t>(Interleave(scaled) ^ (uint64_t{1} << 63));
  }
  auto a = std::make_shared<ArrayData>();
  a->type = columnar::MakeType(TypeId::kInt64);
  a->length = rows;
  a->buffers = {Buffer(), std::move(out)};
  return ArrayPtr(a);
}

}  // namespace rap::index
