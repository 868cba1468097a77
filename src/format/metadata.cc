// Names of the Parquet enums, as spelled in parquet.thrift.
#include "rap/format/metadata.h"

#include <iterator>
#include <string>

namespace rap::parquet {

const char* TypeName(Type t) {
  switch (t) {
    case Type::BOOLEAN:
      return "BOOLEAN";
    case Type::INT32:
      return "INT32";
    case Type::INT64:
      return "INT64";
    case Type::INT96:
      return "INT96";
    case Type::FLOAT:
      return "FLOAT";
    case Type::DOUBLE:
      return "DOUBLE";
    case Type::BYTE_ARRAY:
      return "BYTE_ARRAY";
    case Type::FIXED_LEN_BYTE_ARRAY:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN_TYPE";
}

const char* EncodingName(Encoding e) {
  switch (e) {
    case Encoding::PLAIN:
      return "PLAIN";
    case Encoding::GROUP_VAR_INT:
      return "GROUP_VAR_INT";
    case Encoding::PLAIN_DICTIONARY:
      return "PLAIN_DICTIONARY";
    case Encoding::RLE:
      return "RLE";
    case Encoding::BIT_PACKED:
      return "BIT_PACKED";
    case Encoding::DELTA_BINARY_PACKED:
      return "DELTA_BINARY_PACKED";
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::DELTA_BYTE_ARRAY:
      return "DELTA_BYTE_ARRAY";
    case Encoding::RLE_DICTIONARY:
      return "RLE_DICTIONARY";
    case Encoding::BYTE_STREAM_SPLIT:
      return "BYTE_STREAM_SPLIT";
  }
  return "UNKNOWN_ENCODING";
}

const char* PageTypeName(PageType t) {
  switch (t) {
    case PageType::DATA_PAGE:
      return "DATA_PAGE";
    case PageType::INDEX_PAGE:
      return "INDEX_PAGE";
    case PageType::DICTIONARY_PAGE:
      return "DICTIONARY_PAGE";
    case PageType::DATA_PAGE_V2:
      return "DATA_PAGE_V2";
  }
  return "UNKNOWN_PAGE_TYPE";
}

const char* ConvertedTypeName(ConvertedType t) {
  static const char* kNames[] = {"UTF8",
                                 "MAP",
                                 "MAP_KEY_VALUE",
                                 "LIST",
                                 "ENUM",
                                 "DECIMAL",
                                 "DATE",
                                 "TIME_MILLIS",
                                 "TIME_MICROS",
                                 "TIMESTAMP_MILLIS",
                                 "TIMESTAMP_MICROS",
                                 "UINT_8",
                                 "UINT_16",
                                 "UINT_32",
                                 "UINT_64",
                                 "INT_8",
                                 "INT_16",
                                 "INT_32",
                                 "INT_64",
                                 "JSON",
                                 "BSON",
                                 "INTERVAL"};
  auto i = static_cast<int32_t>(t);
  return i >= 0 && i < static_cast<int32_t>(std::size(kNames)) ? kNames[i] : "UNKNOWN_CONVERTED_TYPE";
}

const char* RepetitionName(Repetition r) {
  switch (r) {
    case Repetition::REQUIRED:
      return "REQUIRED";
    case Repetition::OPTIONAL:
      return "OPTIONAL";
    case Repetition::REPEATED:
      return "REPEATED";
  }
  return "UNKNOWN_REPETITION";
}

const char* BoundaryOrderName(BoundaryOrder o) {
  switch (o) {
    case BoundaryOrder::UNORDERED:
      return "UNORDERED";
    case BoundaryOrder::ASCENDING:
      return "ASCENDING";
    case BoundaryOrder::DESCENDING:
      return "DESCENDING";
  }
  return "UNKNOWN_BOUNDARY_ORDER";
}

std::string LogicalTypeToString(const LogicalType& t) {
  using K = LogicalType::Kind;
  auto unit = [&] {
    switch (t.unit) {
      case TimeUnit::MILLIS:
        return "MILLIS";
      case TimeUnit::MICROS:
        return "MICROS";
      case TimeUnit::NANOS:
        return "NANOS";
    }
    return "UNKNOWN_UNIT";
  };
  switch (t.kind) {
    case K::NONE:
      return "NONE";
    case K::STRING:
      return "STRING";
    case K::MAP:
      return "MAP";
    case K::LIST:
      return "LIST";
    case K::ENUM:
      return "ENUM";
    case K::DECIMAL:
      return "DECIMAL(" + std::to_string(t.decimal_precision) + "," + std::to_string(t.decimal_scale) + ")";
    case K::DATE:
      return "DATE";
    case K::TIME:
    case K::TIMESTAMP:
      return std::string(t.kind == K::TIME ? "TIME(" : "TIMESTAMP(") + unit() + "," +
             (t.is_adjusted_to_utc ? "UTC" : "local") + ")";
    case K::INTEGER:
      return "INTEGER(" + std::to_string(t.bit_width) + "," + (t.is_signed ? "signed" : "unsigned") + ")";
    case K::UNKNOWN:
      return "UNKNOWN";
    case K::JSON:
      return "JSON";
    case K::BSON:
      return "BSON";
    case K::UUID:
      return "UUID";
    case K::FLOAT16:
      return "FLOAT16";
    case K::VARIANT:
      return "VARIANT";
    case K::GEOMETRY:
      return "GEOMETRY";
    case K::GEOGRAPHY:
      return "GEOGRAPHY";
  }
  return "LOGICAL_TYPE_" + std::to_string(static_cast<int32_t>(t.kind));
}

}  // namespace rap::parquet
