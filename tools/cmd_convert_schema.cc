// Schema text of `rap convert --schema` (see convert_input.h): "name:type [not null], ...".
#include <charconv>

#include <fmt/format.h>

#include "convert_input.h"

namespace rap::cli {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits at `sep` outside (), [] and <>.
std::vector<std::string_view> SplitTopLevel(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '>') --depth;
    if (c == sep && depth == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

Result<rap::TimeUnit> ParseUnit(std::string_view u) {
  if (u == "s") return rap::TimeUnit::kSecond;
  if (u == "ms") return rap::TimeUnit::kMilli;
  if (u == "us") return rap::TimeUnit::kMicro;
  if (u == "ns") return rap::TimeUnit::kNano;
  return Status::InvalidArgument("time unit '" + std::string(u) + "': expected s, ms, us or ns");
}

Result<Field> ParseFieldSpec(std::string_view text) {
  text = Trim(text);
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Status::InvalidArgument("schema field '" + std::string(text) + "': expected name:type");
  }
  Field f;
  f.name = std::string(Trim(text.substr(0, colon)));
  std::string_view type = Trim(text.substr(colon + 1));
  constexpr std::string_view kNotNull = "not null";
  if (type.size() > kNotNull.size() && type.substr(type.size() - kNotNull.size()) == kNotNull) {
    f.nullable = false;
    type = Trim(type.substr(0, type.size() - kNotNull.size()));
  }
  auto t = ParseTypeSpec(type);
  if (!t.ok()) return t.status().WithContext("schema field '" + f.name + "'");
  f.type = *t;
  return f;
}

}  // namespace

Result<DataTypePtr> ParseTypeSpec(std::string_view text) {
  text = Trim(text);
  const std::string t(text);
  static const std::pair<const char*, TypeId> kSimple[] = {
      {"bool", TypeId::kBool},       {"boolean", TypeId::kBool},    {"int8", TypeId::kInt8},
      {"int16", TypeId::kInt16},     {"int32", TypeId::kInt32},     {"int", TypeId::kInt32},
      {"int64", TypeId::kInt64},     {"bigint", TypeId::kInt64},    {"uint8", TypeId::kUInt8},
      {"uint16", TypeId::kUInt16},   {"uint32", TypeId::kUInt32},   {"uint64", TypeId::kUInt64},
      {"float", TypeId::kFloat32},   {"float32", TypeId::kFloat32}, {"double", TypeId::kFloat64},
      {"float64", TypeId::kFloat64}, {"string", TypeId::kString},   {"utf8", TypeId::kString},
      {"binary", TypeId::kBinary}};
  for (const auto& [name, id] : kSimple) {
    if (t == name) return MakeType(id);
  }
  if (t == "date" || t == "date32") return MakeTemporal(TypeId::kDate32, rap::TimeUnit::kSecond);
  if (t == "json") {
    auto j = std::make_shared<DataType>(*MakeType(TypeId::kString));
    j->extension = "json";
    return DataTypePtr(j);
  }
  if (t == "uuid") {
    auto u = std::make_shared<DataType>(*MakeFixedSizeBinary(16));
    u->extension = "uuid";
    return DataTypePtr(u);
  }
  auto args = [&](std::string_view prefix, char open, char close) -> std::optional<std::string_view> {
    if (text.size() > prefix.size() + 1 && text.substr(0, prefix.size()) == prefix && text[prefix.size()] == open &&
        text.back() == close) {
      return text.substr(prefix.size() + 1, text.size() - prefix.size() - 2);
    }
    return std::nullopt;
  };
  if (auto a = args("timestamp", '[', ']')) {
    auto parts = SplitTopLevel(*a, ',');
    RAP_ASSIGN_OR_RETURN(rap::TimeUnit unit, ParseUnit(Trim(parts[0])));
    std::string tz;
    if (parts.size() > 1) {
      tz = std::string(Trim(parts[1]));
      if (tz.rfind("tz=", 0) == 0) tz = tz.substr(3);
    }
    return MakeTemporal(TypeId::kTimestamp, unit, tz);
  }
  if (auto a = args("time32", '[', ']')) {
    RAP_ASSIGN_OR_RETURN(rap::TimeUnit unit, ParseUnit(Trim(*a)));
    return MakeTemporal(TypeId::kTime32, unit);
  }
  if (auto a = args("time64", '[', ']')) {
    RAP_ASSIGN_OR_RETURN(rap::TimeUnit unit, ParseUnit(Trim(*a)));
    return MakeTemporal(TypeId::kTime64, unit);
  }
  if (auto a = args("decimal", '(', ')')) {
    auto parts = SplitTopLevel(*a, ',');
    int p = 0, s = 0;
    auto num = [](std::string_view v, int* out) {
      v = Trim(v);
      auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), *out);
      return ec == std::errc() && ptr == v.data() + v.size();
    };
    if (parts.size() != 2 || !num(parts[0], &p) || !num(parts[1], &s) || p < 1 || p > 38 || s < 0 || s > p) {
      return Status::InvalidArgument("type '" + t + "': expected decimal(precision 1-38, scale 0-precision)");
    }
    return MakeDecimal(p, s);
  }
  if (auto a = args("fixed_size_binary", '[', ']')) {
    int w = 0;
    auto v = Trim(*a);
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), w);
    if (ec != std::errc() || w <= 0) return Status::InvalidArgument("type '" + t + "': width must be positive");
    return MakeFixedSizeBinary(w);
  }
  if (auto a = args("list", '<', '>')) {
    RAP_ASSIGN_OR_RETURN(DataTypePtr item, ParseTypeSpec(*a));
    return MakeList(Field{"item", item, true});
  }
  if (auto a = args("struct", '<', '>')) {
    std::vector<Field> fields;
    for (auto part : SplitTopLevel(*a, ',')) {
      RAP_ASSIGN_OR_RETURN(Field f, ParseFieldSpec(part));
      fields.push_back(std::move(f));
    }
    return MakeStruct(std::move(fields));
  }
  return Status::InvalidArgument("unknown type '" + t +
                                 "' (bool, int8..int64, uint8..uint64, float, double, string, binary, json, uuid, "
                                 "date, time32[ms], time64[us|ns], timestamp[unit(, tz)], decimal(p,s), "
                                 "fixed_size_binary[n], list<T>, struct<a:T, ...>)");
}

Result<SchemaPtr> ParseSchemaSpec(std::string_view text) {
  auto s = std::make_shared<Schema>();
  for (auto part : SplitTopLevel(text, ',')) {
    if (Trim(part).empty()) continue;
    RAP_ASSIGN_OR_RETURN(Field f, ParseFieldSpec(part));
    if (s->FieldIndex(f.name) >= 0) return Status::InvalidArgument("schema: duplicate column '" + f.name + "'");
    s->fields.push_back(std::move(f));
  }
  if (s->fields.empty()) return Status::InvalidArgument("schema text has no fields");
  return SchemaPtr(s);
}

}  // namespace rap::cli
