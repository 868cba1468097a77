// Internal to RewriteTable (rewrite.cc): where the output goes, what is planned before a row is read
// (key, output schema, blob layout, covered columns, writer options), and the writing of one
// bucket's file with its index entries (rewrite_bucket.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/format/blob_column.h"
#include "rap/format/writer_options.h"
#include "rap/index/index_writer.h"
#include "rap/index/key.h"
#include "rap/index/rewrite.h"
#include "rap/index/zorder.h"
#include "rap/io/object_store.h"
#include "rap/columnar/record_batch_reader.h"
#include "rap/table/delta_commit.h"
#include "rap/table/iceberg_commit.h"
#include "rap/util/result.h"

namespace rap::index::internal {

struct RewriteOutput {
  io::ObjectStorePtr store;
  std::string dir;          // within the store: where files are written (local: the staging folder)
  std::string url;          // the same as a URL
  std::string final_path;   // local: the output folder the staging folder becomes
  std::vector<std::string> written;  // objects written (remote: deleted on failure)
  std::string token;                 // random, names the staging folder, temporary runs and in-place files
  std::string name_suffix;           // of data file names (in place: "-rap-<token>", so names are new)
  // Delta output: the version to commit, the table's schemaString, and (in place) the removes.
  bool delta = false, in_place = false;
  int64_t version = 0;
  std::string schema_string;
  std::optional<table::DeltaProtocol> protocol;  // new tables
  table::DeltaMetadata metadata;                 // in place: the table's (id, configuration) for a schema change
  std::vector<table::DeltaRemoveFile> removes;
  bool committed = false;            // the Delta commit is written: no cleanup any more
  // In place on an Iceberg table: the data files go under name_prefix ("data/") and are committed as
  // a replace snapshot (rap/table/iceberg_commit.h). A partitioned one: the partitions of its files,
  // each rewritten apart (WritePartitions), and the one being written (its files carry its tuple).
  bool iceberg = false;
  std::string name_prefix;
  std::vector<table::iceberg::NewDataFile> iceberg_files;
  std::vector<table::iceberg::ReplacePartition> partitions;
  size_t partition = 0;
};

struct RewritePlan {
  SchemaPtr in_schema;   // the input rows: the first file's schema and the partition columns
  SchemaPtr out_schema;  // the written rows (co-grouped or blob)
  std::vector<KeyColumn> key;
  std::vector<int> key_idx;                 // the key columns in in_schema
  std::optional<std::string> blob_spec;     // blob metadata written with the files
  std::optional<parquet::BlobLayout> blob;  // --layout blob
  std::vector<std::string> cover;           // covered columns
  std::vector<int> cover_leaf;              // their leaf ordinals in out_schema
  parquet::WriterOptions writer;            // for the layout
  // kZOrder: the clustering columns in in_schema, the curve (from the input's ranges, before the
  // sort), and the sorted rows' schema: in_schema plus the int64 Z-value column (dropped on write).
  std::vector<int> cluster_idx;
  std::optional<ZOrderCurve> zorder;
  SchemaPtr sort_schema;
  // kZOrder: the row-group row limit (WriterOptions::row_group_max_rows; the writer's own is off, the
  // rows are cut on curve boundaries: rewrite_bucket.cc, WriteZOrdered).
  int64_t zorder_row_group_rows = 0;
};

// The Z-value column's name in sort_schema.
inline constexpr const char* kZOrderColumn = "__rap_zorder";

// The rows of `snap` written by `write_buckets` (bucketed, sorted and written, as one table) — for
// each of out.partitions apart when there are any: a snapshot of that partition's files, their new
// files named "data/p<partition>-part-<bucket>-rap-<token>.parquet" and carrying its tuple.
using WriteBucketsFn = std::function<Status(const table::TableSnapshot&, const RewriteOptions&)>;
Status WritePartitions(const table::TableSnapshot& snap, const RewriteOptions& options, RewriteOutput& out,
                       const WriteBucketsFn& write_buckets);

// Writes bucket `bucket`'s sorted rows (`stream`) as one file into `out`, its entries (with their
// covering locations) into `iw` (none with kZOrder: `iw` null), its Delta add into `adds` (Delta
// output) and its figures into `res`.
Status WriteBucket(const RewritePlan& plan, const RewriteOptions& options, int32_t bucket,
                   columnar::RecordBatchReader& stream, RewriteOutput& out, IndexWriter* iw,
                   std::vector<table::DeltaAddFile>* adds, RewriteResult* res);

}  // namespace rap::index::internal
