#include "rap/avro/value.h"

namespace rap::avro {

const Value* Value::Find(std::string_view name) const {
  if (kind != Kind::kRecord && kind != Kind::kMap) return nullptr;
  for (size_t i = 0; i < names.size() && i < items.size(); ++i) {
    if (names[i] == name) return &items[i];
  }
  return nullptr;
}

bool Value::GetInt(std::string_view name, int64_t* out) const {
  const Value* v = Find(name);
  if (!v || (v->kind != Kind::kInt && v->kind != Kind::kLong)) return false;
  *out = v->integer;
  return true;
}

bool Value::Set(std::string_view name, Value v) {
  if (kind != Kind::kRecord) return false;
  for (size_t i = 0; i < names.size() && i < items.size(); ++i) {
    if (names[i] == name) {
      items[i] = std::move(v);
      return true;
    }
  }
  return false;
}

namespace {
Value Of(Kind kind) {
  Value v;
  v.kind = kind;
  return v;
}
}  // namespace

Value Value::Boolean(bool b) {
  Value v = Of(Kind::kBoolean);
  v.boolean = b;
  return v;
}

Value Value::Int(int64_t x) {
  Value v = Of(Kind::kInt);
  v.integer = x;
  return v;
}

Value Value::Long(int64_t x) {
  Value v = Of(Kind::kLong);
  v.integer = x;
  return v;
}

Value Value::String(std::string s) {
  Value v = Of(Kind::kString);
  v.bytes = std::move(s);
  return v;
}

Value Value::Bytes(std::string b) {
  Value v = Of(Kind::kBytes);
  v.bytes = std::move(b);
  return v;
}

Value Value::Array(std::vector<Value> items) {
  Value v = Of(Kind::kArray);
  v.items = std::move(items);
  return v;
}

namespace {
Value Named(Kind kind, std::vector<std::pair<std::string, Value>> fields) {
  Value v = Of(kind);
  for (auto& [name, value] : fields) {
    v.names.push_back(std::move(name));
    v.items.push_back(std::move(value));
  }
  return v;
}
}  // namespace

Value Value::Record(std::vector<std::pair<std::string, Value>> fields) { return Named(Kind::kRecord, std::move(fields)); }

Value Value::Map(std::vector<std::pair<std::string, Value>> entries) { return Named(Kind::kMap, std::move(entries)); }

const char* KindName(Kind kind) {
  static const char* const kNames[] = {"null",   "boolean", "int",  "long",  "float", "double", "string",
                                       "bytes",  "fixed",   "enum", "array", "map",   "record"};
  return kNames[static_cast<int>(kind)];
}

}  // namespace rap::avro
