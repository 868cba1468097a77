// Decoding one stripe's columns into rap's Arrow-layout arrays (rap/columnar/array.h: the only
// place of the ORC module that builds arrays, so that its move to the columnar module touches
// these files only). A column is decoded for a whole stripe at once; the streams of a column are
// decompressed once and read front to back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/orc/row_index.h"
#include "rap/orc/stripe.h"
#include "rap/orc/tail.h"
#include "rap/util/buffer.h"

#include "orc/rle.h"

namespace rap::orc {

struct StripeContext {
  const FileTail* tail = nullptr;
  Buffer file;  // the whole file; or, when `fetched` is set, unused
  const StripeFooterInfo* footer = nullptr;
  size_t stripe = 0;
  uint64_t max_values = 0;  // per column (OrcReader::set_max_stripe_values)
  // The streams' bytes fetched by range (OrcReader::DecodeStripe): a stream not in it is an error.
  const std::vector<std::pair<StreamInfo, Buffer>>* fetched = nullptr;
  // Or the parts of the streams that some row groups read (OrcReader::DecodeRowGroups): a positioned
  // part's cursor starts at the first group's position.
  const std::vector<std::pair<StreamPart, Buffer>>* parts = nullptr;

  // "f.orc: stripe 2 column 3 (string)"
  std::string Where(uint32_t column) const;
  // The decompressed stream, or nullopt when the stripe has none of that kind for the column.
  Result<std::optional<StreamCursor>> Stream(uint32_t column, StreamKind kind) const;
  // The stream, or Corrupt "<kind> stream not found" when it is missing.
  Result<StreamCursor> Required(uint32_t column, StreamKind kind, const char* reader) const;
  EncodingKind Encoding(uint32_t column) const { return footer->encodings[column].kind; }
  bool RleV2(uint32_t column) const {
    return Encoding(column) == EncodingKind::kDirectV2 || Encoding(column) == EncodingKind::kDictionaryV2;
  }
};

// Which rows of a column hold a value: `valid[i]` is 1 for a value, 0 for null; `count` values.
struct Presence {
  std::vector<uint8_t> valid;
  size_t count = 0;
  size_t size() const { return valid.size(); }
};

// Reads the column's PRESENT stream for the rows where `parent` (n bytes, or null = all) is set.
Result<Presence> ReadPresence(const StripeContext& ctx, uint32_t column, size_t n, const uint8_t* parent);

// Decodes `n` rows of column `column` (a type id); rows where `parent` is 0 are null and take no
// value from the column's streams (a struct's children skip the struct's null rows).
Result<ArrayPtr> DecodeColumn(const StripeContext& ctx, uint32_t column, size_t n, const uint8_t* parent);

// Per-kind decoders (column_strings.cc, column_temporal.cc): given the presence, return the array.
Result<ArrayPtr> DecodeStringColumn(const StripeContext& ctx, uint32_t column, const Presence& p, DataTypePtr type);
Result<ArrayPtr> DecodeDecimalColumn(const StripeContext& ctx, uint32_t column, const Presence& p, DataTypePtr type);
Result<ArrayPtr> DecodeTimestampColumn(const StripeContext& ctx, uint32_t column, const Presence& p, DataTypePtr type);

// The validity bitmap of `p` (empty when no row is null) and its null count.
void SetValidity(const Presence& p, ArrayData* out);

}  // namespace rap::orc
