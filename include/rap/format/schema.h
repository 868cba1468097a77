// The Parquet schema as a tree: built from FileMetaData.schema (the flattened depth-first list),
// with per-leaf column descriptors (path, physical/logical type, max definition/repetition levels)
// and the mapping of every top-level field to an Arrow type, annotated with the levels the column
// reader needs to assemble nested (list/struct/map) arrays from repetition/definition levels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/format/metadata.h"
#include "rap/util/result.h"

namespace rap::parquet {

// One node of the Parquet schema tree (node 0 is the root / message).
struct SchemaNode {
  std::string name;
  Repetition repetition = Repetition::REQUIRED;
  bool is_leaf = false;
  Type physical_type = Type::BOOLEAN;  // leaves only
  int32_t type_length = 0;             // FIXED_LEN_BYTE_ARRAY
  std::optional<ConvertedType> converted_type;
  LogicalType logical_type;            // kind NONE when absent
  int32_t precision = 0;
  int32_t scale = 0;
  std::optional<int32_t> field_id;
  int parent = -1;
  std::vector<int> children;           // node indices
  int16_t max_definition_level = 0;    // at this node (inclusive)
  int16_t max_repetition_level = 0;
  int column = -1;                     // leaf ordinal for leaves
};

// A leaf column.
struct ColumnDescriptor {
  int index = 0;                       // leaf ordinal (= position in RowGroup.columns)
  int node = 0;                        // SchemaNode index
  int field = 0;                       // top-level field that holds it
  std::vector<std::string> path;       // path_in_schema
  std::string dotted_path;             // "a.list.element"
  Type physical_type = Type::BOOLEAN;
  int32_t type_length = 0;
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;
  Repetition repetition = Repetition::REQUIRED;
  std::optional<ConvertedType> converted_type;
  LogicalType logical_type;
  int32_t precision = 0;
  int32_t scale = 0;
  DataTypePtr arrow_type;              // the Arrow type its values decode to
};

// An Arrow field annotated with levels. Over the (def, rep) level stream of any leaf below it, the
// node has one "slot" (one Arrow array element) at each level index i with
//   rep[i] <= rep_level  and  def[i] >= slot_def,
// and that element is non-null iff def[i] >= def_level.
struct FieldNode {
  Field field;
  std::optional<int32_t> field_id;     // the Parquet node's field_id (a list read from a repeated field: its own)
  int16_t def_level = 0;
  int16_t rep_level = 0;
  int16_t slot_def = 0;
  int column = -1;                     // leaf: column index
  std::vector<FieldNode> children;     // list: item; map: entries struct; struct: fields
  std::vector<int> columns;            // every leaf column index below (in order)
};

class SchemaDescriptor {
 public:
  // Builds the tree; malformed lists (counts, bounds, missing types) give Corrupt naming `name`.
  static Result<SchemaDescriptor> Make(const std::vector<SchemaElement>& elements, const std::string& name = "");

  const std::vector<SchemaNode>& nodes() const { return nodes_; }
  const SchemaNode& root() const { return nodes_[0]; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const ColumnDescriptor& column(int i) const { return columns_[static_cast<size_t>(i)]; }
  const std::vector<ColumnDescriptor>& columns() const { return columns_; }
  // By dotted Parquet path ("a.list.element"); -1 when absent.
  int FindColumn(const std::string& dotted_path) const;

  int num_fields() const { return static_cast<int>(fields_.size()); }
  const FieldNode& field(int i) const { return fields_[static_cast<size_t>(i)]; }
  const std::vector<FieldNode>& fields() const { return fields_; }
  const SchemaPtr& arrow_schema() const { return arrow_schema_; }

  // Prunes the fields to a projection. Each name is a top-level field name, a dotted path to a
  // nested field ("s.a", struct members only; lists and maps are kept whole), or a leaf's dotted
  // Parquet path. The result keeps file order. NotFound for an unknown name.
  Result<std::vector<FieldNode>> Project(const std::vector<std::string>& names) const;

  // Indented tree ("required int64 id", "optional group s { ... }") for `rap inspect`.
  std::string ToString() const;

 private:
  std::vector<SchemaNode> nodes_;
  std::vector<ColumnDescriptor> columns_;
  std::vector<FieldNode> fields_;
  SchemaPtr arrow_schema_;
};

// Arrow type of one leaf from its physical and logical/converted type.
DataTypePtr LeafArrowType(const SchemaNode& leaf);

// The schema of projected fields.
SchemaPtr MakeArrowSchema(const std::vector<FieldNode>& fields);

}  // namespace rap::parquet
