// Table snapshot: the list of live data files of a table, plus what is known about its schema and
// partitioning. Produced by a table format (table_format.h: a Delta Lake log, delta_log.h) or by a
// directory/prefix listing (file_listing.h); consumed by the Scanner and the index builder.
// OpenTable() asks each table format, then falls back to the listing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/io/object_store.h"
#include "rap/read/expr.h"
#include "rap/read/field_id_tree.h"
#include "rap/table/deletion_vector.h"
#include "rap/util/result.h"

namespace rap::io {
struct StoreOptions;  // rap/io/store_options.h
}  // namespace rap::io

namespace rap::table {

enum class TableKind { kDirectory, kDelta };

class TableFormat;  // rap/table/table_format.h

// One live data file.
struct DataFile {
  std::string path;           // path within the store (table root joined with the relative path)
  std::string relative_path;  // path relative to the table root, decoded (no %-escapes)
  uint64_t size = 0;
  int64_t modification_time_ms = 0;
  // One entry per TableSnapshot::partition_columns, in that order; nullopt is SQL NULL. The string is
  // the serialised value (Delta protocol "Partition Value Serialization" / Hive directory value).
  std::vector<std::optional<std::string>> partition_values;
  std::optional<int64_t> num_records;  // Delta stats numRecords, when the writer recorded stats
  std::string stats_json;              // Delta add.stats (raw JSON), empty when absent
  // Delta deletion vector: rows of the file that are deleted (loaded by ToScanSource).
  std::optional<DeletionVectorDescriptor> deletion_vector;
  // The table format has deletes for this file other than a Delta deletion vector (Iceberg position
  // and equality delete files, deletion vectors): DeletedRows (table_format.h) gives them.
  bool format_deletes = false;
  // Bounds of the file's columns from the table format's own metadata (Iceberg manifest metrics), one
  // per TableSnapshot::schema field; used instead of stats_json when not empty.
  std::vector<std::optional<read::ColumnStats>> column_stats;
  // In-file name per TableSnapshot::schema field when this file was written under another schema
  // (Paimon schema evolution; "" = the file lacks the column); empty = TableSnapshot::physical_names.
  std::vector<std::string> physical_names;
};

// What a table format keeps from Open for DeletedRows (Iceberg: the delete files of each data file).
struct TableFormatState {
  virtual ~TableFormatState() = default;
};

struct TableSnapshot {
  TableKind kind = TableKind::kDirectory;
  const TableFormat* format = nullptr;  // the table's format (its deletes); null for a folder of Parquet files
  io::ObjectStorePtr store;
  std::string root;      // table root within the store (no trailing '/')
  int64_t version = -1;  // Delta: the snapshot version; directory: -1
  // Logical schema of a full scan (data and partition columns, in table order). Delta: from
  // metaData.schemaString. Directory tables: null (the schema comes from the files), but
  // partition_columns are known from the directory names.
  SchemaPtr schema;
  // Partition columns with their types (Delta: from the schema; directory: string).
  std::vector<Field> partition_columns;
  // Physical (in-file) name per schema field, same order as schema->fields. Equal to the logical
  // name unless Delta column mapping is on. Empty for directory tables.
  std::vector<std::string> physical_names;
  // In-file type per schema field when nested fields have physical names (Delta column mapping of
  // structs, arrays of structs, maps): struct children carry the physical names. Empty otherwise.
  std::vector<DataTypePtr> physical_types;
  // Delta column mapping mode id: per schema field, the column-mapping ids (the Parquet field_ids
  // files are read by, read::ScanSource::field_ids). Empty otherwise.
  std::vector<read::FieldIdTree> field_ids;
  // Iceberg `schema.name-mapping.default`: field ids for files written without them
  // (read::ScanSource::name_mapping). Null otherwise.
  std::shared_ptr<const read::NameMapping> name_mapping;
  // Per schema field: the value of a column a data file lacks (Iceberg v3 `initial-default`, a 1-row
  // array; read::ScanSource::defaults). Empty, or a null entry: NULL.
  std::vector<ArrayPtr> column_defaults;
  std::vector<DataFile> files;  // deterministic order: sorted by relative_path
  std::shared_ptr<const TableFormatState> format_state;  // null for Delta and folders
};

struct OpenTableOptions {
  std::optional<int64_t> version;  // Delta time travel; an error for directory tables
  // Iceberg and Paimon time travel: the snapshot with this id, or the one current at this time (ms since
  // the epoch).
  std::optional<int64_t> snapshot_id = std::nullopt;
  std::optional<int64_t> as_of_ms = std::nullopt;
  // Paimon time travel by tag: the snapshot `tag/tag-<name>` holds. An error for other tables.
  std::optional<std::string> tag = std::nullopt;
  // Iceberg: location prefixes OLD=NEW applied to every path the metadata names (docs/iceberg.md).
  std::vector<std::pair<std::string, std::string>> location_map = {};
  // The store's settings for this call (rap/io/store_options.h); null: the environment's.
  std::shared_ptr<const io::StoreOptions> store = nullptr;
  // The scan's filter, when the table format can use it before listing files (Iceberg: manifests and
  // data files whose partition values cannot match are left out). The scan still applies it.
  read::ExprPtr filter = nullptr;
};

// Opens `url` as a table: a Delta table when `<url>/_delta_log/` holds commits; an Iceberg table
// when it has `metadata/*.metadata.json` (or names one); a Paimon table when it has `snapshot/LATEST`
// or `snapshot/snapshot-<n>` (docs/paimon.md); NotSupported naming the format for a table of a
// format rap does not read yet (Hudi `.hoodie/`); else a directory (or prefix) of Parquet and ORC files. A URL that names one Parquet object is a one-file table. A URL with
// neither a Delta log nor a single Parquet file under it is NotFound naming the URL (a typo is not an
// empty table); a Delta table whose log has no live files is a valid empty table. A Delta log on a
// store that cannot list (plain HTTP) is found by probing (`_last_checkpoint`, then commits).
Result<TableSnapshot> OpenTable(const std::string& url, const OpenTableOptions& options = {});

}  // namespace rap::table
