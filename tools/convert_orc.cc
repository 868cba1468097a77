// `rap convert` from ORC: the file's stripes read one after another through the scan path's ORC
// reader (rap/read/orc_file_reader.h: exact stream ranges, planned reads), each cut into batches of
// at most batch_rows rows.
#include "rap/read/orc_file_reader.h"
#include "convert_input.h"

namespace rap::cli {

namespace {

class OrcSource : public BatchSource {
 public:
  OrcSource(std::shared_ptr<read::OrcFileReader> reader, int64_t batch_rows)
      : reader_(std::move(reader)), batch_rows_(batch_rows) {}
  SchemaPtr schema() const override { return reader_->arrow_schema(); }
  Result<std::optional<RecordBatch>> Next() override {
    while (pos_ >= stripe_.num_rows) {
      if (next_stripe_ >= reader_->num_stripes()) return std::optional<RecordBatch>();
      std::vector<int> all;
      for (size_t i = 0; i < reader_->arrow_schema()->fields.size(); ++i) all.push_back(static_cast<int>(i));
      RAP_ASSIGN_OR_RETURN(stripe_, reader_->ReadStripe(next_stripe_++, all));
      stripe_.schema = reader_->arrow_schema();
      pos_ = 0;
    }
    const int64_t len = std::min(batch_rows_, stripe_.num_rows - pos_);
    RecordBatch b;
    b.schema = stripe_.schema;
    b.num_rows = len;
    for (const ArrayPtr& c : stripe_.columns) b.columns.push_back(len == stripe_.num_rows ? c : SliceArray(c, pos_, len));
    pos_ += len;
    read_rows_ += len;
    return std::optional<RecordBatch>(std::move(b));
  }
  uint64_t bytes_read() const override {
    const int64_t rows = reader_->num_rows();
    return rows > 0 ? static_cast<uint64_t>(static_cast<double>(total_bytes()) * read_rows_ / rows) : 0;
  }
  uint64_t total_bytes() const override { return reader_->info().size; }

 private:
  std::shared_ptr<read::OrcFileReader> reader_;
  int64_t batch_rows_;
  size_t next_stripe_ = 0;
  RecordBatch stripe_;
  int64_t pos_ = 0, read_rows_ = 0;
};

}  // namespace

Result<std::unique_ptr<BatchSource>> OpenOrc(const std::string& url, int64_t batch_rows) {
  if (batch_rows <= 0) return Status::InvalidArgument("convert: the batch size must be positive");
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(url));
  RAP_ASSIGN_OR_RETURN(auto reader, read::OrcFileReader::Open(r.store, r.path));
  return std::unique_ptr<BatchSource>(new OrcSource(std::move(reader), batch_rows));
}

}  // namespace rap::cli
