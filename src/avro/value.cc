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

const char* KindName(Kind kind) {
  static const char* const kNames[] = {"null",   "boolean", "int",  "long",  "float", "double", "string",
                                       "bytes",  "fixed",   "enum", "array", "map",   "record"};
  return kNames[static_cast<int>(kind)];
}

}  // namespace rap::avro
