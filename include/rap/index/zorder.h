// Z-order (Morton order) for `rap rewrite --layout zorder --cluster-by a,b[,c]` (docs/layouts.md
// "Z-ordered layouts"): each clustering column's value is normalised to an unsigned 64-bit integer
// that preserves the column's order, scaled to its share of the 64-bit Z-value by the column's
// minimum and maximum, and the columns' bits are interleaved (most significant first, the first
// column's bit before the second's). Rows sorted by the Z-value keep boxes `a BETWEEN .. AND b
// BETWEEN ..` in few contiguous runs, so the pages of the written files have tight statistics.
//
// Order: for every column, v <= w implies Normalize(v) <= Normalize(w) (not strictly: strings
// compare by their first 8 bytes, and NULL shares 0 with the smallest values), and the Z-value is
// monotone in each column with the others fixed. NULL sorts first (0); NaN (either sign) last, above
// +infinity; -0.0 equals 0.0.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/util/result.h"

namespace rap::index {

// A normalised value: NULL, NaN, or an ordinary value.
struct ZNormal {
  enum Kind : uint8_t { kNull, kValue, kNaN };
  Kind kind = kNull;
  uint64_t value = 0;
};

// The order-preserving maps.
uint64_t ZNormalizeInt(int64_t v);            // two's complement with the sign bit flipped
uint64_t ZNormalizeDouble(double v);           // IEEE bits, negative ones inverted; NaN: see ZNormalAt
uint64_t ZNormalizeBytes(std::string_view v);  // the first 8 bytes big-endian, zero-padded

// OK when `type` can cluster: integers, bool, float32/64, date32, time32/64, timestamp, string,
// binary, fixed_size_binary. Otherwise NotSupported naming the column.
Status CheckZOrderType(const std::string& column, const columnar::DataType& type);

// The normalised value of array[row] (a type CheckZOrderType accepts).
ZNormal ZNormalAt(const columnar::ArrayData& array, int64_t row);

// One clustering column's range of normalised values (NULLs and NaNs excluded).
struct ZRange {
  uint64_t min = UINT64_MAX, max = 0;
  bool empty() const { return min > max; }
  void Add(const ZNormal& v) {
    if (v.kind != ZNormal::kValue) return;
    if (v.value < min) min = v.value;
    if (v.value > max) max = v.value;
  }
};

class ZOrderCurve {
 public:
  // One range per clustering column (1..8 columns); each column gets 64 / columns bits.
  static Result<ZOrderCurve> Make(std::vector<ZRange> ranges);

  int bits_per_column() const { return bits_; }
  size_t columns() const { return ranges_.size(); }
  // Column c's value on bits_per_column() bits: (value - min) with its highest possible bit at the
  // top; NULL 0, NaN all ones, values outside the range clamped.
  uint64_t Scale(size_t c, const ZNormal& v) const;
  // The scaled values' bits interleaved (first column's bit first); columns() * bits_per_column()
  // low bits are used.
  uint64_t Interleave(std::span<const uint64_t> scaled) const;
  // The Z-values of a batch's rows as an int64 column (z XOR 2^63, so signed order is the Z order),
  // from the clustering columns `cols` of the batch.
  Result<columnar::ArrayPtr> ZValues(const std::vector<columnar::ArrayPtr>& cols, int64_t rows) const;

 private:
  std::vector<ZRange> ranges_;
  std::vector<int> range_bits_;  // bit width of max - min
  int bits_ = 64;
};

}  // namespace rap::index
