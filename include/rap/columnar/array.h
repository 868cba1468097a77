// In-memory columnar data in the Arrow layout (module columnar: below every file format). Decoders
// produce it, the writers consume it, and rap/columnar/arrow_c.h exports it zero-copy through the
// Arrow C Data Interface.
//
// Buffers per type follow the Arrow spec exactly:
//   null:                      (none)
//   bool:                      validity, values (bitmap, LSB first)
//   ints/floats/date/time/ts:  validity, values (little-endian, native width)
//   decimal128:                validity, values (16-byte little-endian two's complement)
//   string/binary:             validity, offsets (int32, length+1), data
//   fixed_size_binary:         validity, values (length * byte_width)
//   list/map:                  validity, offsets (int32, length+1); child 0 (map: struct<key,value>)
//   struct:                    validity; one child per field
// An empty validity Buffer means "no nulls". `offset` is the Arrow array offset (in elements).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace rap::columnar {

enum class TypeId : int32_t {
  kNull, kBool,
  kInt8, kInt16, kInt32, kInt64, kUInt8, kUInt16, kUInt32, kUInt64,
  kFloat16, kFloat32, kFloat64,
  kString, kBinary, kFixedSizeBinary, kDecimal128,
  kDate32, kTime32, kTime64, kTimestamp,
  kList, kStruct, kMap,
};

enum class TimeUnit : int32_t { kSecond, kMilli, kMicro, kNano };

// Ticks of `unit` in one second: 1, 1000, 10^6, 10^9.
int64_t UnitsPerSecond(TimeUnit unit);

struct Field;

struct DataType {
  TypeId id = TypeId::kNull;
  int32_t byte_width = 0;          // fixed_size_binary
  int32_t precision = 0;           // decimal128
  int32_t scale = 0;               // decimal128
  TimeUnit unit = TimeUnit::kMilli;// time32/time64/timestamp
  std::string timezone;            // timestamp, time32/64: "UTC" when adjusted to UTC, else empty
  std::vector<Field> children;     // list: 1 (item); map: 1 (entries struct<key,value>); struct: fields
  std::string extension;           // informational: "uuid", "json", "bson", "enum", "interval", "float16" ...

  // Width in bytes of one value for fixed-width types (bool: 0 = bitmap), else -1.
  int FixedWidth() const;
  bool IsNested() const { return id == TypeId::kList || id == TypeId::kStruct || id == TypeId::kMap; }
  bool IsBinaryLike() const { return id == TypeId::kString || id == TypeId::kBinary; }
  // e.g. "int64", "timestamp[us, tz=UTC]", "list<item: string>", "decimal128(10, 2)".
  std::string ToString() const;
};

using DataTypePtr = std::shared_ptr<const DataType>;

struct Field {
  std::string name;
  DataTypePtr type;
  bool nullable = true;
};

// Convenience constructors.
DataTypePtr MakeType(TypeId id);
DataTypePtr MakeFixedSizeBinary(int32_t width);
DataTypePtr MakeDecimal(int32_t precision, int32_t scale);
DataTypePtr MakeTemporal(TypeId id, TimeUnit unit, std::string timezone = "");
DataTypePtr MakeList(Field item);
DataTypePtr MakeStruct(std::vector<Field> fields);
DataTypePtr MakeMap(Field key, Field value, bool value_nullable = true);

struct ArrayData;
using ArrayPtr = std::shared_ptr<ArrayData>;

struct ArrayData {
  DataTypePtr type;
  int64_t length = 0;
  int64_t null_count = 0;
  int64_t offset = 0;
  std::vector<Buffer> buffers;
  std::vector<ArrayPtr> children;

  bool IsNull(int64_t i) const {
    if (type && type->id == TypeId::kNull) return true;
    if (buffers.empty() || buffers[0].empty()) return false;
    int64_t j = i + offset;
    return ((buffers[0].data()[j >> 3] >> (j & 7)) & 1) == 0;
  }
  template <typename T>
  const T* values() const {  // fixed-width values, already adjusted for `offset`
    return reinterpret_cast<const T*>(buffers[1].data()) + offset;
  }
  const int32_t* offsets() const { return reinterpret_cast<const int32_t*>(buffers[1].data()) + offset; }
};

struct Schema {
  std::vector<Field> fields;
  int FieldIndex(const std::string& name) const;  // -1 when absent
};
using SchemaPtr = std::shared_ptr<const Schema>;

struct RecordBatch {
  SchemaPtr schema;
  int64_t num_rows = 0;
  std::vector<ArrayPtr> columns;
};

// Validates buffer sizes, offsets monotonicity and children against the type (used by tests and by
// the Arrow export). Returns Corrupt naming the first problem.
Status ValidateArray(const ArrayData& array);

// A zero-copy slice [offset, offset+length) of an array (adjusts `offset`, recounts nulls lazily:
// null_count is set to -1 = unknown when the slice has a validity buffer).
ArrayPtr SliceArray(const ArrayPtr& array, int64_t offset, int64_t length);

// Concatenates arrays of identical type into one (copies).
Result<ArrayPtr> ConcatArrays(const std::vector<ArrayPtr>& arrays);

// An all-NULL column of any type (nested ones: empty lists and maps, all-NULL struct fields).
Result<ArrayPtr> MakeNullArray(const DataTypePtr& type, int64_t length);

}  // namespace rap::columnar

// The data model is used throughout rap (every module above columnar); these names stay visible in
// namespace rap so that code there reads `ArrayPtr`, not `columnar::ArrayPtr`.
namespace rap {
using columnar::ArrayData;
using columnar::ArrayPtr;
using columnar::DataType;
using columnar::DataTypePtr;
using columnar::Field;
using columnar::MakeDecimal;
using columnar::MakeFixedSizeBinary;
using columnar::MakeList;
using columnar::MakeMap;
using columnar::MakeStruct;
using columnar::MakeTemporal;
using columnar::MakeType;
using columnar::RecordBatch;
using columnar::Schema;
using columnar::SchemaPtr;
using columnar::TimeUnit;
using columnar::TypeId;
}  // namespace rap
