#include "rap/table/delta_schema.h"

#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "rap/read/expr.h"

namespace rap::table {

namespace {

using nlohmann::json;

constexpr int kMaxNesting = 64;

// A Delta type twice: with logical names (the table's) and with physical names (the files'; equal
// unless column mapping gives nested fields physical names).
struct Typed {
  DataTypePtr logical;
  DataTypePtr physical;
  read::FieldIdTree ids;  // the column-mapping ids of the fields inside (mode id)
};

struct SchemaParser {
  ColumnMappingMode mode;
  bool nested_physical = false;

  Result<Typed> Type(const json& t, const std::string& where, int depth) {
    if (depth > kMaxNesting) return Status::NotSupported(where + ": type nesting deeper than 64 levels");
    if (t.is_string()) {
      RAP_ASSIGN_OR_RETURN(DataTypePtr p, ParseDeltaPrimitiveType(t.get<std::string>()));
      return Typed{p, p, {}};
    }
    if (!t.is_object() || !t.contains("type") || !t["type"].is_string()) {
      return Status::Corrupt(where + ": expected a type name or an object with a \"type\" string");
    }
    std::string kind = t["type"].get<std::string>();
    if (kind == "struct") {
      std::vector<Field> logical, physical;
      read::FieldIdTree ids;
      RAP_RETURN_NOT_OK(Fields(t, where, depth + 1, &logical, &physical, nullptr, &ids.children));
      return Typed{MakeStruct(std::move(logical)), MakeStruct(std::move(physical)), std::move(ids)};
    }
    if (kind == "array") {
      if (!t.contains("elementType")) return Status::Corrupt(where + ": array type without elementType");
      RAP_ASSIGN_OR_RETURN(Typed elem, Type(t["elementType"], where + ".element", depth + 1));
      bool contains_null = !t.contains("containsNull") || !t["containsNull"].is_boolean() || t["containsNull"].get<bool>();
      return Typed{MakeList(Field{"element", elem.logical, contains_null}),
                   MakeList(Field{"element", elem.physical, contains_null}), read::FieldIdTree{{}, {std::move(elem.ids)}}};
    }
    if (kind == "map") {
      if (!t.contains("keyType") || !t.contains("valueType")) {
        return Status::Corrupt(where + ": map type without keyType/valueType");
      }
      RAP_ASSIGN_OR_RETURN(Typed key, Type(t["keyType"], where + ".key", depth + 1));
      RAP_ASSIGN_OR_RETURN(Typed value, Type(t["valueType"], where + ".value", depth + 1));
      bool vnull = !t.contains("valueContainsNull") || !t["valueContainsNull"].is_boolean() ||
                   t["valueContainsNull"].get<bool>();
      read::FieldIdTree entries{{}, {std::move(key.ids), std::move(value.ids)}};
      return Typed{MakeMap(Field{"key", key.logical, false}, Field{"value", value.logical, vnull}, vnull),
                   MakeMap(Field{"key", key.physical, false}, Field{"value", value.physical, vnull}, vnull),
                   read::FieldIdTree{{}, {std::move(entries)}}};
    }
    return Status::NotSupported(where + ": Delta type '" + kind + "' is not supported");
  }

  // Fields of a struct, with logical and with physical names (and types); `top_physical` (top level
  // only) receives the physical names, `ids` the fields' column-mapping id trees.
  Status Fields(const json& st, const std::string& where, int depth, std::vector<Field>* logical,
                std::vector<Field>* physical, std::vector<std::string>* top_physical,
                std::vector<read::FieldIdTree>* ids) {
    if (!st.contains("fields") || !st["fields"].is_array()) {
      return Status::Corrupt(where + ": struct type without a \"fields\" array");
    }
    for (const json& f : st["fields"]) {
      if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("type")) {
        return Status::Corrupt(where + ": struct field without \"name\" and \"type\"");
      }
      std::string name = f["name"].get<std::string>();
      std::string path = where.empty() ? name : where + "." + name;
      RAP_ASSIGN_OR_RETURN(Typed type, Type(f["type"], path, depth));
      bool nullable = !f.contains("nullable") || !f["nullable"].is_boolean() || f["nullable"].get<bool>();
      std::string phys = name;
      read::FieldIdTree id_tree = std::move(type.ids);
      if (mode != ColumnMappingMode::kNone && f.contains("metadata") && f["metadata"].is_object()) {
        const json& md = f["metadata"];
        auto it = md.find("delta.columnMapping.physicalName");
        if (it != md.end() && it->is_string()) phys = it->get<std::string>();
        auto id = md.find("delta.columnMapping.id");
        if (mode == ColumnMappingMode::kId && id != md.end()) {
          if (!id->is_number_integer() || id->get<int64_t>() < std::numeric_limits<int32_t>::min() ||
              id->get<int64_t>() > std::numeric_limits<int32_t>::max()) {
            return Status::Corrupt(path + ": delta.columnMapping.id is not a 32-bit integer");
          }
          id_tree.id = static_cast<int32_t>(id->get<int64_t>());
        }
      }
      ids->push_back(std::move(id_tree));
      if (top_physical) {
        top_physical->push_back(phys);
      } else if (phys != name) {
        nested_physical = true;
      }
      physical->push_back(Field{phys, std::move(type.physical), nullable});
      logical->push_back(Field{std::move(name), std::move(type.logical), nullable});
    }
    return Status::OK();
  }
};

// Little helpers to build a constant array.
Buffer Validity(int64_t length, bool valid) {
  size_t bytes = static_cast<size_t>((length + 7) / 8);
  Buffer b = Buffer::Allocate(bytes);
  if (bytes) std::memset(b.mutable_data(), valid ? 0xff : 0x00, bytes);
  return b;
}

template <typename T>
Buffer Repeat(T v, int64_t length) {
  Buffer b = Buffer::Allocate(static_cast<size_t>(length) * sizeof(T));
  for (int64_t i = 0; i < length; ++i) std::memcpy(b.mutable_data() + i * sizeof(T), &v, sizeof(T));
  return b;
}

}  // namespace

Result<DataTypePtr> ParseDeltaPrimitiveType(const std::string& name) {
  if (name == "string") return MakeType(TypeId::kString);
  if (name == "long") return MakeType(TypeId::kInt64);
  if (name == "integer") return MakeType(TypeId::kInt32);
  if (name == "short") return MakeType(TypeId::kInt16);
  if (name == "byte") return MakeType(TypeId::kInt8);
  if (name == "float") return MakeType(TypeId::kFloat32);
  if (name == "double") return MakeType(TypeId::kFloat64);
  if (name == "boolean") return MakeType(TypeId::kBool);
  if (name == "binary") return MakeType(TypeId::kBinary);
  if (name == "date") return MakeType(TypeId::kDate32);
  if (name == "timestamp") return MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro, "UTC");
  if (name == "timestamp_ntz") return MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro, "");
  if (name.rfind("decimal", 0) == 0) {
    int p = 0, s = 0;
    char tail = 0;
    if (name == "decimal") return MakeDecimal(10, 0);
    if (std::sscanf(name.c_str(), "decimal(%d,%d%c", &p, &s, &tail) == 3 && tail == ')' && p >= 1 && p <= 38 &&
        s >= 0 && s <= p) {
      return MakeDecimal(p, s);
    }
    return Status::Corrupt("Delta type '" + name + "': expected decimal(precision,scale) with 1 <= precision <= 38");
  }
  return Status::NotSupported("Delta type '" + name + "' is not supported");
}

Result<DeltaSchema> ParseDeltaSchema(const std::string& schema_string, ColumnMappingMode mode) {
  json j = json::parse(schema_string, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Corrupt("metaData.schemaString: not a JSON object");
  if (!j.contains("type") || j["type"] != "struct") {
    return Status::Corrupt("metaData.schemaString: expected {\"type\":\"struct\",\"fields\":[...]}");
  }
  SchemaParser parser{mode};
  DeltaSchema out;
  auto schema = std::make_shared<Schema>();
  std::vector<Field> physical;
  std::vector<read::FieldIdTree> ids;
  RAP_RETURN_NOT_OK(parser.Fields(j, "", 0, &schema->fields, &physical, &out.physical_names, &ids));
  out.schema = std::move(schema);
  out.nested_physical_names = parser.nested_physical;
  if (out.nested_physical_names || mode == ColumnMappingMode::kId) {
    for (const Field& f : physical) out.physical_types.push_back(f.type);
  }
  if (mode == ColumnMappingMode::kId) out.field_ids = std::move(ids);
  return out;
}

Result<ArrayPtr> MakePartitionArray(const std::string& column, const DataType& type,
                                    const std::optional<std::string>& value, int64_t length) {
  auto arr = std::make_shared<ArrayData>();
  arr->type = std::make_shared<DataType>(type);
  arr->length = length;
  const bool is_null = !value.has_value() || value->empty();
  auto bad = [&](const char* expected) {
    return Status::InvalidArgument("partition column '" + column + "': value '" + *value + "' is not " + expected);
  };
  auto fixed = [&](auto v) {
    arr->buffers = {is_null ? Validity(length, false) : Buffer(), Repeat(v, length)};
  };
  switch (type.id) {
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string v = is_null ? std::string() : *value;
      if (v.size() * static_cast<size_t>(length) > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
        return Status::ResourceExhausted("partition column '" + column + "': value too long for " +
                                         std::to_string(length) + " rows");
      }
      Buffer offsets = Buffer::Allocate(static_cast<size_t>(length + 1) * 4);
      Buffer data = Buffer::Allocate(v.size() * static_cast<size_t>(length));
      for (int64_t i = 0; i <= length; ++i) {
        int32_t o = static_cast<int32_t>(static_cast<size_t>(i) * v.size());
        std::memcpy(offsets.mutable_data() + i * 4, &o, 4);
      }
      for (int64_t i = 0; i < length && !v.empty(); ++i) std::memcpy(data.mutable_data() + i * v.size(), v.data(), v.size());
      arr->buffers = {is_null ? Validity(length, false) : Buffer(), offsets, data};
      break;
    }
    case TypeId::kBool: {
      bool b = false;
      if (!is_null) {
        if (*value == "true") b = true;
        else if (*value != "false") return bad("a boolean (true/false)");
      }
      arr->buffers = {is_null ? Validity(length, false) : Buffer(), Validity(length, b)};
      break;
    }
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      int64_t v = 0;
      if (!is_null) {
        auto p = columnar::ParseInt64(*value);
        int bits = type.id == TypeId::kInt8 ? 8 : type.id == TypeId::kInt16 ? 16 : type.id == TypeId::kInt32 ? 32 : 64;
        if (!p || (bits < 64 && (*p < -(int64_t{1} << (bits - 1)) || *p >= (int64_t{1} << (bits - 1))))) {
          return bad("an integer of the column's width");
        }
        v = *p;
      }
      if (type.id == TypeId::kInt8) fixed(static_cast<int8_t>(v));
      else if (type.id == TypeId::kInt16) fixed(static_cast<int16_t>(v));
      else if (type.id == TypeId::kInt32) fixed(static_cast<int32_t>(v));
      else fixed(v);
      break;
    }
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      double v = 0;
      if (!is_null) {
        auto p = columnar::ParseDouble(*value);
        if (!p) return bad("a floating-point number");
        v = *p;
      }
      if (type.id == TypeId::kFloat32) fixed(static_cast<float>(v));
      else fixed(v);
      break;
    }
    case TypeId::kDecimal128: {
      __int128 v = 0;
      if (!is_null) {
        auto p = columnar::ParseDecimal(*value, type.scale);
        if (!p) return bad("a decimal of the column's scale");
        v = *p;
      }
      fixed(v);
      break;
    }
    case TypeId::kDate32: {
      int32_t v = 0;
      if (!is_null) {
        auto p = columnar::ParseDate(*value);
        if (!p) return bad("a date (YYYY-MM-DD)");
        v = *p;
      }
      fixed(v);
      break;
    }
    case TypeId::kTimestamp: {
      int64_t v = 0;
      if (!is_null) {
        auto p = columnar::ParseTimestampMicros(*value);
        if (!p) return bad("a timestamp (YYYY-MM-DD HH:MM:SS[.ffffff])");
        v = *p;
        if (type.unit == TimeUnit::kSecond) v /= 1000000;
        else if (type.unit == TimeUnit::kMilli) v /= 1000;
        else if (type.unit == TimeUnit::kNano) v *= 1000;
      }
      fixed(v);
      break;
    }
    default:
      return Status::NotSupported("partition column '" + column + "': type " + type.ToString() +
                                  " cannot be a partition column");
  }
  arr->null_count = is_null ? length : 0;
  return ArrayPtr(arr);
}

}  // namespace rap::table
