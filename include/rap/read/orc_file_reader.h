// OrcFileReader: one ORC file through the ObjectStore interface, for the scan path (seed 001 on
// ORC). Opening reads the tail with one tail read (FileReaderOptions::tail_read_size; a second
// read when the footer and metadata are larger) and then every stripe footer in one planned read
// (the stripes' stream directories, so that a stripe's selected streams are exact byte ranges from
// then on). ReadStripe fetches exactly the streams of the selected top-level fields (data streams:
// present, data, length, dictionary, secondary; never the row index or bloom filters) in one
// planned read through the range planner (io::ReadPlanned, FileReaderOptions::plan) — ranges
// inside FileReaderOptions::read_ahead come from it — and decodes them with the ORC module
// (rap/orc/reader.h) into one stripe-aligned batch. ReadRowIndex and ReadRowGroups read the row
// index (and bloom filters) and only some row groups of a stripe (the parts of its streams from the groups' row-index
// positions). The decoding itself is src/orc's.
// The footer is not put in the MetadataCache (it holds Parquet metadata): each open reads the tail.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/io/object_store.h"
#include "rap/orc/row_index.h"
#include "rap/orc/stripe.h"
#include "rap/orc/tail.h"
#include "rap/plan/byte_range.h"
#include "rap/read/file_reader.h"

namespace rap::read {

class ReadAheadCache;

// True when `path` names an ORC file (".orc", any case): scans and tools dispatch on it.
bool IsOrcPath(const std::string& path);

class OrcFileReader {
 public:
  // Uses options' tail_read_size, io, plan and read_ahead (the Parquet-only knobs are ignored).
  static Result<std::shared_ptr<OrcFileReader>> Open(io::ObjectStorePtr store, const std::string& path,
                                                     FileReaderOptions options = {});

  const std::string& path() const { return path_; }
  const io::ObjectInfo& info() const { return info_; }
  const orc::FileTail& tail() const { return tail_; }
  // Top-level fields (NotSupported at Open for a file whose fields rap cannot map, e.g. unions).
  const SchemaPtr& arrow_schema() const { return schema_; }
  int FieldIndex(const std::string& name) const { return schema_->FieldIndex(name); }

  size_t num_stripes() const { return tail_.stripes.size(); }
  int64_t num_rows() const { return static_cast<int64_t>(tail_.num_rows); }
  int64_t stripe_num_rows(size_t s) const { return static_cast<int64_t>(tail_.stripes[s].num_rows); }
  int64_t stripe_first_row(size_t s) const { return first_row_[s]; }
  const orc::StripeFooterInfo& stripe_footer(size_t s) const { return footers_[s]; }

  // The exact byte ranges stripe `s`'s read of the top-level `fields` requests, in file order
  // (never crossing the stripe).
  std::vector<ByteRange> StripeRanges(size_t s, const std::vector<int>& fields) const;
  // Stripe `s`'s `fields` (indexes into arrow_schema(), in that order), one planned read.
  Result<RecordBatch> ReadStripe(size_t s, const std::vector<int>& fields);
  // The type ids of the top-level `fields` and of their descendants, ascending.
  std::vector<uint32_t> FieldColumns(const std::vector<int>& fields) const;
  // The ROW_INDEX streams of the top-level `fields` in stripe `s` and the bloom filter streams of
  // the type ids `bloom_columns` (what ReadRowIndex reads), in file order: a scan with a filter
  // fetches them ahead with the stripe's data.
  std::vector<ByteRange> RowIndexRanges(size_t s, const std::vector<int>& fields,
                                        const std::vector<uint32_t>& bloom_columns = {}) const;
  // True when stripe `s` has a bloom filter stream of one of `columns` (type ids, sorted).
  bool HasBloomFilters(size_t s, const std::vector<uint32_t>& columns) const;
  // True when the file's read-ahead cache holds stripe `s`'s data of `fields` (fetched ahead).
  bool StripeHeld(size_t s, const std::vector<int>& fields) const;
  // Stripe `s`'s row index of those of `columns` (type ids) that have one, and the bloom filters
  // of those of `bloom_columns` (sorted type ids) that have them (orc::BloomFilterStreams; in
  // RowIndexInfo::bloom_filters): their streams in one planned read.
  Result<std::map<uint32_t, orc::RowIndexInfo>> ReadRowIndex(size_t s, const std::vector<uint32_t>& columns,
                                                             const std::vector<uint32_t>& bloom_columns = {});
  // Row groups [first, last) of stripe `s` (orc::NumRowGroups): only the parts of the `fields`'
  // streams that those groups need (orc::PlanRowGroupRead over `index`, which holds the row index
  // of every column of the fields), in one planned read. NotSupported when the row index cannot be
  // used for these fields: read the stripe instead.
  Result<RecordBatch> ReadRowGroups(size_t s, const std::vector<int>& fields,
                                    const std::map<uint32_t, orc::RowIndexInfo>& index, size_t first, size_t last);
  // Fetches `ranges` into `cache` (already reserved there): the warmup's and fetch-ahead's read.
  Status FetchInto(const std::vector<ByteRange>& ranges, ReadAheadCache& cache, const char* purpose = "warmup");

  ReaderStats stats() const;

 private:
  OrcFileReader(io::ObjectStorePtr store, std::string path, FileReaderOptions options)
      : store_(std::move(store)), path_(std::move(path)), options_(std::move(options)) {}
  Status LoadTail();
  Status LoadStripeFooters();
  Result<std::vector<Buffer>> FetchPlanned(const std::vector<ByteRange>& ranges, const char* purpose,
                                           bool metadata = false);

  io::ObjectStorePtr store_;
  std::string path_;
  FileReaderOptions options_;
  io::ObjectInfo info_;
  orc::FileTail tail_;
  SchemaPtr schema_;
  std::vector<int64_t> first_row_;
  std::vector<orc::StripeFooterInfo> footers_;
  mutable std::mutex stats_mu_;
  ReaderStats stats_;
};

}  // namespace rap::read
