// Index maintenance: compaction (per bucket, the fragments merged by the MergeReader into one,
// dropping entries of removed files), vacuum (deleting files no retained manifest references) and
// inspection (`rap index inspect`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rap/index/fragment.h"
#include "rap/index/manifest.h"
#include "rap/util/result.h"

namespace rap::index {

struct CompactOptions {
  int threads = 2;
  FragmentWriteOptions fragment;
  // Buckets with at most this many fragments and no entries of removed files are left alone.
  int min_fragments = 2;
  // Sorted kind only: merge every partition and choose new boundaries from the entries (even
  // partitions again after skewed updates), into `partitions` partitions (0: as many as now).
  bool rebalance = false;
  int32_t partitions = 0;
};

struct CompactResult {
  Manifest manifest;
  bool changed = false;
  int64_t fragments_before = 0;
  int64_t fragments_after = 0;
  int64_t entries_kept = 0;
  int64_t entries_dropped = 0;
};

// Publishes a new version in which each compacted bucket has one fragment. Readers of older
// versions keep working: their fragments stay until vacuumed.
Result<CompactResult> CompactIndex(const std::string& index_url, const CompactOptions& options = {});

struct VacuumOptions {
  int64_t retain_seconds = 7 * 24 * 3600;  // versions superseded less than this ago (and the newest) are kept
  bool dry_run = false;
};

struct VacuumResult {
  std::vector<std::string> deleted;  // store paths
  uint64_t bytes = 0;
  int64_t manifests_kept = 0;
};

// Deletes the manifests superseded longer than the retention ago (never the newest), and the
// fragments, schema files and temporaries no kept manifest references that are older than both the
// retention and the newest manifest (so the files of a writer in progress survive; see the
// retention rule in maintenance.cc and docs/reliability.md). Needs a store that lists and deletes.
Result<VacuumResult> VacuumIndex(const std::string& index_url, const VacuumOptions& options = {});

// "0s", "90s", "30m", "168h", "7d" -> seconds.
Result<int64_t> ParseDuration(const std::string& text);

// Text (or, with json, the manifest itself) describing a manifest version (-1: newest): table,
// key, buckets, files, fragments with sizes, entries, rows, bytes per entry and coverage.
Result<std::string> InspectIndex(const std::string& index_url, int64_t version = -1, bool json = false);

// One index of a table (ListIndexes).
struct IndexListing {
  std::string name;  // the folder under <table>/_rap_index/
  std::string url;
  IndexKind kind = IndexKind::kHash;
  std::vector<KeyColumn> key;
  int64_t version = 0;        // newest manifest version
  int64_t table_version = -1;
  int32_t buckets = 0;
  int64_t entries = 0;
  std::vector<std::string> cover, hoist;
};

// The indexes under <table>/_rap_index/ (`rap index list`), by name: each folder with a published
// manifest. Needs a store that lists (local files, S3); an empty list when there is none.
Result<std::vector<IndexListing>> ListIndexes(const std::string& table_url);

}  // namespace rap::index
