// MetadataCache: a process-wide cache of parsed Parquet metadata (footer, schema and the page
// indexes read so far), keyed by store endpoint + path + ETag so a changed object is never served
// stale, within a byte budget (least recently used entries are evicted first).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "rap/format/metadata.h"
#include "rap/format/schema.h"
#include "rap/io/object_store.h"

namespace rap::read {

// The parsed metadata of one file version. Page indexes are added as they are read (thread-safe).
class FileMetadata {
 public:
  FileMetadata(parquet::FileMetaData metadata, parquet::SchemaDescriptor schema, io::ObjectInfo info,
               uint64_t footer_length)
      : metadata_(std::move(metadata)), schema_(std::move(schema)), info_(std::move(info)),
        footer_length_(footer_length) {}

  const parquet::FileMetaData& metadata() const { return metadata_; }
  const parquet::SchemaDescriptor& schema() const { return schema_; }
  const io::ObjectInfo& info() const { return info_; }
  uint64_t footer_length() const { return footer_length_; }

  // Page indexes by (row group, column); null when not read yet.
  std::shared_ptr<const parquet::OffsetIndex> offset_index(int row_group, int column) const;
  std::shared_ptr<const parquet::ColumnIndex> column_index(int row_group, int column) const;
  void set_offset_index(int row_group, int column, std::shared_ptr<const parquet::OffsetIndex> index, uint64_t bytes);
  void set_column_index(int row_group, int column, std::shared_ptr<const parquet::ColumnIndex> index, uint64_t bytes);
  // Approximate memory held: a multiple of the encoded footer plus the page indexes read.
  uint64_t charge() const;

 private:
  parquet::FileMetaData metadata_;
  parquet::SchemaDescriptor schema_;
  io::ObjectInfo info_;
  uint64_t footer_length_;
  mutable std::mutex mu_;
  std::map<std::pair<int, int>, std::shared_ptr<const parquet::OffsetIndex>> offset_;
  std::map<std::pair<int, int>, std::shared_ptr<const parquet::ColumnIndex>> column_;
  uint64_t index_bytes_ = 0;
};

using FileMetadataPtr = std::shared_ptr<FileMetadata>;

struct MetadataCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t evictions = 0;
  int64_t entries = 0;
  uint64_t bytes = 0;
};

class MetadataCache {
 public:
  explicit MetadataCache(uint64_t budget_bytes) : budget_(budget_bytes) {}
  // The process-wide cache (256 MiB budget; see set_budget).
  static MetadataCache& Global();

  static std::string Key(const std::string& endpoint, const std::string& path, const std::string& etag);

  FileMetadataPtr Get(const std::string& key);
  // Inserts or replaces; evicts least recently used entries beyond the budget (an entry larger than
  // the whole budget is not kept).
  void Put(const std::string& key, FileMetadataPtr metadata);
  // Re-reads the charge of an entry whose page indexes grew, evicting as needed.
  void Recharge(const std::string& key);
  void Clear();
  void set_budget(uint64_t bytes);
  MetadataCacheStats stats() const;

 private:
  void EvictLocked();
  struct Entry {
    FileMetadataPtr metadata;
    uint64_t charge = 0;
    std::list<std::string>::iterator lru;
  };
  mutable std::mutex mu_;
  uint64_t budget_;
  uint64_t bytes_ = 0;
  std::list<std::string> lru_;  // front = most recently used
  std::unordered_map<std::string, Entry> entries_;
  MetadataCacheStats stats_;
};

}  // namespace rap::read
