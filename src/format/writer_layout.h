// Internal to the writer: where the pages of one row group go in the file. Ordinary pages are
// placed column after column; framed pages (a ZSTD frame per key) get their final bodies here:
// the frames in key order, skippable frames that pad so no key crosses an alignment boundary, and
// for interleaved columns a skippable frame after each column's frame that hides the other
// columns' bytes from it (docs/layouts.md). Page headers of framed pages depend on where the next
// page of their column starts, so placement iterates until every header size is stable.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rap/format/frame_layout.h"
#include "rap/format/writer_sink.h"

#include "format/column_writer.h"

namespace rap::parquet::internal {

struct PlacedPage {
  int64_t offset = 0;  // file offset of the page header
  int64_t size = 0;    // header + body as stored (for interleaved pages: other columns' bytes included)
};

struct RowGroupLayout {
  std::vector<std::vector<PlacedPage>> pages;       // per leaf column, in ColumnChunkPages order
  std::vector<std::vector<FrameLocation>> frames;   // per leaf column (empty for unframed ones)
  std::vector<KeyRange> keys;                       // interleaved: one per key
  int64_t end = 0;                                  // file offset after the row group's bytes
  int64_t padding_bytes = 0;                        // alignment padding (skippable frames or gaps)
  int64_t skippable_frames = 0;                     // skippable frames written (padding + interleaving)
  int64_t misaligned = 0;  // keys (or frames) that fit a boundary and still cross one (0 normally)
};

struct LayoutOptions {
  int64_t align = 0;
  bool interleave = false;
};

// Places `columns` (one per leaf; framed pages get their headers finished) from file offset
// `start` and appends every byte to `sink`. `key_starts`: row-group rows where a key starts
// (sorted, first 0), needed to group interleaved frames by key.
Result<RowGroupLayout> LayOutRowGroup(std::vector<ColumnChunkPages>* columns, std::span<const int64_t> key_starts,
                                      int64_t start, const LayoutOptions& options, ByteSink* sink);

}  // namespace rap::parquet::internal
