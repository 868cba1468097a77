// FileReader: one Parquet file through the ObjectStore interface. Reads the footer with one tail
// read (cached process-wide per file version), the page indexes on demand (one multi-range read for
// all needed), and for a RowSelection and a projection exactly the byte ranges of the pages that
// hold selected rows (with an OffsetIndex; else whole column chunks), fetched with one ReadRanges
// call per row group, decoded into record batches of a chosen size.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/format/column_reader.h"
#include "rap/format/schema.h"
#include "rap/io/object_store.h"
#include "rap/io/planned_read.h"
#include "rap/plan/byte_range.h"
#include "rap/read/metadata_cache.h"
#include "rap/columnar/record_batch_reader.h"
#include "rap/read/row_selection.h"

namespace rap::read {

class ReadAheadCache;
class RowGroupShare;

struct FileReaderOptions {
  uint64_t tail_read_size = 64 * 1024;      // first (and usually only) footer read
  bool verify_crc = true;                   // check page CRCs when present
  int64_t max_page_bytes = int64_t{1} << 30;  // decompressed page limit (ResourceExhausted beyond)
  int64_t batch_size = 64 * 1024;           // rows per record batch
  bool use_page_index = true;               // select pages through the OffsetIndex when there is one
  bool use_metadata_cache = true;           // MetadataCache::Global()
  // When known (e.g. from a listing), size and ETag let a cached footer be used without any request.
  std::optional<io::ObjectInfo> object_info;
  io::ReadOptions io;
  // Every multi-range read (column pages, page indexes) runs through the range planner
  // (io::ReadPlanned). Defaults: policy auto for remote stores and exact for local files; the store
  // endpoint's estimator, shared process-wide (set `plan.estimator` to scope learning differently,
  // e.g. a fresh estimator per scan); no PlanLog.
  io::PlanOptions plan;
  // Bytes fetched ahead (RAW warmup): data ranges inside one of its ranges are taken from it, not
  // requested again (see read_ahead_cache.h).
  std::shared_ptr<ReadAheadCache> read_ahead;
  // The scan's memory budget (ScanOptions::memory_limit): decompressed pages and level arrays are
  // charged to it (parquet::ColumnReadOptions::memory). Null: none.
  std::shared_ptr<MemoryBudget> memory;
  // Decoded dictionary pages kept across reads (e.g. an index's lookups of the same files), keyed by
  // this file's path, size and ETag; null: every read decodes its dictionaries.
  std::shared_ptr<parquet::DictionaryCache> dictionary_cache;
};

// What was read, so tests can check exactly which pages and bytes a read touched.
struct ColumnReadStats {
  int64_t data_pages_read = 0;
  int64_t data_pages_skipped = 0;
  int64_t dictionary_pages = 0;
  int64_t data_pages_shared = 0;        // taken decoded from another read range (row_group_share.h)
  int64_t dictionary_pages_shared = 0;
  int64_t values_decoded = 0;
  int64_t values_skipped = 0;
  std::vector<std::pair<int, int64_t>> pages;  // (row group, first row in the row group) of each decoded page
};

struct ReaderStats {
  int64_t read_calls = 0;        // ObjectStore read calls (tail, page index, data)
  int64_t requests = 0;          // physical requests reported by the store
  uint64_t bytes = 0;            // payload bytes
  int64_t tail_requests = 0;     // of `requests`: footer reads
  uint64_t tail_bytes = 0;       // of `bytes`: footer reads
  int64_t page_index_from_tail = 0;  // page-index ranges answered from the footer tail read (no request)
  int64_t read_ahead_hits = 0;       // data ranges answered from options().read_ahead (no request)
  std::vector<ByteRange> data_ranges;   // ranges of column data requested, in order
  std::vector<ColumnReadStats> columns;  // by leaf column index

  // Counts a footer/tail read (one read call; its requests and bytes into the totals and the tail's).
  void CountTailRead(const io::ReadStats& st);
  // Counts a planned read of `requests` requests and `bytes` payload bytes (a tail read when `tail`).
  void CountPlannedRead(int64_t requests, uint64_t bytes, bool tail = false);
};

// The pruned fields of a projection and the leaf columns they need.
struct Projection {
  std::vector<parquet::FieldNode> fields;
  std::vector<int> columns;  // sorted leaf column indices
  SchemaPtr schema;
};

// The byte ranges of one column chunk needed for a selection.
struct ChunkRanges {
  int column = 0;
  std::optional<ByteRange> dictionary;     // dictionary page (page-index reads only)
  std::vector<ByteRange> runs;             // one per run of consecutive needed pages (or the whole chunk)
  // With a page index: the needed pages (offset, size, first row) in file order.
  std::vector<parquet::PageLocation> pages;
  bool whole_chunk = false;
};

class FileReader : public std::enable_shared_from_this<FileReader> {
  class RowGroupDecoder;  // one row group decoded in row windows (file_reader_decode.cc)

 public:
  static Result<std::shared_ptr<FileReader>> Open(io::ObjectStorePtr store, const std::string& path,
                                                  FileReaderOptions options = {});

  const std::string& path() const { return path_; }
  const io::ObjectInfo& info() const { return meta_->info(); }
  const parquet::FileMetaData& metadata() const { return meta_->metadata(); }
  const parquet::SchemaDescriptor& schema() const { return meta_->schema(); }
  const SchemaPtr& arrow_schema() const { return meta_->schema().arrow_schema(); }
  const FileMetadataPtr& file_metadata() const { return meta_; }
  const FileReaderOptions& options() const { return options_; }
  bool metadata_from_cache() const { return from_cache_; }

  int num_row_groups() const { return static_cast<int>(metadata().row_groups.size()); }
  int64_t num_rows() const { return total_rows_; }
  int64_t row_group_num_rows(int rg) const { return metadata().row_groups[static_cast<size_t>(rg)].num_rows; }
  int64_t row_group_first_row(int rg) const { return rg_first_row_[static_cast<size_t>(rg)]; }

  // Column names or dotted paths (see SchemaDescriptor::Project); empty = every column.
  Result<Projection> Project(const std::vector<std::string>& columns = {}) const;

  // Reads the OffsetIndex / ColumnIndex of the given chunks that are not cached yet: ranges inside the
  // footer tail read are sliced from it, the rest is one planned read. Chunks without an index are skipped.
  Status LoadPageIndex(const std::vector<int>& row_groups, const std::vector<int>& columns, bool offset_index = true,
                       bool column_index = false);
  // Null when the chunk has no such index. Loads it (one read) when needed.
  Result<std::shared_ptr<const parquet::OffsetIndex>> GetOffsetIndex(int rg, int column);
  Result<std::shared_ptr<const parquet::ColumnIndex>> GetColumnIndex(int rg, int column);

  // Exact ranges of the projected chunks of row group `rg` for `selection` (rows relative to rg).
  Result<std::vector<ChunkRanges>> PlanRowGroup(int rg, const RowSelection& selection, const Projection& projection);
  // The byte range of column chunk (rg, column), dictionary page included; Corrupt when it does not fit the file.
  Result<ByteRange> ChunkRange(int rg, int column) const;

  // Reads the selected rows of one row group (selection relative to the row group) as one batch.
  // `share`: the pages this read shares with the other read ranges of a split row group
  // (row_group_share.h), fetched and decoded once among them.
  Result<RecordBatch> ReadRowGroup(int rg, const RowSelection& selection, const Projection& projection,
                                   std::shared_ptr<RowGroupShare> share = nullptr);

  // A leaf column's dictionary and, per row, the row's index in it (-1: NULL).
  struct DictionaryCodes {
    ArrayPtr dictionary;         // the leaf's Arrow type (as the file stores it)
    std::vector<int32_t> codes;  // one per requested row
  };

  // A row group's chunks fetched once (one planned read) for a selection and a projection. The
  // methods decode fetched columns for any subset of the fetched rows, as often as needed, with no
  // further request. The FileReader must outlive it.
  class FetchedRowGroup {
   public:
    ~FetchedRowGroup();
    int row_group() const { return rg_; }
    const RowSelection& selection() const { return selection_; }
    // The values of `projection`'s fields for `rows` (relative to the row group; within
    // selection()). InvalidArgument when a leaf column of `projection` was not fetched.
    Result<RecordBatch> Read(const RowSelection& rows, const Projection& projection);
    // Dictionary codes of the flat leaf column `column` for `rows`; nullopt when the column is not
    // dictionary-encoded there (no dictionary page, a fallback page, nested), so the caller decodes
    // values instead.
    Result<std::optional<DictionaryCodes>> ReadDictionaryCodes(const RowSelection& rows, int column);

   private:
    friend class FileReader;
    FetchedRowGroup(int rg, RowSelection selection, Projection projection);
    int rg_;
    RowSelection selection_;
    Projection projection_;                    // before decoder_, which refers to it
    std::unique_ptr<RowGroupDecoder> decoder_;
  };
  Result<std::unique_ptr<FetchedRowGroup>> FetchRowGroup(int rg, const RowSelection& selection,
                                                         const Projection& projection,
                                                         std::shared_ptr<RowGroupShare> share = nullptr);

  // Batches of at most options().batch_size rows for `selection` (file row numbers; nullopt = all
  // rows), in row order; a batch never spans two row groups.
  Result<std::unique_ptr<columnar::RecordBatchReader>> NewBatchReader(std::optional<RowSelection> selection,
                                                            const Projection& projection);
  // Everything at once (tests, small files).
  Result<std::vector<RecordBatch>> ReadAll(std::optional<RowSelection> selection, const Projection& projection);

  ReaderStats stats() const;
  void ResetStats();

 private:
  class BatchReader;      // NewBatchReader's batches (file_reader_decode.cc)

  FileReader(io::ObjectStorePtr store, std::string path, FileReaderOptions options)
      : store_(std::move(store)), path_(std::move(path)), options_(std::move(options)) {}
  Status LoadMetadata();
  void CountFooterRead(const io::ReadStats& st);  // adds a footer read to stats_
  Status Validate();
  // The one place column data and page indexes are fetched: a planned read (io::ReadPlanned) with
  // options_.plan, tagged with `purpose` in the PlanRecord. Data ranges inside options_.read_ahead's
  // ranges come from it.
  Result<std::vector<Buffer>> FetchRanges(const std::vector<ByteRange>& ranges, const char* purpose = "data");

 public:
  // Fetches `ranges` into `cache` (already reserved there) and `claimed` (shared pages, each claimed
  // in its row group's share) into their shares, in one planned read tagged `purpose`, counted in
  // stats() like any read. Fails the ranges on an error (they become misses).
  Status FetchInto(const std::vector<ByteRange>& ranges, ReadAheadCache& cache, const char* purpose = "warmup",
                   const std::vector<std::pair<std::shared_ptr<RowGroupShare>, ByteRange>>& claimed = {});

 private:
  Result<std::vector<Buffer>> FetchPlanned(const std::vector<ByteRange>& ranges, const char* purpose);

  io::ObjectStorePtr store_;
  std::string path_;
  FileReaderOptions options_;
  FileMetadataPtr meta_;
  std::string cache_key_;
  bool from_cache_ = false;
  int64_t total_rows_ = 0;
  // The footer tail read (empty when the metadata came from the cache): page-index ranges inside it
  // are sliced from it instead of being requested again.
  Buffer tail_;
  uint64_t tail_offset_ = 0;
  std::vector<int64_t> rg_first_row_;
  mutable std::mutex stats_mu_;
  ReaderStats stats_;
  // Held by LoadPageIndex: ranges of a file read in parallel that need the same page index wait for
  // one read of it instead of each requesting it.
  std::mutex page_index_mu_;
};

}  // namespace rap::read
