// Arrow schema -> Parquet schema elements and writer leaf descriptions (see writer_schema.h and the
// mapping table in rap/format/writer.h).
#include <fmt/format.h>

#include "format/writer_schema.h"

namespace rap::parquet::internal {
namespace {

LogicalType IntLogical(int bits, bool is_signed) {
  LogicalType l;
  l.kind = LogicalType::Kind::INTEGER;
  l.bit_width = static_cast<int8_t>(bits);
  l.is_signed = is_signed;
  return l;
}

LogicalType TimeLogical(LogicalType::Kind kind, parquet::TimeUnit unit, bool utc) {
  LogicalType l;
  l.kind = kind;
  l.unit = unit;
  l.is_adjusted_to_utc = utc;
  return l;
}

LogicalType SimpleLogical(LogicalType::Kind kind) {
  LogicalType l;
  l.kind = kind;
  return l;
}

// Smallest number of bytes holding a two's complement decimal of `precision` digits.
int32_t DecimalBytes(int32_t precision) {
  // 10^precision - 1 < 2^(8n-1)
  long double max_value = 1;
  for (int i = 0; i < precision; ++i) max_value *= 10;
  int32_t n = 1;
  long double limit = 128;  // 2^(8*1-1)
  while (limit < max_value && n < 16) {
    ++n;
    limit *= 256;
  }
  return n;
}

void SetPhysical(SchemaElement* e, LeafColumn* leaf, Type type, std::optional<LogicalType> logical = std::nullopt,
                 std::optional<ConvertedType> converted = std::nullopt) {
  e->type = type;
  leaf->physical = type;
  if (logical) e->logical_type = *logical;
  if (converted) e->converted_type = *converted;
}

// Strings, binaries and fixed-size binaries (with their extension types).
Status FillBinaryLeaf(const DataType& t, const std::string& where, SchemaElement* e, LeafColumn* leaf) {
  using K = LogicalType::Kind;
  switch (t.id) {
    case TypeId::kString:
      if (t.extension == "json") {
        SetPhysical(e, leaf, Type::BYTE_ARRAY, SimpleLogical(K::JSON), ConvertedType::JSON);
      } else if (t.extension == "enum") {
        SetPhysical(e, leaf, Type::BYTE_ARRAY, SimpleLogical(K::ENUM), ConvertedType::ENUM);
      } else {
        SetPhysical(e, leaf, Type::BYTE_ARRAY, SimpleLogical(K::STRING), ConvertedType::UTF8);
      }
      leaf->conversion = ValueConversion::kBinary;
      break;
    case TypeId::kBinary:
      if (t.extension == "bson") {
        SetPhysical(e, leaf, Type::BYTE_ARRAY, SimpleLogical(K::BSON), ConvertedType::BSON);
      } else {
        SetPhysical(e, leaf, Type::BYTE_ARRAY);
      }
      leaf->conversion = ValueConversion::kBinary;
      break;
    case TypeId::kFixedSizeBinary:
      if (t.byte_width <= 0) return Status::InvalidArgument(where + ": fixed_size_binary width must be positive");
      if (t.extension == "uuid") {
        if (t.byte_width != 16) return Status::InvalidArgument(where + ": uuid must be fixed_size_binary[16]");
        SetPhysical(e, leaf, Type::FIXED_LEN_BYTE_ARRAY, SimpleLogical(K::UUID));
      } else if (t.extension == "interval") {
        if (t.byte_width != 12) return Status::InvalidArgument(where + ": interval must be fixed_size_binary[12]");
        SetPhysical(e, leaf, Type::FIXED_LEN_BYTE_ARRAY, std::nullopt, ConvertedType::INTERVAL);
      } else {
        SetPhysical(e, leaf, Type::FIXED_LEN_BYTE_ARRAY);
      }
      e->type_length = leaf->type_length = t.byte_width;
      break;
    default:
      return Status::Internal(where + ": not a binary type");
  }
  return Status::OK();
}

// decimal128: INT32, INT64 or FIXED_LEN_BYTE_ARRAY by precision.
Status FillDecimalLeaf(const DataType& t, const std::string& where, SchemaElement* e, LeafColumn* leaf) {
  if (t.precision < 1 || t.precision > 38 || t.scale < 0 || t.scale > t.precision) {
    return Status::InvalidArgument(fmt::format(
        "{}: decimal128({}, {}) needs 1 <= precision <= 38 and 0 <= scale <= precision", where, t.precision, t.scale));
  }
  LogicalType l;
  l.kind = LogicalType::Kind::DECIMAL;
  l.decimal_precision = t.precision;
  l.decimal_scale = t.scale;
  if (t.precision <= 9) {
    SetPhysical(e, leaf, Type::INT32, l, ConvertedType::DECIMAL);
    leaf->conversion = ValueConversion::kDecimalToInt32;
  } else if (t.precision <= 18) {
    SetPhysical(e, leaf, Type::INT64, l, ConvertedType::DECIMAL);
    leaf->conversion = ValueConversion::kDecimalToInt64;
  } else {
    SetPhysical(e, leaf, Type::FIXED_LEN_BYTE_ARRAY, l, ConvertedType::DECIMAL);
    e->type_length = leaf->type_length = DecimalBytes(t.precision);
    leaf->conversion = ValueConversion::kDecimalToFlba;
  }
  e->precision = t.precision;
  e->scale = t.scale;
  return Status::OK();
}

// time32, time64 and timestamps: the unit and isAdjustedToUTC from the type.
Status FillTemporalLeaf(const DataType& t, const std::string& where, SchemaElement* e, LeafColumn* leaf) {
  using K = LogicalType::Kind;
  switch (t.id) {
    case TypeId::kTime32:
      if (t.unit != rap::TimeUnit::kSecond && t.unit != rap::TimeUnit::kMilli) {
        return Status::InvalidArgument(where + ": time32 needs unit s or ms");
      }
      // isAdjustedToUTC from the type's time zone; the converted type TIME_MILLIS means adjusted to
      // UTC (LogicalTypes.md), so a local time has none.
      SetPhysical(e, leaf, Type::INT32, TimeLogical(K::TIME, parquet::TimeUnit::MILLIS, !t.timezone.empty()));
      if (!t.timezone.empty()) e->converted_type = ConvertedType::TIME_MILLIS;
      if (t.unit == rap::TimeUnit::kSecond) leaf->conversion = ValueConversion::kSecondsToMillis32;
      break;
    case TypeId::kTime64:
      if (t.unit == rap::TimeUnit::kMicro) {
        SetPhysical(e, leaf, Type::INT64, TimeLogical(K::TIME, parquet::TimeUnit::MICROS, !t.timezone.empty()));
        if (!t.timezone.empty()) e->converted_type = ConvertedType::TIME_MICROS;
      } else if (t.unit == rap::TimeUnit::kNano) {
        SetPhysical(e, leaf, Type::INT64, TimeLogical(K::TIME, parquet::TimeUnit::NANOS, !t.timezone.empty()));
      } else {
        return Status::InvalidArgument(where + ": time64 needs unit us or ns");
      }
      break;
    case TypeId::kTimestamp: {
      if (t.extension == "int96") {
        SetPhysical(e, leaf, Type::INT96);
        leaf->conversion = ValueConversion::kTimestampToInt96;
        leaf->source_unit = t.unit;
        break;
      }
      const bool utc = !t.timezone.empty();
      switch (t.unit) {
        case rap::TimeUnit::kSecond:
        case rap::TimeUnit::kMilli:
          SetPhysical(e, leaf, Type::INT64, TimeLogical(K::TIMESTAMP, parquet::TimeUnit::MILLIS, utc));
          if (utc) e->converted_type = ConvertedType::TIMESTAMP_MILLIS;
          if (t.unit == rap::TimeUnit::kSecond) leaf->conversion = ValueConversion::kSecondsToMillis64;
          break;
        case rap::TimeUnit::kMicro:
          SetPhysical(e, leaf, Type::INT64, TimeLogical(K::TIMESTAMP, parquet::TimeUnit::MICROS, utc));
          if (utc) e->converted_type = ConvertedType::TIMESTAMP_MICROS;
          break;
        case rap::TimeUnit::kNano:
          SetPhysical(e, leaf, Type::INT64, TimeLogical(K::TIMESTAMP, parquet::TimeUnit::NANOS, utc));
          break;
      }
      break;
    }
    default:
      return Status::Internal(where + ": not a temporal type");
  }
  return Status::OK();
}

Status FillLeaf(const DataType& t, const std::string& where, SchemaElement* e, LeafColumn* leaf) {
  using K = LogicalType::Kind;
  leaf->source_width = t.FixedWidth();
  leaf->conversion = ValueConversion::kCopy;
  switch (t.id) {
    case TypeId::kNull:
      SetPhysical(e, leaf, Type::INT32, SimpleLogical(K::UNKNOWN));
      leaf->conversion = ValueConversion::kNull;
      break;
    case TypeId::kBool:
      SetPhysical(e, leaf, Type::BOOLEAN);
      leaf->conversion = ValueConversion::kBool;
      break;
    case TypeId::kInt8:
      SetPhysical(e, leaf, Type::INT32, IntLogical(8, true), ConvertedType::INT_8);
      leaf->conversion = ValueConversion::kInt8;
      break;
    case TypeId::kInt16:
      SetPhysical(e, leaf, Type::INT32, IntLogical(16, true), ConvertedType::INT_16);
      leaf->conversion = ValueConversion::kInt16;
      break;
    case TypeId::kInt32:
      SetPhysical(e, leaf, Type::INT32);
      break;
    case TypeId::kInt64:
      SetPhysical(e, leaf, Type::INT64);
      break;
    case TypeId::kUInt8:
      SetPhysical(e, leaf, Type::INT32, IntLogical(8, false), ConvertedType::UINT_8);
      leaf->conversion = ValueConversion::kUInt8;
      break;
    case TypeId::kUInt16:
      SetPhysical(e, leaf, Type::INT32, IntLogical(16, false), ConvertedType::UINT_16);
      leaf->conversion = ValueConversion::kUInt16;
      break;
    case TypeId::kUInt32:
      SetPhysical(e, leaf, Type::INT32, IntLogical(32, false), ConvertedType::UINT_32);
      break;
    case TypeId::kUInt64:
      SetPhysical(e, leaf, Type::INT64, IntLogical(64, false), ConvertedType::UINT_64);
      break;
    case TypeId::kFloat16:
      SetPhysical(e, leaf, Type::FIXED_LEN_BYTE_ARRAY, SimpleLogical(K::FLOAT16));
      e->type_length = leaf->type_length = 2;
      break;
    case TypeId::kFloat32:
      SetPhysical(e, leaf, Type::FLOAT);
      break;
    case TypeId::kFloat64:
      SetPhysical(e, leaf, Type::DOUBLE);
      break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixedSizeBinary:
      RAP_RETURN_NOT_OK(FillBinaryLeaf(t, where, e, leaf));
      break;
    case TypeId::kDecimal128:
      RAP_RETURN_NOT_OK(FillDecimalLeaf(t, where, e, leaf));
      break;
    case TypeId::kDate32:
      SetPhysical(e, leaf, Type::INT32, SimpleLogical(K::DATE), ConvertedType::DATE);
      break;
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      RAP_RETURN_NOT_OK(FillTemporalLeaf(t, where, e, leaf));
      break;
    default:
      return Status::Internal(where + ": not a leaf type");
  }
  leaf->stats_kind = StatsKindFor(leaf->physical, e->logical_type, e->converted_type);
  return Status::OK();
}

class Mapper {
 public:
  Status MapField(const Field& f, int top, std::vector<std::string> path, std::vector<PathStep> steps, int16_t def,
                  int16_t rep) {
    if (!f.type) return Status::InvalidArgument("field '" + f.name + "' has no type");
    const DataType& t = *f.type;
    path.push_back(f.name);
    const std::string where = "column " + Join(path);
    if (f.name.empty()) return Status::InvalidArgument(where + ": field name is empty");
    SchemaElement e;
    e.name = f.name;
    e.repetition_type = f.nullable ? Repetition::OPTIONAL : Repetition::REQUIRED;
    if (t.id == TypeId::kNull && !f.nullable) {
      return Status::InvalidArgument(where + ": a null-typed column must be nullable");
    }
    const int16_t cur_def = static_cast<int16_t>(def + (f.nullable ? 1 : 0));
    PathStep step;
    step.nullable = f.nullable;
    step.def_present = cur_def;
    const size_t index = elements_.size();
    elements_.push_back(e);
    switch (t.id) {
      case TypeId::kStruct: {
        if (t.children.empty()) return Status::NotSupported(where + ": Parquet cannot store a struct without fields");
        elements_[index].num_children = static_cast<int32_t>(t.children.size());
        step.kind = PathStep::Kind::kStruct;
        for (size_t i = 0; i < t.children.size(); ++i) {
          auto s = steps;
          step.child_index = static_cast<int>(i);
          s.push_back(step);
          RAP_RETURN_NOT_OK(MapField(t.children[i], top, path, std::move(s), cur_def, rep));
        }
        return Status::OK();
      }
      case TypeId::kList:
      case TypeId::kMap: {
        const bool is_map = t.id == TypeId::kMap;
        if (t.children.size() != 1 || !t.children[0].type) {
          return Status::InvalidArgument(where + ": list/map type needs exactly one child");
        }
        elements_[index].num_children = 1;
        elements_[index].converted_type = is_map ? ConvertedType::MAP : ConvertedType::LIST;
        elements_[index].logical_type = SimpleLogical(is_map ? LogicalType::Kind::MAP : LogicalType::Kind::LIST);
        step.kind = PathStep::Kind::kList;
        step.rep_level = static_cast<int16_t>(rep + 1);
        steps.push_back(step);
        SchemaElement repeated;
        repeated.name = is_map ? "key_value" : "list";
        repeated.repetition_type = Repetition::REPEATED;
        path.push_back(repeated.name);
        const int16_t inner_def = static_cast<int16_t>(cur_def + 1);
        const int16_t inner_rep = static_cast<int16_t>(rep + 1);
        if (!is_map) {
          repeated.num_children = 1;
          elements_.push_back(repeated);
          Field item = t.children[0];
          item.name = "element";
          return MapField(item, top, std::move(path), std::move(steps), inner_def, inner_rep);
        }
        const DataType& entries = *t.children[0].type;
        if (entries.id != TypeId::kStruct || entries.children.size() != 2) {
          return Status::InvalidArgument(where + ": map entries must be struct<key, value>");
        }
        repeated.num_children = 2;
        elements_.push_back(repeated);
        for (int i = 0; i < 2; ++i) {
          Field child = entries.children[i];
          if (i == 0) {
            child.name = "key";
            child.nullable = false;  // MAP keys are REQUIRED
          } else {
            child.name = "value";
          }
          PathStep entry_step;
          entry_step.kind = PathStep::Kind::kStruct;
          entry_step.child_index = i;
          entry_step.def_present = inner_def;
          auto s = steps;
          s.push_back(entry_step);
          RAP_RETURN_NOT_OK(MapField(child, top, path, std::move(s), inner_def, inner_rep));
        }
        return Status::OK();
      }
      default: {
        LeafColumn leaf;
        RAP_RETURN_NOT_OK(FillLeaf(t, where, &elements_[index], &leaf));
        leaf.top_level = top;
        leaf.path = path;
        leaf.dotted = Join(path);
        step.kind = PathStep::Kind::kLeaf;
        steps.push_back(step);
        leaf.steps = std::move(steps);
        leaf.max_def = cur_def;
        leaf.max_rep = rep;
        leaf.leaf_type = f.type.get();
        leaf.schema_index = static_cast<int>(index);
        leaves_.push_back(std::move(leaf));
        return Status::OK();
      }
    }
  }

  static std::string Join(const std::vector<std::string>& path) {
    std::string s;
    for (const auto& p : path) {
      if (!s.empty()) s += '.';
      s += p;
    }
    return s;
  }

  std::vector<SchemaElement> elements_;
  std::vector<LeafColumn> leaves_;
};

}  // namespace

Result<WriterSchema> MapSchema(const Schema& schema) {
  if (schema.fields.empty()) return Status::InvalidArgument("schema has no columns");
  Mapper m;
  SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<int32_t>(schema.fields.size());
  m.elements_.push_back(root);
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (schema.fields[j].name == schema.fields[i].name) {
        return Status::InvalidArgument("schema: duplicate column name '" + schema.fields[i].name + "'");
      }
    }
    RAP_RETURN_NOT_OK(m.MapField(schema.fields[i], static_cast<int>(i), {}, {}, 0, 0));
  }
  WriterSchema out;
  out.elements = std::move(m.elements_);
  out.leaves = std::move(m.leaves_);
  return out;
}

}  // namespace rap::parquet::internal
