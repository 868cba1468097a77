// `rap convert --blob KEYS`: the key columns kept, every other column of a row serialised into one
// JSON column "blob" (docs/layouts.md, "A blob column"; the encoding is rap/format/blob_column.h).
#include <algorithm>

#include <fmt/format.h>

#include "convert_input.h"
#include "rap/format/blob_column.h"

namespace rap::cli {
namespace {

class Blob : public BatchSource {
 public:
  Blob(std::unique_ptr<BatchSource> inner, std::vector<int> keys, std::vector<int> rest, SchemaPtr schema,
       parquet::BlobSpec spec)
      : inner_(std::move(inner)), keys_(std::move(keys)), rest_(std::move(rest)), schema_(std::move(schema)),
        spec_(std::move(spec)) {}
  SchemaPtr schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    RAP_ASSIGN_OR_RETURN(auto b, inner_->Next());
    if (!b) return b;
    RecordBatch out;
    out.schema = schema_;
    out.num_rows = b->num_rows;
    for (int k : keys_) out.columns.push_back(b->columns[k]);
    std::vector<ArrayPtr> folded;
    for (int i : rest_) folded.push_back(b->columns[i]);
    RAP_ASSIGN_OR_RETURN(ArrayPtr blob, parquet::EncodeBlob(spec_, folded, b->num_rows));
    out.columns.push_back(std::move(blob));
    return std::optional<RecordBatch>(std::move(out));
  }
  uint64_t bytes_read() const override { return inner_->bytes_read(); }
  uint64_t total_bytes() const override { return inner_->total_bytes(); }

 private:
  std::unique_ptr<BatchSource> inner_;
  std::vector<int> keys_, rest_;
  SchemaPtr schema_;
  parquet::BlobSpec spec_;
};

}  // namespace

Result<std::unique_ptr<BatchSource>> BlobSource(std::unique_ptr<BatchSource> inner,
                                                const std::vector<std::string>& keys, std::string* spec_json) {
  const SchemaPtr in = inner->schema();
  std::vector<int> key_idx, rest;
  auto schema = std::make_shared<Schema>();
  for (const auto& k : keys) {
    const int i = in->FieldIndex(k);
    if (i < 0) return Status::InvalidArgument("--blob '" + k + "': no such column");
    key_idx.push_back(i);
    schema->fields.push_back(in->fields[i]);
  }
  parquet::BlobSpec spec;
  for (int i = 0; i < static_cast<int>(in->fields.size()); ++i) {
    if (in->fields[i].name == spec.column) {
      return Status::InvalidArgument("--blob: the input already has a column '" + spec.column + "'");
    }
    if (std::find(key_idx.begin(), key_idx.end(), i) != key_idx.end()) continue;
    rest.push_back(i);
    RAP_RETURN_NOT_OK(parquet::CheckBlobField(in->fields[i]).WithContext("--blob"));
    spec.fields.push_back(in->fields[i]);
  }
  auto type = std::make_shared<DataType>(*MakeType(TypeId::kString));
  type->extension = "json";
  schema->fields.push_back({spec.column, type, false});
  *spec_json = parquet::BlobSpecToJson(spec);
  return std::unique_ptr<BatchSource>(
      new Blob(std::move(inner), std::move(key_idx), std::move(rest), schema, std::move(spec)));
}

}  // namespace rap::cli
