// Reading one column chunk from its bytes (pure, no I/O): page headers, CRC, decompression, levels,
// value decoding and dictionaries, for exactly the selected rows; and the assembly of Arrow arrays
// (flat, or nested list/struct/map from repetition/definition levels) from the decoded leaves.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/format/dictionary_cache.h"
#include "rap/format/metadata.h"
#include "rap/format/schema.h"
#include "rap/util/buffer.h"
#include "rap/util/memory_budget.h"
#include "rap/util/result.h"

namespace rap::parquet {

// Rows [begin, end), relative to the start of the row group.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
  bool operator==(const RowRange&) const = default;
};

// Consecutive pages (each: page header + page body) of one column chunk, as read from the file.
struct PageSpan {
  Buffer bytes;
  uint64_t file_offset = 0;  // absolute offset of bytes[0], for error messages
  int64_t first_row = 0;     // row (within the row group) where the first data page of the span starts
};

struct ColumnChunkInput {
  // The dictionary page when it was read separately (header + body); may be empty. A dictionary page
  // found at the start of a span is used as well.
  PageSpan dictionary;
  std::vector<PageSpan> spans;  // in file order
  int64_t num_rows = 0;         // rows in the row group
  // The chunk's dictionary already decoded (from a DictionaryCache), when its page was not read:
  // then `dictionary` is empty and a dictionary page met in a span is not decoded again.
  DictionaryCache::Value decoded_dictionary;
};

class PageShare;

struct ColumnReadOptions {
  bool verify_crc = true;                       // check the page CRC when the header has one
  int64_t max_page_bytes = int64_t{1} << 30;    // decompressed page size (and level memory) limit
  std::string file_name;                        // for error messages
  // Flat, dictionary-encoded columns: return the dictionary and the codes of the selected values
  // (LeafColumnData::dictionary / dictionary_codes) instead of the values, so a filter can be
  // evaluated once per dictionary entry. NotSupported for a nested column, a chunk without a
  // dictionary page, or at the first page with values that is not dictionary-encoded.
  bool dictionary_codes = false;
  // The scan's memory budget (rap/util/memory_budget.h), or null: every decompressed page buffer and
  // level array is charged to it while it lives (never waiting), and a page, level array or
  // dictionary larger than the whole budget is ResourceExhausted before it is allocated.
  MemoryBudget* memory = nullptr;
  // Pages decoded once for several readers of the same column chunk (see PageShare); may be null.
  std::shared_ptr<PageShare> page_share;
  // Decoded dictionaries kept across reads, or null: a dictionary page is looked up by
  // (dictionary_file, page offset) before it is decoded, and put there after.
  DictionaryCache* dictionary_cache = nullptr;
  std::string dictionary_file;  // the file's identity (path, size, ETag) in dictionary_cache
};

// Decoded pages shared by several readers of one row group: the read ranges of a split row group
// (rap/read/read_range.h), where a data page of one column may hold rows of two ranges and every
// range needs the chunk's dictionary page. Declared up front by the file offset of the page header.
// The first reader to load a declared page decodes it (CRC, decompression, levels; a dictionary
// page's values) and keeps it here; a reader arriving while it is being decoded waits for it
// (decoding is CPU work with no I/O, so the wait is short and never depends on another reader's
// progress); later readers take the decoded page. Values of a shared data page are materialised by
// the reader whose rows they are; the others step over them with ValueDecoder::Skip. Release()
// drops a page (its last reader is done); a released page, or a failed decode, is decoded by the
// next reader on its own.
class PageShare {
 public:
  struct Counts {
    int64_t decoded = 0;  // declared pages decoded and kept here
    int64_t taken = 0;    // loads answered with an already decoded page
  };
  explicit PageShare(const std::vector<uint64_t>& offsets);
  ~PageShare();
  bool Shares(uint64_t offset) const;
  void Release(uint64_t offset);
  Counts counts() const;
  size_t held() const;  // pages decoded and not released

  struct Impl;  // column_reader.cc
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Counters of one column chunk read (for tests and the read statistics).
struct ColumnChunkStats {
  int64_t data_pages_read = 0;      // data pages whose levels/values were decoded
  int64_t data_pages_skipped = 0;   // data pages in the spans that held no selected row
  int64_t dictionary_pages = 0;
  int64_t data_pages_shared = 0;        // data pages taken decoded from ColumnReadOptions::page_share
  int64_t dictionary_pages_shared = 0;  // dictionary pages taken decoded from it
  int64_t dictionary_pages_cached = 0;  // dictionaries taken from ColumnReadOptions::dictionary_cache
  int64_t values_decoded = 0;
  int64_t values_skipped = 0;       // values stepped over with ValueDecoder::Skip
  std::vector<int64_t> page_first_rows;  // first row of every data page decoded, in order
};

// The selected rows of one leaf column: levels (only when the max level is > 0) and the dense
// non-null values, already converted to the leaf's Arrow type (no nulls, no gaps). For a flat
// column (max repetition level 0) def_levels is also left empty when every selected level is at the
// max definition level (no nulls in the window): then each of the num_levels rows holds a value.
struct LeafColumnData {
  int64_t num_rows = 0;
  int64_t num_levels = 0;
  std::vector<int16_t> def_levels;
  std::vector<int16_t> rep_levels;
  ArrayPtr values;
  // With ColumnReadOptions::dictionary_codes (then `values` is null): the chunk's dictionary in the
  // leaf's Arrow type, and per non-null selected value its index in the dictionary (checked in range).
  ArrayPtr dictionary;
  std::vector<int32_t> dictionary_codes;
};

// Reads the selected rows (sorted, disjoint, within [0, num_rows)) of one column chunk. Pages that
// hold no selected row are not decompressed where their row count is known from the header; values
// of unselected rows inside a page are skipped with ValueDecoder::Skip.
Result<LeafColumnData> ReadColumnChunk(const ColumnDescriptor& column, Codec codec, const ColumnChunkInput& input,
                                       const std::vector<RowRange>& selection, const ColumnReadOptions& options,
                                       ColumnChunkStats* stats = nullptr);

// Part of the message of the ResourceExhausted error raised when the string/binary values of one read
// outgrow 32-bit Arrow offsets (a reader can retry with fewer rows; see FileReader's batches).
inline constexpr const char* kOffsetOverflowMessage = "exceed the 2 GiB limit of int32 offsets";

// Reads the selected rows of one column chunk in row windows, decoding every page once: each
// Next(end_row) returns the selected rows before `end_row` (row-group relative) that earlier calls
// did not return, so memory follows the window, not the row group. A page that spans two windows is
// kept between calls. `column` must outlive the reader; the input and selection are copied.
class ColumnChunkReader {
 public:
  static Result<std::unique_ptr<ColumnChunkReader>> Make(const ColumnDescriptor& column, Codec codec,
                                                         ColumnChunkInput input, std::vector<RowRange> selection,
                                                         ColumnReadOptions options);
  virtual ~ColumnChunkReader() = default;
  // end_row must not decrease between calls; INT64_MAX reads to the end of the chunk. A window
  // whose pages hold fewer rows than it selects is Corrupt.
  virtual Result<LeafColumnData> Next(int64_t end_row, ColumnChunkStats* stats = nullptr) = 0;
};

// Builds the Arrow array of one (possibly pruned) top-level field from its leaves' data.
// `leaves[c]` is the data of column index c (entries of other columns may be null). `num_rows` is the
// expected length; a mismatch between the leaves' level structures is Corrupt.
Result<ArrayPtr> AssembleField(const FieldNode& field, const std::vector<const LeafColumnData*>& leaves,
                               int64_t num_rows);

}  // namespace rap::parquet
