// Private to src/format: a reader and a writer of the Thrift compact protocol, just the parts that
// parquet.thrift needs (structs, unions, lists, i8..i64, bool, double, binary; maps and sets are
// only skipped). Hand-written for speed and for safety on untrusted bytes; see rap/format/thrift.h.
//
// Wire format (Thrift compact protocol):
//   field header  : one byte (delta << 4 | type) when the id grows by 1..15, else the type byte
//                   followed by the id as a zigzag varint; byte 0 ends a struct.
//   bool field    : the value is the type nibble (1 = true, 2 = false), no payload.
//   i16/i32/i64   : zigzag varints; i8: one raw byte; double: 8 bytes little endian.
//   binary        : varint length, then the bytes.
//   list / set    : one byte (size << 4 | element type) when size < 15, else (0xF0 | type) and a
//                   varint size; bool elements are one byte each (1 = true).
//   map           : varint size, then (key type << 4 | value type) when size > 0.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "rap/format/thrift.h"
#include "rap/util/status.h"

namespace rap::parquet::thrift {

// Compact protocol type ids.
enum CType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

const char* CTypeName(uint8_t type);

// One field header as read: its type, id and the offset of the header byte.
struct Field {
  uint8_t type = kStop;
  int16_t id = 0;
  size_t offset = 0;
};

// Reads compact-protocol values from a byte span. Keeps a stack of named frames so that an error
// can say where it happened ("FileMetaData.row_groups[3].columns[1].meta_data: field 9 ...").
class Reader {
 public:
  static constexpr int kMaxFrames = 24;  // named (known) struct nesting; parquet.thrift needs < 10

  Reader(std::span<const uint8_t> bytes, const ThriftLimits& limits, const char* root)
      : data_(bytes.data()), size_(bytes.size()), limits_(limits) {
    frames_[0] = Frame{root, -1, 0};
    depth_ = 1;
  }

  size_t pos() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }

  // Enters a nested struct that arrives as the value of `name` (with `index` >= 0 for list items).
  Status Enter(const char* name, int64_t index = -1) {
    if (depth_ >= kMaxFrames || depth_ + skip_depth_ >= limits_.max_depth) {
      return Error(pos_, "structs nested deeper than " + std::to_string(std::min(kMaxFrames, limits_.max_depth)));
    }
    frames_[depth_++] = Frame{name, index, 0};
    return Status::OK();
  }
  void Leave() { --depth_; }

  // Reads the next field header of the current struct. *more is false at the end of the struct.
  Status NextField(Field* f, bool* more) {
    f->offset = pos_;
    if (pos_ >= size_) return Truncated("field header");
    uint8_t b = data_[pos_++];
    if (b == 0) {
      *more = false;
      return Status::OK();
    }
    *more = true;
    f->type = b & 0x0f;
    if (f->type > kStruct || f->type == kStop) {
      return Error(f->offset, "invalid field type " + std::to_string(f->type) + " in field header byte 0x" + Hex(b));
    }
    int delta = b >> 4;
    int16_t& last = frames_[depth_ - 1].last_field_id;
    if (delta != 0) {
      int id = last + delta;
      if (id > INT16_MAX) return Error(f->offset, "field id overflows i16");
      f->id = static_cast<int16_t>(id);
    } else {
      int64_t id = 0;
      RAP_RETURN_NOT_OK(ZigZag(&id, "field id"));
      if (id < INT16_MIN || id > INT16_MAX)
        return Error(f->offset, "field id " + std::to_string(id) + " overflows i16");
      f->id = static_cast<int16_t>(id);
    }
    last = f->id;
    return Status::OK();
  }

  // Typed field values: each checks the wire type against the expected one first.
  Status Bool(const Field& f, const char* name, bool* out) {
    if (f.type != kBoolTrue && f.type != kBoolFalse) return WrongType(f, name, "bool");
    *out = f.type == kBoolTrue;
    return Status::OK();
  }
  Status I8(const Field& f, const char* name, int8_t* out) {
    if (f.type != kByte) return WrongType(f, name, "i8");
    if (pos_ >= size_) return Truncated(name);
    *out = static_cast<int8_t>(data_[pos_++]);
    return Status::OK();
  }
  Status I16(const Field& f, const char* name, int16_t* out) {
    if (f.type != kI16) return WrongType(f, name, "i16");
    int64_t v = 0;
    RAP_RETURN_NOT_OK(ZigZag(&v, name));
    if (v < INT16_MIN || v > INT16_MAX)
      return Error(f.offset, FieldDesc(f, name) + ": value " + std::to_string(v) + " overflows i16");
    *out = static_cast<int16_t>(v);
    return Status::OK();
  }
  Status I32(const Field& f, const char* name, int32_t* out) {
    if (f.type != kI32) return WrongType(f, name, "i32");
    return I32Value(name, f.offset, out);
  }
  Status I64(const Field& f, const char* name, int64_t* out) {
    if (f.type != kI64) return WrongType(f, name, "i64");
    return ZigZag(out, name);
  }
  Status Double(const Field& f, const char* name, double* out) {
    if (f.type != kDouble) return WrongType(f, name, "double");
    if (remaining() < 8) return Truncated(name);
    std::memcpy(out, data_ + pos_, 8);  // little endian on every platform rap builds for
    pos_ += 8;
    return Status::OK();
  }
  Status Binary(const Field& f, const char* name, std::string* out) {
    if (f.type != kBinary) return WrongType(f, name, "binary");
    return BinaryValue(name, out);
  }
  template <typename E>
  Status Enum(const Field& f, const char* name, E* out) {
    int32_t v = 0;
    RAP_RETURN_NOT_OK(I32(f, name, &v));
    *out = static_cast<E>(v);
    return Status::OK();
  }
  // A struct-typed field: checks the type and enters a frame named `name`; call Leave() after.
  Status StructField(const Field& f, const char* name, int64_t index = -1) {
    if (f.type != kStruct) return WrongType(f, name, "struct");
    return Enter(name, index);
  }

  // A list-typed field whose elements must have type `elem` (kBoolTrue stands for bool). Checks
  // the size against the limits and the bytes left (every element takes at least one byte).
  Status ListBegin(const Field& f, const char* name, uint8_t elem, uint32_t* size) {
    if (f.type != kList) return WrongType(f, name, "list");
    size_t header_at = pos_;
    uint8_t et = 0;
    int64_t n = 0;
    RAP_RETURN_NOT_OK(CollectionHeader(name, &et, &n));
    if (n == 0) {
      *size = 0;
      return Status::OK();
    }
    bool ok = et == elem || (elem == kBoolTrue && et == kBoolFalse);
    if (!ok) {
      return Error(header_at,
                   FieldDesc(f, name) + ": expected list<" + CTypeName(elem) + ">, got list<" + CTypeName(et) + ">");
    }
    if (n > limits_.max_list_size) {
      return Error(header_at, FieldDesc(f, name) + ": list of " + std::to_string(n) +
                                  " elements exceeds the limit of " + std::to_string(limits_.max_list_size));
    }
    int64_t min_bytes = elem == kDouble ? 8 : 1;
    if (n > static_cast<int64_t>(remaining()) / min_bytes) {
      return Error(header_at, FieldDesc(f, name) + ": list of " + std::to_string(n) + " elements does not fit in the " +
                                  std::to_string(remaining()) + " bytes left");
    }
    *size = static_cast<uint32_t>(n);
    return Status::OK();
  }

  // List elements.
  Status BoolElem(bool* out) {
    if (pos_ >= size_) return Truncated("bool element");
    *out = data_[pos_++] == 1;
    return Status::OK();
  }
  Status I32Elem(const char* name, int32_t* out) { return I32Value(name, pos_, out); }
  Status I64Elem(const char* name, int64_t* out) { return ZigZag(out, name); }
  Status BinaryElem(const char* name, std::string* out) { return BinaryValue(name, out); }
  template <typename E>
  Status EnumElem(const char* name, E* out) {
    int32_t v = 0;
    RAP_RETURN_NOT_OK(I32Value(name, pos_, &v));
    *out = static_cast<E>(v);
    return Status::OK();
  }

  // Skips a value of any type (unknown fields), bounded by the nesting limit.
  Status Skip(uint8_t type);
  Status SkipField(const Field& f) { return Skip(f.type); }
  Status SkipElem(uint8_t type);  // a list/set/map element (bools take a byte there)

  // A required field was not seen in the struct that ended at the current position.
  Status Missing(int id, const char* name) {
    return Error(pos_ - 1, "required field " + std::to_string(id) + " (" + name + ") is missing");
  }
  // Checks that every (bit id, name) in `required` is in `seen` (bit i = field id i was read).
  Status Require(uint32_t seen, std::initializer_list<std::pair<int, const char*>> required) {
    for (const auto& [id, name] : required) {
      if (!(seen & (1u << id))) return Missing(id, name);
    }
    return Status::OK();
  }

  // "<path>: <what> at offset <offset>" as a Corrupt status.
  Status Error(size_t offset, const std::string& what) const;
  std::string Path() const;

 private:
  struct Frame {
    const char* name;
    int64_t index;
    int16_t last_field_id;
  };

  static std::string Hex(uint8_t b) {
    static const char* kDigits = "0123456789abcdef";
    return {kDigits[b >> 4], kDigits[b & 15]};
  }
  static std::string FieldDesc(const Field& f, const char* name) {
    return "field " + std::to_string(f.id) + " (" + name + ")";
  }
  Status WrongType(const Field& f, const char* name, const char* expected) const {
    return Error(f.offset, FieldDesc(f, name) + ": expected " + expected + ", got " + CTypeName(f.type));
  }
  Status Truncated(const char* what) const {
    return Error(pos_, std::string("unexpected end of data (") + std::to_string(size_) + " bytes) reading " + what);
  }

  Status Varint(uint64_t* out, const char* what) {
    uint64_t v = 0;
    size_t start = pos_;
    for (int shift = 0;; shift += 7) {
      if (pos_ >= size_) return Truncated(what);
      uint8_t b = data_[pos_++];
      if (shift == 63 && b > 1) return Error(start, std::string("varint of ") + what + " overflows 64 bits");
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    *out = v;
    return Status::OK();
  }
  Status ZigZag(int64_t* out, const char* what) {
    uint64_t u = 0;
    RAP_RETURN_NOT_OK(Varint(&u, what));
    *out = static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
    return Status::OK();
  }
  Status I32Value(const char* name, size_t at, int32_t* out) {
    int64_t v = 0;
    RAP_RETURN_NOT_OK(ZigZag(&v, name));
    if (v < INT32_MIN || v > INT32_MAX) {
      return Error(at, std::string(name) + ": value " + std::to_string(v) + " overflows i32");
    }
    *out = static_cast<int32_t>(v);
    return Status::OK();
  }
  Status BinaryValue(const char* name, std::string* out) {
    size_t at = pos_;
    uint64_t n = 0;
    RAP_RETURN_NOT_OK(Varint(&n, name));
    if (n > static_cast<uint64_t>(limits_.max_string_size)) {
      return Error(at, std::string(name) + ": binary of " + std::to_string(n) + " bytes exceeds the limit of " +
                           std::to_string(limits_.max_string_size) + " bytes");
    }
    if (n > remaining()) {
      return Error(at, std::string(name) + ": binary of " + std::to_string(n) + " bytes does not fit in the " +
                           std::to_string(remaining()) + " bytes left");
    }
    out->assign(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return Status::OK();
  }
  Status CollectionHeader(const char* name, uint8_t* elem, int64_t* size) {
    if (pos_ >= size_) return Truncated(name);
    uint8_t b = data_[pos_++];
    *elem = b & 0x0f;
    uint64_t n = b >> 4;
    if (n == 15) {
      RAP_RETURN_NOT_OK(Varint(&n, name));
      if (n > static_cast<uint64_t>(INT32_MAX)) {
        return Error(pos_, std::string(name) + ": collection size " + std::to_string(n) + " overflows i32");
      }
    }
    *size = static_cast<int64_t>(n);
    return Status::OK();
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  const ThriftLimits& limits_;
  std::array<Frame, kMaxFrames> frames_;
  int depth_ = 0;
  int skip_depth_ = 0;
};

// Appends compact-protocol values to a string.
class Writer {
 public:
  explicit Writer(std::string* out) : out_(out) {}

  // The outermost struct: Begin() ... End().
  void Begin() { PushStruct(); }
  void End() { PopStruct(); }

  void Bool(int16_t id, bool v) { FieldHeader(v ? kBoolTrue : kBoolFalse, id); }
  void I8(int16_t id, int8_t v) {
    FieldHeader(kByte, id);
    out_->push_back(static_cast<char>(v));
  }
  void I16(int16_t id, int16_t v) {
    FieldHeader(kI16, id);
    ZigZag(v);
  }
  void I32(int16_t id, int32_t v) {
    FieldHeader(kI32, id);
    ZigZag(v);
  }
  void I64(int16_t id, int64_t v) {
    FieldHeader(kI64, id);
    ZigZag(v);
  }
  void Double(int16_t id, double v) {
    FieldHeader(kDouble, id);
    char b[8];
    std::memcpy(b, &v, 8);
    out_->append(b, 8);
  }
  void Binary(int16_t id, std::string_view v) {
    FieldHeader(kBinary, id);
    BinaryElem(v);
  }
  template <typename E>
  void Enum(int16_t id, E v) {
    I32(id, static_cast<int32_t>(v));
  }
  // A struct-typed field: StructBegin(id) ... StructEnd().
  void StructBegin(int16_t id) {
    FieldHeader(kStruct, id);
    PushStruct();
  }
  void StructEnd() { PopStruct(); }
  // A list-typed field; then write `size` elements (StructElemBegin/End for structs).
  void ListBegin(int16_t id, uint8_t elem, size_t size) {
    FieldHeader(kList, id);
    if (size < 15) {
      out_->push_back(static_cast<char>((size << 4) | elem));
    } else {
      out_->push_back(static_cast<char>(0xf0 | elem));
      Varint(size);
    }
  }
  void StructElemBegin() { PushStruct(); }
  void StructElemEnd() { PopStruct(); }
  void BoolElem(bool v) { out_->push_back(v ? 1 : 2); }
  void I32Elem(int32_t v) { ZigZag(v); }
  void I64Elem(int64_t v) { ZigZag(v); }
  void BinaryElem(std::string_view v) {
    Varint(v.size());
    out_->append(v.data(), v.size());
  }
  // The header of a field of any type (maps and sets are never written by rap; tests use this and
  // Raw() to build them). Bool fields: kBoolTrue/kBoolFalse carry the value.
  void FieldHeader(uint8_t type, int16_t id) {
    int16_t& last = last_[depth_ - 1];
    int delta = id - last;
    if (delta > 0 && delta <= 15) {
      out_->push_back(static_cast<char>((delta << 4) | type));
    } else {
      out_->push_back(static_cast<char>(type));
      ZigZag(id);
    }
    last = id;
  }
  void Raw(std::string_view bytes) { out_->append(bytes.data(), bytes.size()); }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_->push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_->push_back(static_cast<char>(v));
  }

 private:
  static constexpr int kMaxDepth = 32;

  void PushStruct() { last_[depth_++] = 0; }
  void PopStruct() {
    out_->push_back(0);
    --depth_;
  }
  void ZigZag(int64_t v) { Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }

  std::string* out_;
  std::array<int16_t, kMaxDepth> last_{};
  int depth_ = 0;
};

// Struct codecs shared by the decoder/encoder files (thrift_decode*.cc, thrift_encode.cc).
Status ReadStatistics(Reader& r, Statistics* out);
void WriteStatistics(Writer& w, const Statistics& s);

}  // namespace rap::parquet::thrift
