// The Avro container writer (rap/avro/container_writer.h) against the reader: records of a schema
// of every Avro type (primitives, fixed, enum, arrays and maps, nested records, unions with null and
// with a record) built from the input bytes, written, read back by rap::avro::ReadContainerFile and
// compared value for value; any difference aborts. The reader side alone is `avro_container`.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_target.h"
#include "rap/avro/container_writer.h"
#include "rap/avro/object_container.h"

namespace {

using rap::avro::Kind;
using rap::avro::Value;

constexpr const char* kSchema = R"({"type": "record", "name": "r", "fields": [
{"name": "i", "type": "int"}, {"name": "l", "type": "long"}, {"name": "f", "type": "float"},
{"name": "d", "type": "double"}, {"name": "b", "type": "boolean"}, {"name": "s", "type": "string"},
{"name": "y", "type": "bytes"}, {"name": "x", "type": {"type": "fixed", "name": "f4", "size": 4}},
{"name": "e", "type": {"type": "enum", "name": "e3", "symbols": ["A", "B", "C"]}},
{"name": "a", "type": {"type": "array", "items": ["null", "long"]}},
{"name": "m", "type": {"type": "map", "values": "string"}},
{"name": "n", "type": ["null", {"type": "record", "name": "inner", "fields": [
  {"name": "k", "type": "int"}, {"name": "v", "type": ["null", "string"]}]}]},
{"name": "o", "type": ["null", "long"], "default": null}]})";

std::string Text(rap::fuzz::FuzzInput& in) {
  std::string s;
  const int n = in.Byte() % 9;
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>(in.Byte()));
  return s;
}

Value Record(rap::fuzz::FuzzInput& in) {
  const uint32_t bits = in.U24();
  const uint64_t u = (static_cast<uint64_t>(in.U24()) << 40) ^ (static_cast<uint64_t>(in.U24()) << 16) ^ in.Byte();
  const int64_t wide = static_cast<int64_t>(u);  // any 64-bit pattern (two's complement)
  Value fixed;
  fixed.kind = Kind::kFixed;
  for (int i = 0; i < 4; ++i) fixed.bytes.push_back(static_cast<char>(in.Byte()));
  Value e;
  e.kind = Kind::kEnum;
  e.integer = in.Byte() % 3;
  e.bytes = std::string(1, static_cast<char>('A' + e.integer));
  std::vector<Value> items;
  for (int k = in.Byte() % 5; k > 0; --k) items.push_back(in.Byte() & 1 ? Value::Null() : Value::Long(static_cast<int64_t>(u + static_cast<uint64_t>(k))));
  std::vector<std::pair<std::string, Value>> entries;
  std::set<std::string> keys;
  for (int k = in.Byte() % 4; k > 0; --k) {
    std::string key = Text(in);
    std::replace(key.begin(), key.end(), '\0', '0');  // the writer refuses NUL in map keys (Avro C)
    if (keys.insert(key).second) entries.push_back({key, Value::String(Text(in))});
  }
  Value f;
  f.kind = Kind::kFloat;
  f.real = static_cast<float>(static_cast<int32_t>(in.U24()) - (1 << 23)) / 8.0f;
  Value d;
  d.kind = Kind::kDouble;
  d.real = static_cast<double>(wide) / 3.0;
  Value nested = bits & 1 ? Value::Null()
                          : Value::Record({{"k", Value::Int(static_cast<int32_t>(bits) - (1 << 22))},
                                           {"v", bits & 2 ? Value::Null() : Value::String(Text(in))}});
  return Value::Record({{"i", Value::Int(static_cast<int32_t>(in.U24()) - (1 << 23))},
                        {"l", Value::Long(wide)},
                        {"f", f},
                        {"d", d},
                        {"b", Value::Boolean(bits & 4)},
                        {"s", Value::String(Text(in))},
                        {"y", Value::Bytes(Text(in))},
                        {"x", fixed},
                        {"e", e},
                        {"a", Value::Array(std::move(items))},
                        {"m", Value::Map(std::move(entries))},
                        {"n", nested},
                        {"o", bits & 8 ? Value::Null() : Value::Long(static_cast<int64_t>(0 - u))}});
}

bool Same(const Value& a, const Value& b) {
  if (a.kind != b.kind || a.items.size() != b.items.size()) return false;
  switch (a.kind) {
    case Kind::kBoolean: return a.boolean == b.boolean;
    case Kind::kInt:
    case Kind::kLong: return a.integer == b.integer;
    case Kind::kEnum: return a.integer == b.integer && a.bytes == b.bytes;
    case Kind::kFloat:
    case Kind::kDouble: return a.real == b.real;
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kFixed: return a.bytes == b.bytes;
    default: break;
  }
  for (size_t i = 0; i < a.items.size(); ++i) {
    if (!Same(a.items[i], b.items[i])) return false;
    if (a.kind != Kind::kArray && a.names[i] != b.names[i]) return false;
  }
  return true;
}

}  // namespace

RAP_FUZZ_TARGET(avro_writer) {
  rap::fuzz::FuzzInput in(data, size);
  std::vector<Value> records;
  for (int n = in.Byte() % 8; n > 0; --n) records.push_back(Record(in));
  auto bytes = rap::avro::WriteContainerFile(kSchema, records, {{"k", in.RestString()}}, "fuzz.avro");
  if (!bytes.ok()) std::abort();  // every generated record fits the schema
  auto back = rap::avro::ReadContainerFile(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()), "fuzz.avro");
  if (!back.ok() || back->records.size() != records.size() || back->metadata["k"] != in.RestString()) std::abort();
  for (size_t i = 0; i < records.size(); ++i) {
    // The reader names a map's entries in its own order: compare maps as sorted entries.
    Value want = records[i], got = back->records[i];
    for (Value* v : {&want, &got}) {
      for (size_t f = 0; f < v->names.size(); ++f) {
        Value& m = v->items[f];
        if (m.kind != Kind::kMap) continue;
        std::vector<std::pair<std::string, Value>> e;
        for (size_t k = 0; k < m.names.size(); ++k) e.push_back({m.names[k], m.items[k]});
        std::sort(e.begin(), e.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        m = Value::Map(std::move(e));
      }
    }
    if (!Same(want, got)) std::abort();
  }
  return 0;
}
