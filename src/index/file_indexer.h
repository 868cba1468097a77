// Indexing one data file (internal to rap::index): reads the key columns (and hoisted columns) and,
// for covered columns, the page index; returns the file's entries (runs of consecutive rows with
// one key) with their covering data.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "index/frame_locations.h"
#include "rap/index/fragment.h"
#include "rap/index/manifest.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "rap/table/table.h"

namespace rap::index::internal {

struct FileIndexSpec {
  std::vector<std::string> key_columns;   // names
  std::vector<std::string> cover;
  std::vector<std::string> hoist;
  // The table's logical schema as a Delta schemaString (tables with a schema of their own: Delta);
  // empty: none. Kept in each schema file under kTableSchemaKey, so that lookups return the types a
  // scan of the table returns (Spark's INT96 timestamps as the Delta schema's timestamp[us, UTC]).
  std::string table_schema;
};

inline constexpr char kTableSchemaKey[] = "rap.table_schema";

struct IndexedFile {
  FileEntry file;                       // ordinal, path, size, etag, rows, dv (schema set by the caller)
  std::vector<KeyColumn> key;           // the key columns' types in this file
  std::vector<Field> hoisted;           // the hoisted columns' fields in this file
  std::string schema_file;              // zero-row Parquet file with the file's schema (covered indexes)
  // The file's entries in (key, first_row) order, in columns (no per-entry heap objects): entry i
  // has key parts ints[k][i] (integer parts) or the bytes of strings[k] from string_ends[k][i - 1]
  // (0 for i = 0) to string_ends[k][i], rows [first_row[i], first_row[i] + num_rows[i]), covering
  // records locations[cover[j]] for j in [cover_ends[i - 1], cover_ends[i]) and hoisted values
  // hoisted_values[h] from hoist_offset[i] (num_rows[i] of them). A record is kept once in
  // `locations` however many entries read its page (a file nobody rewrote has ~1,000 entries a
  // page): copying 80-byte records per entry was a sixth of a covered build's time.
  std::vector<std::vector<int64_t>> ints;
  std::vector<std::string> strings;
  std::vector<std::vector<uint64_t>> string_ends;
  std::vector<int64_t> first_row, num_rows;
  std::vector<Location> locations;
  std::vector<uint32_t> cover;  // ids into `locations`
  std::vector<uint32_t> cover_ends;
  std::vector<ArrayPtr> hoisted_values;
  std::vector<int64_t> hoist_offset;
  size_t num_entries() const { return first_row.size(); }
  // Entry i (reusing `e`'s storage).
  void EntryAt(size_t i, IndexEntry* e) const;
  int64_t key_rows = 0;                 // rows with a non-NULL key
};

Result<IndexedFile> IndexDataFile(const io::ObjectStorePtr& store, const table::DataFile& file, int32_t ordinal,
                                  const FileIndexSpec& spec);

// The covering records of column chunk `md` (row group rows [rg_first, rg_first + rg_rows), pages
// `oi`) for file rows [begin, end): its dictionary page (kind 2), and per page overlapping the rows
// either the page (kind 0) or, where frames[page] is framed, its frames holding the rows (kind 1).
Status ChunkLocations(const parquet::ColumnMetaData& md, const parquet::OffsetIndex& oi, int64_t rg_first,
                      int64_t rg_rows, const std::vector<PageFrames>& frames, int32_t cover_index, int64_t begin,
                      int64_t end, std::vector<Location>* out);

// A zero-row Parquet file holding exactly the schema of `md` (docs/index-format.md, "Schema files").
// With `table_schema` (FileIndexSpec::table_schema) under kTableSchemaKey.
std::string SchemaFileBytes(const parquet::FileMetaData& md, const std::string& table_schema = {});

// The relative path of a schema file for `bytes` ("schemas/<fnv1a64 hex>.parquet").
std::string SchemaFilePath(const std::string& bytes);

}  // namespace rap::index::internal
