#include "rap/orc/types.h"

namespace rap::orc {

std::string TypeKindName(TypeKind kind) {
  switch (kind) {
    case TypeKind::kBoolean:
      return "boolean";
    case TypeKind::kByte:
      return "tinyint";
    case TypeKind::kShort:
      return "smallint";
    case TypeKind::kInt:
      return "int";
    case TypeKind::kLong:
      return "bigint";
    case TypeKind::kFloat:
      return "float";
    case TypeKind::kDouble:
      return "double";
    case TypeKind::kString:
      return "string";
    case TypeKind::kBinary:
      return "binary";
    case TypeKind::kTimestamp:
      return "timestamp";
    case TypeKind::kList:
      return "array";
    case TypeKind::kMap:
      return "map";
    case TypeKind::kStruct:
      return "struct";
    case TypeKind::kUnion:
      return "uniontype";
    case TypeKind::kDecimal:
      return "decimal";
    case TypeKind::kDate:
      return "date";
    case TypeKind::kVarchar:
      return "varchar";
    case TypeKind::kChar:
      return "char";
    case TypeKind::kTimestampInstant:
      return "timestamp with local time zone";
  }
  return "unknown(" + std::to_string(static_cast<uint32_t>(kind)) + ")";
}

std::string TypeTree::ToString(uint32_t id) const {
  if (id >= nodes.size()) return "?";
  const OrcType& t = nodes[id];
  std::string s = TypeKindName(t.kind);
  switch (t.kind) {
    case TypeKind::kDecimal:
      return s + "(" + std::to_string(t.precision) + "," + std::to_string(t.scale) + ")";
    case TypeKind::kVarchar:
    case TypeKind::kChar:
      return s + "(" + std::to_string(t.maximum_length) + ")";
    case TypeKind::kStruct:
    case TypeKind::kList:
    case TypeKind::kMap:
    case TypeKind::kUnion: {
      s += "<";
      for (size_t i = 0; i < t.subtypes.size(); ++i) {
        if (i) s += ",";
        if (t.kind == TypeKind::kStruct && i < t.field_names.size()) s += t.field_names[i] + ":";
        s += ToString(t.subtypes[i]);
      }
      return s + ">";
    }
    default:
      return s;
  }
}

Result<DataTypePtr> TypeTree::ArrowType(uint32_t id) const {
  if (id >= nodes.size()) return Status::Internal("ORC type id " + std::to_string(id) + " out of range");
  const OrcType& t = nodes[id];
  switch (t.kind) {
    case TypeKind::kBoolean:
      return MakeType(TypeId::kBool);
    case TypeKind::kByte:
      return MakeType(TypeId::kInt8);
    case TypeKind::kShort:
      return MakeType(TypeId::kInt16);
    case TypeKind::kInt:
      return MakeType(TypeId::kInt32);
    case TypeKind::kLong:
      return MakeType(TypeId::kInt64);
    case TypeKind::kFloat:
      return MakeType(TypeId::kFloat32);
    case TypeKind::kDouble:
      return MakeType(TypeId::kFloat64);
    case TypeKind::kString:
    case TypeKind::kVarchar:
    case TypeKind::kChar:
      return MakeType(TypeId::kString);
    case TypeKind::kBinary:
      return MakeType(TypeId::kBinary);
    case TypeKind::kTimestamp:
      return MakeTemporal(TypeId::kTimestamp, TimeUnit::kNano);
    case TypeKind::kTimestampInstant:
      return MakeTemporal(TypeId::kTimestamp, TimeUnit::kNano, "UTC");
    case TypeKind::kDate:
      return MakeTemporal(TypeId::kDate32, TimeUnit::kMilli);
    case TypeKind::kDecimal:
      // Hive 0.11 wrote decimals without precision and scale, each value with its own scale: read
      // as decimal(38, 6), as Apache ORC's readers do by default.
      if (t.precision == 0) return MakeDecimal(38, kHive11DecimalScale);
      return MakeDecimal(static_cast<int32_t>(t.precision), static_cast<int32_t>(t.scale));
    case TypeKind::kList: {
      RAP_ASSIGN_OR_RETURN(DataTypePtr item, ArrowType(t.subtypes.at(0)));
      return MakeList(Field{"item", item, true});
    }
    case TypeKind::kMap: {
      RAP_ASSIGN_OR_RETURN(DataTypePtr key, ArrowType(t.subtypes.at(0)));
      RAP_ASSIGN_OR_RETURN(DataTypePtr value, ArrowType(t.subtypes.at(1)));
      return MakeMap(Field{"key", key, false}, Field{"value", value, true});
    }
    case TypeKind::kStruct: {
      std::vector<Field> fields;
      for (size_t i = 0; i < t.subtypes.size(); ++i) {
        RAP_ASSIGN_OR_RETURN(DataTypePtr ft, ArrowType(t.subtypes[i]));
        fields.push_back(Field{t.field_names.at(i), ft, true});
      }
      return MakeStruct(std::move(fields));
    }
    case TypeKind::kUnion:
      return Status::NotSupported(
          "ORC type " + std::to_string(id) + " is " + ToString(id) +
          ": union types are not supported by rap (no Arrow-layout union in rap's array model)");
  }
  return Status::Corrupt("ORC type " + std::to_string(id) + ": unknown kind " +
                         std::to_string(static_cast<uint32_t>(t.kind)));
}

Result<SchemaPtr> TypeTree::ArrowSchema() const {
  auto schema = std::make_shared<Schema>();
  if (nodes.empty()) return schema;
  if (nodes[0].kind != TypeKind::kStruct) {  // a file whose root is not a struct: one column
    RAP_ASSIGN_OR_RETURN(DataTypePtr t, ArrowType(0));
    schema->fields.push_back(Field{"_col0", t, true});
    return schema;
  }
  const OrcType& root = nodes[0];
  for (size_t i = 0; i < root.subtypes.size(); ++i) {
    RAP_ASSIGN_OR_RETURN(DataTypePtr t, ArrowType(root.subtypes[i]));
    schema->fields.push_back(Field{root.field_names.at(i), t, true});
  }
  return schema;
}

}  // namespace rap::orc
