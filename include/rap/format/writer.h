// ParquetWriter: record batches in the Arrow layout -> a Parquet file, with every layout decision
// (row groups, pages, encodings, codecs, statistics, page index) under the caller's control
// (rap/format/writer_options.h). Pure encoding: bytes go to a ByteSink (rap/format/writer_sink.h).
//
// Arrow -> Parquet mapping (the inverse of what the reader produces):
//   bool -> BOOLEAN; int8/16/32, uint8/16/32 -> INT32 (INTEGER(w, signed)); int64/uint64 -> INT64;
//   float16 -> FLBA(2) FLOAT16; float/double -> FLOAT/DOUBLE; string -> BYTE_ARRAY STRING (JSON,
//   BSON, ENUM by extension); binary -> BYTE_ARRAY; fixed_size_binary -> FLBA (UUID when the
//   extension is "uuid"); decimal128 -> INT32 (precision <= 9), INT64 (<= 18) or FLBA; date32 ->
//   INT32 DATE; time32 -> INT32 TIME(ms) (seconds scaled); time64 -> INT64 TIME(us|ns);
//   timestamp -> INT64 TIMESTAMP(unit, UTC when a timezone is set; seconds scaled to ms), or INT96
//   with extension "int96"; null -> INT32 UNKNOWN; list -> 3-level LIST; map -> MAP/key_value;
//   struct -> group. Non-nullable fields are REQUIRED.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/format/frame_layout.h"
#include "rap/format/metadata.h"
#include "rap/format/writer_options.h"
#include "rap/format/writer_sink.h"
#include "rap/util/result.h"

namespace rap::parquet {

// What has been written so far (complete after Close()).
struct WriteSummary {
  int64_t num_rows = 0;
  int64_t num_row_groups = 0;
  int64_t num_data_pages = 0;
  int64_t num_dictionary_pages = 0;
  int64_t num_dictionary_fallbacks = 0;  // column chunks that fell back from dictionary encoding
  int64_t uncompressed_page_bytes = 0;   // page headers + uncompressed page data
  int64_t compressed_page_bytes = 0;     // page headers + page data as stored
  // Frame per key (WriterOptions::frame_break_on).
  int64_t num_frames = 0;            // ZSTD frames, one per (key, page)
  int64_t num_skippable_frames = 0;  // alignment padding and interleaving bridges
  int64_t padding_bytes = 0;         // alignment padding
  int64_t misaligned_keys = 0;       // keys (frames) that fit a boundary and still cross one
  uint64_t file_bytes = 0;
};

class ParquetWriter {
 public:
  // Maps the schema and checks the options (encodings valid for each column's physical type,
  // page_break_on names top-level primitive columns). Writes the leading "PAR1" to the sink.
  static Result<std::unique_ptr<ParquetWriter>> Open(SchemaPtr schema, ByteSink* sink, WriterOptions options = {});
  ~ParquetWriter();
  ParquetWriter(const ParquetWriter&) = delete;
  ParquetWriter& operator=(const ParquetWriter&) = delete;

  // Appends the rows of `batch` (its schema must match the writer's field by field). Row groups
  // are closed whenever their row/byte limit is reached, possibly in the middle of a batch.
  Status Write(const RecordBatch& batch);
  // Ends the current row group now (no-op when it is empty).
  Status FlushRowGroup();
  // Flushes, writes the page index and the footer, and closes the sink (which publishes the file).
  // On any error the sink is aborted: nothing partial is left at the destination.
  Status Close();
  // Drops the file: aborts the sink.
  void Abort();

  const WriteSummary& summary() const;
  // The Parquet schema (root first, depth-first) and, after Close(), the whole footer.
  const std::vector<SchemaElement>& parquet_schema() const;
  const FileMetaData& metadata() const;
  // Page locations per row group and leaf column, as written to the OffsetIndex (also kept when
  // write_page_index is off). For index builders that record page locations next to keys.
  const std::vector<std::vector<OffsetIndex>>& page_locations() const;
  // Frame per key, after Close(): per row group and leaf column, every key's frame (in row order;
  // empty for columns that are not framed, i.e. BOOLEAN). docs/layouts.md.
  const std::vector<std::vector<std::vector<FrameLocation>>>& frame_locations() const;
  // Interleaved layout, after Close(): per row group, one contiguous range per key holding every
  // framed column's frames of the key (empty unless WriterOptions::interleave).
  const std::vector<std::vector<KeyRange>>& key_ranges() const;

  class Impl;

 private:
  explicit ParquetWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Convenience: the batches written into one in-memory file.
Result<std::string> WriteParquetToString(const SchemaPtr& schema, const std::vector<RecordBatch>& batches,
                                         const WriterOptions& options = {});

}  // namespace rap::parquet
