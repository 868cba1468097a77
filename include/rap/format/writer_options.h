// Layout controls of the Parquet writer (rap/format/writer.h): row group and page sizes, forced
// page breaks on key changes, value encodings, dictionary limits, codecs, data page version,
// statistics, page index, page CRC and key-value metadata. Settable per file and per column.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rap/format/metadata.h"
#include "rap/util/result.h"

namespace rap::parquet {

inline constexpr const char* kRapCreatedBy = "rap version 0.1.0";

// How one leaf column is written. Every field has a file-wide default (WriterOptions::defaults).
struct ColumnLayout {
  // Dictionary encoding first (RLE_DICTIONARY data pages + a PLAIN dictionary page); when the
  // dictionary grows past dictionary_max_bytes or dictionary_max_entries the chunk falls back to
  // `encoding` for the rest of the column chunk.
  bool dictionary = true;
  int64_t dictionary_max_bytes = 1 << 20;
  int64_t dictionary_max_entries = 1 << 20;
  // Value encoding without (or after falling back from) a dictionary: PLAIN, DELTA_BINARY_PACKED,
  // DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY or BYTE_STREAM_SPLIT.
  Encoding encoding = Encoding::PLAIN;
  Codec codec = Codec::UNCOMPRESSED;
  int codec_level = 0;  // 0: the codec's default
  // Page limits: a page ends at the first row boundary where either is reached (0 = no limit).
  int64_t page_max_rows = 20'000;
  int64_t page_max_bytes = 1 << 20;  // uncompressed encoded bytes (levels + values)
  bool statistics = true;            // chunk statistics in ColumnMetaData
  bool page_statistics = true;       // statistics in each data page header
  // Chunk statistics whose min or max would be longer than this are left out (null_count stays).
  int64_t max_statistics_bytes = 4096;
};

// A per-column override: only the fields that are set replace the defaults.
struct ColumnLayoutOverride {
  std::optional<bool> dictionary;
  std::optional<int64_t> dictionary_max_bytes;
  std::optional<int64_t> dictionary_max_entries;
  std::optional<Encoding> encoding;
  std::optional<Codec> codec;
  std::optional<int> codec_level;
  std::optional<int64_t> page_max_rows;
  std::optional<int64_t> page_max_bytes;
  std::optional<bool> statistics;
  std::optional<bool> page_statistics;
  std::optional<int64_t> max_statistics_bytes;

  void ApplyTo(ColumnLayout* layout) const;
};

struct WriterOptions {
  // A row group ends at the first row boundary where either is reached (0 = no limit). Bytes are
  // the uncompressed encoded size buffered so far, so compressed row groups come out smaller.
  int64_t row_group_max_rows = 1 << 20;
  int64_t row_group_max_bytes = 128LL << 20;
  int data_page_version = 1;  // 1 or 2

  ColumnLayout defaults;
  // Keyed by a top-level field name (applies to every leaf below it) or by a dotted leaf path as
  // in the Parquet schema ("tags.list.element", "attrs.key_value.value"). Leaf paths win.
  std::map<std::string, ColumnLayoutOverride> columns;

  // Top-level primitive columns: every column starts a new page at each row where the combined
  // value of these columns differs from the previous row ("one page per key"). Size limits still
  // split a key's rows when they are reached.
  std::vector<std::string> page_break_on;

  // A ZSTD frame per key (docs/layouts.md): top-level primitive columns whose combined value
  // delimits keys. Every data page of every non-BOOLEAN leaf is then a data page v2 whose
  // compressed section is one independent ZSTD frame per key (PLAIN values, no dictionary; the
  // column's codec becomes ZSTD at its level), its levels uncompressed in front of the frames.
  // BOOLEAN leaves (PLAIN booleans are bit-packed across keys) and the leaves of the frame_break_on
  // columns themselves (a lookup knows the key) keep the ordinary layout.
  // ParquetWriter::frame_locations() then names every key's frame per column.
  std::vector<std::string> frame_break_on;
  // Storage alignment (0 = none; else a power of two >= 64, e.g. 4096): skippable frames pad so
  // that no key's frame (interleaved: no key's group of frames) crosses a multiple of this many
  // bytes; a frame larger than the boundary starts at one.
  int64_t frame_align = 0;
  // Interleaved columns (needs frame_break_on): the frames of all framed columns of one key are
  // adjacent, each column's frame followed by a skippable frame over the other columns' bytes, so
  // each column's pages still decode on their own and one range returns every column of a key.
  bool interleave = false;

  bool write_page_index = true;              // ColumnIndex + OffsetIndex after the row groups
  int64_t column_index_truncate_bytes = 64;  // binary min/max in the ColumnIndex are truncated to this
  bool page_crc = false;                     // CRC32 of every page's bytes in its header
  std::vector<KeyValue> key_value_metadata;
  std::string created_by = kRapCreatedBy;

  // The layout of the leaf column `path` (dotted) under top-level field `top_level`.
  ColumnLayout LayoutFor(const std::string& top_level, const std::string& path) const;
  // Checks ranges (sizes >= 0, page version 1/2, codec levels) and names the first bad setting.
  Status Validate() const;
};

// Text forms used by the CLI: "zstd:3", "snappy", "none", "gzip:9", "lz4_raw", "brotli:5".
Result<std::pair<Codec, int>> ParseCodec(const std::string& text);
// "plain", "dict", "delta", "delta_length", "delta_byte_array", "bss" (and the Parquet names).
// "dict" gives std::nullopt encoding with dictionary on; the others turn the dictionary off.
Result<ColumnLayoutOverride> ParseEncodingOverride(const std::string& text);

}  // namespace rap::parquet
