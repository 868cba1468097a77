// Private to src/format: small helpers shared by the struct decoders (nested structs, lists).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "format/thrift_compact.h"

namespace rap::parquet::thrift {

// Struct decoders shared between the decoder files.
Status ReadSchemaElement(Reader& r, SchemaElement* e);  // thrift_decode_schema.cc
// Physical types are a closed set: anything else is a corrupt value (e.g. PARQUET-1481.parquet).
Status CheckPhysicalType(Reader& r, const Field& f, Type t);

// Optional fields whose wire type is not the expected one are skipped, as Thrift-generated readers
// do: some old writers used field ids that parquet.thrift later gave to other fields (e.g.
// dict-page-offset-zero.parquet has a list in ColumnMetaData field 15). A required field of the wrong
// type is an error ("expected i64, got binary").
inline Status Opt(Reader& r, const Field& f, const char* name, std::optional<int64_t>* out) {
  return f.type == kI64 ? r.I64(f, name, &out->emplace()) : r.SkipField(f);
}
inline Status Opt(Reader& r, const Field& f, const char* name, std::optional<int32_t>* out) {
  return f.type == kI32 ? r.I32(f, name, &out->emplace()) : r.SkipField(f);
}
inline Status Opt(Reader& r, const Field& f, const char* name, std::optional<int16_t>* out) {
  return f.type == kI16 ? r.I16(f, name, &out->emplace()) : r.SkipField(f);
}
inline Status Opt(Reader& r, const Field& f, const char* name, std::optional<std::string>* out) {
  return f.type == kBinary ? r.Binary(f, name, &out->emplace()) : r.SkipField(f);
}
inline Status Opt(Reader& r, const Field& f, const char* name, std::optional<bool>* out) {
  return f.type == kBoolTrue || f.type == kBoolFalse ? r.Bool(f, name, &out->emplace()) : r.SkipField(f);
}
template <typename E>
requires std::is_enum_v<E> Status Opt(Reader& r, const Field& f, const char* name, std::optional<E>* out) {
  return f.type == kI32 ? r.Enum(f, name, &out->emplace()) : r.SkipField(f);
}
// An optional field of any other type (lists): `read` runs only when the wire type is `type`.
template <typename Fn>
Status OptIf(Reader& r, const Field& f, uint8_t type, Fn&& read) {
  return f.type == type ? read() : r.SkipField(f);
}

// Reads a struct-typed field with `read_body` inside a frame named `name`. Struct fields are all
// optional or union members in parquet.thrift: one of another wire type is skipped (and a required
// one is then reported missing).
template <typename Fn>
Status ReadNested(Reader& r, const Field& f, const char* name, Fn&& read_body) {
  if (f.type != kStruct) return r.SkipField(f);
  RAP_RETURN_NOT_OK(r.StructField(f, name));
  RAP_RETURN_NOT_OK(read_body());
  r.Leave();
  return Status::OK();
}

// The fields of a struct whose content is not kept.
inline Status SkipStructBody(Reader& r) {
  Field f;
  bool more = false;
  while (true) {
    RAP_RETURN_NOT_OK(r.NextField(&f, &more));
    if (!more) return Status::OK();
    RAP_RETURN_NOT_OK(r.SkipField(f));
  }
}

// A list<struct> field; each element is read by `read_one(r, &element)` in a frame "name[i]".
template <typename T, typename Fn>
Status ReadStructList(Reader& r, const Field& f, const char* name, std::vector<T>* out, Fn&& read_one) {
  uint32_t n = 0;
  RAP_RETURN_NOT_OK(r.ListBegin(f, name, kStruct, &n));
  out->clear();
  // Elements are much larger in memory than their smallest encoding (one byte): reserve a bounded
  // amount up front and let real elements grow the rest.
  out->reserve(std::min<uint32_t>(n, 4096));
  for (uint32_t i = 0; i < n; ++i) {
    RAP_RETURN_NOT_OK(r.Enter(name, i));
    RAP_RETURN_NOT_OK(read_one(r, &out->emplace_back()));
    r.Leave();
  }
  return Status::OK();
}

inline Status ReadI64List(Reader& r, const Field& f, const char* name, std::vector<int64_t>* out) {
  uint32_t n = 0;
  RAP_RETURN_NOT_OK(r.ListBegin(f, name, kI64, &n));
  out->resize(n);
  for (uint32_t i = 0; i < n; ++i) RAP_RETURN_NOT_OK(r.I64Elem(name, &(*out)[i]));
  return Status::OK();
}

inline Status ReadStringList(Reader& r, const Field& f, const char* name, std::vector<std::string>* out) {
  uint32_t n = 0;
  RAP_RETURN_NOT_OK(r.ListBegin(f, name, kBinary, &n));
  out->resize(n);
  for (uint32_t i = 0; i < n; ++i) RAP_RETURN_NOT_OK(r.BinaryElem(name, &(*out)[i]));
  return Status::OK();
}

inline Status ReadBoolList(Reader& r, const Field& f, const char* name, std::vector<bool>* out) {
  uint32_t n = 0;
  RAP_RETURN_NOT_OK(r.ListBegin(f, name, kBoolTrue, &n));
  out->assign(n, false);
  for (uint32_t i = 0; i < n; ++i) {
    bool v = false;
    RAP_RETURN_NOT_OK(r.BoolElem(&v));
    (*out)[i] = v;
  }
  return Status::OK();
}

}  // namespace rap::parquet::thrift
