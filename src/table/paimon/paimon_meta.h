// The Paimon reader's metadata (private to src/table/paimon): snapshot files, schema files,
// manifest lists and manifests (Avro object containers, or ORC files when `manifest.format` says
// so: both decoded into rap/avro/value.h trees and read by field name), and Paimon's BinaryRow (the
// serialized partition and min/max keys of a data file). Every parser names the object, the
// structure and, where it has one, the byte offset of what it refuses.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rap/avro/value.h"
#include "rap/columnar/array.h"
#include "rap/read/field_id_tree.h"
#include "rap/util/result.h"

namespace rap::table::paimon {

// snapshot/snapshot-<id> (JSON).
struct Snapshot {
  int64_t id = -1;
  int64_t schema_id = 0;
  std::string base_manifest_list;   // file names under manifest/
  std::string delta_manifest_list;
  std::string index_manifest;       // "" when none (deletion vectors, dynamic bucket indexes)
  std::string commit_kind;          // APPEND, COMPACT, OVERWRITE, ANALYZE
  int64_t time_ms = 0;
  std::optional<int64_t> total_record_count;
};
Result<Snapshot> ParseSnapshot(std::string_view json, const std::string& what);

// One field of a schema: the Paimon type (as written: "INT NOT NULL", or an object for nested
// types), mapped to rap's type with the field ids of its nested fields.
struct SchemaField {
  int32_t id = 0;
  std::string name;
  std::string type_name;  // the root of the Paimon type ("INT", "VARCHAR", "ROW", ...)
  DataTypePtr type;
  read::FieldIdTree ids;
  bool nullable = true;
};

// schema/schema-<id> (JSON).
struct TableSchema {
  int64_t id = 0;
  std::vector<SchemaField> fields;
  std::vector<std::string> partition_keys;
  std::vector<std::string> primary_keys;
  std::map<std::string, std::string> options;
  const SchemaField* Field(const std::string& name) const;
  std::string Option(const std::string& key, const std::string& fallback) const;
};
Result<TableSchema> ParseSchema(std::string_view json, const std::string& what);

// A manifest list entry (ManifestFileMeta).
struct ManifestMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t num_added_files = 0;
  int64_t num_deleted_files = 0;
  int64_t schema_id = 0;
};

// A manifest entry (ManifestEntry with its DataFileMeta).
struct DataFileMeta {
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::string min_key;  // BinaryRow bytes of the (trimmed) primary key
  std::string max_key;
  int64_t min_sequence_number = 0;
  int64_t max_sequence_number = 0;
  int64_t schema_id = 0;
  int32_t level = 0;
  std::optional<int64_t> delete_row_count;  // rows of kind -U/-D (null: unknown)
  std::optional<std::string> external_path;
  bool partial_columns = false;  // _WRITE_COLS set: a data-evolution file of some columns only
};

struct ManifestEntry {
  int kind = 0;           // 0 ADD, 1 DELETE
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  int32_t total_buckets = 0;
  DataFileMeta file;
};

// The records of a manifest list or manifest: an Avro object container ("Obj\x01") or an ORC file
// ("ORC"), told apart by their magic. Parquet manifests are NotSupported.
Result<std::vector<avro::Value>> ReadManifestRecords(std::span<const uint8_t> bytes, const std::string& what);

Result<std::vector<ManifestMeta>> ParseManifestList(const std::vector<avro::Value>& records, const std::string& what);
Result<std::vector<ManifestEntry>> ParseManifest(const std::vector<avro::Value>& records, const std::string& what);

// Where a data file's deletion vector is in a deletion-vector index file (DeletionVectorMeta).
struct DeletionVectorRange {
  std::string data_file;  // the data file's name
  int64_t offset = 0;     // of the vector's u32 size in the index file
  int64_t length = 0;     // the size: magic and bitmap
  std::optional<int64_t> cardinality;
};

// An index manifest entry (IndexManifestEntry with its IndexFileMeta): an index file of a bucket.
struct IndexManifestEntry {
  int kind = 0;  // 0 ADD, 1 DELETE
  std::string partition;
  int32_t bucket = 0;
  std::string index_type;  // "DELETION_VECTORS", "HASH", ...
  std::string file_name;
  int64_t file_size = 0;
  int64_t row_count = 0;
  std::vector<DeletionVectorRange> deletion_vectors;
  std::optional<std::string> external_path;
};
Result<std::vector<IndexManifestEntry>> ParseIndexManifest(const std::vector<avro::Value>& records,
                                                           const std::string& what);
// The index files an index manifest keeps: its ADD entries that no later DELETE entry of the same
// (partition, bucket, file name) removes, in that key's order.
std::vector<const IndexManifestEntry*> LiveIndexEntries(const std::vector<IndexManifestEntry>& entries);

// The deleted rows (sorted) of one deletion vector of a deletion-vector index file (Paimon's
// DeletionVectorsIndexFile): the file starts with a version byte (1); at `range.offset`, a u32 BE
// size (`range.length`), the magic (1581511376 BE: a portable 32-bit Roaring bitmap follows;
// 1681511377 LE: a 64-bit RoaringBitmapArray, Paimon's bitmap64 vectors), the bitmap, a u32 BE
// CRC-32 of magic and bitmap. Corrupt naming the byte offset of what does not hold.
// At most `max_rows` rows (ResourceExhausted past it: the data file's row count bounds the memory).
Result<std::vector<uint64_t>> ParseDeletionVector(std::span<const uint8_t> index_file, const DeletionVectorRange& range,
                                                  uint64_t max_rows, const std::string& what);

// A value of a BinaryRow field: null, an integer (every integer type, date, bool), a double (float,
// double) or bytes (string, binary).
using Datum = std::variant<std::monostate, int64_t, double, std::string>;
// Three-way comparison in Paimon's key order (null first, numbers, bytes unsigned).
int CompareDatum(const Datum& a, const Datum& b);

// Decodes a serialized BinaryRow (a 4-byte big-endian arity, then the row: a header byte and null
// bits in 8-byte words, one 8-byte slot per field, then the variable-length part) whose fields
// have the Paimon types `type_names` (roots as in SchemaField::type_name). NotSupported for a type
// it does not decode (decimal, timestamp, nested).
Result<std::vector<Datum>> DecodeBinaryRow(std::string_view bytes, const std::vector<std::string>& type_names,
                                           const std::string& what);

}  // namespace rap::table::paimon
