// Index fragments (docs/index-format.md, "Fragments"): Parquet files of index entries sorted by
// (key, file, first_row), one per (build run, bucket), written with small pages and a ColumnIndex +
// OffsetIndex so a lookup reads only the page that can hold its key. Columns:
//   key0 [, key1]   the key (int32 | int64 | string | binary), required
//   file            int32: ordinal in the manifest's file table
//   first_row       int64: first row of the entry's run of rows in the data file
//   num_rows        int64: rows in the run (the entry's value count)
//   cover           (when the index covers columns) list<struct<column, kind, codec, offset, size,
//                   first_row, num_rows, aux>>: the pages holding the run, per covered column
//   hoist_<name>    (per hoisted column) list<the column's type>: the run's values
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/index/key.h"
#include "rap/index/manifest.h"
#include "rap/io/object_store.h"
#include "rap/util/result.h"

namespace rap::index {

// Location kinds of covering data.
enum class LocationKind : int32_t {
  kDataPage = 0,        // a whole data page (header + body) of a column chunk
  kZstdFrame = 1,       // reserved (layouts): a ZSTD frame inside a page; `aux` describes it
  kDictionaryPage = 2,  // the dictionary page of the chunk of the data-page records that follow
};

// Where a covered column's values of an entry are: one record per page (docs/index-format.md).
struct Location {
  int32_t column = 0;   // index into Manifest::cover
  int32_t kind = 0;     // LocationKind
  int32_t codec = 0;    // the column chunk's parquet::Codec
  int64_t offset = 0;   // absolute byte offset in the data file
  int64_t size = 0;     // bytes (page header included)
  int64_t first_row = 0;  // data-file row of the page's first row (dictionary: of the row group)
  int64_t num_rows = 0;   // rows in the page (dictionary: in the row group)
  std::string aux;        // layout-specific (empty for kinds 0 and 2)
  bool operator==(const Location&) const = default;
};

// One index entry: a run of consecutive rows of one data file holding one key.
struct IndexEntry {
  Key key;
  int32_t file = 0;
  int64_t first_row = 0;
  int64_t num_rows = 0;
  std::vector<Location> cover;          // when the index covers columns
  std::vector<ArrayPtr> hoisted;        // one array of num_rows values per hoisted column
};

inline constexpr const char* kFileColumn = "file";
inline constexpr const char* kFirstRowColumn = "first_row";
inline constexpr const char* kNumRowsColumn = "num_rows";
inline constexpr const char* kCoverColumn = "cover";
inline constexpr const char* kHoistPrefix = "hoist_";
std::string KeyColumnName(size_t i);  // "key0", "key1"

// The Arrow schema of a fragment; `hoisted` are the hoisted data columns (names and types).
SchemaPtr FragmentSchema(const std::vector<KeyColumn>& key, bool cover, const std::vector<Field>& hoisted);

// Sorts by (key, file, first_row).
void SortEntries(const std::vector<KeyColumn>& key, std::vector<IndexEntry>* entries);

struct FragmentWriteOptions {
  // Index rows (entries) per page: what one key lookup decodes. 0 = by the entries' width
  // (FragmentPageRows): 256 for a plain index, fewer when every entry carries many covering records.
  int64_t page_rows = 0;
  int64_t row_group_rows = 1 << 20;
};

// Entries per page for entries that carry `cover_records` covering records (on average) and
// `hoisted_values` hoisted values: about kFragmentPageLeafValues leaf values a page, a power of two
// in [32, 256]. A lookup decodes a whole page (every column's rows of it) to find one key's entry;
// a lookup layout's entries cover every column (19 records of 8 fields in bench/peers' table), so
// 256 of them are ~40,000 values where the key needs ~150 (docs/benchmarks/peers.md, "Run of 7 Dec
// 2026, evening": a 100-key batch 46.3 -> 18.1 ms locally).
inline constexpr int64_t kFragmentPageLeafValues = 16384;
int64_t FragmentPageRows(double cover_records, double hoisted_values);

// Writes `entries` (sorted by SortEntries) to `<index_dir>/<relative_path>` and describes the file.
Result<FragmentEntry> WriteFragment(io::ObjectStore& store, const std::string& index_dir,
                                    const std::string& relative_path, const std::vector<KeyColumn>& key, bool cover,
                                    const std::vector<Field>& hoisted, int32_t bucket, int64_t run,
                                    const std::vector<IndexEntry>& entries, const FragmentWriteOptions& options = {});

// WriteFragment over entries supplied in batches (a columnar buffer's, materialised a batch at a
// time): `source(begin, end, scratch)` returns a pointer to the entries [begin, end) of the sorted
// sequence, valid until the next call (it may fill and return `scratch`'s data).
using EntryBatchSource = std::function<const IndexEntry*(size_t begin, size_t end, std::vector<IndexEntry>* scratch)>;
Result<FragmentEntry> WriteFragmentBatches(io::ObjectStore& store, const std::string& index_dir,
                                           const std::string& relative_path, const std::vector<KeyColumn>& key,
                                           bool cover, const std::vector<Field>& hoisted, int32_t bucket, int64_t run,
                                           size_t num_entries, const EntryBatchSource& source,
                                           const FragmentWriteOptions& options = {});

// Column positions of a fragment's schema, checked against the manifest (Corrupt names `what`).
struct FragmentLayout {
  std::vector<int> key;  // key0 [, key1]
  int file = -1, first_row = -1, num_rows = -1, cover = -1;
  std::vector<int> hoist;  // by Manifest::hoist order
  static Result<FragmentLayout> Of(const Schema& schema, const Manifest& m, const std::string& what);
};

// Reads row `row` of a decoded fragment batch into `e` (key, file, rows; cover and hoisted values
// when `with_payload`).
Status EntryAt(const RecordBatch& batch, const FragmentLayout& layout, const std::vector<KeyColumn>& key, int64_t row,
               bool with_payload, IndexEntry* e, const std::string& what);

}  // namespace rap::index
