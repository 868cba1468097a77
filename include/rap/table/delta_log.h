// Delta Lake snapshot reconstruction from `_delta_log/` (PROTOCOL.md of delta-io/delta): JSON
// commits (add, remove, metaData, protocol, commitInfo; other actions ignored), `_last_checkpoint`,
// classic single- and multi-part Parquet checkpoints, V2 checkpoints (JSON or Parquet manifests with
// sidecar files), time travel to a version, and the reader-feature gate. A table that needs a reader
// feature rap does not implement is refused with NotSupported naming the feature — never wrong rows.
// Data files are never found by listing the table folder; only `_delta_log/` is listed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rap/io/object_store.h"
#include "rap/table/deletion_vector.h"
#include "rap/table/delta_schema.h"
#include "rap/table/table.h"
#include "rap/util/result.h"

namespace rap::table {

struct DeltaProtocol {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 1;
  std::vector<std::string> reader_features;
  std::vector<std::string> writer_features;
};

struct DeltaMetadata {
  std::string id;
  std::string schema_string;
  std::vector<std::string> partition_columns;
  std::map<std::string, std::string> configuration;
  int64_t created_time = 0;
};

struct DeltaAddFile {
  std::string path;  // as written in the log (a URI-encoded path relative to the table root)
  std::map<std::string, std::optional<std::string>> partition_values;  // keyed by physical name
  int64_t size = 0;
  int64_t modification_time = 0;
  std::string stats;             // JSON string, empty when absent
  std::string deletion_vector;   // unique id of the DV ("<storageType><pathOrInlineDv>[@offset]"), empty if none
  std::optional<DeletionVectorDescriptor> dv;
};

struct DeltaLogSnapshot {
  int64_t version = -1;
  std::optional<int64_t> checkpoint_version;  // checkpoint the replay started from
  int commits_read = 0;                       // JSON commits replayed after it
  std::string checkpoint_error;  // why a checkpoint was skipped in favour of the full JSON history
  DeltaProtocol protocol;
  DeltaMetadata metadata;
  std::vector<DeltaAddFile> files;  // live files, sorted by path
};

struct DeltaLogOptions {
  std::optional<int64_t> version;  // time travel; latest when empty
  // Start from a checkpoint when one exists at or below the version (off: replay JSON from 0, which
  // needs every commit to still exist).
  bool use_checkpoints = true;
  // On a store that cannot list (plain HTTP), commits are probed one by one after the checkpoint
  // (or from 0); more than this many is ResourceExhausted (a misbehaving server never loops).
  int64_t max_probed_commits = 100000;
};

// Reader features (and legacy reader versions) rap reads correctly. Everything else is refused.
bool IsSupportedReaderFeature(const std::string& feature);

// Checks a protocol (and the column mapping mode of the metadata) against what rap supports.
// NotSupported names the first unsupported feature.
Status CheckReaderSupport(const DeltaProtocol& protocol, const DeltaMetadata& metadata, const std::string& table);

// Replays the log of the table at `root` (the folder holding `_delta_log/`).
Result<DeltaLogSnapshot> ReadDeltaLog(const io::ObjectStorePtr& store, const std::string& root,
                                      const DeltaLogOptions& options = {});

// True when `root` holds a Delta log (at least one commit or checkpoint in `_delta_log/`).
Result<bool> IsDeltaTable(const io::ObjectStorePtr& store, const std::string& root);

// A whole table snapshot: replays the log, checks reader support, parses the schema and maps the
// partition values to the table's partition columns.
Result<TableSnapshot> OpenDeltaTable(const io::ObjectStorePtr& store, const std::string& root,
                                     const DeltaLogOptions& options = {});

}  // namespace rap::table
