// ORC row indexes and bloom filters: a stripe's ROW_INDEX stream of a column holds one entry per row
// group (`rowIndexStride` rows; the last one may be shorter) with the group's statistics and, per
// stream of the column, its position at the group's first value: for a compressed stream the
// chunk's offset in the stream and the offset in the decompressed chunk, for an uncompressed one
// the byte offset, then the values of the run-length run to step over (one count for byte and
// integer RLE, two for boolean RLE: bytes of the byte run and bits). Bloom filters (one per row
// group, rap/orc/bloom_filter.h) sit next to the row index in the stripe's index area.
//
// PlanRowGroupRead turns the positions into the byte ranges that decoding only some row groups of a
// stripe reads (OrcReader::DecodeRowGroups decodes them).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rap/orc/bloom_filter.h"
#include "rap/orc/stripe.h"
#include "rap/orc/tail.h"
#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace rap::orc {

struct RowIndexEntryInfo {
  std::vector<uint64_t> positions;
  std::optional<ColumnStats> stats;
};

// One column's row index in one stripe: one entry per row group.
struct RowIndexInfo {
  std::vector<RowIndexEntryInfo> entries;
  // The column's bloom filters, one per row group, when they were read (empty otherwise).
  std::vector<BloomFilter> bloom_filters;
};

// The ROW_INDEX streams of `columns` (sorted type ids) in `footer`, in file order.
std::vector<StreamInfo> RowIndexStreams(const StripeFooterInfo& footer, const std::vector<uint32_t>& columns);

// Parses (decompresses) a ROW_INDEX stream (`raw`, its bytes) of stripe `stripe`.
Result<RowIndexInfo> ParseRowIndex(const FileTail& tail, size_t stripe, const StreamInfo& stream, const Buffer& raw);

// One stream's part that reading row groups [first, last) of a stripe needs.
struct StreamPart {
  StreamInfo stream;             // the whole stream
  uint64_t offset = 0;           // the file bytes to fetch: [offset, offset + length), inside the stream
  uint64_t length = 0;
  uint64_t skip_bytes = 0;       // decompressed bytes before the first wanted run
  uint64_t skip_values = 0;      // values (bits of a boolean stream) of that run before the first wanted one
  bool positioned = false;       // false: the whole stream (dictionaries)
};

// The parts of the data streams of `columns` (sorted type ids, closed under children, as
// SubtreeColumns gives them) that decoding row groups [first, last) of stripe `stripe` reads, in
// file order; `indexes` holds the row index of each of `columns`. NotSupported when the row index
// cannot be used for them (no index, positions that do not match the column's streams, unions,
// Decimal64 v2): the caller reads the whole stripe instead. Corrupt for positions outside their stream.
Result<std::vector<StreamPart>> PlanRowGroupRead(const FileTail& tail, size_t stripe, const StripeFooterInfo& footer,
                                                 const std::map<uint32_t, RowIndexInfo>& indexes,
                                                 const std::vector<uint32_t>& columns, size_t first, size_t last);

// The number of row groups of stripe `stripe` (0 without a row index stride).
size_t NumRowGroups(const FileTail& tail, size_t stripe);

}  // namespace rap::orc
