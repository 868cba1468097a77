// Building and updating an index from a table (a Delta table, a folder/prefix of Parquet files, or
// one file): `rap index build` / `rap index update`. The build reads only the key columns (plus
// hoisted columns and, for covered columns, the page indexes) of every file, in parallel.
#pragma once

#include <memory>

#include "rap/io/object_store.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rap/index/index_writer.h"
#include "rap/index/manifest.h"
#include "rap/util/result.h"

namespace rap::index {

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
};

// Indexes every live file of the table as a new index version (replacing earlier versions' content).
Result<BuildResult> BuildIndex(const std::string& table_url, const BuildOptions& options);

struct UpdateOptions {
  int threads = 2;
  FragmentWriteOptions fragment;
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

}  // namespace rap::index
