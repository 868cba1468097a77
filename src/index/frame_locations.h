// ZSTD frame locations (covering data of kind 1, docs/index-format.md "Frame records"), internal to
// rap::index: found in a data file at build time (FindChunkFrames), and read and decoded at lookup
// time (lookup_frames.cc). A file written with a frame per key (docs/layouts.md) holds, in every
// framed data page, one independent ZSTD frame per key; its kind-1 record names the frame's bytes
// and carries the key's levels in `aux` (rap::parquet::EncodeKeyLevels), so a lookup reads only the
// frame. Interleaved files need nothing more: a key's frames of all columns are adjacent, and the
// lookup reads them as one range (MergeFrameRanges).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rap/format/column_reader.h"
#include "rap/format/schema.h"
#include "rap/index/fragment.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "rap/read/row_selection.h"

namespace rap::index::internal {

// The frame records of one data page, or none when the page is not framed by the index's key.
struct PageFrames {
  bool framed = false;
  std::vector<Location> frames;  // sorted by first_row, tiling the page's rows (file rows)
};

// For column chunk (rg, leaf) of `reader`'s file: per OffsetIndex page, its frames when the page is
// a data page v2 (PLAIN, ZSTD) whose compressed section holds exactly one ZSTD frame per run of one
// key (`key_break(row)`: row is the first row of a new key, rows are file rows), each frame's
// decompressed size matching its run's values. Every other page is reported as not framed (its
// record is then a whole page, kind 0). Reads the chunk's pages (one planned read). `cover_index`
// and `codec` fill Location::column and ::codec. The page index must be loaded.
Result<std::vector<PageFrames>> FindChunkFrames(io::ObjectStore& store, read::FileReader& reader, int rg, int leaf,
                                                int32_t cover_index, const std::function<bool(int64_t)>& key_break);

// Lookup side. Merges the byte ranges of frame records that lie at most `gap` bytes apart
// (interleaved files: a key's frames of every column, separated by skippable-frame headers and at
// page starts by a page header and its levels, become one range; a remote store's range planner
// may merge further). Returns the merged ranges, sorted.
inline constexpr int64_t kFrameMergeGap = 512;
std::vector<ByteRange> MergeFrameRanges(std::vector<ByteRange> ranges, int64_t gap = kFrameMergeGap);

// Decodes a kind-1 record: `frame` holds exactly its bytes. Returns the Arrow column of the record's
// rows selected by `rows` (relative to the record's first row) for the flat field `node` of leaf
// `column`.
Result<ArrayPtr> DecodeFrameRecord(const parquet::FieldNode& node, const parquet::ColumnDescriptor& column,
                                   int num_leaves, const Location& record, const Buffer& frame,
                                   const read::RowSelection& rows, const parquet::ColumnReadOptions& options);

}  // namespace rap::index::internal
