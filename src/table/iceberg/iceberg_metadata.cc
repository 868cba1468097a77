#include "rap/table/iceberg_metadata.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>

#include "rap/columnar/literal.h"

namespace rap::table::iceberg {

namespace {

using json = nlohmann::json;

struct Typed {
  DataTypePtr type;
  read::FieldIdTree ids;
};

Result<int64_t> GetInt(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) {
    return Status::Corrupt(where + ": '" + key + "' is missing or not an integer");
  }
  return it->get<int64_t>();
}

Result<std::string> GetString(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return Status::Corrupt(where + ": '" + key + "' is missing or not a string");
  return it->get<std::string>();
}

Result<Typed> ConvertType(const json& t, const std::string& where, int depth, IcebergSchema* out);

// A field's `initial-default` (the spec's JSON single-value serialization) as the text
// MakePartitionArray parses; nullopt for none or null. NotSupported for defaults rap does not apply:
// of nested fields, of nested, binary, fixed, uuid or time columns, and the empty string.
Result<std::optional<std::string>> InitialDefault(const json& f, const json& type, bool top_level,
                                                  const std::string& where) {
  auto d = f.find("initial-default");
  if (d == f.end() || d->is_null()) return std::optional<std::string>();
  const std::string t = type.is_string() ? type.get<std::string>() : std::string("nested");
  auto refuse = [&] {
    return Status::NotSupported(where + ": the initial-default of a " + (top_level ? t + " column" : "nested field") +
                                " is not applied by rap yet");
  };
  if (!top_level) return refuse();
  if (t == "boolean" && d->is_boolean()) return std::optional<std::string>(d->get<bool>() ? "true" : "false");
  if ((t == "int" || t == "long") && d->is_number_integer()) return std::optional<std::string>(d->dump());
  if ((t == "float" || t == "double") && d->is_number()) return std::optional<std::string>(d->dump());
  if (t == "string" || t == "date" || t.rfind("decimal", 0) == 0 || t.rfind("timestamp", 0) == 0) {
    if (!d->is_string()) return Status::Corrupt(where + ": initial-default of a " + t + " column is not a string");
    std::string v = d->get<std::string>();
    if (v.empty()) return refuse();
    if (t.rfind("timestamptz", 0) == 0) {  // "...+00:00": UTC
      if (v.size() < 6 || v.compare(v.size() - 6, 6, "+00:00") != 0) {
        return Status::Corrupt(where + ": initial-default '" + v + "' of a timestamptz column is not in UTC (+00:00)");
      }
      v = v.substr(0, v.size() - 6) + "Z";
    }
    return std::optional<std::string>(v);
  }
  if (t == "boolean" || t == "int" || t == "long" || t == "float" || t == "double") {
    return Status::Corrupt(where + ": initial-default " + d->dump() + " is not a " + t);
  }
  return refuse();
}

// A struct's fields (a schema, a struct type).
Result<std::vector<std::pair<Field, read::FieldIdTree>>> ConvertFields(const json& t, const std::string& where, int depth,
                                                                      IcebergSchema* out) {
  auto fields = t.find("fields");
  if (fields == t.end() || !fields->is_array()) return Status::Corrupt(where + ": struct without a 'fields' array");
  std::vector<std::pair<Field, read::FieldIdTree>> result;
  for (const json& f : *fields) {
    if (!f.is_object()) return Status::Corrupt(where + ": a field is not an object");
    RAP_ASSIGN_OR_RETURN(int64_t id, GetInt(f, "id", where));
    RAP_ASSIGN_OR_RETURN(std::string name, GetString(f, "name", where));
    auto type = f.find("type");
    if (type == f.end()) return Status::Corrupt(where + "." + name + ": no 'type'");
    RAP_ASSIGN_OR_RETURN(std::optional<std::string> initial, InitialDefault(f, *type, depth == 0, where + "." + name));
    if (depth == 0) out->initial_defaults.push_back(std::move(initial));
    RAP_ASSIGN_OR_RETURN(Typed typed, ConvertType(*type, where + "." + name, depth + 1, out));
    if (type->is_string()) out->primitive[static_cast<int32_t>(id)] = type->get<std::string>();
    typed.ids.id = static_cast<int32_t>(id);
    const bool required = f.value("required", false);
    result.push_back({Field{name, typed.type, !required}, std::move(typed.ids)});
  }
  return result;
}

Result<DataTypePtr> ConvertPrimitive(const std::string& s, const std::string& where) {
  if (s == "boolean") return MakeType(TypeId::kBool);
  if (s == "int") return MakeType(TypeId::kInt32);
  if (s == "long") return MakeType(TypeId::kInt64);
  if (s == "float") return MakeType(TypeId::kFloat32);
  if (s == "double") return MakeType(TypeId::kFloat64);
  if (s == "date") return MakeType(TypeId::kDate32);
  if (s == "time") return MakeTemporal(TypeId::kTime64, TimeUnit::kMicro);
  if (s == "timestamp") return MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro);
  if (s == "timestamptz") return MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro, "UTC");
  if (s == "timestamp_ns") return MakeTemporal(TypeId::kTimestamp, TimeUnit::kNano);
  if (s == "timestamptz_ns") return MakeTemporal(TypeId::kTimestamp, TimeUnit::kNano, "UTC");
  if (s == "string") return MakeType(TypeId::kString);
  if (s == "binary") return MakeType(TypeId::kBinary);
  if (s == "uuid") {
    auto t = std::make_shared<DataType>(*MakeFixedSizeBinary(16));
    t->extension = "uuid";
    return DataTypePtr(t);
  }
  int a = 0, b = 0, end = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "fixed[%d %c%n", &a, &tail, &end) == 2 && tail == ']' && a > 0 &&
      static_cast<size_t>(end) == s.size()) {
    return MakeFixedSizeBinary(a);
  }
  if (std::sscanf(s.c_str(), "decimal(%d ,%d %c%n", &a, &b, &tail, &end) == 3 && tail == ')' &&
      static_cast<size_t>(end) == s.size() && a >= 1 && a <= 38 && b >= 0 && b <= a) {
    return MakeDecimal(a, b);
  }
  if (s == "variant" || s == "geometry" || s == "geography" || s == "unknown" || s.rfind("geometry", 0) == 0 ||
      s.rfind("geography", 0) == 0) {
    return Status::NotSupported(where + ": Iceberg type '" + s + "' is not read by rap yet");
  }
  return Status::Corrupt(where + ": unknown Iceberg type '" + s + "'");
}

Result<Typed> ConvertType(const json& t, const std::string& where, int depth, IcebergSchema* out) {
  if (depth > 64) return Status::Corrupt(where + ": types nested deeper than 64");
  if (t.is_string()) {
    RAP_ASSIGN_OR_RETURN(DataTypePtr p, ConvertPrimitive(t.get<std::string>(), where));
    return Typed{p, {}};
  }
  if (!t.is_object()) return Status::Corrupt(where + ": a type is neither a string nor an object");
  RAP_ASSIGN_OR_RETURN(std::string kind, GetString(t, "type", where));
  if (kind == "struct") {
    RAP_ASSIGN_OR_RETURN(auto fields, ConvertFields(t, where, depth, out));
    std::vector<Field> fs;
    read::FieldIdTree ids;
    for (auto& [f, tree] : fields) {
      fs.push_back(std::move(f));
      ids.children.push_back(std::move(tree));
    }
    return Typed{MakeStruct(std::move(fs)), std::move(ids)};
  }
  if (kind == "list") {
    RAP_ASSIGN_OR_RETURN(int64_t id, GetInt(t, "element-id", where));
    auto e = t.find("element");
    if (e == t.end()) return Status::Corrupt(where + ": list without 'element'");
    RAP_ASSIGN_OR_RETURN(Typed elem, ConvertType(*e, where + ".element", depth + 1, out));
    if (e->is_string()) out->primitive[static_cast<int32_t>(id)] = e->get<std::string>();
    elem.ids.id = static_cast<int32_t>(id);
    const bool nullable = !t.value("element-required", false);
    return Typed{MakeList(Field{"element", elem.type, nullable}), read::FieldIdTree{{}, {std::move(elem.ids)}}};
  }
  if (kind == "map") {
    RAP_ASSIGN_OR_RETURN(int64_t kid, GetInt(t, "key-id", where));
    RAP_ASSIGN_OR_RETURN(int64_t vid, GetInt(t, "value-id", where));
    auto k = t.find("key");
    auto v = t.find("value");
    if (k == t.end() || v == t.end()) return Status::Corrupt(where + ": map without 'key' or 'value'");
    RAP_ASSIGN_OR_RETURN(Typed key, ConvertType(*k, where + ".key", depth + 1, out));
    RAP_ASSIGN_OR_RETURN(Typed value, ConvertType(*v, where + ".value", depth + 1, out));
    key.ids.id = static_cast<int32_t>(kid);
    value.ids.id = static_cast<int32_t>(vid);
    const bool nullable = !t.value("value-required", false);
    read::FieldIdTree entries{{}, {std::move(key.ids), std::move(value.ids)}};
    return Typed{MakeMap(Field{"key", key.type, false}, Field{"value", value.type, nullable}, nullable),
                 read::FieldIdTree{{}, {std::move(entries)}}};
  }
  return Status::Corrupt(where + ": unknown type '" + kind + "'");
}

Result<IcebergSchema> ConvertSchema(const json& s, const std::string& where) {
  if (!s.is_object()) return Status::Corrupt(where + ": a schema is not an object");
  IcebergSchema out;
  out.schema_id = static_cast<int32_t>(s.value("schema-id", 0));
  RAP_ASSIGN_OR_RETURN(auto fields, ConvertFields(s, where, 0, &out));
  auto schema = std::make_shared<columnar::Schema>();
  for (auto& [f, tree] : fields) {
    schema->fields.push_back(std::move(f));
    out.field_ids.push_back(std::move(tree));
  }
  out.schema = schema;
  return out;
}

Result<PartitionSpec> ConvertSpec(const json& fields, int32_t spec_id, const std::string& where) {
  if (!fields.is_array()) return Status::Corrupt(where + ": partition spec fields are not an array");
  PartitionSpec spec;
  spec.spec_id = spec_id;
  int32_t next_id = 1000;  // v1 specs may omit field ids: they are assigned from 1000
  for (const json& f : fields) {
    if (!f.is_object()) return Status::Corrupt(where + ": a partition field is not an object");
    PartitionField pf;
    RAP_ASSIGN_OR_RETURN(int64_t source, GetInt(f, "source-id", where));
    pf.source_id = static_cast<int32_t>(source);
    pf.field_id = static_cast<int32_t>(f.value("field-id", static_cast<int64_t>(next_id)));
    next_id = pf.field_id + 1;
    RAP_ASSIGN_OR_RETURN(pf.name, GetString(f, "name", where));
    RAP_ASSIGN_OR_RETURN(pf.transform, GetString(f, "transform", where));
    spec.fields.push_back(std::move(pf));
  }
  return spec;
}

Result<TableMetadata> Parse(const json& j, const std::string& what) {
  if (!j.is_object()) return Status::Corrupt(what + ": table metadata is not a JSON object");
  TableMetadata m;
  RAP_ASSIGN_OR_RETURN(int64_t version, GetInt(j, "format-version", what));
  if (version < 1 || version > 3) {
    return Status::NotSupported(what + ": Iceberg format version " + std::to_string(version) + " (rap reads 1 to 3)");
  }
  m.format_version = static_cast<int>(version);
  RAP_ASSIGN_OR_RETURN(m.location, GetString(j, "location", what));
  if (auto s = j.find("schemas"); s != j.end() && s->is_array() && !s->empty()) {
    for (const json& x : *s) {
      RAP_ASSIGN_OR_RETURN(IcebergSchema schema, ConvertSchema(x, what + ": schema"));
      m.schemas.push_back(std::move(schema));
    }
    m.current_schema_id = static_cast<int32_t>(j.value("current-schema-id", m.schemas.front().schema_id));
  } else if (auto s1 = j.find("schema"); s1 != j.end()) {  // v1
    RAP_ASSIGN_OR_RETURN(IcebergSchema schema, ConvertSchema(*s1, what + ": schema"));
    m.current_schema_id = schema.schema_id;
    m.schemas.push_back(std::move(schema));
  } else {
    return Status::Corrupt(what + ": neither 'schemas' nor 'schema'");
  }
  if (!m.Schema(m.current_schema_id)) {
    return Status::Corrupt(what + ": current-schema-id " + std::to_string(m.current_schema_id) + " names no schema");
  }
  if (auto s = j.find("partition-specs"); s != j.end() && s->is_array() && !s->empty()) {
    for (const json& x : *s) {
      if (!x.is_object()) return Status::Corrupt(what + ": a partition spec is not an object");
      auto f = x.find("fields");
      if (f == x.end()) return Status::Corrupt(what + ": a partition spec has no 'fields'");
      RAP_ASSIGN_OR_RETURN(PartitionSpec spec,
                           ConvertSpec(*f, static_cast<int32_t>(x.value("spec-id", 0)), what + ": partition spec"));
      m.specs.push_back(std::move(spec));
    }
  } else if (auto s1 = j.find("partition-spec"); s1 != j.end()) {  // v1
    RAP_ASSIGN_OR_RETURN(PartitionSpec spec, ConvertSpec(*s1, 0, what + ": partition-spec"));
    m.specs.push_back(std::move(spec));
  }
  if (auto d = j.find("default-spec-id"); d != j.end() && d->is_number_integer()) {
    m.default_spec_id = static_cast<int32_t>(d->get<int64_t>());
  }
  if (auto c = j.find("current-snapshot-id"); c != j.end() && c->is_number_integer() && c->get<int64_t>() != -1) {
    m.current_snapshot_id = c->get<int64_t>();
  }
  if (auto s = j.find("snapshots"); s != j.end() && s->is_array()) {
    for (const json& x : *s) {
      if (!x.is_object()) return Status::Corrupt(what + ": a snapshot is not an object");
      Snapshot snap;
      RAP_ASSIGN_OR_RETURN(snap.snapshot_id, GetInt(x, "snapshot-id", what + ": snapshot"));
      const std::string where = what + ": snapshot " + std::to_string(snap.snapshot_id);
      snap.sequence_number = x.value("sequence-number", int64_t{0});
      RAP_ASSIGN_OR_RETURN(snap.timestamp_ms, GetInt(x, "timestamp-ms", where));
      if (auto ml = x.find("manifest-list"); ml != x.end() && ml->is_string()) {
        snap.manifest_list = ml->get<std::string>();
      } else if (auto ms = x.find("manifests"); ms != x.end() && ms->is_array()) {
        for (const json& p : *ms) {
          if (!p.is_string()) return Status::Corrupt(where + ": 'manifests' holds a non-string");
          snap.manifests.push_back(p.get<std::string>());
        }
      } else {
        return Status::Corrupt(where + ": neither 'manifest-list' nor 'manifests'");
      }
      if (auto sid = x.find("schema-id"); sid != x.end() && sid->is_number_integer()) {
        snap.schema_id = sid->get<int32_t>();
      }
      m.snapshots.push_back(std::move(snap));
    }
  }
  if (auto p = j.find("properties"); p != j.end() && p->is_object()) {
    for (auto it = p->begin(); it != p->end(); ++it) {
      if (it.value().is_string()) m.properties[it.key()] = it.value().get<std::string>();
    }
  }
  return m;
}

Result<std::vector<read::NameMappingField>> ConvertMapping(const json& a, const std::string& where, int depth) {
  if (depth > 64) return Status::Corrupt(where + ": name mapping nested deeper than 64");
  if (!a.is_array()) return Status::Corrupt(where + ": name mapping fields are not an array");
  std::vector<read::NameMappingField> out;
  for (const json& f : a) {
    if (!f.is_object()) return Status::Corrupt(where + ": a name mapping field is not an object");
    read::NameMappingField m;
    if (auto id = f.find("field-id"); id != f.end() && !id->is_null()) {
      if (!id->is_number_integer()) return Status::Corrupt(where + ": 'field-id' is not an integer");
      m.id = id->get<int32_t>();
    }
    auto names = f.find("names");
    if (names == f.end() || !names->is_array()) return Status::Corrupt(where + ": a name mapping field without 'names'");
    for (const json& n : *names) {
      if (!n.is_string()) return Status::Corrupt(where + ": 'names' holds a non-string");
      m.names.push_back(n.get<std::string>());
    }
    if (auto sub = f.find("fields"); sub != f.end() && !sub->is_null()) {
      RAP_ASSIGN_OR_RETURN(m.fields, ConvertMapping(*sub, where, depth + 1));
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

Result<read::NameMapping> ParseNameMapping(std::string_view text, const std::string& what) {
  const std::string where = what + ": schema.name-mapping.default";
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status::Corrupt(where + " is not valid JSON");
  try {
    return ConvertMapping(j, where, 0);
  } catch (const std::exception& e) {  // nlohmann range errors in get<int32_t>()
    return Status::Corrupt(where + ": " + e.what());
  }
}

bool PartitionSpec::Unpartitioned() const {
  for (const PartitionField& f : fields) {
    if (f.transform != "void") return false;
  }
  return true;
}

const IcebergSchema* TableMetadata::Schema(int32_t id) const {
  for (const IcebergSchema& s : schemas) {
    if (s.schema_id == id) return &s;
  }
  return nullptr;
}

const PartitionSpec* TableMetadata::Spec(int32_t id) const {
  for (const PartitionSpec& s : specs) {
    if (s.spec_id == id) return &s;
  }
  return nullptr;
}

Result<TableMetadata> ParseTableMetadata(std::string_view text, const std::string& what) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status::Corrupt(what + ": table metadata is not valid JSON");
  try {
    return Parse(j, what);
  } catch (const std::exception& e) {  // nlohmann type errors in value(): a field of the wrong type
    return Status::Corrupt(what + ": " + e.what());
  }
}

Result<const Snapshot*> SelectSnapshot(const TableMetadata& m, std::optional<int64_t> snapshot_id,
                                       std::optional<int64_t> as_of_ms, const std::string& what) {
  if (snapshot_id) {
    for (const Snapshot& s : m.snapshots) {
      if (s.snapshot_id == *snapshot_id) return &s;
    }
    return Status::NotFound(what + ": no snapshot " + std::to_string(*snapshot_id));
  }
  if (as_of_ms) {
    const Snapshot* best = nullptr;
    for (const Snapshot& s : m.snapshots) {
      if (s.timestamp_ms <= *as_of_ms && (!best || s.timestamp_ms >= best->timestamp_ms)) best = &s;
    }
    if (!best) return Status::NotFound(what + ": no snapshot at or before " + std::to_string(*as_of_ms) + " ms");
    return best;
  }
  if (!m.current_snapshot_id) return nullptr;
  for (const Snapshot& s : m.snapshots) {
    if (s.snapshot_id == *m.current_snapshot_id) return &s;
  }
  return Status::Corrupt(what + ": current-snapshot-id " + std::to_string(*m.current_snapshot_id) +
                         " names no snapshot");
}

Result<int64_t> ParseAsOf(std::string_view text) {
  const std::string s(text);
  const std::string bad =
      "--as-of '" + s + "': expected milliseconds since the epoch or a time YYYY-MM-DD[ HH:MM[:SS[.fraction]]][zone]" +
      " (no zone = UTC)";
  if (s.empty()) return Status::InvalidArgument(bad);
  if (std::optional<int64_t> ms = columnar::ParseInt64(s)) return *ms;
  // The one literal grammar of rap (columnar/literal.h): its years have 4 to 6 digits, so the
  // milliseconds always fit int64 (a hand parser here took any int year and overflowed).
  columnar::TimestampLiteral t;
  if (!columnar::ParseTimestamp(s, &t).ok()) return Status::InvalidArgument(bad);
  return t.seconds * 1000 + t.nanos / 1000000;
}

Result<std::pair<std::string, std::string>> ParseLocationMapping(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Status::InvalidArgument("--location-map '" + std::string(text) + "': expected OLD=NEW (OLD not empty)");
  }
  return std::make_pair(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
}

}  // namespace rap::table::iceberg
