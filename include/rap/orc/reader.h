// rap's ORC reader (the ORC module's main header).
//
// Debian 12 packages no Apache ORC C++ library (its `liborc` package is an unrelated compiler,
// "Oil Runtime Compiler"), so rap reads ORC itself: the tail and stripe footers are protobuf
// messages parsed by Debian's libprotobuf from a .proto written from the ORC specification
// (src/orc/orc_metadata.proto); the compression codecs are the shared ones plus Debian's liblzo2;
// the run-length encodings and column layouts are decoded here. Output is rap's Arrow-layout
// array model, so ORC files give the same RecordBatches as Parquet files. docs/orc.md lists what
// is supported.
//
// Reading is per stripe: ReadStripe decodes the selected columns of one stripe into one batch
// (batches are stripe-aligned). The reader holds the whole file's bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/orc/row_index.h"
#include "rap/orc/stripe.h"
#include "rap/orc/tail.h"
#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace rap::orc {

// The most values rap decodes from one column of one stripe at once (a stripe's rows, or a list's
// or map's children): every column of a stripe is decoded whole. More is ResourceExhausted.
inline constexpr uint64_t kMaxStripeValues = uint64_t{1} << 27;

class OrcReader {
 public:
  // Parses the tail of `file` (the whole ORC file). Union columns are refused when read, not here.
  static Result<std::unique_ptr<OrcReader>> Open(std::string name, Buffer file);

  const FileTail& tail() const { return tail_; }
  size_t num_stripes() const { return tail_.stripes.size(); }
  // The root struct's fields (a non-struct root is one column "_col0"); NotSupported for unions.
  Result<SchemaPtr> schema() const { return tail_.types.ArrowSchema(); }
  Result<StripeFooterInfo> StripeFooter(size_t stripe) const;

  // Decodes stripe `stripe`: the top-level fields `fields` (indexes into schema(); empty = all),
  // in that order.
  Result<RecordBatch> ReadStripe(size_t stripe, const std::vector<int>& fields = {}) const;
  // Every stripe, in order.
  Result<std::vector<RecordBatch>> ReadAll(const std::vector<int>& fields = {}) const;

  // Decodes stripe `stripe` of a file read by ranges: `fields` as in ReadStripe (empty = all),
  // `fetched` the bytes of every stream of DataStreams(footer, the fields' SubtreeColumns).
  static Result<RecordBatch> DecodeStripe(const FileTail& tail, size_t stripe, const StripeFooterInfo& footer,
                                          const std::vector<std::pair<StreamInfo, Buffer>>& fetched,
                                          const std::vector<int>& fields, uint64_t max_values = kMaxStripeValues);
  // Decodes row groups [first, last) of stripe `stripe` (rows first * stride to the stripe's row
  // `last * stride`, or its end) of a file read by ranges: `parts` the bytes of every part of
  // PlanRowGroupRead(..., the fields' SubtreeColumns, first, last) (parts of length 0 may be empty).
  static Result<RecordBatch> DecodeRowGroups(const FileTail& tail, size_t stripe, const StripeFooterInfo& footer,
                                             const std::vector<std::pair<StreamPart, Buffer>>& parts,
                                             const std::vector<int>& fields, size_t first, size_t last,
                                             uint64_t max_values = kMaxStripeValues);
  // The type id of top-level field `field` (the root for a non-struct root).
  static uint32_t FieldColumn(const FileTail& tail, int field);

  // Lowers (or raises) kMaxStripeValues for this reader (the fuzz targets bound their memory).
  void set_max_stripe_values(uint64_t n) { max_stripe_values_ = n; }

 private:
  OrcReader(FileTail tail, Buffer file) : tail_(std::move(tail)), file_(std::move(file)) {}
  FileTail tail_;
  Buffer file_;
  uint64_t max_stripe_values_ = kMaxStripeValues;
};

}  // namespace rap::orc
