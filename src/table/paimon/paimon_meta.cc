#include "table/paimon/paimon_meta.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <tuple>

#include "rap/avro/object_container.h"
#include "rap/orc/reader.h"
#include "rap/table/deletion_vector.h"

#include <zlib.h>

namespace rap::table::paimon {

namespace {

using json = nlohmann::json;
using avro::Kind;
using avro::Value;

constexpr int kMaxTypeDepth = 32;

Result<json> ParseJson(std::string_view text, const std::string& what) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Corrupt(what + ": not valid JSON");
  if (!j.is_object()) return Status::Corrupt(what + ": not a JSON object");
  return j;
}

Result<int64_t> JsonInt(const json& j, const char* key, const std::string& what) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) {
    return Status::Corrupt(what + ": '" + key + "' is missing or not an integer");
  }
  return it->get<int64_t>();
}

std::string JsonString(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// The integer arguments of "NAME(a, b)"; empty when none.
Result<std::vector<int64_t>> TypeArgs(const std::string& t, const std::string& what) {
  std::vector<int64_t> out;
  const size_t open = t.find('(');
  if (open == std::string::npos) return out;
  const size_t close = t.find(')', open);
  if (close == std::string::npos) return Status::Corrupt(what + ": type '" + t + "' has no closing parenthesis");
  std::string_view args(t.data() + open + 1, close - open - 1);
  while (!args.empty()) {
    const size_t comma = args.find(',');
    const std::string a = Trim(args.substr(0, comma));
    char* end = nullptr;
    const long long v = std::strtoll(a.c_str(), &end, 10);
    if (a.empty() || *end || v < 0 || v > (int64_t{1} << 31)) {
      return Status::Corrupt(what + ": type '" + t + "' has argument '" + a + "'");
    }
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    args.remove_prefix(comma + 1);
  }
  return out;
}

struct Typed {
  std::string root;
  DataTypePtr type;
  read::FieldIdTree ids;
  bool nullable = true;
};

Result<Typed> ParseType(const json& t, const std::string& what, int depth);

Result<Typed> ParseRow(const json& fields, const std::string& what, int depth, std::vector<SchemaField>* out_fields) {
  if (!fields.is_array()) return Status::Corrupt(what + ": 'fields' is not an array");
  std::vector<Field> children;
  Typed out;
  out.root = "ROW";
  for (size_t i = 0; i < fields.size(); ++i) {
    const json& f = fields[i];
    const std::string where = what + ": field " + std::to_string(i);
    if (!f.is_object()) return Status::Corrupt(where + ": not an object");
    RAP_ASSIGN_OR_RETURN(int64_t id, JsonInt(f, "id", where));
    const std::string name = JsonString(f, "name");
    if (name.empty()) return Status::Corrupt(where + ": no name");
    auto type = f.find("type");
    if (type == f.end()) return Status::Corrupt(where + " (" + name + "): no type");
    RAP_ASSIGN_OR_RETURN(Typed ft, ParseType(*type, where + " (" + name + ")", depth + 1));
    children.push_back(Field{name, ft.type, ft.nullable});
    read::FieldIdTree ids = ft.ids;
    ids.id = static_cast<int32_t>(id);
    out.ids.children.push_back(ids);
    if (out_fields) {
      SchemaField sf;
      sf.id = static_cast<int32_t>(id);
      sf.name = name;
      sf.type_name = ft.root;
      sf.type = ft.type;
      sf.ids = std::move(ids);
      sf.nullable = ft.nullable;
      out_fields->push_back(std::move(sf));
    }
  }
  out.type = MakeStruct(std::move(children));
  return out;
}

Result<Typed> ParseType(const json& t, const std::string& what, int depth) {
  if (depth > kMaxTypeDepth) return Status::Corrupt(what + ": types nested deeper than " + std::to_string(kMaxTypeDepth));
  Typed out;
  std::string text;
  if (t.is_string()) {
    text = t.get<std::string>();
  } else if (t.is_object()) {
    text = JsonString(t, "type");
  } else {
    return Status::Corrupt(what + ": a type is neither a string nor an object");
  }
  text = Upper(Trim(text));
  if (text.size() >= 9 && text.compare(text.size() - 9, 9, " NOT NULL") == 0) {
    out.nullable = false;
    text = Trim(text.substr(0, text.size() - 9));
  }
  size_t end = 0;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
  out.root = text.substr(0, end);
  const std::string& r = out.root;
  if (t.is_object()) {
    if (r == "ROW") {
      RAP_ASSIGN_OR_RETURN(Typed row, ParseRow(t.contains("fields") ? t["fields"] : json(), what, depth, nullptr));
      row.nullable = out.nullable;
      return row;
    }
    if (r == "ARRAY" || r == "MULTISET") {
      if (r == "MULTISET") return Status::NotSupported(what + ": Paimon MULTISET columns are not read by rap");
      auto e = t.find("element");
      if (e == t.end()) return Status::Corrupt(what + ": ARRAY without 'element'");
      RAP_ASSIGN_OR_RETURN(Typed et, ParseType(*e, what + " element", depth + 1));
      out.type = MakeList(Field{"element", et.type, et.nullable});
      out.ids.children.push_back(et.ids);
      return out;
    }
    if (r == "MAP") {
      auto k = t.find("key");
      auto v = t.find("value");
      if (k == t.end() || v == t.end()) return Status::Corrupt(what + ": MAP without 'key' and 'value'");
      RAP_ASSIGN_OR_RETURN(Typed kt, ParseType(*k, what + " key", depth + 1));
      RAP_ASSIGN_OR_RETURN(Typed vt, ParseType(*v, what + " value", depth + 1));
      out.type = MakeMap(Field{"key", kt.type, false}, Field{"value", vt.type, vt.nullable}, vt.nullable);
      read::FieldIdTree entries;
      entries.children = {kt.ids, vt.ids};
      out.ids.children.push_back(std::move(entries));
      return out;
    }
    return Status::NotSupported(what + ": Paimon type '" + text + "' is not read by rap");
  }
  RAP_ASSIGN_OR_RETURN(std::vector<int64_t> args, TypeArgs(text, what));
  if (r == "BOOLEAN") {
    out.type = MakeType(TypeId::kBool);
  } else if (r == "TINYINT") {
    out.type = MakeType(TypeId::kInt8);
  } else if (r == "SMALLINT") {
    out.type = MakeType(TypeId::kInt16);
  } else if (r == "INT" || r == "INTEGER") {
    out.type = MakeType(TypeId::kInt32);
  } else if (r == "BIGINT") {
    out.type = MakeType(TypeId::kInt64);
  } else if (r == "FLOAT") {
    out.type = MakeType(TypeId::kFloat32);
  } else if (r == "DOUBLE") {
    out.type = MakeType(TypeId::kFloat64);
  } else if (r == "CHAR" || r == "VARCHAR" || r == "STRING") {
    out.type = MakeType(TypeId::kString);
  } else if (r == "BINARY" || r == "VARBINARY" || r == "BYTES") {
    out.type = MakeType(TypeId::kBinary);
  } else if (r == "DECIMAL" || r == "NUMERIC" || r == "DEC") {
    const int64_t p = args.empty() ? 10 : args[0];
    const int64_t s = args.size() > 1 ? args[1] : 0;
    if (p < 1 || p > 38 || s > p) return Status::Corrupt(what + ": type '" + text + "'");
    out.type = MakeDecimal(static_cast<int32_t>(p), static_cast<int32_t>(s));
  } else if (r == "DATE") {
    out.type = MakeType(TypeId::kDate32);
  } else if (r == "TIME") {
    out.type = MakeTemporal(TypeId::kTime32, TimeUnit::kMilli);
  } else if (r == "TIMESTAMP" || r == "TIMESTAMP_LTZ") {
    const int64_t p = args.empty() ? 6 : args[0];
    if (p > 9) return Status::Corrupt(what + ": type '" + text + "'");
    const TimeUnit unit = p <= 3 ? TimeUnit::kMilli : p <= 6 ? TimeUnit::kMicro : TimeUnit::kNano;
    const bool ltz = r == "TIMESTAMP_LTZ" || text.find("WITH LOCAL TIME ZONE") != std::string::npos;
    out.type = MakeTemporal(TypeId::kTimestamp, unit, ltz ? "UTC" : "");
  } else {
    return Status::NotSupported(what + ": Paimon type '" + text + "' is not read by rap");
  }
  return out;
}

// ---- manifest records -------------------------------------------------------------------------

Result<Value> OrcValue(const ArrayData& a, int64_t i, const std::string& what, int depth) {
  Value v;
  if (depth > kMaxTypeDepth) return Status::Corrupt(what + ": nested deeper than " + std::to_string(kMaxTypeDepth));
  if (a.IsNull(i)) return v;
  switch (a.type->id) {
    case TypeId::kBool:
      v.kind = Kind::kBoolean;
      v.boolean = ((a.buffers[1].data()[(a.offset + i) >> 3] >> ((a.offset + i) & 7)) & 1) != 0;
      return v;
    case TypeId::kInt8: v.kind = Kind::kInt; v.integer = a.values<int8_t>()[i]; return v;
    case TypeId::kInt16: v.kind = Kind::kInt; v.integer = a.values<int16_t>()[i]; return v;
    case TypeId::kInt32: case TypeId::kDate32: v.kind = Kind::kInt; v.integer = a.values<int32_t>()[i]; return v;
    case TypeId::kInt64: case TypeId::kTimestamp: v.kind = Kind::kLong; v.integer = a.values<int64_t>()[i]; return v;
    case TypeId::kFloat32: v.kind = Kind::kFloat; v.real = a.values<float>()[i]; return v;
    case TypeId::kFloat64: v.kind = Kind::kDouble; v.real = a.values<double>()[i]; return v;
    case TypeId::kString:
    case TypeId::kBinary: {
      v.kind = a.type->id == TypeId::kString ? Kind::kString : Kind::kBytes;
      const int32_t* o = a.offsets();
      v.bytes.assign(reinterpret_cast<const char*>(a.buffers[2].data()) + o[i], static_cast<size_t>(o[i + 1] - o[i]));
      return v;
    }
    case TypeId::kStruct: {
      v.kind = Kind::kRecord;
      for (size_t c = 0; c < a.children.size() && c < a.type->children.size(); ++c) {
        RAP_ASSIGN_OR_RETURN(Value cv, OrcValue(*a.children[c], a.offset + i, what, depth + 1));
        v.items.push_back(std::move(cv));
        v.names.push_back(a.type->children[c].name);
      }
      return v;
    }
    case TypeId::kList: {
      v.kind = Kind::kArray;
      const int32_t* o = a.offsets();
      for (int32_t k = o[i]; k < o[i + 1]; ++k) {
        RAP_ASSIGN_OR_RETURN(Value cv, OrcValue(*a.children[0], k, what, depth + 1));
        v.items.push_back(std::move(cv));
      }
      return v;
    }
    default:
      return Status::NotSupported(what + ": a manifest column of type " + a.type->ToString());
  }
}

Result<std::vector<Value>> OrcRecords(std::span<const uint8_t> bytes, const std::string& what) {
  Buffer buf = Buffer::Copy(bytes.data(), bytes.size());
  RAP_ASSIGN_OR_RETURN(auto reader, orc::OrcReader::Open(what, std::move(buf)));
  reader->set_max_stripe_values(uint64_t{1} << 22);
  RAP_ASSIGN_OR_RETURN(std::vector<RecordBatch> batches, reader->ReadAll());
  std::vector<Value> out;
  for (const RecordBatch& b : batches) {
    for (int64_t r = 0; r < b.num_rows; ++r) {
      Value rec;
      rec.kind = Kind::kRecord;
      for (size_t c = 0; c < b.columns.size(); ++c) {
        RAP_ASSIGN_OR_RETURN(Value v, OrcValue(*b.columns[c], r, what + ": row " + std::to_string(out.size()), 0));
        rec.items.push_back(std::move(v));
        rec.names.push_back(b.schema->fields[c].name);
      }
      out.push_back(std::move(rec));
    }
  }
  return out;
}

Result<std::string> String(const Value& rec, const char* name, const std::string& where) {
  const Value* v = rec.Find(name);
  if (!v || (v->kind != Kind::kString && v->kind != Kind::kBytes)) {
    return Status::Corrupt(where + ": '" + name + "' is missing or not a string");
  }
  return v->bytes;
}

Result<int64_t> Int(const Value& rec, const char* name, const std::string& where) {
  int64_t x = 0;
  if (!rec.GetInt(name, &x)) return Status::Corrupt(where + ": '" + name + "' is missing or not an integer");
  return x;
}

}  // namespace

const SchemaField* TableSchema::Field(const std::string& name) const {
  for (const SchemaField& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string TableSchema::Option(const std::string& key, const std::string& fallback) const {
  auto it = options.find(key);
  return it == options.end() ? fallback : it->second;
}

Result<Snapshot> ParseSnapshot(std::string_view text, const std::string& what) {
  RAP_ASSIGN_OR_RETURN(json j, ParseJson(text, what));
  Snapshot s;
  RAP_ASSIGN_OR_RETURN(s.id, JsonInt(j, "id", what));
  RAP_ASSIGN_OR_RETURN(s.schema_id, JsonInt(j, "schemaId", what));
  s.base_manifest_list = JsonString(j, "baseManifestList");
  s.delta_manifest_list = JsonString(j, "deltaManifestList");
  s.index_manifest = JsonString(j, "indexManifest");
  s.commit_kind = JsonString(j, "commitKind");
  if (s.base_manifest_list.empty() || s.delta_manifest_list.empty()) {
    return Status::Corrupt(what + ": no baseManifestList or deltaManifestList");
  }
  for (const std::string* name : {&s.base_manifest_list, &s.delta_manifest_list, &s.index_manifest}) {
    if (name->find('/') != std::string::npos || *name == "..") {
      return Status::Corrupt(what + ": manifest list name '" + *name + "' is not a file name");
    }
  }
  auto tm = j.find("timeMillis");
  if (tm != j.end() && tm->is_number_integer()) s.time_ms = tm->get<int64_t>();
  auto total = j.find("totalRecordCount");
  if (total != j.end() && total->is_number_integer()) s.total_record_count = total->get<int64_t>();
  return s;
}

Result<TableSchema> ParseSchema(std::string_view text, const std::string& what) {
  RAP_ASSIGN_OR_RETURN(json j, ParseJson(text, what));
  TableSchema s;
  RAP_ASSIGN_OR_RETURN(s.id, JsonInt(j, "id", what));
  if (!j.contains("fields")) return Status::Corrupt(what + ": no 'fields'");
  RAP_RETURN_NOT_OK(ParseRow(j["fields"], what, 0, &s.fields).status());
  for (const char* key : {"partitionKeys", "primaryKeys"}) {
    auto it = j.find(key);
    if (it == j.end()) continue;
    if (!it->is_array()) return Status::Corrupt(what + ": '" + key + "' is not an array");
    for (const json& k : *it) {
      if (!k.is_string()) return Status::Corrupt(what + ": '" + key + "' holds a non-string");
      const std::string name = k.get<std::string>();
      if (!s.Field(name)) return Status::Corrupt(what + ": '" + key + "' names '" + name + "', not a field");
      (std::string_view(key) == "partitionKeys" ? s.partition_keys : s.primary_keys).push_back(name);
    }
  }
  if (auto it = j.find("options"); it != j.end() && it->is_object()) {
    for (auto& [k, v] : it->items()) {
      if (v.is_string()) s.options[k] = v.get<std::string>();
    }
  }
  return s;
}

Result<std::vector<Value>> ReadManifestRecords(std::span<const uint8_t> bytes, const std::string& what) {
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "Obj\x01", 4) == 0) {
    RAP_ASSIGN_OR_RETURN(avro::ContainerFile file, avro::ReadContainerFile(bytes, what));
    return std::move(file.records);
  }
  if (bytes.size() >= 3 && std::memcmp(bytes.data(), "ORC", 3) == 0) return OrcRecords(bytes, what);
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "PAR1", 4) == 0) {
    return Status::NotSupported(what + ": Paimon manifests in Parquet (manifest.format = parquet) are not read by rap "
                                       "yet (Avro and ORC are)");
  }
  return Status::Corrupt(what + ": neither an Avro object container nor an ORC file (at byte offset 0)");
}

Result<std::vector<ManifestMeta>> ParseManifestList(const std::vector<Value>& records, const std::string& what) {
  std::vector<ManifestMeta> out;
  for (size_t i = 0; i < records.size(); ++i) {
    const Value& r = records[i];
    const std::string where = what + ": manifest " + std::to_string(i);
    ManifestMeta m;
    RAP_ASSIGN_OR_RETURN(m.file_name, String(r, "_FILE_NAME", where));
    if (m.file_name.empty() || m.file_name.find('/') != std::string::npos || m.file_name == "..") {
      return Status::Corrupt(where + ": '" + m.file_name + "' is not a file name");
    }
    RAP_ASSIGN_OR_RETURN(m.file_size, Int(r, "_FILE_SIZE", where));
    int64_t x = 0;
    if (r.GetInt("_NUM_ADDED_FILES", &x)) m.num_added_files = x;
    if (r.GetInt("_NUM_DELETED_FILES", &x)) m.num_deleted_files = x;
    if (r.GetInt("_SCHEMA_ID", &x)) m.schema_id = x;
    out.push_back(std::move(m));
  }
  return out;
}

// The fields a manifest entry and an index manifest entry begin with: _KIND, _PARTITION, _BUCKET.
Status ParseEntryHead(const Value& e, const std::string& where, int* kind, std::string* partition, int32_t* bucket) {
  RAP_ASSIGN_OR_RETURN(int64_t k, Int(e, "_KIND", where));
  if (k != 0 && k != 1) return Status::Corrupt(where + ": _KIND " + std::to_string(k) + " (0 ADD, 1 DELETE)");
  *kind = static_cast<int>(k);
  RAP_ASSIGN_OR_RETURN(*partition, String(e, "_PARTITION", where));
  RAP_ASSIGN_OR_RETURN(int64_t b, Int(e, "_BUCKET", where));
  if (b < -2 || b > (int64_t{1} << 30)) return Status::Corrupt(where + ": _BUCKET " + std::to_string(b));
  *bucket = static_cast<int32_t>(b);
  return Status::OK();
}

// A file named by a manifest lies in its bucket folder: a plain name, no path.
Status CheckFileName(const std::string& name, const std::string& where, const char* what) {
  if (name.empty() || name.find('/') != std::string::npos || name == ".." || name == ".") {
    return Status::Corrupt(where + ": " + what + " name '" + name + "' is not a file name");
  }
  return Status::OK();
}

Result<std::vector<ManifestEntry>> ParseManifest(const std::vector<Value>& records, const std::string& what) {
  std::vector<ManifestEntry> out;
  for (size_t i = 0; i < records.size(); ++i) {
    const Value& e = records[i];
    const std::string where = what + ": entry " + std::to_string(i);
    ManifestEntry m;
    RAP_RETURN_NOT_OK(ParseEntryHead(e, where, &m.kind, &m.partition, &m.bucket));
    int64_t x = 0;
    if (e.GetInt("_TOTAL_BUCKETS", &x)) m.total_buckets = static_cast<int32_t>(x);
    const Value* f = e.Find("_FILE");
    if (!f || f->kind != Kind::kRecord) return Status::Corrupt(where + ": no _FILE record");
    DataFileMeta& d = m.file;
    RAP_ASSIGN_OR_RETURN(d.file_name, String(*f, "_FILE_NAME", where));
    RAP_RETURN_NOT_OK(CheckFileName(d.file_name, where, "data file"));
    RAP_ASSIGN_OR_RETURN(d.file_size, Int(*f, "_FILE_SIZE", where));
    RAP_ASSIGN_OR_RETURN(d.row_count, Int(*f, "_ROW_COUNT", where));
    if (d.file_size < 0 || d.row_count < 0) return Status::Corrupt(where + ": negative _FILE_SIZE or _ROW_COUNT");
    if (const Value* k = f->Find("_MIN_KEY"); k && !k->is_null()) d.min_key = k->bytes;
    if (const Value* k = f->Find("_MAX_KEY"); k && !k->is_null()) d.max_key = k->bytes;
    if (f->GetInt("_MIN_SEQUENCE_NUMBER", &x)) d.min_sequence_number = x;
    if (f->GetInt("_MAX_SEQUENCE_NUMBER", &x)) d.max_sequence_number = x;
    if (f->GetInt("_SCHEMA_ID", &x)) d.schema_id = x;
    RAP_ASSIGN_OR_RETURN(int64_t level, Int(*f, "_LEVEL", where));
    if (level < 0 || level > 1000) return Status::Corrupt(where + ": _LEVEL " + std::to_string(level));
    d.level = static_cast<int32_t>(level);
    if (f->GetInt("_DELETE_ROW_COUNT", &x)) {
      if (x < 0 || x > d.row_count) return Status::Corrupt(where + ": _DELETE_ROW_COUNT " + std::to_string(x));
      d.delete_row_count = x;
    }
    if (const Value* p = f->Find("_EXTERNAL_PATH"); p && p->kind == Kind::kString) d.external_path = p->bytes;
    if (const Value* w = f->Find("_WRITE_COLS"); w && !w->is_null()) d.partial_columns = true;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<const IndexManifestEntry*> LiveIndexEntries(const std::vector<IndexManifestEntry>& entries) {
  std::map<std::tuple<std::string, int32_t, std::string>, const IndexManifestEntry*> live;
  for (const IndexManifestEntry& e : entries) {
    const auto key = std::make_tuple(e.partition, e.bucket, e.file_name);
    if (e.kind == 1) {
      live.erase(key);
    } else {
      live[key] = &e;
    }
  }
  std::vector<const IndexManifestEntry*> out;
  for (const auto& [key, e] : live) out.push_back(e);
  return out;
}

Result<std::vector<IndexManifestEntry>> ParseIndexManifest(const std::vector<Value>& records, const std::string& what) {
  std::vector<IndexManifestEntry> out;
  for (size_t i = 0; i < records.size(); ++i) {
    const Value& e = records[i];
    const std::string where = what + ": entry " + std::to_string(i);
    IndexManifestEntry m;
    RAP_RETURN_NOT_OK(ParseEntryHead(e, where, &m.kind, &m.partition, &m.bucket));
    RAP_ASSIGN_OR_RETURN(m.index_type, String(e, "_INDEX_TYPE", where));
    RAP_ASSIGN_OR_RETURN(m.file_name, String(e, "_FILE_NAME", where));
    RAP_RETURN_NOT_OK(CheckFileName(m.file_name, where, "index file"));
    RAP_ASSIGN_OR_RETURN(m.file_size, Int(e, "_FILE_SIZE", where));
    RAP_ASSIGN_OR_RETURN(m.row_count, Int(e, "_ROW_COUNT", where));
    if (m.file_size < 0 || m.row_count < 0) return Status::Corrupt(where + ": negative _FILE_SIZE or _ROW_COUNT");
    if (const Value* p = e.Find("_EXTERNAL_PATH"); p && p->kind == Kind::kString) m.external_path = p->bytes;
    if (const Value* ranges = e.Find("_DELETIONS_VECTORS_RANGES"); ranges && !ranges->is_null()) {
      if (ranges->kind != Kind::kArray) return Status::Corrupt(where + ": _DELETIONS_VECTORS_RANGES is not an array");
      for (size_t k = 0; k < ranges->items.size(); ++k) {
        const Value& r = ranges->items[k];
        const std::string rw = where + ": deletion vector " + std::to_string(k);
        if (r.kind != Kind::kRecord) return Status::Corrupt(rw + ": not a record");
        DeletionVectorRange d;
        RAP_ASSIGN_OR_RETURN(d.data_file, String(r, "f0", rw));
        RAP_ASSIGN_OR_RETURN(d.offset, Int(r, "f1", rw));
        RAP_ASSIGN_OR_RETURN(d.length, Int(r, "f2", rw));
        if (d.offset < 0 || d.length < 4) {
          return Status::Corrupt(rw + " (" + d.data_file + "): offset " + std::to_string(d.offset) + ", length " +
                                 std::to_string(d.length));
        }
        int64_t card = 0;
        if (r.GetInt("_CARDINALITY", &card)) d.cardinality = card;
        m.deletion_vectors.push_back(std::move(d));
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::vector<uint64_t>> ParseDeletionVector(std::span<const uint8_t> file, const DeletionVectorRange& range,
                                                  uint64_t max_rows, const std::string& what) {
  constexpr uint32_t kMagic32 = 1581511376;  // big-endian
  constexpr uint32_t kMagic64 = 1681511377;  // little-endian (Iceberg's and Delta's)
  const uint64_t kMaxRows = std::min<uint64_t>(max_rows, uint64_t{1} << 31);
  const std::string where = what + ": deletion vector of " + range.data_file;
  if (file.empty()) return Status::Corrupt(what + ": an empty deletion-vector index file (no version byte)");
  if (file[0] != 1) {
    return Status::NotSupported(what + ": deletion-vector index file version " + std::to_string(file[0]) +
                                " at byte offset 0 (rap reads version 1)");
  }
  const uint64_t off = static_cast<uint64_t>(range.offset);
  const uint64_t len = static_cast<uint64_t>(range.length);
  if (off < 1 || off > file.size() || len < 4 || len > file.size() || 8 + len > file.size() - off) {
    return Status::Corrupt(where + " at byte offset " + std::to_string(range.offset) + " of length " +
                           std::to_string(range.length) + " (plus 8 bytes of size and CRC) is past the file's " +
                           std::to_string(file.size()) + " bytes");
  }
  const uint8_t* p = file.data() + off;
  auto be32 = [](const uint8_t* q) {
    return (uint32_t{q[0]} << 24) | (uint32_t{q[1]} << 16) | (uint32_t{q[2]} << 8) | uint32_t{q[3]};
  };
  const uint32_t size = be32(p);
  if (size != len) {
    return Status::Corrupt(where + ": the size at byte offset " + std::to_string(off) + " is " + std::to_string(size) +
                           ", the index manifest says " + std::to_string(len));
  }
  const uint32_t crc = be32(p + 4 + len);
  const uint32_t actual = static_cast<uint32_t>(crc32(0L, p + 4, static_cast<uInt>(len)));
  if (crc != actual) {
    return Status::Corrupt(where + ": CRC-32 mismatch at byte offset " + std::to_string(off + 4 + len));
  }
  const uint32_t magic = be32(p + 4);
  const uint32_t magic_le = __builtin_bswap32(magic);
  std::vector<uint64_t> rows;
  const std::string bitmap_at = where + " (bitmap at byte offset " + std::to_string(off + 8) + ")";
  if (magic == kMagic32) {
    RAP_ASSIGN_OR_RETURN(rows, ParseRoaringBitmap32(std::span<const uint8_t>(p + 8, len - 4), bitmap_at, kMaxRows));
  } else if (magic_le == kMagic64) {
    RAP_ASSIGN_OR_RETURN(rows, ParseRoaringBitmapArray(std::span<const uint8_t>(p + 4, len), bitmap_at, kMaxRows));
  } else {
    return Status::Corrupt(where + ": magic " + std::to_string(magic) + " at byte offset " + std::to_string(off + 4) +
                           " (expected " + std::to_string(kMagic32) + ")");
  }
  if (range.cardinality && *range.cardinality != static_cast<int64_t>(rows.size())) {
    return Status::Corrupt(where + ": holds " + std::to_string(rows.size()) + " rows, the index manifest says " +
                           std::to_string(*range.cardinality));
  }
  return rows;
}

int CompareDatum(const Datum& a, const Datum& b) {
  if (a.index() != b.index()) return a.index() < b.index() ? -1 : 1;
  if (std::holds_alternative<int64_t>(a)) {
    const int64_t x = std::get<int64_t>(a), y = std::get<int64_t>(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (std::holds_alternative<double>(a)) {
    const double x = std::get<double>(a), y = std::get<double>(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (std::holds_alternative<std::string>(a)) {
    const std::string& x = std::get<std::string>(a);
    const std::string& y = std::get<std::string>(b);
    const int c = std::memcmp(x.data(), y.data(), std::min(x.size(), y.size()));
    if (c != 0) return c < 0 ? -1 : 1;
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  return 0;
}

Result<std::vector<Datum>> DecodeBinaryRow(std::string_view bytes, const std::vector<std::string>& type_names,
                                           const std::string& what) {
  if (bytes.size() < 4) return Status::Corrupt(what + ": a BinaryRow of " + std::to_string(bytes.size()) + " bytes");
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint32_t arity = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
  if (arity != type_names.size()) {
    return Status::Corrupt(what + ": a BinaryRow of arity " + std::to_string(arity) + ", expected " +
                           std::to_string(type_names.size()));
  }
  const uint8_t* row = p + 4;
  const uint64_t size = bytes.size() - 4;
  const uint64_t null_bytes = ((uint64_t{arity} + 63 + 8) / 64) * 8;
  if (null_bytes + uint64_t{arity} * 8 > size) {
    return Status::Corrupt(what + ": a BinaryRow of arity " + std::to_string(arity) + " needs " +
                           std::to_string(null_bytes + uint64_t{arity} * 8) + " bytes, has " + std::to_string(size));
  }
  std::vector<Datum> out;
  for (uint32_t i = 0; i < arity; ++i) {
    const uint32_t bit = i + 8;
    if ((row[bit >> 3] >> (bit & 7)) & 1) {
      out.emplace_back(std::monostate{});
      continue;
    }
    const uint64_t slot_at = null_bytes + uint64_t{i} * 8;
    const uint8_t* slot = row + slot_at;
    uint64_t word = 0;
    for (int b = 7; b >= 0; --b) word = (word << 8) | slot[b];
    const std::string& t = type_names[i];
    if (t == "BOOLEAN" || t == "TINYINT") {
      out.emplace_back(static_cast<int64_t>(static_cast<int8_t>(slot[0])));
    } else if (t == "SMALLINT") {
      out.emplace_back(static_cast<int64_t>(static_cast<int16_t>(word & 0xffff)));
    } else if (t == "INT" || t == "INTEGER" || t == "DATE" || t == "TIME") {
      out.emplace_back(static_cast<int64_t>(static_cast<int32_t>(word & 0xffffffffu)));
    } else if (t == "BIGINT") {
      out.emplace_back(static_cast<int64_t>(word));
    } else if (t == "FLOAT") {
      float f = 0;
      std::memcpy(&f, slot, 4);
      out.emplace_back(static_cast<double>(f));
    } else if (t == "DOUBLE") {
      double d = 0;
      std::memcpy(&d, slot, 8);
      out.emplace_back(d);
    } else if (t == "CHAR" || t == "VARCHAR" || t == "STRING" || t == "BINARY" || t == "VARBINARY" || t == "BYTES") {
      if (slot[7] & 0x80) {  // up to 7 bytes inline; the length in the low 7 bits of the last byte
        const size_t len = slot[7] & 0x7f;
        if (len > 7) return Status::Corrupt(what + ": field " + std::to_string(i) + " inline length " + std::to_string(len));
        out.emplace_back(std::string(reinterpret_cast<const char*>(slot), len));
      } else {
        const uint64_t off = word >> 32;
        const uint64_t len = word & 0xffffffffu;
        if (off > size || len > size - off) {
          return Status::Corrupt(what + ": field " + std::to_string(i) + " at byte offset " +
                                 std::to_string(4 + slot_at) + " points at " + std::to_string(off) + "+" +
                                 std::to_string(len) + ", past the row's " + std::to_string(size) + " bytes");
        }
        out.emplace_back(std::string(reinterpret_cast<const char*>(row + off), len));
      }
    } else {
      return Status::NotSupported(what + ": BinaryRow field " + std::to_string(i) + " of type " + t +
                                  " is not decoded by rap");
    }
  }
  return out;
}

}  // namespace rap::table::paimon
