// `rap convert --blob KEYS`: the key columns kept, every other column of a row serialised into one
// JSON column "blob" (docs/layouts.md, "A blob column").
#include <algorithm>

#include <fmt/format.h>

#include "convert_input.h"

namespace rap::cli {
namespace {

class Blob : public BatchSource {
 public:
  Blob(std::unique_ptr<BatchSource> inner, std::vector<int> keys, std::vector<int> rest, SchemaPtr schema)
      : inner_(std::move(inner)), keys_(std::move(keys)), rest_(std::move(rest)), schema_(std::move(schema)) {}
  SchemaPtr schema() const override { return schema_; }
  Result<std::optional<RecordBatch>> Next() override {
    RAP_ASSIGN_OR_RETURN(auto b, inner_->Next());
    if (!b) return b;
    RecordBatch out;
    out.schema = schema_;
    out.num_rows = b->num_rows;
    for (int k : keys_) out.columns.push_back(b->columns[k]);
    const auto& in_fields = inner_->schema()->fields;
    std::string data;
    std::vector<int32_t> offsets{0};
    for (int64_t r = 0; r < b->num_rows; ++r) {
      data.push_back('{');
      for (size_t i = 0; i < rest_.size(); ++i) {
        if (i) data.push_back(',');
        data += JsonQuote(in_fields[rest_[i]].name);
        data.push_back(':');
        data += FormatJsonValue(*b->columns[rest_[i]], r);
      }
      data.push_back('}');
      if (data.size() > INT32_MAX) return Status::ResourceExhausted("--blob: a batch's JSON exceeds 2 GiB");
      offsets.push_back(static_cast<int32_t>(data.size()));
    }
    auto a = std::make_shared<ArrayData>();
    a->type = schema_->fields.back().type;
    a->length = b->num_rows;
    a->buffers.emplace_back();
    a->buffers.push_back(Buffer::Copy(offsets.data(), offsets.size() * sizeof(int32_t)));
    a->buffers.push_back(Buffer::FromString(std::move(data)));
    out.columns.push_back(std::move(a));
    return std::optional<RecordBatch>(std::move(out));
  }
  uint64_t bytes_read() const override { return inner_->bytes_read(); }
  uint64_t total_bytes() const override { return inner_->total_bytes(); }

 private:
  std::unique_ptr<BatchSource> inner_;
  std::vector<int> keys_, rest_;
  SchemaPtr schema_;
};

}  // namespace

Result<std::unique_ptr<BatchSource>> BlobSource(std::unique_ptr<BatchSource> inner,
                                                const std::vector<std::string>& keys) {
  const SchemaPtr in = inner->schema();
  std::vector<int> key_idx, rest;
  auto schema = std::make_shared<Schema>();
  for (const auto& k : keys) {
    const int i = in->FieldIndex(k);
    if (i < 0) return Status::InvalidArgument("--blob '" + k + "': no such column");
    key_idx.push_back(i);
    schema->fields.push_back(in->fields[i]);
  }
  for (int i = 0; i < static_cast<int>(in->fields.size()); ++i) {
    if (std::find(key_idx.begin(), key_idx.end(), i) == key_idx.end()) rest.push_back(i);
    if (in->fields[i].name == "blob") return Status::InvalidArgument("--blob: the input already has a column 'blob'");
  }
  auto type = std::make_shared<DataType>(*MakeType(TypeId::kString));
  type->extension = "json";
  schema->fields.push_back({"blob", type, false});
  return std::unique_ptr<BatchSource>(new Blob(std::move(inner), std::move(key_idx), std::move(rest), schema));
}

}  // namespace rap::cli
