// Index: looking keys up in a RAP index (docs/index-format.md) — the library API behind
// `rap lookup` and the server.
//
//   auto index = Index::Open("s3://bucket/table");            // or the index URL itself
//   auto key = index->ParseKey({"42"});                         // one text per key column
//   auto res = index->Lookup({&key, 1}, {.columns = {"a", "b"}});
//
// A lookup of a batch of keys reads, in one parallel round, the one candidate index page per
// (key, fragment of the key's bucket) that is not in the page cache, then — in one more parallel
// round — the data pages holding the keys' rows in every data file (planned by the range planner),
// decoding only those rows. With covering data for the requested columns no data-file footer or
// page index is read; with hoisted columns only, no data file at all.
//
// Results: one KeyRows per requested key, in request order; the rows of a key in (file ordinal,
// row number) order; the columns are the key columns that are not requested explicitly followed by
// the requested columns (empty = every column of the data files). Rows of files that left the table
// and rows deleted by a deletion vector are never returned; a data file that changed since it was
// indexed (size or ETag) fails the lookup with kChanged naming it.
//
// Thread safety: Open, Lookup and Refresh may be called from any number of threads. Every lookup
// runs against one immutable manifest snapshot; Refresh swaps in a newer one atomically.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/format/dictionary_cache.h"
#include "rap/index/key.h"
#include "rap/index/key_range.h"
#include "rap/index/manifest.h"
#include "rap/index/page_cache.h"
#include "rap/io/planned_read.h"
#include "rap/read/row_selection.h"
#include "rap/util/result.h"

namespace rap::index {

struct IndexOpenOptions {
  int64_t page_cache_bytes = 64ll << 20;  // LRU cache of decoded index pages (0 = off)
  // LRU cache of the data files' decoded dictionary pages (0 = off): a lookup neither reads (covered)
  // nor decodes a dictionary page another lookup of this Index already decoded.
  int64_t dictionary_cache_bytes = 64ll << 20;
  // LRU cache of the data files' data pages decoded whole (0 = off; `rap serve --data-cache`): a
  // lookup of a hot key neither reads nor decodes its pages (covered and plain lookups of flat
  // columns; index/page_cache.h DataPageCache). Off, a lookup decodes only the rows it needs.
  int64_t data_cache_bytes = 0;
  int threads = 16;                       // parallel index-page and data-file reads
  bool preload = true;                    // read every fragment's footer and key page index at Open
  // Range planning of index-page and data reads. Up to 32 requests per wave (the planner's default
  // is 10, seed 000's scan model): a cold covered lookup reads a dozen index-page ranges, and at 10
  // per wave that costs a second round trip.
  io::PlanOptions plan = [] {
    io::PlanOptions p;
    p.planner.max_concurrency = 32;
    return p;
  }();
};

struct IndexInfo {
  std::string index_url;
  std::string table_url;
  std::vector<KeyColumn> key;
  int64_t manifest_version = 0;
  int64_t table_version = -1;
  std::string table_kind;
  std::string name;                    // the manifest's index name
  IndexKind kind = IndexKind::kHash;   // sorted: ranges read only the partitions they touch
  int32_t buckets = 1;
  int64_t files = 0;       // live files
  int64_t fragments = 0;
  std::vector<std::string> cover;
  std::vector<std::string> hoist;
  // How Open found the manifest: dependent rounds of requests (1 from the latest bundle; 2 from the
  // version hint; more when it probed), and whether the latest bundle answered.
  int open_rounds = 0;
  bool opened_from_bundle = false;
};

struct LookupOptions {
  std::vector<std::string> columns;      // output columns (see above); empty = all
  int64_t limit_per_key = -1;            // at most this many rows per key (< 0: all)
  std::vector<std::string> page_tokens;  // empty, or one per key ("" = from the start)
  bool use_cover = true;                 // use covering data / hoisted values when they suffice
};

struct LookupStats {
  int dependent_rounds = 0;     // sequential rounds of requests (0: everything cached)
  int64_t requests = 0;         // physical requests
  uint64_t bytes = 0;           // payload bytes
  int64_t index_pages_read = 0;       // index pages fetched from fragments
  int64_t index_page_cache_hits = 0;  // index pages served by the cache
  int64_t index_data_pages_decoded = 0;  // Parquet data pages of index fragments decompressed and decoded
  int64_t data_files = 0;             // data files read
  int64_t covered_files = 0;          // of those, read through covering data (no footer)
  int64_t data_pages_decoded = 0;     // data pages decoded (whole, when the data page cache is on)
  int64_t data_page_cache_hits = 0;   // data pages taken decoded from the data page cache
  int64_t hoisted_only = 0;           // keys answered from hoisted values only
  int64_t rows = 0;
  double seconds = 0;
  std::string ToString() const;  // "key value" lines
};

// Range and prefix lookups (LookupRange).
struct RangeLookupOptions {
  std::vector<std::string> columns;  // output columns, as LookupOptions::columns
  int64_t limit = -1;                // at most this many rows (< 0: all); then next_page_token is set
  std::string page_token;            // "" or a next_page_token of a lookup of the same range
  bool use_cover = true;
};

struct RangeResult {
  SchemaPtr schema;
  RecordBatch rows;              // the rows of every key in the range: by key, then (file, row)
  int64_t keys = 0;              // distinct keys with rows in this page
  std::string next_page_token;   // empty at the end
  LookupStats stats;
  int64_t manifest_version = 0;  // the index version that answered (a refresh may have come since)
};

// Where the keys of a set of ranges are (Index::Locate; rap/index/indexed_scan.h uses it): per
// live file of the manifest's file table, the rows of every entry whose key is in one of the ranges.
// The index's deletion vectors are NOT applied: a scan applies the table's current deletes itself.
struct LocatedRows {
  std::shared_ptr<const Manifest> manifest;      // the snapshot's manifest (its file table by ordinal)
  std::map<int32_t, read::RowSelection> rows;    // file ordinal -> candidate rows (files with none absent)
  int64_t entries = 0;                           // index entries in the ranges
  int64_t fragments = 0;                         // fragments whose pages were read
  LookupStats stats;                             // index rounds, requests, bytes, pages (no data reads)
};

struct KeyRows {
  Key key;
  RecordBatch rows;
  std::string next_page_token;  // empty at the end
};

struct LookupResult {
  SchemaPtr schema;
  std::vector<KeyRows> keys;
  LookupStats stats;
  int64_t manifest_version = 0;  // the index version that answered (a refresh may have come since)
};

class Index {
 public:
  // `url`: the index directory, or a table (then `<table>/_rap_index/default`).
  static Result<std::shared_ptr<Index>> Open(const std::string& url, IndexOpenOptions options = {});
  ~Index();

  // Of the snapshot current when called: a copy, so a long-lived Index (rap serve refreshing it)
  // keeps no replaced snapshot alive for it.
  IndexInfo info() const;
  Result<Key> ParseKey(const std::vector<std::string>& parts) const;
  Result<LookupResult> Lookup(std::span<const Key> keys, const LookupOptions& options) const;
  // The rows of every key in `range` (key_range.h: ranges, prefixes, bounds on the leading key
  // columns) in key order. Reads, in one parallel round, the index pages whose keys can be in the
  // range — of the fragments whose [min_key, max_key] overlaps it (a sorted index: the partitions
  // the range touches; a hash index: every fragment) — then the data as Lookup does. A page token
  // `r1:<hex of NormalizedKey>:<file>:<row>` resumes after that row.
  Result<RangeResult> LookupRange(const KeyRange& range, const RangeLookupOptions& options) const;
  // The rows of every key in any of `ranges`, without reading data (LocatedRows): the index pages of
  // the fragments that can hold them in one parallel round. A range whose two bounds are one full key
  // (an exact key) reads only the fragments of its bucket (hash) or partition (sorted).
  Result<LocatedRows> Locate(std::span<const KeyRange> ranges) const;
  // Loads a newer manifest if one was published; true when the snapshot changed.
  Result<bool> Refresh();
  // The index page cache's counters since Open (shared by every lookup of this Index).
  PageCacheStats page_cache_stats() const;
  // The data files' dictionary cache's counters since Open (IndexOpenOptions::dictionary_cache_bytes).
  parquet::DictionaryCacheStats dictionary_cache_stats() const;
  // The decoded data page cache's counters since Open (IndexOpenOptions::data_cache_bytes).
  DataPageCacheStats data_cache_stats() const;

  class Snapshot;  // one manifest version with its fragments (index.cc)
  class Impl;

 private:
  explicit Index(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rap::index
