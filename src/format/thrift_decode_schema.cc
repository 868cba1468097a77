// Decoding of the schema elements of FileMetaData (SchemaElement and the LogicalType union with its
// member structs) from the Thrift compact protocol, with the field ids of parquet.thrift.
#include <iterator>

#include "format/thrift_compact.h"
#include "format/thrift_decode_util.h"

namespace rap::parquet::thrift {

Status CheckPhysicalType(Reader& r, const Field& f, Type t) {
  if (static_cast<int32_t>(t) < 0 || t > Type::FIXED_LEN_BYTE_ARRAY) {
    return r.Error(f.offset, "field " + std::to_string(f.id) + " (type): unknown physical type " +
                                 std::to_string(static_cast<int32_t>(t)));
  }
  return Status::OK();
}

namespace {

// TimeUnit union: MILLIS(1), MICROS(2), NANOS(3), each an empty struct.
Status ReadTimeUnit(Reader& r, TimeUnit* unit) {
  Field f;
  bool more = false;
  bool known = false;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    if (f.id >= 1 && f.id <= 3 && f.type == kStruct) {
      *unit = static_cast<TimeUnit>(f.id);
      known = true;
    }
    RAP_RETURN_NOT_OK(r.SkipField(f));
  }
  if (!known) return r.Error(r.pos() - 1, "TimeUnit union has no known member (MILLIS, MICROS, NANOS)");
  return Status::OK();
}

// TimeType and TimestampType: isAdjustedToUTC(1), unit(2).
Status ReadTimeType(Reader& r, LogicalType* lt) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.Bool(f, "isAdjustedToUTC", &lt->is_adjusted_to_utc));
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.StructField(f, "unit"));
        RAP_RETURN_NOT_OK(ReadTimeUnit(r, &lt->unit));
        r.Leave();
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "isAdjustedToUTC"}, {2, "unit"}});
}

Status ReadDecimalType(Reader& r, LogicalType* lt) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.I32(f, "scale", &lt->decimal_scale));
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.I32(f, "precision", &lt->decimal_precision));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "scale"}, {2, "precision"}});
}

Status ReadIntType(Reader& r, LogicalType* lt) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(r.I8(f, "bitWidth", &lt->bit_width));
        break;
      case 2:
        RAP_RETURN_NOT_OK(r.Bool(f, "isSigned", &lt->is_signed));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{1, "bitWidth"}, {2, "isSigned"}});
}

const char* LogicalTypeMemberName(int id) {
  static const char* kNames[] = {"",     "STRING",    "MAP",     "LIST",     "ENUM",     "DECIMAL", "DATE",
                                 "TIME", "TIMESTAMP", "",        "INTEGER",  "UNKNOWN",  "JSON",    "BSON",
                                 "UUID", "FLOAT16",   "VARIANT", "GEOMETRY", "GEOGRAPHY"};
  return id >= 0 && id < static_cast<int>(std::size(kNames)) ? kNames[id] : "";
}

// LogicalType union. A member rap does not know leaves kind NONE (the caller then drops it, and
// readers fall back to the converted type, as the format asks of old readers).
Status ReadLogicalType(Reader& r, LogicalType* lt) {
  Field f;
  bool more = false;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) return Status::OK();
    if (f.type != kStruct) {  // every member is a struct; anything else is skipped like an unknown member
      RAP_RETURN_NOT_OK(r.SkipField(f));
      continue;
    }
    const char* name = LogicalTypeMemberName(f.id);
    switch (f.id) {
      case 5:
        RAP_RETURN_NOT_OK(ReadNested(r, f, name, [&] { return ReadDecimalType(r, lt); }));
        break;
      case 7:
      case 8:
        RAP_RETURN_NOT_OK(ReadNested(r, f, name, [&] { return ReadTimeType(r, lt); }));
        break;
      case 10:
        RAP_RETURN_NOT_OK(ReadNested(r, f, name, [&] { return ReadIntType(r, lt); }));
        break;
      case 1:
      case 2:
      case 3:
      case 4:
      case 6:
      case 11:
      case 12:
      case 13:
      case 14:
      case 15:
      case 16:
      case 17:
      case 18:
        // Members without fields rap uses (VARIANT's version and the geospatial CRS are not kept).
        RAP_RETURN_NOT_OK(ReadNested(r, f, name, [&] { return SkipStructBody(r); }));
        break;
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    lt->kind = static_cast<LogicalType::Kind>(f.id);
  }
}

}  // namespace

Status ReadSchemaElement(Reader& r, SchemaElement* e) {
  Field f;
  bool more = false;
  uint32_t seen = 0;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) break;
    switch (f.id) {
      case 1:
        RAP_RETURN_NOT_OK(Opt(r, f, "type", &e->type));
        if (e->type) RAP_RETURN_NOT_OK(CheckPhysicalType(r, f, *e->type));
        break;
      case 2:
        RAP_RETURN_NOT_OK(Opt(r, f, "type_length", &e->type_length));
        break;
      case 3:
        RAP_RETURN_NOT_OK(Opt(r, f, "repetition_type", &e->repetition_type));
        break;
      case 4:
        RAP_RETURN_NOT_OK(r.Binary(f, "name", &e->name));
        break;
      case 5:
        RAP_RETURN_NOT_OK(Opt(r, f, "num_children", &e->num_children));
        break;
      case 6:
        RAP_RETURN_NOT_OK(Opt(r, f, "converted_type", &e->converted_type));
        break;
      case 7:
        RAP_RETURN_NOT_OK(Opt(r, f, "scale", &e->scale));
        break;
      case 8:
        RAP_RETURN_NOT_OK(Opt(r, f, "precision", &e->precision));
        break;
      case 9:
        RAP_RETURN_NOT_OK(Opt(r, f, "field_id", &e->field_id));
        break;
      case 10: {
        LogicalType lt;
        RAP_RETURN_NOT_OK(ReadNested(r, f, "logicalType", [&] { return ReadLogicalType(r, &lt); }));
        if (lt.kind != LogicalType::Kind::NONE) {
          e->logical_type = lt;
        } else {
          e->logical_type.reset();
        }
        break;
      }
      default:
        RAP_RETURN_NOT_OK(r.SkipField(f));
        continue;
    }
    seen |= 1u << f.id;
  }
  return r.Require(seen, {{4, "name"}});
}

}  // namespace rap::parquet::thrift
