// `rap convert --blob KEYS`: the key columns kept, every other column of a row serialised into one
// JSON column "blob" (docs/layouts.md, "A blob column"; the encoding is rap/format/blob_column.h).
#include "convert_input.h"
#include "rap/format/blob_column.h"

namespace rap::cli {
namespace {

class Blob : public BatchSource {
 public:
  Blob(std::unique_ptr<BatchSource> inner, parquet::BlobLayout layout)
      : inner_(std::move(inner)), layout_(std::move(layout)) {}
  SchemaPtr schema() const override { return layout_.schema; }
  Result<std::optional<RecordBatch>> Next() override {
    RAP_ASSIGN_OR_RETURN(auto b, inner_->Next());
    if (!b) return b;
    RAP_ASSIGN_OR_RETURN(RecordBatch out, parquet::ToBlobBatch(layout_, *b));
    return std::optional<RecordBatch>(std::move(out));
  }
  uint64_t bytes_read() const override { return inner_->bytes_read(); }
  uint64_t total_bytes() const override { return inner_->total_bytes(); }

 private:
  std::unique_ptr<BatchSource> inner_;
  parquet::BlobLayout layout_;
};

}  // namespace

Result<std::unique_ptr<BatchSource>> BlobSource(std::unique_ptr<BatchSource> inner,
                                                const std::vector<std::string>& keys, std::string* spec_json) {
  auto layout = parquet::PlanBlobLayout(*inner->schema(), keys);
  if (!layout.ok()) return layout.status().WithContext("--blob");
  *spec_json = parquet::BlobSpecToJson(layout->spec);
  return std::unique_ptr<BatchSource>(new Blob(std::move(inner), std::move(*layout)));
}

}  // namespace rap::cli
