// Parquet statistics (row-group Statistics, ColumnIndex pages) and partition values decoded into the
// ColumnStats that predicate pruning reads.
#include <cstring>

#include "rap/read/expr.h"

namespace rap::read {

namespace {

template <typename T>
T LoadLE(const std::string& b) {
  T v;
  std::memcpy(&v, b.data(), sizeof(T));
  return v;
}

bool IsUnsigned(TypeId id) {
  return id == TypeId::kUInt8 || id == TypeId::kUInt16 || id == TypeId::kUInt32 || id == TypeId::kUInt64;
}

// Big-endian two's complement (Parquet decimal in BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY), up to 16 bytes.
std::optional<__int128> BigEndianSigned(const std::string& b) {
  if (b.empty() || b.size() > 16) return std::nullopt;
  unsigned __int128 u = (static_cast<uint8_t>(b[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : b) u = (u << 8) | static_cast<uint8_t>(c);
  return static_cast<__int128>(u);
}

}  // namespace

std::optional<Value> DecodeStatValue(const std::string& bytes, parquet::Type physical, const DataType& type) {
  auto domain = DomainOf(type);
  if (!domain.ok()) return std::nullopt;
  Value v;
  v.domain = *domain;
  switch (physical) {
    case parquet::Type::BOOLEAN:
      if (bytes.size() != 1 || v.domain != Value::Domain::kInt) return std::nullopt;
      v.i = bytes[0] != 0;
      return v;
    case parquet::Type::INT32:
      if (bytes.size() != 4 || v.domain != Value::Domain::kInt) return std::nullopt;
      v.i = IsUnsigned(type.id) ? static_cast<__int128>(LoadLE<uint32_t>(bytes)) : LoadLE<int32_t>(bytes);
      return v;
    case parquet::Type::INT64:
      if (bytes.size() != 8 || v.domain != Value::Domain::kInt) return std::nullopt;
      v.i = IsUnsigned(type.id) ? static_cast<__int128>(LoadLE<uint64_t>(bytes)) : LoadLE<int64_t>(bytes);
      return v;
    case parquet::Type::FLOAT:
      if (bytes.size() != 4 || v.domain != Value::Domain::kDouble) return std::nullopt;
      v.d = LoadLE<float>(bytes);
      return v;
    case parquet::Type::DOUBLE:
      if (bytes.size() != 8 || v.domain != Value::Domain::kDouble) return std::nullopt;
      v.d = LoadLE<double>(bytes);
      return v;
    case parquet::Type::BYTE_ARRAY:
    case parquet::Type::FIXED_LEN_BYTE_ARRAY:
      if (type.id == TypeId::kDecimal128) {
        auto x = BigEndianSigned(bytes);
        if (!x) return std::nullopt;
        v.i = *x;
        return v;
      }
      if (v.domain != Value::Domain::kString) return std::nullopt;
      v.s = bytes;
      return v;
    case parquet::Type::INT96:
      return std::nullopt;
  }
  return std::nullopt;
}

ColumnStats StatsFromParquet(const parquet::Statistics& stats, parquet::Type physical, const DataType& type,
                             int64_t num_values) {
  ColumnStats out;
  out.null_count = stats.null_count;
  out.num_values = num_values;
  if (stats.min_value && stats.max_value) {
    out.min = DecodeStatValue(*stats.min_value, physical, type);
    out.max = DecodeStatValue(*stats.max_value, physical, type);
  } else if (stats.min && stats.max) {
    // Deprecated fields were written with signed comparison: right only for signed numbers.
    bool signed_numeric = (physical == parquet::Type::INT32 || physical == parquet::Type::INT64 ||
                           physical == parquet::Type::FLOAT || physical == parquet::Type::DOUBLE) &&
                          !IsUnsigned(type.id);
    if (signed_numeric) {
      out.min = DecodeStatValue(*stats.min, physical, type);
      out.max = DecodeStatValue(*stats.max, physical, type);
    }
  }
  if (!out.min || !out.max) {
    out.min.reset();
    out.max.reset();
  }
  return out;
}

ColumnStats StatsFromValue(const std::optional<Value>& value) {
  ColumnStats out;
  out.num_values = 1;
  out.null_count = value ? 0 : 1;
  if (value) {
    out.min = value;
    out.max = value;
  }
  return out;
}

std::vector<PageStats> PageStatsFromIndex(const parquet::ColumnIndex& ci, const parquet::OffsetIndex& oi,
                                          int64_t row_group_rows, parquet::Type physical, const DataType& type) {
  std::vector<PageStats> out;
  const size_t n = oi.page_locations.size();
  if (n == 0 || ci.null_pages.size() != n || ci.min_values.size() != n || ci.max_values.size() != n ||
      (!ci.null_counts.empty() && ci.null_counts.size() != n)) {
    return out;  // inconsistent index: the caller treats every row as a possible match
  }
  for (size_t k = 0; k < n; ++k) {
    PageStats p;
    p.first_row = oi.page_locations[k].first_row_index;
    int64_t end = k + 1 < n ? oi.page_locations[k + 1].first_row_index : row_group_rows;
    if (p.first_row < 0 || end < p.first_row || end > row_group_rows) return {};
    p.num_rows = end - p.first_row;
    p.stats.num_values = p.num_rows;
    if (!ci.null_counts.empty()) p.stats.null_count = ci.null_counts[k];
    if (ci.null_pages[k]) {
      p.stats.null_count = p.num_rows;
    } else {
      p.stats.min = DecodeStatValue(ci.min_values[k], physical, type);
      p.stats.max = DecodeStatValue(ci.max_values[k], physical, type);
      if (!p.stats.min || !p.stats.max) {
        p.stats.min.reset();
        p.stats.max.reset();
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace rap::read
