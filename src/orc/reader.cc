#include "rap/orc/reader.h"

#include "orc/column_decoder.h"

namespace rap::orc {

Result<std::unique_ptr<OrcReader>> OrcReader::Open(std::string name, Buffer file) {
  RAP_ASSIGN_OR_RETURN(FileTail tail, ParseTail(name, file.span()));
  return std::unique_ptr<OrcReader>(new OrcReader(std::move(tail), std::move(file)));
}

Result<StripeFooterInfo> OrcReader::StripeFooter(size_t stripe) const {
  return ParseStripeFooter(tail_, file_.span(), stripe);
}

Result<RecordBatch> OrcReader::ReadStripe(size_t stripe, const std::vector<int>& fields) const {
  const OrcType& root = tail_.types.nodes[0];
  const bool struct_root = root.kind == TypeKind::kStruct;
  const size_t num_fields = struct_root ? root.subtypes.size() : 1;
  std::vector<int> selected = fields;
  if (selected.empty()) {
    for (size_t i = 0; i < num_fields; ++i) selected.push_back(static_cast<int>(i));
  }
  for (int f : selected) {
    if (f < 0 || static_cast<size_t>(f) >= num_fields) {
      return Status::InvalidArgument(tail_.name + ": field index " + std::to_string(f) + " is not in the schema (" +
                                     std::to_string(num_fields) + " fields)");
    }
  }
  RAP_ASSIGN_OR_RETURN(StripeFooterInfo footer, StripeFooter(stripe));
  const uint64_t rows = tail_.stripes[stripe].num_rows;
  StripeContext ctx{&tail_, file_, &footer, stripe, max_stripe_values_};
  RecordBatch batch;
  auto schema = std::make_shared<Schema>();
  batch.num_rows = static_cast<int64_t>(rows);
  for (int f : selected) {
    const uint32_t column = struct_root ? root.subtypes[static_cast<size_t>(f)] : 0;
    // Only the selected fields' types are mapped: a union elsewhere in the file does not matter.
    RAP_ASSIGN_OR_RETURN(DataTypePtr type, tail_.types.ArrowType(column));
    RAP_ASSIGN_OR_RETURN(ArrayPtr array, DecodeColumn(ctx, column, rows, nullptr));
    schema->fields.push_back(Field{struct_root ? root.field_names[static_cast<size_t>(f)] : "_col0", type, true});
    batch.columns.push_back(std::move(array));
  }
  batch.schema = std::move(schema);
  return batch;
}

Result<std::vector<RecordBatch>> OrcReader::ReadAll(const std::vector<int>& fields) const {
  std::vector<RecordBatch> out;
  for (size_t i = 0; i < num_stripes(); ++i) {
    RAP_ASSIGN_OR_RETURN(RecordBatch b, ReadStripe(i, fields));
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace rap::orc
