// Scanner: a projection and a row filter over the data files of a table, in file order and row
// order. Per file: partition pruning; per row group: statistics pruning, then ColumnIndex page
// pruning; then late materialisation — read 1 fetches only the filter columns' pages of candidate
// rows, the filter gives the selected rows, read 2 fetches only the other projected columns' pages
// holding selected rows (OffsetIndex). A conjunct of the filter's top-level AND over one
// dictionary-encoded column is evaluated once per dictionary entry. Partition columns
// are constant columns made from the file's partition values. Each file is cut into read ranges
// that a PrefetchReader reads in parallel and returns in order, while the next file is warmed
// (ScanOptions::prefetch, ::warmup; seed 001); with ScanOptions::file_parallelism several files are read
// at once. The table layer (rap/table) builds the ScanSource from a listing or Delta log.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/io/object_store.h"
#include "rap/read/expr.h"
#include "rap/read/field_id_tree.h"
#include "rap/read/file_reader.h"
#include "rap/plan/throughput_pool.h"
#include "rap/read/prefetch_options.h"
#include "rap/read/scan_types.h"
#include "rap/util/result.h"

namespace rap::read {

struct ScanFile {
  std::string path;  // within the store
  uint64_t size = 0;
  // One 1-row array per ScanSource::partition_columns entry (typed; NULL allowed).
  std::vector<ArrayPtr> partition_values;
  // Rows of the file that are deleted (Delta deletion vectors), sorted and distinct.
  std::vector<uint64_t> deleted_rows;
  // When set, the file's deleted rows are computed when the scan reaches the file (after partition,
  // statistics and index pruning; on the warmup thread when the file is warmed) and take the place
  // of `deleted_rows`: a Paimon primary-key bucket is merged when its first file is reached, so the
  // first batch does not wait for every bucket's merge. Called once per scan of the file (again if a
  // stopped warmup prepared it), possibly on another thread than the one that made the source and
  // at once with the loaders of other files; errors fail the scan.
  std::function<Result<std::vector<uint64_t>>()> deleted_rows_loader;
  // Statistics of the file's data columns known before opening it (Delta add.stats), one entry per
  // ScanSource::schema field (nullopt: unknown); empty = none. Must be bounds of the file's values.
  std::vector<std::optional<ColumnStats>> column_stats;
  // Only these rows (file row numbers) can match the filter: an external index chose them
  // (rap/index/indexed_scan.h). The filter is still applied to them. An empty selection skips the file
  // without opening it (files_pruned_by_index); nullopt: every row is a candidate.
  std::optional<RowSelection> candidate_rows;
  // In-file name per ScanSource::schema field for this file, when the table's files were written
  // under different schemas (Paimon schema evolution: columns matched by field id through the
  // file's schema); an empty name = the file lacks the column (read as NULL). Empty = the source's
  // physical_names.
  std::vector<std::string> physical_names;
};

struct ScanSource {
  io::ObjectStorePtr store;
  // The table's columns (logical names, data and partition columns). Null: the first file's schema
  // followed by the partition columns.
  SchemaPtr schema;
  // In-file name per schema field (Delta column mapping); empty = same as the logical names.
  std::vector<std::string> physical_names;
  // In-file type per schema field, whose struct fields (at any depth) carry the in-file names; a
  // file's column is matched to the table type field by field through it. Empty (or a null entry) =
  // the logical type's names. Nested fields a file lacks read as NULL, extra ones are ignored.
  std::vector<DataTypePtr> physical_types;
  // Field ids per schema field (Delta column mapping mode `id`); empty = columns found by name. When
  // set, a file's top-level column and the fields of its structs (at any depth) are found by Parquet
  // field_id, whatever their in-file names; ids a file lacks read as NULL, and a file whose schema
  // holds no field id at all is refused (NotSupported naming it) unless name_mapping gives them.
  std::vector<FieldIdTree> field_ids;
  // With field_ids: the ids of the columns of files whose schema holds no field id at all, by name
  // (Iceberg's name mapping); null: such files are refused.
  std::shared_ptr<const NameMapping> name_mapping;
  // Per schema field: the value of a column a file lacks (a 1-row array of the field's type; Iceberg
  // v3 `initial-default`); empty, or a null entry: NULL.
  std::vector<ArrayPtr> defaults;
  std::vector<Field> partition_columns;
  std::vector<ScanFile> files;  // in scan order
};

struct ScanOptions {
  // Output columns in this order; empty = every table column. "s.x" (logical names joined by dots,
  // when no top-level column has that name) is field x of struct column s, at any depth, as a column
  // of its own named "s.x" (NULL where a struct above it is NULL); the whole of s is read.
  std::vector<std::string> columns;
  ExprPtr filter;                    // optional
  int64_t limit = -1;                // < 0: no limit
  int64_t batch_size = 64 * 1024;    // rows per output batch (at most)
  bool use_statistics = true;        // file (ScanFile::column_stats) and row-group statistics pruning
  bool use_page_index = true;        // ColumnIndex page pruning and OffsetIndex page selection; ORC row indexes
  bool use_bloom_filters = true;     // ORC bloom filters prune row groups for `=` and IN (with the row index)
  // Evaluate a conjunct of the filter's top-level AND that reads one column once per dictionary
  // entry of the column chunk instead of once per row, when the column is dictionary-encoded in the
  // candidate rows. Its values are never decoded per row; when it is also an output column, only
  // the selected rows' values are taken from the dictionary.
  bool dictionary_filter = true;
  // Parallel ordered reading inside a file (seed 001, prefetch_reader.h): prefetch.producers
  // threads read and decode the file's ranges (row groups, large ones cut at page boundaries);
  // producers <= 1 reads them in the calling thread. Batches come out in the same order with the
  // same content for every setting here.
  PrefetchOptions prefetch;
  // The next file's footer, page indexes and first ranges fetched (RAW) or also decoded (DECODED)
  // while the current file is read (warmup.h); never past the scan's last file, cancelled by a limit.
  WarmupOptions warmup;
  // One memory budget for everything the scan holds at once (rap/util/memory_budget.h,
  // docs/reliability.md "Memory budget"): decompressed pages and level arrays, decoded batches in
  // the prefetch queues, the warmup's read-ahead bytes. Producers ahead of the consumer wait for
  // room and the warmup fetches less when it is busy; a page, level array or dictionary larger than
  // the whole budget is ResourceExhausted (naming the file, column, page offset and sizes). 0: none.
  uint64_t memory_limit = uint64_t{2} << 30;
  FileReaderOptions reader;
  // Scope of the range planner's learning (seed 000). kEndpoint (default): plans from the store
  // endpoint's estimator, shared by every reader and scan of that endpoint in the process, so later
  // scans start trained. kScan: plans from a fresh estimator of this scan only (it starts cold and
  // learns from this scan's plans); the outcomes still teach the endpoint's estimator (unless
  // reader.plan.also_report_to names another). Ignored when reader.plan.estimator is set.
  enum class EstimatorScope { kEndpoint, kScan };
  EstimatorScope estimator_scope = EstimatorScope::kEndpoint;
  // Where the planner's throughput evidence comes from. kPooled (default): the payload of all the
  // scan's concurrent plans (producers, fetch-ahead, warmup) is pooled into shared-throughput samples
  // (plan/throughput_pool.h), since the scan's parallel plans are each smaller than the 1 MiB a
  // plan needs to be a sample on its own. kPerPlan: seed 000's rule, each plan on its own. Ignored
  // when reader.plan.throughput_pool is set.
  plan::ThroughputEvidence throughput_evidence = plan::ThroughputEvidence::kPooled;
  // Files read at once (src/read/scanner_fanout.cc): up to this many files are opened, filtered and
  // read concurrently, each by a scan of its own on a thread the scanner owns, and their batches come
  // out in file order as before (the same batches, row ids and limit). Each file's scan gets
  // memory_limit and the prefetch queue bounds divided by the count. 1: file at a time (the current
  // file's producers and the next file's warmup only); 0 (default): 4 on a remote store, 1 on a
  // local one.
  int file_parallelism = 0;
  // The scan's stop (optional): cancelling it cancels every in-flight read of the scan, which then
  // fails with Cancelled. Another thread may cancel it at any time (e.g. on Ctrl-C).
  std::shared_ptr<const io::CancellationToken> cancel;
};

class Scanner {
 public:
  static Result<std::unique_ptr<Scanner>> Make(ScanSource source, ScanOptions options);
  ~Scanner();

  const SchemaPtr& schema() const;  // output schema
  // The next batch (never empty), or nullopt at the end.
  Result<std::optional<ScanBatch>> Next();
  const ScanStats& stats() const;

 private:
  struct Impl;
  struct FanOut;  // several files at once (ScanOptions::file_parallelism; src/read/scanner_fanout.cc)
  explicit Scanner(std::unique_ptr<Impl> impl);
  explicit Scanner(std::unique_ptr<FanOut> fanout);
  static Result<std::unique_ptr<Scanner>> MakeFanOut(ScanSource source, ScanOptions options);
  const SchemaPtr& FanOutSchema() const;
  const ScanStats& FanOutStats() const;
  Result<std::optional<ScanBatch>> FanOutNext();
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<FanOut> fanout_;
};

// A file's column as the table's `type` (src/read/conform_array.cc): struct fields matched by the
// in-file names of `file_type` (null: `type`'s own names), missing ones NULL, extra ones dropped,
// list elements and map keys/values by position, leaves through columnar::CastArray. `column` names the
// column in messages.
Result<ArrayPtr> ConformArray(const ArrayPtr& array, const DataTypePtr& type, const DataTypePtr& file_type,
                              const std::string& column);

}  // namespace rap::read
