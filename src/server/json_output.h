// JSON output of rows and schemas for the server's responses: one JSON object per row, keyed by
// column name, values as rap's FormatJsonValue writes them (numbers bare; strings, dates and
// timestamps quoted; lists as arrays; structs and maps as objects).
#pragma once

#include <string>
#include <vector>

#include "rap/columnar/array.h"

namespace rap::server {

class JsonRowWriter {
 public:
  explicit JsonRowWriter(const Schema& schema);
  // Appends `{"a":1,"b":"x"}` for row `row` of `batch` to *out.
  void AppendRow(const RecordBatch& batch, int64_t row, std::string* out) const;

 private:
  std::vector<std::string> keys_;  // "\"name\":" per column
};

// [{"name":"id","type":"int64","nullable":false}, ...]
std::string SchemaJson(const Schema& schema);

}  // namespace rap::server
