// Conforming a file's column to the table's type: struct fields matched by in-file name (Delta
// column mapping gives nested fields physical names), fields a file lacks filled with NULLs, extra
// file fields dropped, list elements and map keys/values matched by position, leaves cast losslessly
// (CastArray). The result carries the table's (logical) type and names. Also the binding of a table
// column to a file's column (BindColumn): by name, or by Parquet field id (Delta column mapping `id`).
#include <cstring>

#include <cstdlib>

#include "rap/columnar/cast.h"
#include "rap/columnar/take.h"
#include "rap/read/scanner.h"
#include "read/scanner_impl.h"

namespace rap::read {

namespace {

constexpr int kMaxDepth = 64;

Result<ArrayPtr> Conform(const ArrayPtr& array, const DataTypePtr& type, const DataType& names, const std::string& where,
                         int depth) {
  if (depth > kMaxDepth) return Status::NotSupported(where + ": nesting deeper than 64 levels");
  const DataType& from = *array->type;
  if (!type->IsNested()) return columnar::CastArray(array, type);
  if (from.id != type->id) {
    return Status::NotSupported(where + ": a file column of type " + from.ToString() + " cannot be read as the table's " +
                                type->ToString());
  }
  auto out = std::make_shared<ArrayData>(*array);
  out->type = type;
  out->children.clear();
  if (type->id == TypeId::kStruct) {
    // Struct children are indexed like the struct itself (they share its offset).
    const int64_t child_len = array->offset + array->length;
    for (size_t i = 0; i < type->children.size(); ++i) {
      const Field& f = type->children[i];
      const std::string& in_file = i < names.children.size() ? names.children[i].name : f.name;
      const DataType& child_names = i < names.children.size() ? *names.children[i].type : *f.type;
      ArrayPtr child;
      for (size_t j = 0; j < from.children.size() && j < array->children.size(); ++j) {
        if (from.children[j].name == in_file) {
          RAP_ASSIGN_OR_RETURN(child, Conform(array->children[j], f.type, child_names, where + "." + f.name, depth + 1));
          break;
        }
      }
      if (!child) {
        RAP_ASSIGN_OR_RETURN(child, columnar::MakeNullArray(f.type, child_len));
      }
      out->children.push_back(std::move(child));
    }
    return ArrayPtr(out);
  }
  // list<element> and map<entries struct<key, value>>: one child, matched by position; the entries'
  // key and value by position too (their in-file names vary: key_value, entries, map ...).
  if (array->children.size() != 1 || type->children.size() != 1 || from.children.size() != 1) {
    return Status::Corrupt(where + ": " + from.ToString() + " array without its one child");
  }
  const Field& item = type->children[0];
  const DataType& item_names = names.children.size() == 1 ? *names.children[0].type : *item.type;
  if (type->id == TypeId::kList) {
    RAP_ASSIGN_OR_RETURN(ArrayPtr child, Conform(array->children[0], item.type, item_names, where + ".element", depth + 1));
    out->children.push_back(std::move(child));
    return ArrayPtr(out);
  }
  // Map: rebuild the entries struct positionally.
  const ArrayPtr& entries = array->children[0];
  const DataType& et = *item.type;
  if (entries->type->id != TypeId::kStruct || entries->children.size() != 2 || et.children.size() != 2) {
    return Status::Corrupt(where + ": map entries are not a struct of key and value");
  }
  auto conformed = std::make_shared<ArrayData>(*entries);
  conformed->type = item.type;
  conformed->children.clear();
  for (size_t k = 0; k < 2; ++k) {
    const DataType& kn = item_names.children.size() == 2 ? *item_names.children[k].type : *et.children[k].type;
    RAP_ASSIGN_OR_RETURN(ArrayPtr c, Conform(entries->children[k], et.children[k].type, kn,
                                             where + (k == 0 ? ".key" : ".value"), depth + 1));
    conformed->children.push_back(std::move(c));
  }
  out->children.push_back(std::move(conformed));
  return ArrayPtr(out);
}

// A name no file column has: a field whose id the file lacks reads as NULL.
const std::string kAbsent = std::string(1, '\0') + "absent";

const FieldIdTree kNoIds;

// `base` (the table type with in-file names where known) with its struct fields renamed to the
// names of the file's fields (`node`, null when the file lacks the field) that carry their ids; a
// field without an id keeps its name. Lists and maps: by position.
DataTypePtr RenameByIds(const DataTypePtr& base, const FieldIdTree& ids, const parquet::FieldNode* node) {
  if (!base->IsNested()) return base;
  auto out = std::make_shared<DataType>(*base);
  auto child_ids = [&](size_t i) -> const FieldIdTree& { return i < ids.children.size() ? ids.children[i] : kNoIds; };
  auto file_child = [&](size_t i) -> const parquet::FieldNode* {
    return node && i < node->children.size() ? &node->children[i] : nullptr;
  };
  if (base->id == TypeId::kStruct) {
    for (size_t i = 0; i < out->children.size(); ++i) {
      const FieldIdTree& ci = child_ids(i);
      const parquet::FieldNode* fc = nullptr;
      if (node && node->field.type && node->field.type->id == TypeId::kStruct) {
        for (const parquet::FieldNode& c : node->children) {
          if (ci.id ? c.field_id == ci.id : c.field.name == base->children[i].name) {
            fc = &c;
            break;
          }
        }
      }
      out->children[i].name = fc ? fc->field.name : kAbsent;
      out->children[i].type = RenameByIds(base->children[i].type, ci, fc);
    }
    return out;
  }
  if (base->id == TypeId::kMap && out->children.size() == 1 && out->children[0].type->id == TypeId::kStruct) {
    // The entries struct: key and value by position.
    const FieldIdTree& ei = child_ids(0);
    const parquet::FieldNode* fe = file_child(0);
    auto entries = std::make_shared<DataType>(*out->children[0].type);
    for (size_t k = 0; k < entries->children.size(); ++k) {
      const FieldIdTree& ki = k < ei.children.size() ? ei.children[k] : kNoIds;
      const parquet::FieldNode* fk = fe && k < fe->children.size() ? &fe->children[k] : nullptr;
      entries->children[k].type = RenameByIds(entries->children[k].type, ki, fk);
    }
    out->children[0].type = std::move(entries);
    return out;
  }
  for (size_t i = 0; i < out->children.size(); ++i) {
    out->children[i].type = RenameByIds(out->children[i].type, child_ids(i), file_child(i));
  }
  return out;
}

const NameMappingField* FindMapped(const std::vector<NameMappingField>& mapping, const std::string& name) {
  for (const NameMappingField& m : mapping) {
    for (const std::string& n : m.names) {
      if (n == name) return &m;
    }
  }
  return nullptr;
}

// `node`'s children get the ids of `mapping` (the fields of the mapping entry `node` matched).
void MapChildren(const std::vector<NameMappingField>& mapping, parquet::FieldNode& node, int depth) {
  if (depth > kMaxDepth || !node.field.type) return;
  const TypeId t = node.field.type->id;
  if (t == TypeId::kStruct) {
    for (parquet::FieldNode& c : node.children) {
      const NameMappingField* m = FindMapped(mapping, c.field.name);
      c.field_id = m ? m->id : std::nullopt;
      MapChildren(m ? m->fields : std::vector<NameMappingField>{}, c, depth + 1);
    }
  } else if (t == TypeId::kList && node.children.size() == 1) {
    // The element whatever its in-file name ("element", "item", "array"): the mapping's "element".
    const NameMappingField* m = FindMapped(mapping, "element");
    node.children[0].field_id = m ? m->id : std::nullopt;
    MapChildren(m ? m->fields : std::vector<NameMappingField>{}, node.children[0], depth + 1);
  } else if (t == TypeId::kMap && node.children.size() == 1 && node.children[0].children.size() == 2) {
    parquet::FieldNode& entries = node.children[0];
    entries.field_id = std::nullopt;
    for (size_t k = 0; k < 2; ++k) {
      const NameMappingField* m = FindMapped(mapping, k == 0 ? "key" : "value");
      entries.children[k].field_id = m ? m->id : std::nullopt;
      MapChildren(m ? m->fields : std::vector<NameMappingField>{}, entries.children[k], depth + 1);
    }
  }
}

std::optional<int32_t> OrcFieldId(const orc::OrcType& t) {
  for (const auto& [k, v] : t.attributes) {
    if (k != "iceberg.id") continue;
    char* end = nullptr;
    const long id = std::strtol(v.c_str(), &end, 10);
    if (end != v.c_str() && !*end && id >= 0 && id <= INT32_MAX) return static_cast<int32_t>(id);
  }
  return std::nullopt;
}

Result<parquet::FieldNode> OrcNode(const orc::TypeTree& types, uint32_t id, const std::string& name, int depth) {
  if (depth > kMaxDepth) return Status::NotSupported(name + ": ORC types nested deeper than 64 levels");
  if (id >= types.nodes.size()) return Status::Corrupt(name + ": ORC subtype " + std::to_string(id) + " out of range");
  const orc::OrcType& t = types.nodes[id];
  parquet::FieldNode n;
  RAP_ASSIGN_OR_RETURN(DataTypePtr type, types.ArrowType(id));
  n.field = Field{name, type, true};
  n.field_id = OrcFieldId(t);
  if (t.kind == orc::TypeKind::kStruct) {
    for (size_t i = 0; i < t.subtypes.size() && i < t.field_names.size(); ++i) {
      RAP_ASSIGN_OR_RETURN(parquet::FieldNode c, OrcNode(types, t.subtypes[i], t.field_names[i], depth + 1));
      n.children.push_back(std::move(c));
    }
  } else if (t.kind == orc::TypeKind::kList && t.subtypes.size() == 1) {
    RAP_ASSIGN_OR_RETURN(parquet::FieldNode c, OrcNode(types, t.subtypes[0], "element", depth + 1));
    n.children.push_back(std::move(c));
  } else if (t.kind == orc::TypeKind::kMap && t.subtypes.size() == 2 && type->children.size() == 1) {
    parquet::FieldNode entries;
    entries.field = type->children[0];
    for (size_t k = 0; k < 2; ++k) {
      RAP_ASSIGN_OR_RETURN(parquet::FieldNode c, OrcNode(types, t.subtypes[k], k == 0 ? "key" : "value", depth + 1));
      entries.children.push_back(std::move(c));
    }
    n.children.push_back(std::move(entries));
  }
  return n;
}

}  // namespace

Result<ArrayPtr> AbsentColumn(const ColumnSource& cs, int64_t rows) {
  if (cs.absent) return columnar::RepeatValue(*cs.absent, rows);
  return columnar::MakeNullArray(cs.type, rows);
}

ColumnStats AbsentStats(const ColumnSource& cs, int64_t rows) {
  ColumnStats s;
  if (cs.absent) {
    s = StatsFromValue(ValueAt(*cs.absent, 0));
    if (s.null_count && *s.null_count > 0) s.null_count = rows;
  } else {
    s.null_count = rows;
  }
  s.num_values = rows;
  return s;
}

Result<std::vector<parquet::FieldNode>> OrcFieldNodes(const orc::TypeTree& types) {
  std::vector<parquet::FieldNode> out;
  if (types.nodes.empty()) return out;
  const orc::OrcType& root = types.nodes[0];
  for (size_t i = 0; i < root.subtypes.size() && i < root.field_names.size(); ++i) {
    RAP_ASSIGN_OR_RETURN(parquet::FieldNode n, OrcNode(types, root.subtypes[i], root.field_names[i], 1));
    out.push_back(std::move(n));
  }
  return out;
}

void ApplyNameMapping(const NameMapping& mapping, std::vector<parquet::FieldNode>& fields) {
  for (parquet::FieldNode& f : fields) {
    const NameMappingField* m = FindMapped(mapping, f.field.name);
    f.field_id = m ? m->id : std::nullopt;
    MapChildren(m ? m->fields : NameMapping{}, f, 1);
  }
}

ColumnSource ForFile(const ColumnSource& cs, const ScanFile& file) {
  if (cs.field < 0 || static_cast<size_t>(cs.field) >= file.physical_names.size()) return cs;
  ColumnSource out = cs;
  out.physical = file.physical_names[static_cast<size_t>(cs.field)];
  return out;
}

FileColumn BindColumn(const ColumnSource& cs, const std::vector<parquet::FieldNode>& fields) {
  FileColumn out;
  if (cs.partition >= 0) return out;
  const parquet::FieldNode* node = nullptr;
  for (const parquet::FieldNode& f : fields) {
    if (cs.by_id && cs.ids.id ? f.field_id == cs.ids.id : !cs.physical.empty() && f.field.name == cs.physical) {
      node = &f;
      break;
    }
  }
  if (!node) return out;
  out.present = true;
  out.name = node->field.name;
  out.file_type = cs.by_id ? RenameByIds(cs.file_type ? cs.file_type : cs.type, cs.ids, node) : cs.file_type;
  return out;
}

Result<ArrayPtr> StructFieldAt(const ArrayPtr& column, const std::vector<size_t>& path) {
  ArrayPtr cur = column;
  for (size_t k : path) {
    if (!cur->type || cur->type->id != TypeId::kStruct || k >= cur->children.size()) {
      return Status::Internal("struct field path does not match the column's type");
    }
    // Struct children are indexed like the struct (they share its offset).
    ArrayPtr child = SliceArray(cur->children[k], cur->offset, cur->length);
    const bool parent_nulls = cur->null_count != 0 && !cur->buffers.empty() && !cur->buffers[0].empty();
    if (parent_nulls && child->type && child->type->id != TypeId::kNull) {
      auto out = std::make_shared<ArrayData>(*child);
      const int64_t bits = out->offset + out->length;
      Buffer validity = Buffer::Allocate(static_cast<size_t>((bits + 7) / 8));
      std::memset(validity.mutable_data(), 0, validity.size());
      int64_t nulls = 0;
      for (int64_t i = 0; i < out->length; ++i) {
        if (cur->IsNull(i) || child->IsNull(i)) {
          ++nulls;
        } else {
          const int64_t j = out->offset + i;
          validity.mutable_data()[j >> 3] |= static_cast<uint8_t>(1u << (j & 7));
        }
      }
      if (out->buffers.empty()) out->buffers.resize(1);
      out->buffers[0] = std::move(validity);
      out->null_count = nulls;
      child = std::move(out);
    }
    cur = std::move(child);
  }
  return cur;
}

Result<ArrayPtr> ConformArray(const ArrayPtr& array, const DataTypePtr& type, const DataTypePtr& file_type,
                              const std::string& column) {
  if (!type->IsNested()) return columnar::CastArray(array, type);
  // Only metadata is rebuilt (buffers are shared), so conforming every nested column costs little.
  const DataType& names = file_type ? *file_type : *type;
  return Conform(array, type, names, column, 0);
}

}  // namespace rap::read
