// Internal to the column reader: walking page headers of a span, CRC checks, decompression,
// level decoding, and the dense physical value buffers that pages decode into.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rap/format/column_reader.h"
#include "rap/format/encoding.h"
#include "rap/format/metadata.h"
#include "rap/format/schema.h"

namespace rap::parquet::internal {

// One page as found in a span: header, absolute offset of the header, and the (compressed) body.
struct RawPage {
  PageHeader header;
  uint64_t offset = 0;
  std::span<const uint8_t> body;
};

// Reads the page header at *pos of the span, checks its sizes against the bytes available and its
// CRC (when present and enabled), and advances *pos past the body. False at the end of the span.
Result<bool> NextPage(const PageSpan& span, size_t* pos, const ColumnDescriptor& column,
                      const ColumnReadOptions& options, RawPage* page);

// Dense values of one physical type in the representation of rap/format/encoding.h.
struct PhysicalValues {
  int width = 0;                       // bytes per value; -1 for BYTE_ARRAY
  ByteVector fixed;                    // width > 0
  UninitVector<int32_t> offsets{0};    // BYTE_ARRAY
  ByteVector data;                     // BYTE_ARRAY
  int64_t count = 0;

  // Decodes n values from the decoder and appends them.
  Status Append(ValueDecoder* decoder, int64_t n);
  // Appends dict[indices[i]] for i < n; an index out of range is Corrupt.
  Status AppendGather(const PhysicalValues& dict, const int32_t* indices, int64_t n);
};

// Corrupt when an index is outside [0, dictionary_size).
Status CheckDictionaryIndices(const int32_t* indices, int64_t n, int64_t dictionary_size);

// A decoded data page: levels and the value section, ready for value decoding.
struct DataPage {
  uint64_t offset = 0;
  Encoding encoding = Encoding::PLAIN;
  int64_t num_levels = 0;
  int64_t num_non_null = 0;            // levels at the max definition level
  UninitVector<int16_t> def;           // empty when max definition level is 0
  UninitVector<int16_t> rep;           // empty when max repetition level is 0
  Buffer storage;                      // owns decompressed bytes (when the page was compressed)
  MemoryCharge level_memory;           // def + rep, charged to ColumnReadOptions::memory
  std::span<const uint8_t> values;     // the value section
  // Flat columns with max definition level 1 decoded with `lazy_flat_def`: the definition levels are
  // not materialised (`def` stays empty); def_hybrid holds their RLE/bit-packed bytes (bit width 1,
  // no length prefix) for the reader to decode or skip run by run, and num_non_null was counted
  // from them.
  bool lazy_def = false;
  std::span<const uint8_t> def_hybrid;
};

// Rows of a data page known from its header alone (flat columns, or v2 num_rows); -1 when the
// levels must be decoded to count them.
int64_t KnownPageRows(const PageHeader& header, const ColumnDescriptor& column);

// lazy_flat_def: see DataPage::lazy_def (only flat columns with max definition level 1 and RLE levels).
Status DecodeDataPage(const RawPage& raw, const ColumnDescriptor& column, Codec codec, const ColumnReadOptions& options,
                      DataPage* page, bool lazy_flat_def = false);

// Decodes a dictionary page (PLAIN or PLAIN_DICTIONARY values) into dict.
Status DecodeDictionaryPage(const RawPage& raw, const ColumnDescriptor& column, Codec codec,
                            const ColumnReadOptions& options, PhysicalValues* dict);

// "file.parquet: column 'a.b' page at offset 1234" for messages.
std::string PageContext(const ColumnReadOptions& options, const ColumnDescriptor& column, uint64_t offset);

}  // namespace rap::parquet::internal
