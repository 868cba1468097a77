// The Paimon reader's internals shared by paimon_format.cc (snapshot, schema, manifests, the live
// files) and paimon_merge.cc (merge-on-read of a primary-key table's buckets). Private to
// src/table/paimon.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rap/io/object_store.h"
#include "rap/table/paimon.h"
#include "rap/table/table.h"
#include "table/paimon/paimon_meta.h"

namespace rap::table::paimon {

// A data file's deletion vector: where in which index file.
struct DeletionVectorRef {
  std::string index_path;  // in the store
  DeletionVectorRange range;
};

struct BucketFile {
  std::string path;  // in the store
  DataFileMeta meta;
  std::optional<DeletionVectorRef> dv;
};

// One bucket of one partition: its live files and, once merged, the deleted rows of each.
struct Bucket {
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  std::vector<BucketFile> files;
  bool needs_merge = false;  // a primary-key bucket of more than one sorted run, or with -U/-D rows
  bool has_dv = false;       // a file of the bucket has a deletion vector
  // Filled by the first BucketDeletedRows of a file of this bucket, or of another bucket that merges
  // this one with it (MergeAhead), under PaimonState::mu; the counters under a lock of the merges'.
  bool merged = false;
  Status merge_status;
  std::map<std::string, std::vector<uint64_t>> deleted;  // file path -> deleted rows
};

// TableSnapshot::format_state of a Paimon table.
struct PaimonState : TableFormatState {
  Snapshot snapshot;
  TableSchema schema;
  bool primary_key = false;
  std::string merge_engine;               // "deduplicate" or "first-row"
  bool deletion_vectors = false;          // deletion-vectors.enabled
  bool skip_level0 = false;               // a batch read leaves level-0 files out (first-row; deletion vectors)
  std::vector<std::string> key_columns;   // in the data files ("_KEY_f0")
  std::vector<std::string> key_types;     // their Paimon type roots
  int32_t bucket_option = -1;
  std::map<std::string, size_t> bucket_of;  // file path -> index in buckets
  mutable std::mutex mu;
  mutable std::vector<Bucket> buckets;
  std::vector<size_t> scan_order;  // indexes into `buckets` in the order a scan reaches their files
  mutable PaimonMergeCounters counters;
};

// Reads a whole object (at most `limit` bytes).
Result<std::string> ReadObject(const io::ObjectStorePtr& store, const std::string& path, uint64_t limit);

// The rows of a bucket file's deletion vector (sorted; none when it has none).
Result<std::vector<uint64_t>> LoadDeletionVector(const TableSnapshot& snapshot, const BucketFile& file,
                                                 std::map<std::string, std::string>* index_files);

// Which buckets a BucketDeletedRows that finds its bucket unmerged merges (several at once, so their
// round trips overlap as the runs' warmups within one merge do).
enum class MergeAhead {
  kEveryBucket,     // every bucket still unmerged (callers that ask for every file's rows up front)
  kFromThisBucket,  // this bucket, then — once one merge is done — the next unmerged ones in file
                    // order, up to the merge threads (a scan asking file by file as it reaches them)
};

// The rows of the file at `path` that the merge of its bucket drops (merging the bucket on first use),
// its deletion vector's rows among them. Thread-safe.
Result<std::vector<uint64_t>> BucketDeletedRows(const TableSnapshot& snapshot, const PaimonState& state,
                                                const std::string& path, MergeAhead ahead);

}  // namespace rap::table::paimon
