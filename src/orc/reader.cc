#include "rap/orc/reader.h"

#include <algorithm>

#include "orc/column_decoder.h"

namespace rap::orc {

Result<std::unique_ptr<OrcReader>> OrcReader::Open(std::string name, Buffer file) {
  RAP_ASSIGN_OR_RETURN(FileTail tail, ParseTail(name, file.span()));
  return std::unique_ptr<OrcReader>(new OrcReader(std::move(tail), std::move(file)));
}

Result<StripeFooterInfo> OrcReader::StripeFooter(size_t stripe) const {
  return ParseStripeFooter(tail_, file_.span(), stripe);
}

namespace {

Result<RecordBatch> Decode(const StripeContext& ctx, const std::vector<int>& fields, uint64_t rows) {
  const FileTail& tail = *ctx.tail;
  const OrcType& root = tail.types.nodes[0];
  const bool struct_root = root.kind == TypeKind::kStruct;
  const size_t num_fields = struct_root ? root.subtypes.size() : 1;
  std::vector<int> selected = fields;
  if (selected.empty()) {
    for (size_t i = 0; i < num_fields; ++i) selected.push_back(static_cast<int>(i));
  }
  for (int f : selected) {
    if (f < 0 || static_cast<size_t>(f) >= num_fields) {
      return Status::InvalidArgument(tail.name + ": field index " + std::to_string(f) + " is not in the schema (" +
                                     std::to_string(num_fields) + " fields)");
    }
  }
  RecordBatch batch;
  auto schema = std::make_shared<Schema>();
  batch.num_rows = static_cast<int64_t>(rows);
  for (int f : selected) {
    const uint32_t column = OrcReader::FieldColumn(tail, f);
    // Only the selected fields' types are mapped: a union elsewhere in the file does not matter.
    RAP_ASSIGN_OR_RETURN(DataTypePtr type, tail.types.ArrowType(column));
    RAP_ASSIGN_OR_RETURN(ArrayPtr array, DecodeColumn(ctx, column, rows, nullptr));
    schema->fields.push_back(Field{struct_root ? root.field_names[static_cast<size_t>(f)] : "_col0", type, true});
    batch.columns.push_back(std::move(array));
  }
  batch.schema = std::move(schema);
  return batch;
}

}  // namespace

uint32_t OrcReader::FieldColumn(const FileTail& tail, int field) {
  const OrcType& root = tail.types.nodes[0];
  return root.kind == TypeKind::kStruct ? root.subtypes[static_cast<size_t>(field)] : 0;
}

Result<RecordBatch> OrcReader::ReadStripe(size_t stripe, const std::vector<int>& fields) const {
  RAP_ASSIGN_OR_RETURN(StripeFooterInfo footer, StripeFooter(stripe));
  StripeContext ctx{&tail_, file_, &footer, stripe, max_stripe_values_};
  return Decode(ctx, fields, tail_.stripes[stripe].num_rows);
}

Result<RecordBatch> OrcReader::DecodeStripe(const FileTail& tail, size_t stripe, const StripeFooterInfo& footer,
                                            const std::vector<std::pair<StreamInfo, Buffer>>& fetched,
                                            const std::vector<int>& fields, uint64_t max_values) {
  if (stripe >= tail.stripes.size()) {
    return Status::InvalidArgument(tail.name + ": stripe " + std::to_string(stripe) + " does not exist");
  }
  StripeContext ctx{&tail, Buffer(), &footer, stripe, max_values};
  ctx.fetched = &fetched;
  return Decode(ctx, fields, tail.stripes[stripe].num_rows);
}

Result<RecordBatch> OrcReader::DecodeRowGroups(const FileTail& tail, size_t stripe, const StripeFooterInfo& footer,
                                               const std::vector<std::pair<StreamPart, Buffer>>& parts,
                                               const std::vector<int>& fields, size_t first, size_t last,
                                               uint64_t max_values) {
  const size_t groups = NumRowGroups(tail, stripe);
  if (first >= last || last > groups) {
    return Status::InvalidArgument(tail.name + ": stripe " + std::to_string(stripe) + ": row groups [" +
                                   std::to_string(first) + ", " + std::to_string(last) + ") of " +
                                   std::to_string(groups));
  }
  const uint64_t stride = tail.row_index_stride;
  const uint64_t rows = std::min<uint64_t>(tail.stripes[stripe].num_rows, last * stride) - first * stride;
  StripeContext ctx{&tail, Buffer(), &footer, stripe, max_values};
  ctx.parts = &parts;
  return Decode(ctx, fields, rows);
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
