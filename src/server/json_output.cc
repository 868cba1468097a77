// JSON rows and schemas (src/server/json_output.h).
#include "server/json_output.h"
#include "rap/columnar/array_format.h"

namespace rap::server {

JsonRowWriter::JsonRowWriter(const Schema& schema) {
  for (const Field& f : schema.fields) keys_.push_back(columnar::JsonQuote(f.name) + ":");
}

void JsonRowWriter::AppendRow(const RecordBatch& batch, int64_t row, std::string* out) const {
  out->push_back('{');
  for (size_t c = 0; c < batch.columns.size() && c < keys_.size(); ++c) {
    if (c) out->push_back(',');
    *out += keys_[c];
    *out += FormatJsonValue(*batch.columns[c], row);
  }
  out->push_back('}');
}

std::string SchemaJson(const Schema& schema) {
  std::string out = "[";
  out.reserve(64 * schema.fields.size() + 2);
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const Field& f = schema.fields[i];
    if (i) out += ',';
    out += "{\"name\":";
    out += columnar::JsonQuote(f.name);
    out += ",\"type\":";
    out += columnar::JsonQuote(f.type ? f.type->ToString() : "null");
    out += f.nullable ? ",\"nullable\":true}" : ",\"nullable\":false}";
  }
  out += ']';
  return out;
}

}  // namespace rap::server
