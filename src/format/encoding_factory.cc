// MakeValueDecoder / MakeValueEncoder: which (encoding, physical type) pairs exist, and dispatch to
// the per-encoding implementations in encoding_*.cc.
#include "format/encoding_internal.h"

namespace rap::parquet {

namespace {

Status Unsupported(const char* dir, Encoding encoding, Type type) {
  return Status::NotSupported(std::string(dir) + " " + EncodingName(encoding) + " for " + TypeName(type) +
                              " values is not supported");
}

Status CheckTypeLength(Type type, int32_t type_length) {
  if (type == Type::FIXED_LEN_BYTE_ARRAY && type_length <= 0) {
    return Status::Corrupt("FIXED_LEN_BYTE_ARRAY column has invalid type_length " + std::to_string(type_length));
  }
  return Status::OK();
}

bool IsByteStreamSplitType(Type type) {
  return type == Type::FLOAT || type == Type::DOUBLE || type == Type::INT32 || type == Type::INT64 ||
         type == Type::FIXED_LEN_BYTE_ARRAY;
}

}  // namespace

Result<std::unique_ptr<ValueDecoder>> MakeValueDecoder(Encoding encoding, Type type, int32_t type_length,
                                                      std::span<const uint8_t> data, int64_t num_values) {
  RAP_RETURN_NOT_OK(CheckTypeLength(type, type_length));
  if (num_values < 0) {
    return Status::Corrupt(std::string(EncodingName(encoding)) + " " + TypeName(type) + ": negative value count " +
                           std::to_string(num_values));
  }
  switch (encoding) {
    case Encoding::PLAIN:
      return internal::MakePlainDecoder(type, type_length, data, num_values);
    case Encoding::PLAIN_DICTIONARY:
    case Encoding::RLE_DICTIONARY:
      return internal::MakeDictIndexDecoder(encoding, type, data, num_values);
    case Encoding::RLE:
      if (type == Type::BOOLEAN) return internal::MakeRleBoolDecoder(data, num_values);
      break;
    case Encoding::DELTA_BINARY_PACKED:
      if (type == Type::INT32 || type == Type::INT64) {
        return internal::MakeDeltaBinaryPackedDecoder(type, data, num_values);
      }
      break;
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
      if (type == Type::BYTE_ARRAY) return internal::MakeDeltaLengthDecoder(data, num_values);
      break;
    case Encoding::DELTA_BYTE_ARRAY:
      if (type == Type::BYTE_ARRAY || type == Type::FIXED_LEN_BYTE_ARRAY) {
        return internal::MakeDeltaByteArrayDecoder(type, type_length, data, num_values);
      }
      break;
    case Encoding::BYTE_STREAM_SPLIT:
      if (IsByteStreamSplitType(type)) return internal::MakeByteStreamSplitDecoder(type, type_length, data, num_values);
      break;
    default:
      break;
  }
  return Unsupported("decoding", encoding, type);
}

Result<std::unique_ptr<ValueEncoder>> MakeValueEncoder(Encoding encoding, Type type, int32_t type_length,
                                                      int32_t dictionary_size) {
  if (type == Type::FIXED_LEN_BYTE_ARRAY && type_length <= 0) {
    return Status::InvalidArgument("FIXED_LEN_BYTE_ARRAY encoder needs a positive type_length, got " +
                                   std::to_string(type_length));
  }
  switch (encoding) {
    case Encoding::PLAIN:
      return internal::MakePlainEncoder(type, type_length);
    case Encoding::PLAIN_DICTIONARY:
    case Encoding::RLE_DICTIONARY:
      if (dictionary_size < 0) {
        return Status::InvalidArgument("dictionary size " + std::to_string(dictionary_size) + " is negative");
      }
      return internal::MakeDictIndexEncoder(dictionary_size);
    case Encoding::RLE:
      if (type == Type::BOOLEAN) return internal::MakeRleBoolEncoder();
      break;
    case Encoding::DELTA_BINARY_PACKED:
      if (type == Type::INT32 || type == Type::INT64) return internal::MakeDeltaBinaryPackedEncoder(type);
      break;
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
      if (type == Type::BYTE_ARRAY) return internal::MakeDeltaLengthEncoder();
      break;
    case Encoding::DELTA_BYTE_ARRAY:
      if (type == Type::BYTE_ARRAY || type == Type::FIXED_LEN_BYTE_ARRAY) {
        return internal::MakeDeltaByteArrayEncoder(type, type_length);
      }
      break;
    case Encoding::BYTE_STREAM_SPLIT:
      if (IsByteStreamSplitType(type)) return internal::MakeByteStreamSplitEncoder(type, type_length);
      break;
    default:
      break;
  }
  return Unsupported("encoding", encoding, type);
}

}  // namespace rap::parquet
