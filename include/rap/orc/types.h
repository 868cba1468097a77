// The ORC type tree (Footer.types): a flat list of nodes in pre-order, node 0 the root struct; a
// node's subtypes are the ids of its children. Mapped to rap's Arrow-layout types.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/util/result.h"

namespace rap::orc {

enum class TypeKind : uint32_t {
  kBoolean = 0,
  kByte = 1,
  kShort = 2,
  kInt = 3,
  kLong = 4,
  kFloat = 5,
  kDouble = 6,
  kString = 7,
  kBinary = 8,
  kTimestamp = 9,
  kList = 10,
  kMap = 11,
  kStruct = 12,
  kUnion = 13,
  kDecimal = 14,
  kDate = 15,
  kVarchar = 16,
  kChar = 17,
  kTimestampInstant = 18,
};

// ORC's (Hive's) names: "boolean", "tinyint", ..., "timestamp with local time zone"; "unknown(N)".
std::string TypeKindName(TypeKind kind);

// The scale of decimals written without precision (Hive 0.11); values are rescaled to it.
inline constexpr int32_t kHive11DecimalScale = 6;

struct OrcType {
  TypeKind kind = TypeKind::kStruct;
  std::vector<uint32_t> subtypes;
  std::vector<std::string> field_names;  // struct only, one per subtype
  uint32_t maximum_length = 0;           // char / varchar
  uint32_t precision = 0;                // decimal (0 in files of Hive 0.11: unknown)
  uint32_t scale = 0;
  // Type.attributes (key, value): Iceberg writes its field ids as "iceberg.id".
  std::vector<std::pair<std::string, std::string>> attributes;
};

// A validated type tree: every subtype id is larger than its parent's and every node but the root
// has exactly one parent.
struct TypeTree {
  std::vector<OrcType> nodes;

  // "struct<a:int,b:array<string>>", as ORC's Type::toString prints it.
  std::string ToString(uint32_t id = 0) const;
  // The Arrow-layout type of node `id` (decimal: decimal128(precision, scale), or (38, 6) without a precision;
  // timestamp: timestamp[ns] (writer's wall clock); timestamp with local time zone: timestamp[ns, tz=UTC];
  // char/varchar: string). Union: NotSupported.
  Result<DataTypePtr> ArrowType(uint32_t id) const;
  // The root's fields as an Arrow-layout schema.
  Result<SchemaPtr> ArrowSchema() const;
};

}  // namespace rap::orc
