// Min/max/null-count statistics of Parquet column values, with the sort order the format defines
// for each type: signed or unsigned integers (by the INTEGER/UINT_* annotation), floats with NaN
// excluded and the -0/+0 rule (a zero min is written as -0, a zero max as +0), FLOAT16, unsigned
// lexicographic bytes for strings/binary, signed big-endian bytes for FLBA decimals, and no
// min/max for types whose order is undefined (INT96, INTERVAL).
//
// Values are in the physical representation of rap/format/encoding.h, and min/max come out as the
// Statistics encoding (PLAIN bytes without a length prefix).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rap/format/metadata.h"

namespace rap::parquet {

enum class StatsKind {
  kNone,  // undefined order: null count only
  kBool,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kFloat,
  kDouble,
  kFloat16,
  kBytesUnsigned,  // BYTE_ARRAY and FLBA (strings, binary, UUID)
  kBytesSigned,    // decimals stored as FLBA/BYTE_ARRAY: big-endian two's complement
};

StatsKind StatsKindFor(Type physical, const std::optional<LogicalType>& logical,
                       const std::optional<ConvertedType>& converted);

// Compares two values in the Statistics encoding: <0, 0, >0. Floats compare numerically (NaN is
// never stored).
int CompareStatValues(StatsKind kind, std::string_view a, std::string_view b);

// A float16 (IEEE 754 binary16, little-endian bytes) as a float.
float HalfToFloat(uint16_t half);

class StatsAccumulator {
 public:
  StatsAccumulator() = default;
  StatsAccumulator(StatsKind kind, int32_t type_length) : kind_(kind), type_length_(type_length) {}

  // n values of a fixed-width physical type (BOOLEAN one byte each, FLBA type_length bytes).
  void UpdateFixed(const uint8_t* values, int64_t n);
  // n BYTE_ARRAY values: value i is data[offsets[i], offsets[i+1]).
  void UpdateBinary(const int32_t* offsets, const uint8_t* data, int64_t n);
  void AddNulls(int64_t n) { null_count_ += n; }
  void Merge(const StatsAccumulator& other);
  void Reset();

  StatsKind kind() const { return kind_; }
  bool has_min_max() const { return has_min_max_; }
  int64_t null_count() const { return null_count_; }
  int64_t num_values() const { return num_values_; }  // non-null values seen (NaN included)
  // Min/max in the Statistics encoding, with the -0/+0 rule applied. Only when has_min_max().
  std::string EncodedMin() const;
  std::string EncodedMax() const;

  // The Statistics struct: null_count always; min_value/max_value when known and each at most
  // max_bytes long (both left out otherwise).
  Statistics ToThrift(int64_t max_bytes) const;

 private:
  template <typename T, bool kIsFloat>
  void UpdateTyped(const uint8_t* values, int64_t n);
  void UpdateBytes(std::string_view v);

  StatsKind kind_ = StatsKind::kNone;
  int32_t type_length_ = 0;
  bool has_min_max_ = false;
  std::string min_;
  std::string max_;
  int64_t null_count_ = 0;
  int64_t num_values_ = 0;
};

// Truncation of unsigned-lexicographic bounds (for the ColumnIndex): a prefix is a valid lower
// bound; an upper bound is the prefix with its last non-0xFF byte incremented (nullopt when every
// byte of the prefix is 0xFF, then the full value must be kept).
std::string TruncateLowerBound(std::string_view value, size_t max_bytes);
std::optional<std::string> TruncateUpperBound(std::string_view value, size_t max_bytes);

}  // namespace rap::parquet
