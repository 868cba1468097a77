// Index manifests (docs/index-format.md, "Manifests"): one immutable JSON file per version,
// `<index>/_manifest/<20-digit version>.json`, naming everything a reader needs — key columns and
// types, the bucket function and count, the file table (ordinal -> data file path, size, ETag, rows,
// removed, deletion vector), the fragments with their buckets, key ranges and covered files, the
// covered and hoisted columns, and the table version indexed. A version is published with an
// atomic create (ObjectStore::PutIfAbsent), so of two concurrent publishers of the same version one
// fails with kChanged and nothing is lost; the hint `_manifest/_last_version.json` lets a reader
// find the newest version without listing (it probes forward from the hint, so a stale hint only
// costs a probe).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rap/index/key.h"
#include "rap/io/object_store.h"
#include "rap/table/deletion_vector.h"
#include "rap/util/result.h"

namespace rap::index {

// Version 2 (issue 36) adds fragments' `meta_bytes`; readers read versions 1 and 2.
inline constexpr int kIndexFormatVersion = 2;
inline constexpr int kIndexFormatVersionMin = 1;
inline constexpr const char* kBucketFunction = "md5_60_mod";  // see key.h BucketOfCanonical
inline constexpr const char* kDefaultIndexName = "default";
inline constexpr const char* kRangeFunction = "range";  // the sorted kind's partition function

// How keys are spread over fragments (docs/index-format.md, "Kinds"): by the md5 bucket of the key
// (hash: answers exact keys, reads every fragment for a range) or by key range (sorted: partition p
// holds the keys in [boundaries[p-1], boundaries[p]), so a range reads the partitions it touches).
enum class IndexKind { kHash, kSorted };
const char* IndexKindName(IndexKind kind);
Result<IndexKind> ParseIndexKind(std::string_view name);

// One row of the file table.
struct FileEntry {
  int32_t ordinal = 0;
  std::string path;    // relative to the table root
  uint64_t size = 0;
  std::string etag;    // the store's ETag (local files: "<mtime_ns>-<size>"); empty = not checked
  int64_t num_rows = 0;
  bool removed = false;  // the file left the table: its entries are never returned
  std::optional<table::DeletionVectorDescriptor> deletion_vector;  // rows hidden at lookup
  int32_t schema = -1;  // index into Manifest::schemas (covered lookups decode with it); -1 = none
};

// A half-open range of file ordinals [begin, end).
struct OrdinalRange {
  int32_t begin = 0;
  int32_t end = 0;
};

struct FragmentEntry {
  std::string path;  // relative to the index directory
  int32_t bucket = 0;
  int64_t run = 0;        // the build run that wrote it (compaction: the highest merged run)
  int64_t entries = 0;    // index rows
  int64_t rows = 0;       // data rows referenced (sum of num_rows)
  uint64_t size = 0;      // bytes
  std::string etag;       // optional: lets the footer come from the cache without a request
  // Format 2 (0: unknown, format 1): the bytes from the first page-index byte to the end of the
  // file (page indexes, footer, its length and magic): one read of this tail loads the fragment's
  // footer and key page directory.
  uint64_t meta_bytes = 0;
  Key min_key, max_key;   // valid when entries > 0
  std::vector<OrdinalRange> files;  // the file ordinals whose entries (of this bucket) it holds
};

struct Manifest {
  int format_version = kIndexFormatVersion;
  int64_t version = 0;
  std::string name = kDefaultIndexName;
  // The table: its root relative to the index directory ("../.." for <table>/_rap_index/<name>) or an
  // absolute URL; its kind ("delta" or "directory") and the Delta version indexed (-1: directory).
  std::string table_root;
  std::string table_kind = "directory";
  int64_t table_version = -1;
  // The store the files' ETags were read from (ObjectStore::endpoint(): "file", "http://host:port",
  // "s3://endpoint/bucket"). ETags are store-specific, so a lookup through another store (an index
  // built from a local mount, served over HTTP) checks sizes and row counts only. Empty: unknown
  // (ETags, when recorded, are always compared).
  std::string etag_source;
  std::vector<KeyColumn> key;
  IndexKind kind = IndexKind::kHash;
  std::string bucket_function = kBucketFunction;  // kRangeFunction for the sorted kind
  int32_t buckets = 1;                            // sorted: partitions (boundaries.size() + 1)
  // Sorted kind: the buckets-1 partition boundaries, strictly increasing full keys.
  std::vector<Key> boundaries;
  std::vector<std::string> cover;  // covered columns (page locations in the fragments)
  std::vector<std::string> hoist;  // hoisted columns (values in the fragments)
  // A table with column mapping (Delta `delta.columnMapping.mode` name or id): key, cover and hoist
  // above, the data files' and the schema files' columns are physical names; this maps each
  // top-level physical name that differs from its column's logical name to that logical name (the
  // table version's). Lookups take and return logical names. Empty: names are the same.
  std::map<std::string, std::string> logical_names;
  std::vector<std::string> schemas;  // schema files (zero-row Parquet), relative to the index directory
  std::vector<FileEntry> files;      // by ordinal (files[i].ordinal == i)
  std::vector<FragmentEntry> fragments;
  int64_t next_run = 1;
  int64_t created_ms = 0;

  // The ordinal of the live (not removed) file at `path`, or -1.
  int32_t LiveOrdinal(const std::string& path) const;
  // The bucket (hash) or partition (sorted) of a key.
  int32_t BucketOfKey(const Key& key) const;
};

std::string ManifestPath(const std::string& index_dir, int64_t version);
std::string LastVersionHintPath(const std::string& index_dir);

std::string ManifestToJson(const Manifest& m);
// `what` names the file in errors (Corrupt with the byte offset of a JSON syntax error).
Result<Manifest> ManifestFromJson(std::string_view json, const std::string& what);

// The newest published version: the hint, then probes (Head) of the following versions until one
// is missing. NotFound when the index has no manifest.
Result<int64_t> FindLatestVersion(io::ObjectStore& store, const std::string& index_dir);
Result<Manifest> ReadManifest(io::ObjectStore& store, const std::string& index_dir, int64_t version);
// The newest manifest in two dependent rounds when the hint is current: the hint, then manifest
// `hint` read and version hint+1 probed (Head) together. Any other case (no or stale hint, the
// hinted version gone) falls back to FindLatestVersion and ReadManifest.
Result<Manifest> ReadLatestManifest(io::ObjectStore& store, const std::string& index_dir);
// The same with the hint already read (`hint`: ReadVersionHint's answer).
Result<Manifest> ReadLatestManifest(io::ObjectStore& store, const std::string& index_dir, int64_t hint);
// The version the hint `_manifest/_last_version.json` names; 0 when it is missing or damaged (that
// only costs probes).
Result<int64_t> ReadVersionHint(io::ObjectStore& store, const std::string& index_dir);
// Publishes `m` as version m.version (atomic create) and then advances the hint. kChanged when that
// version exists already (a concurrent publisher won): nothing is overwritten.
Status PublishManifest(io::ObjectStore& store, const std::string& index_dir, const Manifest& m);

// `relative` ("../..", "x/y", or an absolute URL / path) resolved against the directory URL `base`.
std::string ResolveUrl(const std::string& base, const std::string& relative);

}  // namespace rap::index
