// Building and updating an index from a table (a Delta table, a folder/prefix of Parquet files, or
// one file): `rap index build` / `rap index update`. The build reads only the key columns (plus
// hoisted columns and, for covered columns, the page indexes) of every file, in parallel.
#pragma once

#include <memory>

#include "rap/io/object_store.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rap/index/index_writer.h"
#include "rap/index/manifest.h"
#include "rap/util/result.h"

namespace rap::index {

// Which snapshot of an Iceberg table an index build or update indexes and how the metadata's paths
// are read (`--snapshot`, `--as-of`, `--location-map`; table::OpenTableOptions). Unset: the current
// snapshot, the metadata's own location mapped to the table folder. The index records the snapshot
// id; a location map is not recorded (give it to every `rap index update`; lookups read the data
// files by the paths the index recorded). A snapshot or map for a table of another format is
// InvalidArgument.
struct IndexTableOptions {
  std::optional<int64_t> snapshot_id = std::nullopt;
  std::optional<int64_t> as_of_ms = std::nullopt;
  std::vector<std::pair<std::string, std::string>> location_map = {};
};

// `<table>/_rap_index/<name>`.
std::string DefaultIndexUrl(const std::string& table_url, const std::string& name = kDefaultIndexName);

struct BuildOptions {
  std::string index_url;  // empty: DefaultIndexUrl(table, name)
  std::string name = kDefaultIndexName;
  std::vector<std::string> key_columns;  // one or two
  IndexKind kind = IndexKind::kHash;     // sorted: range-partitioned (ranges and prefixes)
  int32_t buckets = 1;                   // hash: buckets; sorted: partitions (fragments per run)
  std::vector<std::string> cover;
  std::vector<std::string> hoist;
  int threads = 2;
  FragmentWriteOptions fragment;
  // Memory budget of the entries buffered for the fragments (IndexWriterOptions::memory_budget;
  // `--memory`, 0: unbounded). Past it, the buffered entries are written out as one more fragment
  // per bucket; lookups are the same.
  int64_t memory = 1ll << 30;
  IndexTableOptions table;  // the Iceberg snapshot and location map (BuildIndex only)
  // Called after each data file is indexed (from the calling thread).
  std::function<void(int64_t files_done, int64_t files_total)> progress;
  // Optional stop (e.g. Ctrl-C in the Python binding): once cancelled, no further file is indexed
  // and the build fails with Cancelled, leaving no new version; its reads are cancelled too.
  std::shared_ptr<const io::CancellationToken> cancel;
};

struct BuildResult {
  std::string index_url;
  Manifest manifest;
  int64_t files = 0;
  int64_t key_rows = 0;  // rows indexed (non-NULL keys)
  int64_t entries = 0;
  double seconds = 0;
  int64_t spills = 0;                // times the entry buffer reached the memory budget
  int64_t peak_buffered_bytes = 0;   // IndexWriter::peak_buffered_bytes
};

// Indexes every live file of the table as a new index version (replacing earlier versions' content).
Result<BuildResult> BuildIndex(const std::string& table_url, const BuildOptions& options);

// A build split over processes (rap.spark.build_index, docs/spark.md): the driver plans it
// (PlanBuild: the table's live files at one version, the run number), each task indexes a part of
// the files and writes that part's fragments (BuildPart), and the driver publishes one manifest of
// all parts (CommitBuild). The result equals BuildIndex of the same table version, except that a
// bucket has one fragment per part (rap index compact merges them).
struct BuildPlan {
  std::string index_url;
  std::string table_root;       // as the manifest records it (relative to the index, or absolute)
  std::string table_kind;       // table::FormatName: "delta", "directory"
  int64_t table_version = -1;   // the version every part indexes (-1: a folder of files)
  std::string etag_source;      // the table store's endpoint
  int64_t base_version = 0;     // the newest index version when planned (0: none)
  int64_t run = 1;              // the run number of every part's fragments
  std::vector<std::string> paths;  // the live files by ordinal, relative to the table root
  std::vector<uint64_t> sizes;     // their sizes (to balance the parts)
};

// Opens the table (newest version) and the index (its newest version, if any). Uses key_columns,
// index_url and name of `options`.
Result<BuildPlan> PlanBuild(const std::string& table_url, const BuildOptions& options);

// Indexes the plan's files `ordinals` (ascending, not empty) of table version plan.table_version and
// writes their fragments (one per bucket with entries) as `fragments/r<run>-<token>-b<bucket>.parquet`
// plus their schema files; publishes nothing. `token` ([A-Za-z0-9_]{1,48}) must be unique per part
// attempt, so that a retried or speculative attempt never overwrites another's fragment. The result
// describes the part as a manifest: key, cover, hoist, schemas and fragments, and the plan's whole
// file table, in which only the part's files carry what indexing them found (rows, ETag, schema).
// Changed when a file of the part is no longer the plan's (another path or size at that ordinal).
Result<Manifest> BuildPart(const std::string& table_url, const BuildPlan& plan, const std::vector<int32_t>& ordinals,
                           const std::string& token, const BuildOptions& options);

struct BuildPartResult {
  Manifest part;                  // BuildPart's result
  std::vector<int32_t> ordinals;  // the files it indexed
};

// Publishes version plan.base_version + 1 naming the fragments of `parts` (which must index every
// plan file exactly once) — atomically and only if absent: kChanged when another writer published
// that version first (then nothing is published; the parts' fragments are left for vacuum).
Result<Manifest> CommitBuild(const BuildPlan& plan, const std::vector<BuildPartResult>& parts);

struct UpdateOptions {
  int threads = 2;
  FragmentWriteOptions fragment;
  int64_t memory = 1ll << 30;  // as BuildOptions::memory
  // The Iceberg snapshot to bring the index to (default: the current one) and the location map.
  IndexTableOptions table;
  std::function<void(int64_t files_done, int64_t files_total)> progress;
  std::shared_ptr<const io::CancellationToken> cancel;  // as BuildOptions::cancel
};

struct UpdateResult {
  Manifest manifest;
  bool changed = false;     // false: the index already matched the table (no new version)
  int64_t added_files = 0;
  int64_t removed_files = 0;
  int64_t deletion_vectors_changed = 0;
  int64_t key_rows = 0;
};

// Brings the index up to the table's current snapshot: files added since the indexed version are
// indexed as one new fragment per bucket (existing fragments are never modified), files that left
// the table are marked removed, and changed deletion vectors are recorded.
Result<UpdateResult> UpdateIndex(const std::string& index_url, const UpdateOptions& options);

// An update split over processes (rap.spark.update_index, docs/spark.md): PlanUpdate compares the
// index's newest version with the table's current snapshot, as UpdateIndex does; BuildPart indexes
// the added files (`build`, ordinals `added`, options from key_columns / buckets / cover / hoist);
// CommitUpdate publishes version build.base_version + 1 — the base's fragments and file table, the
// removed files marked, changed deletion vectors recorded, the parts' files and fragments added —
// atomically and only if absent (kChanged when another writer published first). The result equals
// UpdateIndex's except that a bucket gets one new fragment per part.
struct UpdatePlan {
  BuildPlan build;              // paths/sizes: the base's file table by ordinal, then the added files
  std::vector<int32_t> added;   // the ordinals of the added files (the parts index these)
  std::vector<std::string> key_columns;
  int32_t buckets = 1;
  std::vector<std::string> cover;
  std::vector<std::string> hoist;
  bool changed = false;         // false: the index matches the table (nothing to index or commit)
  int64_t removed_files = 0;
  int64_t deletion_vectors_changed = 0;
};

// NotSupported for a sorted (range-partitioned) index and for the table formats PlanBuild refuses.
Result<UpdatePlan> PlanUpdate(const std::string& index_url);

// Re-derives the plan's changes from the base version and the planned table version (kChanged when
// the index or the table moved on meanwhile) and publishes them with the parts, which must index
// every added file exactly once. A plan that changes nothing returns the base, unpublished.
Result<UpdateResult> CommitUpdate(const UpdatePlan& plan, const std::vector<BuildPartResult>& parts);

}  // namespace rap::index
