#include "table/iceberg/iceberg_stats.h"

#include <cstring>

namespace rap::table::iceberg {

std::optional<__int128> LittleEndianInt(const std::string& b) {
  if (b.size() == 4) {
    int32_t v = 0;
    std::memcpy(&v, b.data(), 4);
    return v;
  }
  if (b.size() == 8) {
    int64_t v = 0;
    std::memcpy(&v, b.data(), 8);
    return v;
  }
  return std::nullopt;
}

std::optional<__int128> BigEndianInt(const std::string& b) {
  if (b.empty() || b.size() > 16) return std::nullopt;
  unsigned __int128 v = (static_cast<unsigned char>(b[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : b) v = (v << 8) | static_cast<unsigned char>(c);
  return static_cast<__int128>(v);
}

namespace {

std::optional<read::Value> Bound(const std::string& bytes, const DataType& type) {
  read::Value out;
  switch (type.id) {
    case TypeId::kInt32: case TypeId::kInt64: case TypeId::kDate32: case TypeId::kTime64: case TypeId::kTimestamp: {
      auto v = LittleEndianInt(bytes);
      if (!v) return std::nullopt;
      out.domain = read::Value::Domain::kInt;
      out.i = *v;
      return out;
    }
    case TypeId::kDecimal128: {
      auto v = BigEndianInt(bytes);
      if (!v) return std::nullopt;
      out.domain = read::Value::Domain::kInt;
      out.i = *v;
      return out;
    }
    case TypeId::kString:
      out.domain = read::Value::Domain::kString;
      out.s = bytes;
      return out;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::vector<std::optional<read::ColumnStats>> IcebergFileStats(const ContentFile& file, const IcebergSchema& schema) {
  std::vector<std::optional<read::ColumnStats>> out(schema.schema->fields.size());
  bool any = false;
  for (size_t i = 0; i < out.size() && i < schema.field_ids.size(); ++i) {
    if (!schema.field_ids[i].id) continue;
    const int32_t id = *schema.field_ids[i].id;
    const DataType& type = *schema.schema->fields[i].type;
    read::ColumnStats s;
    s.num_values = file.record_count;
    if (auto n = file.null_counts.find(id); n != file.null_counts.end() && n->second >= 0) s.null_count = n->second;
    if (!type.IsNested()) {
      if (auto lo = file.lower_bounds.find(id); lo != file.lower_bounds.end()) s.min = Bound(lo->second, type);
      if (auto hi = file.upper_bounds.find(id); hi != file.upper_bounds.end()) s.max = Bound(hi->second, type);
    }
    if (s.min || s.max || s.null_count) {
      out[i] = std::move(s);
      any = true;
    }
  }
  if (!any) out.clear();
  return out;
}

}  // namespace rap::table::iceberg
