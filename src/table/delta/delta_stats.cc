#include "table/delta/delta_stats.h"

#include <nlohmann/json.hpp>

namespace rap::table {
namespace {

using nlohmann::json;

// The JSON scalar as text: strings unquoted, numbers as written by the serializer.
std::optional<std::string> ScalarText(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number_float()) return v.dump();
  return std::nullopt;
}

// A bound of a column of `type` from a stats value; `is_max` picks the direction of widening.
std::optional<read::Value> Bound(const json& v, const DataType& type, bool is_max) {
  const std::optional<std::string> text = ScalarText(v);
  if (!text) return std::nullopt;
  read::Value out;
  out.domain = read::Value::Domain::kInt;
  switch (type.id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      if (!v.is_number_integer()) return std::nullopt;
      auto p = columnar::ParseInt64(*text);
      if (!p) return std::nullopt;
      out.i = *p;
      return out;
    }
    case TypeId::kDecimal128: {
      // JSON numbers are read as doubles: exact (and dumped back as written) up to 15 digits only.
      if (type.precision > 15 && !v.is_string()) return std::nullopt;
      auto p = columnar::ParseDecimal(*text, type.scale);
      if (!p) return std::nullopt;
      out.i = *p;
      return out;
    }
    case TypeId::kDate32: {
      auto p = columnar::ParseDate(*text);
      if (!p) return std::nullopt;
      out.i = *p;
      return out;
    }
    case TypeId::kTimestamp: {
      auto p = columnar::ParseTimestampMicros(*text);
      if (!p) return std::nullopt;
      __int128 micros = *p + (is_max ? 1000 : -1000);  // one millisecond wider
      switch (type.unit) {
        case TimeUnit::kSecond: out.i = micros / 1000000 + (is_max ? 1 : -1); break;
        case TimeUnit::kMilli: out.i = micros / 1000 + (is_max ? 1 : -1); break;
        case TimeUnit::kMicro: out.i = micros; break;
        case TimeUnit::kNano: out.i = micros * 1000; break;
      }
      return out;
    }
    case TypeId::kString:
      if (is_max || !v.is_string()) return std::nullopt;
      out.domain = read::Value::Domain::kString;
      out.s = *text;
      return out;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::vector<std::optional<read::ColumnStats>> DeltaFileStats(const std::string& stats_json, const Schema& schema,
                                                             const std::vector<std::string>& physical_names) {
  std::vector<std::optional<read::ColumnStats>> out;
  if (stats_json.empty()) return out;
  const json doc = json::parse(stats_json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return out;
  std::optional<int64_t> records;
  if (auto it = doc.find("numRecords"); it != doc.end() && it->is_number_integer() && it->get<int64_t>() >= 0) {
    records = it->get<int64_t>();
  }
  auto section = [&](const char* name) -> const json* {
    auto it = doc.find(name);
    return it != doc.end() && it->is_object() ? &*it : nullptr;
  };
  const json* mins = section("minValues");
  const json* maxs = section("maxValues");
  const json* nulls = section("nullCount");
  out.resize(schema.fields.size());
  for (size_t f = 0; f < schema.fields.size(); ++f) {
    const Field& field = schema.fields[f];
    const std::string& key = f < physical_names.size() && !physical_names[f].empty() ? physical_names[f] : field.name;
    read::ColumnStats s;
    s.num_values = records;
    bool known = false;
    if (nulls) {
      auto it = nulls->find(key);
      if (it != nulls->end() && it->is_number_integer() && it->get<int64_t>() >= 0 &&
          (!records || it->get<int64_t>() <= *records)) {
        s.null_count = it->get<int64_t>();
        known = true;
      }
    }
    if (mins) {
      auto it = mins->find(key);
      if (it != mins->end()) s.min = Bound(*it, *field.type, false);
    }
    if (maxs) {
      auto it = maxs->find(key);
      if (it != maxs->end()) s.max = Bound(*it, *field.type, true);
    }
    known = known || s.min || s.max;
    if (known) out[f] = std::move(s);
  }
  return out;
}

}  // namespace rap::table
