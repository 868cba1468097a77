// Indexed scans (docs/scan-index.md): `rap scan --where` answered through a RAP index of the table.
//
// The filter's top-level conjuncts on an index's key columns become key ranges (FilterKeyRanges):
// `k = v`, `k IN (...)`, `k <, <=, >, >= v` and their AND/OR on one column; on a compound key
// (a, b) equalities of `a` combined with conditions on `b`. Index::Locate gives the rows of those
// keys per indexed file, and ApplyIndex marks them as the only candidate rows of the table's files
// (read::ScanFile::candidate_rows); the scanner then reads just those rows and applies the whole
// filter, its projection and the table's current deletes, so the output equals the full scan's
// (rows, order, columns, row ids).
//
// Coverage: a file of the scanned table version is read through the index when the index's file
// table lists it (same path relative to the table root, same size, not removed); every other file
// (appended after the index was built, or rewritten) is scanned in full. An index of another table
// format, or one whose key columns the filter does not constrain, is not used (the reason is
// reported). A hash index answers exact keys only (every key column equal); a sorted index also
// answers ranges, prefixes and leading key columns.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rap/index/index.h"
#include "rap/index/key_range.h"
#include "rap/index/maintenance.h"
#include "rap/read/expr.h"
#include "rap/read/scanner.h"
#include "rap/table/table.h"
#include "rap/util/result.h"

namespace rap::index {

// The key ranges of `key` that hold every row the filter can select, or an empty optional when the
// filter does not constrain the leading key column (then an index on `key` cannot answer it).
// Literals that do not fit a key type (1.5 for an integer, a number for a string) constrain nothing.
// An empty vector: no key can match (e.g. `k = 1 AND k = 2`).
std::optional<std::vector<KeyRange>> FilterKeyRanges(const read::Expr& filter, const std::vector<KeyColumn>& key);

// Whether ranges are all exact keys (every key column bound, both ends equal and inclusive).
bool AllExactKeys(const std::vector<KeyColumn>& key, const std::vector<KeyRange>& ranges);

struct IndexedScanOptions {
  bool disabled = false;   // rap scan --no-index: never use an index
  std::string name;        // rap scan --index NAME: only this index (an error when it cannot answer)
  IndexOpenOptions open;
  // The table's index listing, started early by PrefetchIndexListing; empty: ApplyIndex lists.
  std::shared_ptr<std::shared_future<Result<std::vector<IndexListing>>>> listing;
};

// Starts listing the indexes under `table_url`/_rap_index/ (ListIndexes) on a thread of its own, so
// that the listing's round trips overlap the opening of the table; ApplyIndex then takes its result
// instead of listing. Starts nothing when ApplyIndex would not list: no filter, `disabled`, or a
// named index. The thread is owned by the future in `options`: its last owner waits for the listing
// to end (bounded by the store's request deadline).
void PrefetchIndexListing(const std::string& table_url, bool has_filter, IndexedScanOptions* options);

struct IndexedScanReport {
  bool used = false;
  std::string name;              // the index used (or, with a reason, the one asked for)
  std::string kind;              // "hash" or "sorted"
  std::string predicate;         // the key ranges, e.g. "k in [5..5, 7..7]"
  std::string reason;            // why no index was used (when !used)
  int64_t files_indexed = 0;     // table files read through the index
  int64_t files_unindexed = 0;   // table files the index does not cover, scanned in full
  int64_t files_with_rows = 0;   // indexed files with candidate rows
  int64_t candidate_rows = 0;    // rows the index named (before deletes and the filter)
  int64_t entries = 0;
  LookupStats index;             // the index reads (requests, bytes, pages, seconds)
  // "index_used NAME (kind, predicate)" or "index_used none (reason)", then counters (--stats).
  std::string ToString() const;
};

// Chooses an index of the table at `table_url` (open as `snapshot`, whose scan source is `source`)
// for `filter` and restricts `source`'s files to the rows it names. Without a usable index `source`
// is left alone and the report says why. Errors: a named index that does not exist or cannot answer
// the filter (InvalidArgument), and I/O or corrupt-index errors of the index reads.
Result<IndexedScanReport> ApplyIndex(const std::string& table_url, const table::TableSnapshot& snapshot,
                                     const read::ExprPtr& filter, read::ScanSource* source,
                                     const IndexedScanOptions& options);

}  // namespace rap::index
