// Rewriting a table for point lookups (`rap rewrite`, docs/layouts.md "rap rewrite"): every live row
// of a table (a Delta table, a folder/prefix of Parquet files, or one file) is bucketed with the
// index's bucket function, sorted by the key within its bucket, and written as one Parquet file per
// bucket in the chosen layout; the RAP index of the new files is built in the same pass from the
// writer's own page and frame locations (no file is read back).
#pragma once

#include <memory>

#include "rap/io/object_store.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rap/format/writer_options.h"
#include "rap/columnar/record_batch_reader.h"
#include "rap/index/manifest.h"
#include "rap/table/delta_log.h"
#include "rap/util/result.h"

namespace rap::index {

enum class RewriteLayout {
  kSorted,       // sorted by key, the writer's ordinary layout
  kPagePerKey,   // a page per key (WriterOptions::page_break_on)
  kFramePerKey,  // a ZSTD frame per key (WriterOptions::frame_break_on)
  kInterleaved,  // a frame per key, a key's frames of all columns adjacent (WriterOptions::interleave)
  // A schema change: the key columns, then one JSON column "blob" folding every other column of a row
  // (rap/format/blob_column.h; the folded schema in the footer's "rap.blob" metadata, so lookups
  // decode the original columns), framed per key like kFramePerKey.
  kBlob,
  // Rows ordered by the Z-value of the `cluster_by` columns (rap/index/zorder.h) for box queries
  // (`a BETWEEN .. AND b BETWEEN ..`) pruned through page statistics; no key and no index (build one
  // with `rap index build` on the output), one output file (buckets 1).
  kZOrder,
};
// "sorted", "page", "frame", "interleaved", "blob", "zorder" (also "page-per-key", "frame-per-key").
Result<RewriteLayout> ParseRewriteLayout(const std::string& text);
const char* RewriteLayoutName(RewriteLayout layout);

struct RewriteOptions {
  std::vector<std::string> key_columns;  // one or two (int32, int64, string or binary); none with kZOrder
  RewriteLayout layout = RewriteLayout::kFramePerKey;
  // kZOrder: the clustering columns (1..8; CheckZOrderType's types), first column's bits first.
  std::vector<std::string> cluster_by;
  int64_t align = 0;                     // frame layouts: WriterOptions::frame_align
  int32_t buckets = 1;                   // output files: one per non-empty bucket
  // The kind of the index built with the rewrite (docs/index-format.md, "Kinds"): hash, or sorted
  // (range-partitioned into `buckets` partitions: ranges, prefixes, `rap scan --where k BETWEEN ...`).
  IndexKind index_kind = IndexKind::kHash;
  // Co-grouping (a schema change): one row per key and file, the key columns as they are and every
  // other column `c` of type T as `c` list<T> (non-null list, items nullable as c was) holding the
  // key's values in row order. Combines with every layout.
  bool cogroup = false;
  // Covered columns of the index (one leaf each: flat, or lists of a primitive such as co-grouped
  // columns); empty: every such non-key column.
  std::vector<std::string> cover;
  bool cover_all = true;                 // false with an empty `cover`: no covering data
  // Output: a new Delta table (version 0: protocol, metaData, one add per file, with stats), or with
  // `delta` false a plain folder of Parquet files.
  bool delta = true;
  // A new version of the input Delta table itself (output_url empty or the table): the new files go
  // into the table root, and the commit removes every live file and adds the new ones, all with
  // dataChange=false (the rows do not change). With layout kBlob (a schema change) the commit also
  // holds the table's metaData with the new schema (same table id and configuration) and the adds
  // have dataChange=true, as an overwrite. Not with cogroup.
  bool in_place = false;
  // Row group and page sizes, codec, ...; the layout fields are set from `layout`. Default codec
  // ZSTD.
  parquet::WriterOptions writer;
  // Input buffered before a sorted run is spilled to a temporary Parquet file (bounded memory: the
  // runs are merged per bucket with read::MergeReader). Output equals the in-memory sort.
  int64_t memory = 512ll << 20;
  std::string temp_dir;  // a local folder for the runs (empty: the system's temporary folder)
  int threads = 2;
  // Called after each input file is read (files_done, files_total) and after each output file is
  // written (with files_total = -1 and files_done = output files written).
  std::function<void(int64_t files_done, int64_t files_total)> progress;
  // Optional stop (e.g. Ctrl-C in the Python binding): checked before every input batch; once
  // cancelled the rewrite fails with Cancelled before its commit.
  std::shared_ptr<const io::CancellationToken> cancel;
  // Called just before the Delta commit is written (tests use it to commit a concurrent version).
  std::function<void()> before_commit;
};

struct RewriteResult {
  std::string output_url;
  std::string index_url;           // empty: no index (kZOrder)
  std::vector<std::string> files;  // relative paths of the written data files
  int64_t input_files = 0;
  int64_t rows = 0;
  int64_t entries = 0;
  uint64_t bytes = 0;              // data file bytes
  int64_t frames = 0;              // ZSTD frames written (frame layouts)
  int64_t table_version = -1;      // the Delta version or Iceberg snapshot committed (-1: a folder of Parquet)
  std::string table_format;        // "delta", "iceberg" (--in-place on an Iceberg table), empty for a folder
  int64_t runs_spilled = 0;        // sorted runs written to temporary files (0: sorted in memory)
  uint64_t bytes_spilled = 0;
  uint64_t peak_buffered_bytes = 0;  // input bytes buffered at most (the budget plus one batch)
  Manifest manifest;
  double seconds = 0;
};

// Writes the rewritten table to `output_url` (a folder or prefix that must not hold files yet; with
// in_place, the input table) with its index at `<output>/_rap_index/default`. Order: data files,
// index fragments (unreferenced), the Delta commit (create-if-absent: the write that makes the new
// table or version visible), then the index manifest. Atomic: a new local table is assembled in a
// sibling staging folder and renamed into place at the end; elsewhere, a failure before the commit
// deletes the data files written so far (best effort; staged index files stay unreferenced until
// `rap index vacuum`), and a concurrent commit of the same version fails the rewrite with kChanged.
// A failure after the commit (publishing the index manifest) leaves the committed table and says so.
// The input is sorted in bounded memory (`memory`; runs spilled to `temp_dir` and merged).
Result<RewriteResult> RewriteTable(const std::string& table_url, const std::string& output_url,
                                   const RewriteOptions& options);

// A rewrite split over processes (rap.spark.rewrite, docs/spark.md). The driver plans it
// (PlanRewriteJob: the input's live files at one version, the output checked empty and marked as a
// pending write); tasks count each bucket's rows over some files (CountRewriteBuckets: the key
// columns only), so that the driver can give every non-empty bucket its file ordinal; tasks read the
// rows of some files with their bucket ids (ReadRewriteRows) for the engine to shuffle; a task gets
// all rows of some buckets and writes each bucket's file and index fragment (WriteRewriteBuckets:
// the same sort and writer as RewriteTable); the driver writes the Delta commit of every bucket's file
// and then publishes the index (CommitRewriteJob), as RewriteTable does. A new Delta table only (no
// in_place, no kZOrder, hash index).
struct RewriteJob {
  std::string table_url;
  std::string table_kind;          // table::FormatName
  int64_t table_version = -1;      // the version every task reads (-1: a folder of files)
  std::vector<std::string> paths;  // the live input files by ordinal (relative to the table root)
  std::vector<uint64_t> sizes;
  std::string output_url;
  std::string token;               // random; names the pending-write marker
};

// The name of the bucket column ReadRewriteRows appends (int32).
inline constexpr const char* kRewriteBucketColumn = "__rap_bucket";

Result<RewriteJob> PlanRewriteJob(const std::string& table_url, const std::string& output_url,
                                  const RewriteOptions& options);

// Rows per bucket (options.buckets entries; NULL keys count in bucket 0, as RewriteTable puts them)
// of the live rows of files `ordinals`. Changed when a file is no longer the planned one.
Result<std::vector<int64_t>> CountRewriteBuckets(const RewriteJob& job, const std::vector<int32_t>& ordinals,
                                                 const RewriteOptions& options);

// The live rows of files `ordinals` (RewriteTable's input schema) with the int32 column
// kRewriteBucketColumn appended: the bucket RewriteTable puts the row in.
Result<std::unique_ptr<columnar::RecordBatchReader>> ReadRewriteRows(const RewriteJob& job,
                                                                     const std::vector<int32_t>& ordinals,
                                                                     const RewriteOptions& options);

struct RewriteTaskResult {
  Manifest part;                     // the task's fragments; the file table of every bucket (placeholders but its own)
  std::vector<int32_t> ordinals;     // the files it wrote
  std::vector<int32_t> buckets;      // their buckets
  std::vector<int64_t> rows;         // their rows
  std::vector<table::DeltaAddFile> adds;  // their Delta adds (path, size, stats)
  int64_t entries = 0;
  int64_t frames = 0;
};

// Writes the buckets of `rows` (ReadRewriteRows' schema; every row of each bucket present must be
// there) as RewriteTable does — sorted in bounded memory, one file per bucket in the layout, with its
// index entries from the writer's locations — naming the files `part-<bucket>-<token>.parquet` and
// the fragments `r1-<token>-b<bucket>.parquet` (`token`: [A-Za-z0-9_]{1,48}, unique per task attempt,
// so a retried or speculative attempt never overwrites another's files). `ordinal_of_bucket`: the
// file ordinal of each bucket (-1: counted empty; a row of such a bucket is Changed). Publishes
// nothing.
Result<RewriteTaskResult> WriteRewriteBuckets(const RewriteJob& job, const RewriteOptions& options,
                                              const std::vector<int32_t>& ordinal_of_bucket, const std::string& token,
                                              columnar::RecordBatchReader& rows);

// Commits the tasks' files as version 0 of the output Delta table (create-if-absent), then publishes
// the index naming the tasks' fragments (version 1), then removes the pending-write marker. The
// tasks must have written every ordinal exactly once.
Result<RewriteResult> CommitRewriteJob(const RewriteJob& job, const RewriteOptions& options,
                                       const std::vector<RewriteTaskResult>& tasks);

}  // namespace rap::index
