// Parquet schema tree, leaf descriptors and the Parquet -> Arrow type mapping (including the
// backward-compatibility rules of LogicalTypes.md for lists and maps).
#include "rap/format/schema.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace rap::parquet {

namespace {

constexpr int kMaxSchemaDepth = 100;  // keeps levels far inside int16 and bounds recursion

std::string Where(const std::string& name) { return name.empty() ? std::string("schema") : name + ": schema"; }

bool IsGroupElement(const SchemaElement& e) { return e.num_children.has_value() && (*e.num_children > 0 || !e.type); }

using LK = LogicalType::Kind;

bool IsListAnnotated(const SchemaNode& n) {
  return n.logical_type.kind == LK::LIST || (n.logical_type.kind == LK::NONE && n.converted_type == ConvertedType::LIST);
}

bool IsMapAnnotated(const SchemaNode& n) {
  if (n.logical_type.kind == LK::MAP) return true;
  return n.logical_type.kind == LK::NONE &&
         (n.converted_type == ConvertedType::MAP || n.converted_type == ConvertedType::MAP_KEY_VALUE);
}

DataTypePtr WithExtension(DataTypePtr t, const char* ext) {
  auto c = std::make_shared<DataType>(*t);
  c->extension = ext;
  return c;
}

DataTypePtr DecimalOr(const SchemaNode& n, int32_t precision, int32_t scale, DataTypePtr fallback) {
  int max_precision = 38;
  if (n.physical_type == Type::INT32) max_precision = 9;
  if (n.physical_type == Type::INT64) max_precision = 18;
  if (precision <= 0 || precision > max_precision || scale < 0 || scale > precision) return fallback;
  return MakeDecimal(precision, scale);
}

}  // namespace

DataTypePtr LeafArrowType(const SchemaNode& n) {
  const LogicalType& lt = n.logical_type;
  const bool has_lt = lt.kind != LK::NONE;
  const auto ct = n.converted_type;
  switch (n.physical_type) {
    case Type::BOOLEAN: return MakeType(TypeId::kBool);
    case Type::INT32: {
      DataTypePtr raw = MakeType(TypeId::kInt32);
      if (has_lt) {
        switch (lt.kind) {
          case LK::INTEGER:
            switch (lt.bit_width) {
              case 8: return MakeType(lt.is_signed ? TypeId::kInt8 : TypeId::kUInt8);
              case 16: return MakeType(lt.is_signed ? TypeId::kInt16 : TypeId::kUInt16);
              case 32: return MakeType(lt.is_signed ? TypeId::kInt32 : TypeId::kUInt32);
              default: return raw;
            }
          case LK::DECIMAL: return DecimalOr(n, lt.decimal_precision, lt.decimal_scale, raw);
          case LK::DATE: return MakeTemporal(TypeId::kDate32, rap::TimeUnit::kSecond);
          case LK::TIME:
            return lt.unit == TimeUnit::MILLIS
                       ? MakeTemporal(TypeId::kTime32, rap::TimeUnit::kMilli, lt.is_adjusted_to_utc ? "UTC" : "")
                       : raw;
          case LK::UNKNOWN: return MakeType(TypeId::kNull);
          default: return raw;
        }
      }
      if (!ct) return raw;
      switch (*ct) {
        case ConvertedType::INT_8: return MakeType(TypeId::kInt8);
        case ConvertedType::INT_16: return MakeType(TypeId::kInt16);
        case ConvertedType::UINT_8: return MakeType(TypeId::kUInt8);
        case ConvertedType::UINT_16: return MakeType(TypeId::kUInt16);
        case ConvertedType::UINT_32: return MakeType(TypeId::kUInt32);
        case ConvertedType::DECIMAL: return DecimalOr(n, n.precision, n.scale, raw);
        case ConvertedType::DATE: return MakeTemporal(TypeId::kDate32, rap::TimeUnit::kSecond);
        // The converted types TIME_MILLIS/TIME_MICROS mean TIME(isAdjustedToUTC=true) (LogicalTypes.md).
        case ConvertedType::TIME_MILLIS: return MakeTemporal(TypeId::kTime32, rap::TimeUnit::kMilli, "UTC");
        default: return raw;
      }
    }
    case Type::INT64: {
      DataTypePtr raw = MakeType(TypeId::kInt64);
      auto unit_of = [](parquet::TimeUnit u) {
        return u == TimeUnit::MILLIS ? rap::TimeUnit::kMilli
                                     : (u == TimeUnit::MICROS ? rap::TimeUnit::kMicro : rap::TimeUnit::kNano);
      };
      if (has_lt) {
        switch (lt.kind) {
          case LK::INTEGER:
            return lt.bit_width == 64 ? MakeType(lt.is_signed ? TypeId::kInt64 : TypeId::kUInt64) : raw;
          case LK::DECIMAL: return DecimalOr(n, lt.decimal_precision, lt.decimal_scale, raw);
          case LK::TIME:
            return lt.unit == TimeUnit::MILLIS
                       ? raw
                       : MakeTemporal(TypeId::kTime64, unit_of(lt.unit), lt.is_adjusted_to_utc ? "UTC" : "");
          case LK::TIMESTAMP:
            return MakeTemporal(TypeId::kTimestamp, unit_of(lt.unit), lt.is_adjusted_to_utc ? "UTC" : "");
          case LK::UNKNOWN: return MakeType(TypeId::kNull);
          default: return raw;
        }
      }
      if (!ct) return raw;
      switch (*ct) {
        case ConvertedType::INT_64: return raw;
        case ConvertedType::UINT_64: return MakeType(TypeId::kUInt64);
        case ConvertedType::DECIMAL: return DecimalOr(n, n.precision, n.scale, raw);
        case ConvertedType::TIME_MICROS: return MakeTemporal(TypeId::kTime64, rap::TimeUnit::kMicro, "UTC");
        case ConvertedType::TIMESTAMP_MILLIS: return MakeTemporal(TypeId::kTimestamp, rap::TimeUnit::kMilli, "UTC");
        case ConvertedType::TIMESTAMP_MICROS: return MakeTemporal(TypeId::kTimestamp, rap::TimeUnit::kMicro, "UTC");
        default: return raw;
      }
    }
    case Type::INT96: return MakeTemporal(TypeId::kTimestamp, rap::TimeUnit::kNano);
    case Type::FLOAT: return MakeType(TypeId::kFloat32);
    case Type::DOUBLE: return MakeType(TypeId::kFloat64);
    case Type::BYTE_ARRAY: {
      DataTypePtr raw = MakeType(TypeId::kBinary);
      if (has_lt) {
        switch (lt.kind) {
          case LK::STRING: return MakeType(TypeId::kString);
          case LK::ENUM: return WithExtension(MakeType(TypeId::kString), "enum");
          case LK::JSON: return WithExtension(MakeType(TypeId::kString), "json");
          case LK::BSON: return WithExtension(raw, "bson");
          case LK::DECIMAL: return DecimalOr(n, lt.decimal_precision, lt.decimal_scale, raw);
          case LK::GEOMETRY: return WithExtension(raw, "geometry");
          case LK::GEOGRAPHY: return WithExtension(raw, "geography");
          case LK::UNKNOWN: return MakeType(TypeId::kNull);
          default: return raw;
        }
      }
      if (!ct) return raw;
      switch (*ct) {
        case ConvertedType::UTF8: return MakeType(TypeId::kString);
        case ConvertedType::ENUM: return WithExtension(MakeType(TypeId::kString), "enum");
        case ConvertedType::JSON: return WithExtension(MakeType(TypeId::kString), "json");
        case ConvertedType::BSON: return WithExtension(raw, "bson");
        case ConvertedType::DECIMAL: return DecimalOr(n, n.precision, n.scale, raw);
        default: return raw;
      }
    }
    case Type::FIXED_LEN_BYTE_ARRAY: {
      DataTypePtr raw = MakeFixedSizeBinary(n.type_length);
      if (has_lt) {
        switch (lt.kind) {
          case LK::DECIMAL: return DecimalOr(n, lt.decimal_precision, lt.decimal_scale, raw);
          case LK::UUID: return n.type_length == 16 ? WithExtension(raw, "uuid") : raw;
          case LK::FLOAT16:
            return n.type_length == 2 ? WithExtension(MakeType(TypeId::kFloat16), "float16") : raw;
          case LK::UNKNOWN: return MakeType(TypeId::kNull);
          default: return raw;
        }
      }
      if (ct == ConvertedType::DECIMAL) return DecimalOr(n, n.precision, n.scale, raw);
      if (ct == ConvertedType::INTERVAL) return WithExtension(raw, "interval");
      return raw;
    }
  }
  return MakeType(TypeId::kBinary);
}

namespace {

class Builder {
 public:
  Builder(const std::vector<SchemaElement>& elements, const std::string& name, std::vector<SchemaNode>* nodes)
      : elements_(elements), name_(name), nodes_(nodes) {}

  Status ParseTree() {
    size_t pos = 0;
    RAP_RETURN_NOT_OK(ParseNode(&pos, -1, 0));
    if (pos != elements_.size()) {
      return Status::Corrupt(fmt::format("{}: the root's tree ends at element {} but the schema has {} elements",
                                         Where(name_), pos, elements_.size()));
    }
    return Status::OK();
  }

  // Arrow field for Parquet node p whose slots are at (slot_def, slot_rep). `as_element`: p is the
  // repeated node standing for a list element; its repetition is consumed by the enclosing list.
  Result<FieldNode> Build(int p, int16_t slot_def, int16_t slot_rep, bool as_element, int depth) {
    if (depth > kMaxSchemaDepth) return Status::Corrupt(Where(name_) + ": nesting too deep");
    const SchemaNode& n = (*nodes_)[static_cast<size_t>(p)];
    FieldNode out;
    out.field.name = n.name;
    out.field_id = n.field_id;
    if (n.repetition == Repetition::REPEATED && !as_element) {
      // A repeated field outside a LIST annotation: a non-null list of non-null elements.
      RAP_ASSIGN_OR_RETURN(FieldNode item, Build(p, n.max_definition_level, n.max_repetition_level, true, depth + 1));
      out.field.type = MakeList(item.field);
      out.field.nullable = false;
      out.def_level = slot_def;
      out.slot_def = slot_def;
      out.rep_level = slot_rep;
      out.columns = item.columns;
      out.children.push_back(std::move(item));
      return out;
    }
    out.slot_def = slot_def;
    out.rep_level = slot_rep;
    out.def_level = n.max_definition_level;
    out.field.nullable = !as_element && n.repetition == Repetition::OPTIONAL;
    if (n.is_leaf) {
      out.column = n.column;
      out.columns = {n.column};
      out.field.type = LeafArrowType(n);
      return out;
    }
    if (IsListAnnotated(n) && n.children.size() == 1 &&
        (*nodes_)[static_cast<size_t>(n.children[0])].repetition == Repetition::REPEATED) {
      const int r = n.children[0];
      const SchemaNode& rn = (*nodes_)[static_cast<size_t>(r)];
      const bool r_is_element = rn.is_leaf || rn.children.size() > 1 || rn.name == "array" ||
                                rn.name == n.name + "_tuple";
      FieldNode item;
      if (r_is_element) {
        RAP_ASSIGN_OR_RETURN(item, Build(r, rn.max_definition_level, rn.max_repetition_level, true, depth + 1));
      } else {
        RAP_ASSIGN_OR_RETURN(item,
                             Build(rn.children[0], rn.max_definition_level, rn.max_repetition_level, false, depth + 1));
      }
      out.field.type = MakeList(item.field);
      out.columns = item.columns;
      out.children.push_back(std::move(item));
      return out;
    }
    if (IsMapAnnotated(n) && n.children.size() == 1) {
      const int kv = n.children[0];
      const SchemaNode& kn = (*nodes_)[static_cast<size_t>(kv)];
      if (kn.repetition == Repetition::REPEATED && !kn.is_leaf && (kn.children.size() == 1 || kn.children.size() == 2)) {
        const int16_t d = kn.max_definition_level, r = kn.max_repetition_level;
        if (kn.children.size() == 1) {
          // A map without values (map_no_value.parquet) reads as the list of its keys.
          RAP_ASSIGN_OR_RETURN(FieldNode key, Build(kn.children[0], d, r, false, depth + 1));
          key.field.nullable = false;
          out.field.type = MakeList(key.field);
          out.columns = key.columns;
          out.children.push_back(std::move(key));
          return out;
        }
        RAP_ASSIGN_OR_RETURN(FieldNode key, Build(kn.children[0], d, r, false, depth + 1));
        RAP_ASSIGN_OR_RETURN(FieldNode value, Build(kn.children[1], d, r, false, depth + 1));
        // Map keys are non-null in Arrow; some writers (Presto) mark them optional anyway.
        key.field.nullable = false;
        FieldNode entries;
        entries.field.name = "entries";
        entries.field.nullable = false;
        entries.def_level = d;
        entries.slot_def = d;
        entries.rep_level = r;
        out.field.type = MakeMap(key.field, value.field, value.field.nullable);
        entries.field.type = out.field.type->children[0].type;
        entries.columns = key.columns;
        entries.columns.insert(entries.columns.end(), value.columns.begin(), value.columns.end());
        entries.children.push_back(std::move(key));
        entries.children.push_back(std::move(value));
        out.columns = entries.columns;
        out.children.push_back(std::move(entries));
        return out;
      }
    }
    // A plain group: a struct. Its children have a slot wherever the struct has one.
    std::vector<Field> fields;
    for (int c : n.children) {
      RAP_ASSIGN_OR_RETURN(FieldNode child, Build(c, slot_def, slot_rep, false, depth + 1));
      fields.push_back(child.field);
      out.columns.insert(out.columns.end(), child.columns.begin(), child.columns.end());
      out.children.push_back(std::move(child));
    }
    out.field.type = MakeStruct(std::move(fields));
    return out;
  }

 private:
  Status ParseNode(size_t* pos, int parent, int depth) {
    if (depth > kMaxSchemaDepth) {
      return Status::Corrupt(fmt::format("{} element {}: nesting deeper than {}", Where(name_), *pos, kMaxSchemaDepth));
    }
    if (*pos >= elements_.size()) {
      return Status::Corrupt(fmt::format("{}: expected element {} but the schema has only {} elements",
                                         Where(name_), *pos, elements_.size()));
    }
    const size_t my_pos = *pos;
    const SchemaElement& e = elements_[my_pos];
    ++*pos;
    SchemaNode node;
    node.name = e.name;
    node.parent = parent;
    node.converted_type = e.converted_type;
    if (e.logical_type) node.logical_type = *e.logical_type;
    node.precision = e.precision.value_or(0);
    node.scale = e.scale.value_or(0);
    node.field_id = e.field_id;
    if (parent >= 0) {
      if (!e.repetition_type) {
        return Status::Corrupt(
            fmt::format("{} element {} ('{}'): repetition_type is missing", Where(name_), my_pos, e.name));
      }
      node.repetition = *e.repetition_type;
      const SchemaNode& pn = (*nodes_)[static_cast<size_t>(parent)];
      node.max_definition_level =
          static_cast<int16_t>(pn.max_definition_level + (node.repetition != Repetition::REQUIRED ? 1 : 0));
      node.max_repetition_level =
          static_cast<int16_t>(pn.max_repetition_level + (node.repetition == Repetition::REPEATED ? 1 : 0));
    }
    const bool group = parent < 0 || IsGroupElement(e);
    const int index = static_cast<int>(nodes_->size());
    if (parent >= 0) (*nodes_)[static_cast<size_t>(parent)].children.push_back(index);
    if (!group) {
      if (!e.type) {
        return Status::Corrupt(fmt::format("{} element {} ('{}'): leaf has no physical type", Where(name_), my_pos, e.name));
      }
      node.is_leaf = true;
      node.physical_type = *e.type;
      if (node.physical_type == Type::FIXED_LEN_BYTE_ARRAY) {
        int32_t len = e.type_length.value_or(-1);
        if (len <= 0 || len > (1 << 24)) {
          return Status::Corrupt(fmt::format("{} element {} ('{}'): FIXED_LEN_BYTE_ARRAY type_length {} is not in 1..2^24",
                                             Where(name_), my_pos, e.name, len));
        }
        node.type_length = len;
      } else {
        node.type_length = e.type_length.value_or(0);
      }
      node.column = num_leaves_++;
      nodes_->push_back(std::move(node));
      return Status::OK();
    }
    const int64_t n_children = e.num_children.value_or(0);
    const int64_t remaining = static_cast<int64_t>(elements_.size() - *pos);
    if (n_children < 0 || n_children > remaining) {
      return Status::Corrupt(fmt::format("{} element {} ('{}'): num_children {} but only {} elements follow",
                                         Where(name_), my_pos, e.name, n_children, remaining));
    }
    if (n_children == 0 && parent >= 0) {
      return Status::Corrupt(fmt::format("{} element {} ('{}'): group has no children", Where(name_), my_pos, e.name));
    }
    nodes_->push_back(std::move(node));
    for (int64_t k = 0; k < n_children; ++k) RAP_RETURN_NOT_OK(ParseNode(pos, index, depth + 1));
    return Status::OK();
  }

  const std::vector<SchemaElement>& elements_;
  const std::string& name_;
  std::vector<SchemaNode>* nodes_;
  int num_leaves_ = 0;
};

void CollectField(FieldNode* f, int field_index, std::vector<ColumnDescriptor>* columns) {
  if (f->column >= 0) {
    auto& c = (*columns)[static_cast<size_t>(f->column)];
    c.field = field_index;
    c.arrow_type = f->field.type;
  }
  for (auto& ch : f->children) CollectField(&ch, field_index, columns);
}

// Rebuilds `f` keeping only the struct members with a selected leaf below; lists and maps whole.
std::optional<FieldNode> Prune(const FieldNode& f, const std::set<int>& selected) {
  bool any = false;
  for (int c : f.columns) any = any || selected.count(c) > 0;
  if (!any) return std::nullopt;
  if (f.column >= 0 || f.field.type->id != TypeId::kStruct) return f;
  FieldNode out = f;
  out.children.clear();
  out.columns.clear();
  std::vector<Field> fields;
  for (const auto& ch : f.children) {
    auto p = Prune(ch, selected);
    if (!p) continue;
    fields.push_back(p->field);
    out.columns.insert(out.columns.end(), p->columns.begin(), p->columns.end());
    out.children.push_back(std::move(*p));
  }
  auto t = std::make_shared<DataType>(*f.field.type);
  t->children = std::move(fields);
  out.field.type = t;
  return out;
}

void NodeToString(const std::vector<SchemaNode>& nodes, int i, int indent, std::string* out) {
  const SchemaNode& n = nodes[static_cast<size_t>(i)];
  static const char* kRep[] = {"required", "optional", "repeated"};
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  std::string annot;
  if (n.logical_type.kind != LogicalType::Kind::NONE) {
    annot = fmt::format(" logical={}", static_cast<int>(n.logical_type.kind));
  } else if (n.converted_type) {
    annot = fmt::format(" converted={}", static_cast<int>(*n.converted_type));
  }
  if (n.is_leaf) {
    std::string t = TypeName(n.physical_type);
    if (n.physical_type == Type::FIXED_LEN_BYTE_ARRAY) t += fmt::format("({})", n.type_length);
    *out += fmt::format("{}{} {} {}{} -> {} (def {}, rep {})\n", pad, kRep[static_cast<int>(n.repetition)], t, n.name,
                        annot, LeafArrowType(n)->ToString(), n.max_definition_level, n.max_repetition_level);
    return;
  }
  if (i == 0) {
    *out += fmt::format("message {} {{\n", n.name);
  } else {
    *out += fmt::format("{}{} group {}{} {{\n", pad, kRep[static_cast<int>(n.repetition)], n.name, annot);
  }
  for (int c : n.children) NodeToString(nodes, c, indent + 1, out);
  *out += pad + "}\n";
}

}  // namespace

Result<SchemaDescriptor> SchemaDescriptor::Make(const std::vector<SchemaElement>& elements, const std::string& name) {
  if (elements.empty()) return Status::Corrupt(Where(name) + ": the schema has no elements");
  SchemaDescriptor d;
  Builder b(elements, name, &d.nodes_);
  RAP_RETURN_NOT_OK(b.ParseTree());
  for (size_t i = 0; i < d.nodes_.size(); ++i) {
    const SchemaNode& n = d.nodes_[i];
    if (!n.is_leaf) continue;
    ColumnDescriptor c;
    c.index = n.column;
    c.node = static_cast<int>(i);
    for (int p = static_cast<int>(i); p > 0; p = d.nodes_[static_cast<size_t>(p)].parent) {
      c.path.push_back(d.nodes_[static_cast<size_t>(p)].name);
    }
    std::reverse(c.path.begin(), c.path.end());
    for (const auto& s : c.path) c.dotted_path += (c.dotted_path.empty() ? "" : ".") + s;
    c.physical_type = n.physical_type;
    c.type_length = n.type_length;
    c.max_definition_level = n.max_definition_level;
    c.max_repetition_level = n.max_repetition_level;
    c.repetition = n.repetition;
    c.converted_type = n.converted_type;
    c.logical_type = n.logical_type;
    c.precision = n.logical_type.kind == LogicalType::Kind::DECIMAL ? n.logical_type.decimal_precision : n.precision;
    c.scale = n.logical_type.kind == LogicalType::Kind::DECIMAL ? n.logical_type.decimal_scale : n.scale;
    d.columns_.push_back(std::move(c));
  }
  for (int child : d.nodes_[0].children) {
    RAP_ASSIGN_OR_RETURN(FieldNode f, b.Build(child, 0, 0, false, 0));
    CollectField(&f, static_cast<int>(d.fields_.size()), &d.columns_);
    d.fields_.push_back(std::move(f));
  }
  d.arrow_schema_ = MakeArrowSchema(d.fields_);
  return d;
}

int SchemaDescriptor::FindColumn(const std::string& dotted_path) const {
  for (const auto& c : columns_) {
    if (c.dotted_path == dotted_path) return c.index;
  }
  return -1;
}

Result<std::vector<FieldNode>> SchemaDescriptor::Project(const std::vector<std::string>& names) const {
  std::set<int> selected;
  for (const auto& name : names) {
    bool found = false;
    for (const auto& c : columns_) {
      if (c.dotted_path == name || c.dotted_path.starts_with(name + ".")) {
        selected.insert(c.index);
        found = true;
      }
    }
    if (!found) return Status::NotFound(fmt::format("column '{}' is not in the schema", name));
  }
  std::vector<FieldNode> out;
  for (const auto& f : fields_) {
    auto p = Prune(f, selected);
    if (p) out.push_back(std::move(*p));
  }
  return out;
}

std::string SchemaDescriptor::ToString() const {
  std::string out;
  NodeToString(nodes_, 0, 0, &out);
  return out;
}

SchemaPtr MakeArrowSchema(const std::vector<FieldNode>& fields) {
  auto s = std::make_shared<Schema>();
  for (const auto& f : fields) s->fields.push_back(f.field);
  return s;
}

}  // namespace rap::parquet
