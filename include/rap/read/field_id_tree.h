// Parquet field ids of a table column and of the fields inside it (Delta column mapping mode `id`,
// read::ScanSource::field_ids).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace rap::read {

// `children` follow the table type's children: a struct's fields; a list's element; a map's entries
// struct, whose children are the key and the value. An unset id is matched by name.
struct FieldIdTree {
  std::optional<int32_t> id;
  std::vector<FieldIdTree> children;
};

}  // namespace rap::read
