// Internal to the writer: turning the Arrow arrays of one leaf column into levels and physical
// values (ShredLeaf), and those into encoded, compressed pages of one column chunk
// (ColumnChunkWriter). The pages stay in memory as separate header/body pieces until the row group
// is laid out, so the file layout (writer.cc) decides where each page goes.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rap/format/encoding.h"
#include "rap/format/statistics.h"
#include "rap/format/writer_options.h"

#include "format/writer_schema.h"

namespace rap::parquet::internal {

// Levels and physical values of a run of whole rows of one leaf column.
struct LeafBatch {
  int64_t num_rows = 0;
  int64_t num_levels = 0;                // level entries (== rows for flat columns)
  std::vector<int16_t> def;              // empty when max_def == 0
  std::vector<int16_t> rep;              // empty when max_rep == 0
  std::vector<int64_t> row_level_start;  // num_rows + 1 entries; empty for flat columns (identity)
  std::vector<int64_t> row_value_start;  // num_rows + 1 entries: non-null values before each row
  int64_t num_values = 0;                // non-null leaf values
  // Fixed-width values (num_values * width bytes) or BYTE_ARRAY offsets (num_values + 1) + data.
  // They point into the Arrow buffers when no copy was needed, else into the owned storage below.
  const uint8_t* fixed = nullptr;
  const int32_t* offsets = nullptr;
  const uint8_t* data = nullptr;
  std::vector<uint8_t> owned_fixed;
  std::vector<int32_t> owned_offsets;
  std::vector<uint8_t> owned_data;

  int64_t LevelStart(int64_t row) const { return row_level_start.empty() ? row : row_level_start[row]; }
};

// Fills `out` from rows [row_begin, row_end) of the top-level array of `leaf`. InvalidArgument when
// a non-nullable field holds a null (naming the column and row), or a value does not fit.
Status ShredLeaf(const LeafColumn& leaf, const ArrayData& top, int64_t row_begin, int64_t row_end, LeafBatch* out);

// Frame per key: one key's values of one page as an independent ZSTD frame.
struct EncodedFrame {
  std::string bytes;       // the ZSTD frame
  int64_t first_row = 0;   // row within the row group
  int64_t num_rows = 0;
  int64_t num_levels = 0;
  int64_t num_values = 0;  // non-null values
  int64_t raw_size = 0;    // PLAIN bytes the frame decompresses to
  std::string levels;      // EncodeKeyLevels of the key's levels ("" when trivial)
};

// One page of a column chunk, encoded and compressed, waiting to be laid out.
struct EncodedPage {
  PageType type = PageType::DATA_PAGE;
  Encoding encoding = Encoding::PLAIN;
  std::string header;  // thrift PageHeader
  std::string body;    // page data as stored (compressed)
  int64_t uncompressed_body = 0;
  int64_t first_row = 0;  // row within the row group (data pages)
  int64_t num_rows = 0;
  int64_t num_levels = 0;  // num_values of the page header
  StatsAccumulator stats;  // data pages: min/max/null count of the page
  // Frame per key (data page v2): `header` and `body` stay empty until the layout places the page;
  // its body is then `levels` + the frames (with skippable frames the layout adds), and `pending`
  // gets the final compressed_page_size before it is encoded.
  std::vector<EncodedFrame> frames;
  std::string levels;  // rep + def levels (uncompressed, in front of the compressed section)
  PageHeader pending;
  bool framed() const { return !frames.empty(); }
  int64_t compressed_size() const { return static_cast<int64_t>(header.size() + body.size()); }
  int64_t uncompressed_size() const { return static_cast<int64_t>(header.size()) + uncompressed_body; }
};

// The pages of one finished column chunk, dictionary page (if any) first.
struct ColumnChunkPages {
  std::vector<EncodedPage> pages;
  StatsAccumulator stats;  // whole chunk
  int64_t num_levels = 0;
  bool fell_back = false;  // dictionary encoding was abandoned mid-chunk
};

class ColumnChunkWriter {
 public:
  // Fails when the layout's encoding or codec cannot be used for this column's physical type.
  // `framed`: a ZSTD frame per key (the layout is forced to PLAIN, no dictionary, ZSTD, page v2);
  // BOOLEAN leaves cannot be framed (InvalidArgument).
  static Result<std::unique_ptr<ColumnChunkWriter>> Make(const LeafColumn& leaf, const ColumnLayout& layout,
                                                         int data_page_version, bool page_crc, bool framed = false);
  ~ColumnChunkWriter();

  // Adds every row of `batch`. `breaks` (sorted, batch-relative) are rows that must start a page;
  // `frame_breaks` rows that must start a frame (framed writers only; a page break is one too).
  Status AddRows(const LeafBatch& batch, std::span<const int64_t> breaks, std::span<const int64_t> frame_breaks = {});
  // Uncompressed bytes buffered for the current chunk (finished pages + the open page).
  int64_t BufferedBytes() const;
  // Closes the chunk: flushes the open page, prepends the dictionary page. Resets for the next chunk.
  Result<ColumnChunkPages> Finish();

  class Impl;

 private:
  explicit ColumnChunkWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rap::parquet::internal
