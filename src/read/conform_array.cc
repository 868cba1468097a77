// Conforming a file's column to the table's type: struct fields matched by in-file name (Delta
// column mapping gives nested fields physical names), fields a file lacks filled with NULLs, extra
// file fields dropped, list elements and map keys/values matched by position, leaves cast losslessly
// (CastArray). The result carries the table's (logical) type and names.
#include <cstring>

#include "rap/read/scanner.h"

namespace rap::read {

namespace {

constexpr int kMaxDepth = 64;

Result<ArrayPtr> Conform(const ArrayPtr& array, const DataTypePtr& type, const DataType& names, const std::string& where,
                         int depth) {
  if (depth > kMaxDepth) return Status::NotSupported(where + ": nesting deeper than 64 levels");
  const DataType& from = *array->type;
  if (!type->IsNested()) return CastArray(array, type);
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
        RAP_ASSIGN_OR_RETURN(child, MakeNullArray(f.type, child_len));
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

}  // namespace

Result<ArrayPtr> ConformArray(const ArrayPtr& array, const DataTypePtr& type, const DataTypePtr& file_type,
                              const std::string& column) {
  if (!type->IsNested()) return CastArray(array, type);
  // Only metadata is rebuilt (buffers are shared), so conforming every nested column costs little.
  const DataType& names = file_type ? *file_type : *type;
  return Conform(array, type, names, column, 0);
}

}  // namespace rap::read
