// A decoded Avro datum (the Avro specification's binary encoding, read through Debian's Avro C
// library, rap/avro/object_container.h): a small tree that table formats (Iceberg manifests, Paimon)
// walk by field name. Unions are resolved to their branch (a null branch is a kNull value).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rap::avro {

enum class Kind { kNull, kBoolean, kInt, kLong, kFloat, kDouble, kString, kBytes, kFixed, kEnum, kArray, kMap, kRecord };

struct Value {
  Kind kind = Kind::kNull;
  bool boolean = false;
  int64_t integer = 0;  // int, long; the symbol index of an enum
  double real = 0;      // float, double
  std::string bytes;    // string, bytes, fixed; the symbol of an enum
  std::vector<Value> items;        // array items, map values, record fields (in schema order)
  std::vector<std::string> names;  // map keys, record field names (parallel to items)

  bool is_null() const { return kind == Kind::kNull; }
  // The record field or map entry named `name`; null when absent (or when this is not a record/map).
  const Value* Find(std::string_view name) const;
  // The field as an integer (int or long); false when absent, null or not an integer.
  bool GetInt(std::string_view name, int64_t* out) const;
  // Replaces the record field `name` (a record read from a file, edited and written back: Iceberg's
  // DELETED entries, Paimon's compaction entries); false when it has no such field (an older schema).
  bool Set(std::string_view name, Value v);

  // Builders for values to write (rap/avro/container_writer.h).
  static Value Null() { return Value{}; }
  static Value Boolean(bool b);
  static Value Int(int64_t v);
  static Value Long(int64_t v);
  static Value String(std::string s);
  static Value Bytes(std::string b);
  static Value Array(std::vector<Value> items);
  // A record of named fields (matched to the schema's fields by name when written; a field left out
  // is written as null, which its schema must allow).
  static Value Record(std::vector<std::pair<std::string, Value>> fields);
  // A map (Iceberg writes its int-keyed maps as arrays of key/value records instead).
  static Value Map(std::vector<std::pair<std::string, Value>> entries);
};

// "null", "boolean", ... (the Avro type names).
const char* KindName(Kind kind);

}  // namespace rap::avro
