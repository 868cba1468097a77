// Frame-per-key layouts (docs/layouts.md): data pages whose compressed section is a concatenation of
// independent ZSTD frames, one per key, with ZSTD skippable frames for storage alignment and for
// interleaving the columns of a key. Every piece is standard: a ZSTD decoder that decompresses a
// whole page section sees frames and skippable frames (which it ignores), so any Parquet reader
// reads these files; a lookup that knows a key's frame reads and decompresses just that frame.
//
// What the writer reports per key (ParquetWriter::frame_locations(), key_ranges()), and the small
// codecs shared by the writer, the lookup path and `rap inspect`:
// - the skippable frame header (magic 0x184D2A50..0x184D2A5F, then the payload size; 8 bytes, LE);
// - the walk over a page's compressed section (ListFrames);
// - the key's levels ("aux"): how a key's nulls and list structure travel next to its frame.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rap/format/column_reader.h"
#include "rap/util/result.h"

namespace rap::parquet {

inline constexpr uint32_t kZstdFrameMagic = 0xFD2FB528;
inline constexpr uint32_t kSkippableMagicFirst = 0x184D2A50;  // ..0x184D2A5F
inline constexpr uint32_t kSkippableMagicRap = 0x184D2A5A;    // what rap writes
inline constexpr int kSkippableHeaderBytes = 8;

// One key's values of one leaf column inside one data page: an independent ZSTD frame holding the
// PLAIN encoding of the key's non-null values in that page. Offsets are file offsets.
struct FrameLocation {
  int64_t offset = 0;       // first byte of the ZSTD frame
  int64_t size = 0;         // bytes of the frame (compressed)
  int64_t first_row = 0;    // row within the row group
  int64_t num_rows = 0;     // rows of the key in this frame
  int64_t num_levels = 0;   // level entries (== rows for flat columns)
  int64_t num_values = 0;   // non-null values (what the frame decodes to)
  int64_t raw_size = 0;     // bytes the frame decompresses to
  int32_t page = 0;         // data page ordinal in the column chunk (the OffsetIndex entry)
  // The key's levels, or "" when they are all (rep 0, def max): see EncodeKeyLevels.
  std::string levels;
};

// Interleaved layout: every column's frames of one key are adjacent; [offset, offset + size) is the
// one contiguous range from the key's first frame to its last (skippable-frame headers and, where a
// page starts in the middle of a key, page headers in between).
struct KeyRange {
  int64_t offset = 0;
  int64_t size = 0;
  int64_t first_row = 0;  // row within the row group
  int64_t num_rows = 0;
};

// The 8-byte header of a skippable frame whose payload is `payload` bytes.
std::string SkippableFrameHeader(uint32_t payload);

// One element of a page's compressed section, as ListFrames finds it.
struct FrameInfo {
  bool skippable = false;
  int64_t offset = 0;  // within the section
  int64_t size = 0;    // whole frame, header included
  int64_t content_size = -1;  // ZSTD frames: the declared decompressed size (-1 when absent)
};

// Walks a compressed section made of ZSTD frames and skippable frames. Corrupt names the offset of
// the first element that is neither (or runs past the end).
Result<std::vector<FrameInfo>> ListFrames(std::span<const uint8_t> section);

// The key's levels as stored in FrameLocation::levels and the index's aux column:
//   uvarint num_levels, uvarint rep_bytes, rep levels (RLE/bit-packed hybrid, bit width of max_rep;
//   absent when max_rep == 0), def levels (RLE/bit-packed hybrid, bit width of max_def, to the end;
//   absent when max_def == 0).
// "" means num_levels == rows and every level is (0, max_def): no nulls, no lists.
std::string EncodeKeyLevels(std::span<const int16_t> rep, std::span<const int16_t> def, int16_t max_rep,
                            int16_t max_def);
struct KeyLevels {
  std::vector<int16_t> rep;  // empty when max_rep == 0
  std::vector<int16_t> def;  // empty when max_def == 0
  int64_t num_levels = 0;
};
// `num_rows` gives the level count of the "" form.
Result<KeyLevels> DecodeKeyLevels(std::string_view levels, int64_t num_rows, int16_t max_rep, int16_t max_def);

// A lookup's decode of one key's frame of `column` (the bytes [loc.offset, loc.offset + loc.size)):
// the key's rows of that leaf, values and levels, as ReadColumnChunk returns them (AssembleField
// turns them into the Arrow column). Corrupt when the frame, its levels and its location disagree.
Result<LeafColumnData> ReadKeyFrame(const ColumnDescriptor& column, std::span<const uint8_t> frame,
                                    const FrameLocation& loc, const ColumnReadOptions& options = {});

}  // namespace rap::parquet
