// The Iceberg reader's internals shared by iceberg_format.cc (metadata, manifests, the live files)
// and iceberg_deletes.cc (position deletes, equality deletes, deletion vectors). Private to
// src/table/iceberg.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "rap/io/object_store.h"
#include "rap/table/iceberg_metadata.h"
#include "rap/table/table.h"
#include "table/iceberg/iceberg_manifest.h"

namespace rap::table::iceberg {

// Paths the metadata names (absolute URIs of wherever the table was written) -> paths in the table's
// store: the user's OLD=NEW prefixes first, then the metadata's `location` -> the folder the table
// was opened at (so a copied table reads in place).
class LocationMap {
 public:
  LocationMap(std::vector<std::pair<std::string, std::string>> user, std::string location, std::string root);
  Result<std::string> Resolve(const std::string& path) const;

 private:
  std::vector<std::pair<std::string, std::string>> prefixes_;
};

struct DeleteRef {
  ContentFile file;
  std::string path;  // in the store
};

// A live data file's partition: its spec and tuple (a replace commit groups files by it).
struct FilePartition {
  int32_t spec_id = 0;
  std::string key;                  // ContentFile::partition_key
  std::vector<avro::Value> values;  // ContentFile::partition
};

// TableSnapshot::format_state of an Iceberg table.
struct IcebergState : TableFormatState {
  std::string metadata_path;                               // the metadata file read (store path)
  std::string metadata_json;                               // its text (a commit writes the next from it)
  std::vector<std::pair<std::string, std::string>> location_map;  // the user's OLD=NEW prefixes
  IcebergSchema schema;                                    // the snapshot's schema
  std::map<std::string, std::string> original_paths;       // store path of a data file -> its path in the metadata
  std::map<std::string, std::vector<DeleteRef>> deletes;   // store path of a data file -> delete files for it
  std::map<std::string, FilePartition> partitions;         // store path of a data file -> its partition
  // Position delete files read once: delete file store path -> (data file metadata path -> positions).
  mutable std::mutex mu;
  mutable std::map<std::string, std::map<std::string, std::vector<uint64_t>>> position_cache;
};

// Reads a whole object (at most `limit` bytes).
Result<std::string> ReadObject(const io::ObjectStorePtr& store, const std::string& path, uint64_t limit);

// The rows of the data file at `path` (store path) deleted by its delete files.
Result<std::vector<uint64_t>> IcebergDeletedRows(const TableSnapshot& snapshot, const IcebergState& state,
                                                 const DataFile& file);

}  // namespace rap::table::iceberg
