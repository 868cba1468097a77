// A walk of the writer's schema JSON before Avro C parses it. Private to src/avro.
//
// Avro C (1.11, Debian's libavro) leaks the schemas it built so far when a named type is defined
// twice in one schema (found by tests/fuzz/iceberg_manifest_fuzz.cc: a record "a" with a field whose
// enum is also named "a"), and recurses without a bound on the JSON's nesting. So rap checks those
// two rules itself and hands Avro C only schemas that pass: every named type (record, error, enum,
// fixed) has a full name (the Avro specification's namespace rules) defined once, and the schema
// nests at most `max_depth` levels. Everything else (unknown types, bad sizes, unresolved names) is
// still Avro C's to reject.
#pragma once

#include <string>
#include <string_view>

#include "rap/util/result.h"

namespace rap::avro {

Status CheckSchemaJson(std::string_view json, int max_depth, const std::string& what);

}  // namespace rap::avro
