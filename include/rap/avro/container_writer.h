// Writing Avro object container files (the Avro specification, "Object Container Files"): the
// header (magic, metadata map with avro.schema and avro.codec "null", a random sync marker) and one
// data block of every record. Each record is a rap/avro/value.h tree encoded by Debian's Avro C
// library against the schema (Iceberg manifests and manifest lists are written this way).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rap/avro/value.h"
#include "rap/util/result.h"

namespace rap::avro {

// The bytes of a container file of `records` under `schema_json`. Header metadata entries besides
// avro.schema and avro.codec come from `metadata` (Iceberg keeps its schema and partition spec
// there). Records are matched to the schema by field name; a union takes the null branch for a null
// value and otherwise the first branch of the value's kind (an int fits int or long). InvalidArgument
// naming the field path when a value does not fit its schema; `what` names the file in messages.
Result<std::string> WriteContainerFile(const std::string& schema_json, const std::vector<Value>& records,
                                       const std::map<std::string, std::string>& metadata, const std::string& what);

}  // namespace rap::avro
