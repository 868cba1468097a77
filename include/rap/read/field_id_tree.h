// Parquet field ids of a table column and of the fields inside it (Delta column mapping mode `id`,
// read::ScanSource::field_ids).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rap::read {

// `children` follow the table type's children: a struct's fields; a list's element; a map's entries
// struct, whose children are the key and the value. An unset id is matched by name.
struct FieldIdTree {
  std::optional<int32_t> id;
  std::vector<FieldIdTree> children;
};

// Field ids for the columns of files written without them (Iceberg's `schema.name-mapping.default`:
// files added from elsewhere, migrated tables): at each level, a file field whose name is one of an
// entry's `names` gets the entry's id. `fields`: a struct's fields; a list's "element"; a map's "key"
// and "value".
struct NameMappingField {
  std::optional<int32_t> id;
  std::vector<std::string> names;
  std::vector<NameMappingField> fields;
};
using NameMapping = std::vector<NameMappingField>;

}  // namespace rap::read
