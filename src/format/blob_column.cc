// The blob column: folded columns <-> one JSON object per row, and the schema in the footer's
// key-value metadata (rap/format/blob_column.h).
#include "rap/format/blob_column.h"

#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "rap/columnar/array_format.h"
#include "rap/columnar/column_builder.h"

namespace rap::parquet {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kTypeNames[] = {
    "null",    "bool",    "int8",   "int16",   "int32",   "int64",   "uint8",      "uint16",
    "uint32",  "uint64",  "float16", "float32", "float64", "string",  "binary",     "fixed_size_binary",
    "decimal", "date32",  "time32", "time64",  "timestamp", "list",  "struct",     "map"};
constexpr const char* kUnitNames[] = {"s", "ms", "us", "ns"};

json FieldToJson(const Field& f);

json TypeToJson(const DataType& t) {
  json j;
  j["id"] = kTypeNames[static_cast<int>(t.id)];
  if (t.id == TypeId::kTime32 || t.id == TypeId::kTime64 || t.id == TypeId::kTimestamp) {
    j["unit"] = kUnitNames[static_cast<int>(t.unit)];
  }
  if (!t.timezone.empty()) j["tz"] = t.timezone;
  if (t.id == TypeId::kDecimal128) {
    j["precision"] = t.precision;
    j["scale"] = t.scale;
  }
  if (t.id == TypeId::kFixedSizeBinary) j["width"] = t.byte_width;
  if (!t.extension.empty()) j["extension"] = t.extension;
  if (!t.children.empty()) {
    json c = json::array();
    for (const Field& f : t.children) c.push_back(FieldToJson(f));
    j["children"] = std::move(c);
  }
  return j;
}

json FieldToJson(const Field& f) { return json{{"name", f.name}, {"nullable", f.nullable}, {"type", TypeToJson(*f.type)}}; }

Result<Field> FieldFromJson(const json& j, int depth);

Result<DataTypePtr> TypeFromJson(const json& j, int depth) {
  if (depth > 64) return Status::Corrupt("the types nest deeper than 64 levels");
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string()) return Status::Corrupt("a type without an \"id\"");
  const std::string id = j["id"].get<std::string>();
  int found = -1;
  for (int i = 0; i < static_cast<int>(std::size(kTypeNames)); ++i) {
    if (id == kTypeNames[i]) found = i;
  }
  if (found < 0) return Status::Corrupt("unknown type id \"" + id + "\"");
  auto t = std::make_shared<DataType>(*MakeType(static_cast<rap::TypeId>(found)));
  auto int_of = [&](const char* k, int32_t* out) -> Status {
    if (!j.contains(k)) return Status::OK();
    if (!j[k].is_number_integer()) return Status::Corrupt(fmt::format("type {}: \"{}\" is not an integer", id, k));
    *out = j[k].get<int32_t>();
    return Status::OK();
  };
  RAP_RETURN_NOT_OK(int_of("precision", &t->precision));
  RAP_RETURN_NOT_OK(int_of("scale", &t->scale));
  RAP_RETURN_NOT_OK(int_of("width", &t->byte_width));
  if (t->id == TypeId::kDecimal128 && (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision)) {
    return Status::Corrupt(fmt::format("decimal({}, {}) is out of range", t->precision, t->scale));
  }
  if (t->id == TypeId::kFixedSizeBinary && (t->byte_width < 1 || t->byte_width > (1 << 20))) {
    return Status::Corrupt(fmt::format("fixed_size_binary width {} is out of range", t->byte_width));
  }
  if (j.contains("unit")) {
    const std::string u = j["unit"].is_string() ? j["unit"].get<std::string>() : "";
    int ui = -1;
    for (int i = 0; i < 4; ++i) {
      if (u == kUnitNames[i]) ui = i;
    }
    if (ui < 0) return Status::Corrupt("type " + id + ": unknown unit");
    t->unit = static_cast<rap::TimeUnit>(ui);
  }
  if (j.contains("tz") && j["tz"].is_string()) t->timezone = j["tz"].get<std::string>();
  if (j.contains("extension") && j["extension"].is_string()) t->extension = j["extension"].get<std::string>();
  if (j.contains("children")) {
    if (!j["children"].is_array()) return Status::Corrupt("type " + id + ": \"children\" is not an array");
    for (const json& c : j["children"]) {
      RAP_ASSIGN_OR_RETURN(Field f, FieldFromJson(c, depth + 1));
      t->children.push_back(std::move(f));
    }
  }
  const size_t want = t->id == TypeId::kList || t->id == TypeId::kMap ? 1 : t->id == TypeId::kStruct ? t->children.size() : 0;
  if (t->children.size() != want) return Status::Corrupt(fmt::format("type {} has {} children", id, t->children.size()));
  return DataTypePtr(t);
}

Result<Field> FieldFromJson(const json& j, int depth) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || !j.contains("type")) {
    return Status::Corrupt("a field without a \"name\" and a \"type\"");
  }
  Field f;
  f.name = j["name"].get<std::string>();
  f.nullable = !j.contains("nullable") || !j["nullable"].is_boolean() || j["nullable"].get<bool>();
  auto t = TypeFromJson(j["type"], depth);
  if (!t.ok()) return t.status().WithContext("field '" + f.name + "'");
  f.type = *t;
  return f;
}

// `a` in the form the blob writes, everywhere below too: a JSON column's text as a quoted string
// (the "json" extension dropped, so it decodes back to the same text instead of to the JSON value it
// holds) and decimals as quoted decimal text (a JSON number would go through a double).
ArrayPtr BlobForm(const ArrayPtr& a) {
  if (a->type->id == TypeId::kDecimal128) {
    std::string data;
    std::vector<int32_t> offsets{0};
    for (int64_t i = 0; i < a->length; ++i) {
      if (!a->IsNull(i)) data += FormatValue(*a, i);
      offsets.push_back(static_cast<int32_t>(data.size()));
    }
    auto s = std::make_shared<ArrayData>();
    s->type = MakeType(TypeId::kString);
    s->length = a->length;
    s->null_count = a->null_count;
    s->buffers = {Buffer(), Buffer::Copy(offsets.data(), offsets.size() * sizeof(int32_t)),
                  Buffer::FromString(std::move(data))};
    if (a->null_count != 0) {
      std::vector<uint8_t> bits((static_cast<size_t>(a->length) + 7) / 8, 0);
      for (int64_t i = 0; i < a->length; ++i) {
        if (!a->IsNull(i)) bits[size_t(i) >> 3] |= static_cast<uint8_t>(1u << (i & 7));
      }
      s->null_count = -1;
      s->buffers[0] = Buffer::FromVector(std::move(bits));
    }
    return s;
  }
  bool nested = false;
  std::vector<ArrayPtr> children;
  for (const ArrayPtr& c : a->children) {
    children.push_back(BlobForm(c));
    nested = nested || children.back() != c;
  }
  if (a->type->extension != "json" && !nested) return a;
  auto copy = std::make_shared<ArrayData>(*a);
  if (a->type->extension == "json") {
    auto t = std::make_shared<DataType>(*a->type);
    t->extension.clear();
    copy->type = t;
  }
  copy->children = std::move(children);
  return copy;
}

}  // namespace

std::string BlobSpecToJson(const BlobSpec& spec) {
  json fields = json::array();
  for (const Field& f : spec.fields) fields.push_back(FieldToJson(f));
  return json{{"column", spec.column}, {"fields", std::move(fields)}}.dump();
}

Result<BlobSpec> ParseBlobSpec(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::Corrupt(std::string(kBlobMetadataKey) + ": not a JSON object");
  BlobSpec spec;
  if (!j.contains("column") || !j["column"].is_string() || !j.contains("fields") || !j["fields"].is_array()) {
    return Status::Corrupt(std::string(kBlobMetadataKey) + ": expected {\"column\": ..., \"fields\": [...]}");
  }
  spec.column = j["column"].get<std::string>();
  for (const json& f : j["fields"]) {
    auto field = FieldFromJson(f, 0);
    if (!field.ok()) return field.status().WithContext(kBlobMetadataKey);
    spec.fields.push_back(std::move(*field));
  }
  return spec;
}

Result<std::optional<BlobSpec>> FindBlobSpec(const std::vector<KeyValue>& kv) {
  for (const KeyValue& e : kv) {
    if (e.key != kBlobMetadataKey) continue;
    if (!e.value) return Status::Corrupt(std::string(kBlobMetadataKey) + ": the key-value entry has no value");
    RAP_ASSIGN_OR_RETURN(BlobSpec spec, ParseBlobSpec(*e.value));
    return std::optional<BlobSpec>(std::move(spec));
  }
  return std::optional<BlobSpec>();
}

Status CheckBlobField(const Field& f) {
  const TypeId id = f.type->id;
  if (id == TypeId::kMap || id == TypeId::kFloat16 || id == TypeId::kNull) {
    return Status::NotSupported("column '" + f.name + "' of type " + f.type->ToString() +
                                " cannot go into a blob (it would not decode back)");
  }
  for (const Field& c : f.type->children) RAP_RETURN_NOT_OK(CheckBlobField(c));
  return Status::OK();
}

Result<BlobLayout> PlanBlobLayout(const Schema& input, const std::vector<std::string>& keys) {
  BlobLayout l;
  auto schema = std::make_shared<Schema>();
  for (const std::string& k : keys) {
    const int i = input.FieldIndex(k);
    if (i < 0) return Status::InvalidArgument("blob layout: key '" + k + "': no such column");
    l.keys.push_back(i);
    schema->fields.push_back(input.fields[static_cast<size_t>(i)]);
  }
  for (int i = 0; i < static_cast<int>(input.fields.size()); ++i) {
    const Field& f = input.fields[static_cast<size_t>(i)];
    if (f.name == l.spec.column) {
      return Status::InvalidArgument("blob layout: the input already has a column '" + l.spec.column + "'");
    }
    if (std::find(l.keys.begin(), l.keys.end(), i) != l.keys.end()) continue;
    RAP_RETURN_NOT_OK(CheckBlobField(f).WithContext("blob layout"));
    l.folded.push_back(i);
    l.spec.fields.push_back(f);
  }
  auto type = std::make_shared<DataType>(*MakeType(TypeId::kString));
  type->extension = "json";
  schema->fields.push_back({l.spec.column, type, false});
  l.schema = std::move(schema);
  return l;
}

Result<RecordBatch> ToBlobBatch(const BlobLayout& layout, const RecordBatch& batch) {
  RecordBatch out;
  out.schema = layout.schema;
  out.num_rows = batch.num_rows;
  for (int k : layout.keys) out.columns.push_back(batch.columns[static_cast<size_t>(k)]);
  std::vector<ArrayPtr> folded;
  for (int i : layout.folded) folded.push_back(batch.columns[static_cast<size_t>(i)]);
  RAP_ASSIGN_OR_RETURN(ArrayPtr blob, EncodeBlob(layout.spec, folded, batch.num_rows));
  out.columns.push_back(std::move(blob));
  return out;
}

Result<ArrayPtr> EncodeBlob(const BlobSpec& spec, std::span<const ArrayPtr> columns, int64_t num_rows) {
  if (columns.size() != spec.fields.size()) {
    return Status::InvalidArgument(fmt::format("blob: {} columns for {} fields", columns.size(), spec.fields.size()));
  }
  std::vector<ArrayPtr> plain;
  std::vector<std::string> names;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i]->length != num_rows) return Status::InvalidArgument("blob: column '" + spec.fields[i].name + "' has another length");
    plain.push_back(BlobForm(columns[i]));
    names.push_back(columnar::JsonQuote(spec.fields[i].name) + ":");
  }
  std::string data;
  std::vector<int32_t> offsets{0};
  offsets.reserve(static_cast<size_t>(num_rows) + 1);
  for (int64_t r = 0; r < num_rows; ++r) {
    data.push_back('{');
    for (size_t i = 0; i < plain.size(); ++i) {
      if (i) data.push_back(',');
      data += names[i];
      data += FormatJsonValue(*plain[i], r);
    }
    data.push_back('}');
    if (data.size() > INT32_MAX) return Status::ResourceExhausted("blob: a batch's JSON exceeds 2 GiB");
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  auto type = std::make_shared<DataType>(*MakeType(TypeId::kString));
  type->extension = "json";
  auto a = std::make_shared<ArrayData>();
  a->type = type;
  a->length = num_rows;
  a->buffers.emplace_back();
  a->buffers.push_back(Buffer::Copy(offsets.data(), offsets.size() * sizeof(int32_t)));
  a->buffers.push_back(Buffer::FromString(std::move(data)));
  return ArrayPtr(a);
}

Result<std::vector<ArrayPtr>> DecodeBlob(const BlobSpec& spec, const ArrayData& blob, std::span<const int> wanted) {
  if (!blob.type->IsBinaryLike() || blob.buffers.size() < 3) {
    return Status::InvalidArgument("blob column '" + spec.column + "' is " + blob.type->ToString() + ", not a string");
  }
  std::vector<std::unique_ptr<columnar::ColumnBuilder>> builders;
  columnar::ColumnBuilderOptions o;
  o.hex_binary = true;
  for (int w : wanted) {
    if (w < 0 || static_cast<size_t>(w) >= spec.fields.size()) return Status::InvalidArgument("blob: no field " + std::to_string(w));
    builders.push_back(columnar::MakeColumnBuilder(spec.fields[static_cast<size_t>(w)], o));
  }
  const int32_t* off = blob.offsets();
  const char* data = reinterpret_cast<const char*>(blob.buffers[2].data());
  for (int64_t r = 0; r < blob.length; ++r) {
    auto fail = [&](const std::string& what) {
      return Status::InvalidArgument(fmt::format("blob column '{}' row {}: {}", spec.column, r, what));
    };
    if (blob.IsNull(r)) {
      for (size_t i = 0; i < builders.size(); ++i) {
        Status st = builders[i]->AppendNull();
        if (!st.ok()) return fail("a null blob, but field '" + spec.fields[size_t(wanted[i])].name + "' is not nullable");
      }
      continue;
    }
    const std::string_view text(data + off[r], static_cast<size_t>(off[r + 1] - off[r]));
    const json obj = json::parse(text, nullptr, false);
    if (obj.is_discarded() || !obj.is_object()) return fail("not a JSON object");
    for (size_t i = 0; i < builders.size(); ++i) {
      const Field& f = spec.fields[static_cast<size_t>(wanted[i])];
      auto it = obj.find(f.name);
      Status st = it == obj.end() ? builders[i]->AppendNull() : builders[i]->AppendJson(*it);
      if (!st.ok()) return fail("field '" + f.name + "': " + st.message());
    }
  }
  std::vector<ArrayPtr> out;
  for (auto& b : builders) out.push_back(b->Finish());
  return out;
}

}  // namespace rap::parquet
