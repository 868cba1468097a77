// Writing Delta Lake commits (PROTOCOL.md of delta-io/delta): the JSON actions of one commit
// (commitInfo, protocol, metaData, add, remove), the schemaString of a rap::Schema, per-file
// statistics, and the commit itself as `_delta_log/<version, 20 digits>.json` created with
// ObjectStore::PutIfAbsent — of two writers committing the same version exactly one succeeds; the
// other gets kChanged and nothing of its commit is visible. `rap rewrite` writes Delta tables with it
// (docs/layouts.md, "rap rewrite").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rap/columnar/array.h"
#include "rap/io/object_store.h"
#include "rap/table/delta_log.h"
#include "rap/util/result.h"

namespace rap::table {

struct DeltaRemoveFile {
  std::string path;  // as the add action wrote it
  int64_t deletion_timestamp = 0;
  bool data_change = true;
  int64_t size = 0;
  std::optional<DeletionVectorDescriptor> dv;  // the removed file's deletion vector, if it had one
};

struct DeltaCommitActions {
  std::string operation = "WRITE";                // commitInfo.operation
  std::optional<DeltaProtocol> protocol;          // new tables (and protocol changes) only
  std::optional<DeltaMetadata> metadata;          // new tables (and schema changes) only
  std::vector<DeltaAddFile> adds;                 // partition_values are not written (unpartitioned)
  std::vector<DeltaRemoveFile> removes;
  bool data_change = true;                        // the adds' dataChange
};

// The schemaString of `schema`: boolean, byte, short, integer, long, float, double, string, binary,
// decimal(p,s), date, timestamp (timestamp[us, tz=UTC]), timestamp_ntz (timestamp[us]), struct,
// array and map. Other types (unsigned integers, float16, fixed-size binary, times, timestamps in
// other units) have no Delta type: NotSupported names the column. `*uses_timestamp_ntz` is set when
// a timestamp_ntz appears (the table then needs the timestampNtz reader and writer feature).
Result<std::string> DeltaSchemaString(const Schema& schema, bool* uses_timestamp_ntz);

// The protocol a new table of `schema` needs: (1, 2), or (3, 7) with timestampNtz.
DeltaProtocol NewTableProtocol(bool uses_timestamp_ntz);

// add.stats of one file holding `batch`: numRecords, nullCount of every top-level flat column, and
// minValues/maxValues of its integer, date and string columns (exact values).
std::string DeltaFileStats(const RecordBatch& batch);

// The same over a file written batch by batch (the batches of one schema, in any number).
class DeltaStatsBuilder {
 public:
  void Add(const RecordBatch& batch);
  std::string Json() const;

 private:
  struct Column {
    std::string name;
    DataTypePtr type;
    bool nested = false;
    int64_t nulls = 0;
    std::optional<int64_t> int_min, int_max;
    std::optional<std::string> str_min, str_max;
  };
  int64_t rows_ = 0;
  std::vector<Column> columns_;
};

// OK when rap may add a commit to a table with this protocol: legacy writer versions up to 4, or
// writer features among appendOnly, invariants, checkConstraints, changeDataFeed, generatedColumns,
// deletionVectors, timestampNtz, vacuumProtocolCheck (a rewrite changes no values, so their
// rules hold). Anything else (row tracking, domain metadata, clustering, ...) is NotSupported.
Status CheckWriterSupport(const DeltaProtocol& protocol, const std::string& table);

// The newline-delimited JSON of a commit (commitInfo first).
std::string DeltaCommitJson(const DeltaCommitActions& actions, int64_t timestamp_ms);

// `<root>/_delta_log/<version>.json`.
std::string DeltaCommitPath(const std::string& root, int64_t version);

// Creates the commit file of `version` with PutIfAbsent: kChanged when the version exists already
// (another writer committed it first).
Status WriteDeltaCommit(const io::ObjectStorePtr& store, const std::string& root, int64_t version,
                        const std::string& json);

}  // namespace rap::table
