// Names of the Parquet enums, as spelled in parquet.thrift.
#include "rap/format/metadata.h"

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

const char* CodecName(Codec c) {
  switch (c) {
    case Codec::UNCOMPRESSED:
      return "UNCOMPRESSED";
    case Codec::SNAPPY:
      return "SNAPPY";
    case Codec::GZIP:
      return "GZIP";
    case Codec::LZO:
      return "LZO";
    case Codec::BROTLI:
      return "BROTLI";
    case Codec::LZ4:
      return "LZ4";
    case Codec::ZSTD:
      return "ZSTD";
    case Codec::LZ4_RAW:
      return "LZ4_RAW";
  }
  return "UNKNOWN_CODEC";
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

}  // namespace rap::parquet
