// Iceberg's `schema.name-mapping.default` (rap/table/iceberg_metadata.h ParseNameMapping): any bytes
// parse to a name mapping or give an error; a mapping is then applied to the fields of a file with a
// struct, a list of structs and a map (the Scanner's ApplyNameMapping) without crashing.
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "rap/table/iceberg_metadata.h"
#include "read/scanner_impl.h"

namespace {

rap::parquet::FieldNode Node(const char* name, rap::DataTypePtr type, std::vector<rap::parquet::FieldNode> children = {}) {
  rap::parquet::FieldNode n;
  n.field = rap::Field{name, std::move(type), true};
  n.children = std::move(children);
  return n;
}

std::vector<rap::parquet::FieldNode> FileFields() {
  using namespace rap;
  const DataTypePtr str = MakeType(TypeId::kString);
  const DataTypePtr i32 = MakeType(TypeId::kInt32);
  const DataTypePtr k = MakeStruct({Field{"k", str, true}});
  const DataTypePtr entries = MakeStruct({Field{"key", str, false}, Field{"value", i32, true}});
  std::vector<parquet::FieldNode> f;
  f.push_back(Node("id", MakeType(TypeId::kInt64)));
  f.push_back(Node("s", MakeStruct({Field{"a", i32, true}, Field{"b", str, true}}), {Node("a", i32), Node("b", str)}));
  f.push_back(Node("tags", MakeList(Field{"element", k, true}), {Node("element", k, {Node("k", str)})}));
  f.push_back(Node("m", MakeMap(Field{"key", str, false}, Field{"value", i32, true}, true),
                   {Node("key_value", entries, {Node("key", str), Node("value", i32)})}));
  return f;
}

}  // namespace

RAP_FUZZ_TARGET(iceberg_name_mapping) {
  using namespace rap::table::iceberg;
  auto m = ParseNameMapping(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  if (!m.ok()) return 0;
  static const std::vector<rap::parquet::FieldNode> fields = FileFields();
  std::vector<rap::parquet::FieldNode> copy = fields;
  rap::read::ApplyNameMapping(*m, copy);
  return 0;
}
