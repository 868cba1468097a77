// Index keys (docs/index-format.md, "Keys" and "Buckets"): the key types (int32, int64, string,
// binary; one or two columns), key values, their order (integers signed, strings and binary
// unsigned bytewise, compound keys lexicographic), their text form (ParseKey / FormatKey), the
// canonical encoding and the bucket function bucket = int(first 15 hex digits of md5(canonical)) mod
// count, which SQL engines compute as well.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/util/result.h"

namespace rap::index {

enum class KeyType { kInt32, kInt64, kString, kBinary };

// "int32", "int64", "string", "binary".
const char* KeyTypeName(KeyType type);
Result<KeyType> ParseKeyTypeName(std::string_view name);
// The key type of an Arrow column type; NotSupported for any other type (names the column).
Result<KeyType> KeyTypeOf(const std::string& column, const DataType& type);
DataTypePtr ArrowTypeOf(KeyType type);
bool IsIntegerKey(KeyType type);

struct KeyColumn {
  std::string name;
  KeyType type = KeyType::kInt64;
  bool operator==(const KeyColumn&) const = default;
};

// One key column value: `i` for int32/int64, `s` (bytes) for string/binary.
struct KeyPart {
  int64_t i = 0;
  std::string s;
  bool operator==(const KeyPart&) const = default;
};

// A key value: one part per key column.
struct Key {
  std::vector<KeyPart> parts;
  bool operator==(const Key&) const = default;
};

// <0, 0, >0. Both keys must have the parts of `columns`.
int CompareKeys(const std::vector<KeyColumn>& columns, const Key& a, const Key& b);
int CompareKeyPart(KeyType type, const KeyPart& a, const KeyPart& b);

// One text per key column: integers in decimal (range-checked for int32), strings as-is, binary as
// hex digits (an even number, optional "0x" prefix). InvalidArgument names the column and the text.
Result<Key> ParseKey(const std::vector<KeyColumn>& columns, const std::vector<std::string>& parts);
// The inverse of ParseKey, parts joined by ", ".
std::string FormatKey(const std::vector<KeyColumn>& columns, const Key& key);
// The parts as text (ParseKey's input forms).
std::vector<std::string> KeyTexts(const std::vector<KeyColumn>& columns, const Key& key);

// The canonical encoding hashed by the bucket function: integers in decimal, strings as their UTF-8
// bytes, binary as lowercase hex, compound keys' parts joined with '|'.
std::string CanonicalKey(const std::vector<KeyColumn>& columns, const Key& key);
// md5 of `data` (RFC 1321), 16 bytes.
std::array<uint8_t, 16> Md5(std::string_view data);
// The top 60 bits of md5(canonical) (= the first 15 hex digits of the md5 hex text) mod `count`.
int32_t BucketOfCanonical(std::string_view canonical, int32_t count);
int32_t BucketOf(const std::vector<KeyColumn>& columns, const Key& key, int32_t count);

// The value of row `row` of a key column array (type checked by KeyTypeOf). False when NULL.
bool KeyPartAt(KeyType type, const ArrayData& array, int64_t row, KeyPart* out);
// Compares cell `row` of `array` with `part` in CompareKeyPart's order, reading the cell in place
// (no KeyPart copy: a lookup's binary search over an index page runs this about ten times per key).
// A NULL cell compares as 0 / the empty string.
int CompareKeyCell(KeyType type, const ArrayData& array, int64_t row, const KeyPart& part);

// An Arrow array of key parts of one column (no nulls).
ArrayPtr MakeKeyArray(KeyType type, const std::vector<const KeyPart*>& parts);

}  // namespace rap::index
