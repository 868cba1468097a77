// Apache Paimon tables (src/table/paimon/, docs/paimon.md): what a Paimon snapshot opened by
// OpenTable tells beyond the TableSnapshot — the table's kind and merge engine, and the counters of
// its merge-on-read (primary-key tables: per bucket, the sorted runs merged by the primary key and
// the sequence number through read::MergeReader, the first file of every run warmed first).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rap/table/table.h"
#include "rap/util/result.h"

namespace rap::table {

struct PaimonMergeCounters {
  int64_t buckets = 0;          // buckets (partition, bucket) of the snapshot
  int64_t buckets_merged = 0;   // buckets read through the merge so far (more than one run, or deletes)
  int64_t runs = 0;             // sorted runs of the merged buckets
  int64_t runs_warmed = 0;      // runs whose first file was opened and read before their merge began
  int64_t files = 0;            // files opened by the merges
  int64_t rows_in = 0;          // rows the merges read (key, sequence number and row kind)
  int64_t rows_deleted = 0;     // rows superseded by a newer version or removed by a -U/-D row
  int64_t deletion_vectors = 0;  // files whose deletion vector was applied (deletion-vectors.enabled)
  int64_t rows_dv_deleted = 0;   // rows those vectors delete
};

struct PaimonTableInfo {
  int64_t snapshot_id = -1;
  int64_t schema_id = 0;
  std::string commit_kind;              // of the snapshot: APPEND, COMPACT, OVERWRITE
  std::vector<std::string> primary_keys;  // empty: an append table
  std::vector<std::string> partition_keys;
  std::string merge_engine;             // "deduplicate" or "first-row" (primary-key tables)
  int32_t buckets = 0;                  // the `bucket` option (-1: dynamic or unaware)
  PaimonMergeCounters merge;            // as of now (merges run when the scan asks for deleted rows)
};

// Whether the RAP index can index `snapshot` (OK for tables that are not Paimon's): a Paimon
// table's merge (and its deletion vectors) reach the index as the deleted rows of its files
// (TableFormat::DeletedRows, recorded as inline deletion vectors), so lookups return the merged, latest
// row of a key and an update follows new snapshots. NotSupported when a data file was written under
// an older schema with other column names (the index reads columns by the table's names).
Status CheckPaimonIndexable(const TableSnapshot& snapshot);

// Paimon's system columns in the data files of a primary-key table (`_KEY_<name>`,
// `_SEQUENCE_NUMBER`, `_VALUE_KIND`), which are not the table's: a lookup's default columns leave
// them out.
bool IsPaimonSystemColumn(std::string_view name);

// The Paimon facts of `snapshot`; InvalidArgument when it is not a Paimon table.
Result<PaimonTableInfo> PaimonInfo(const TableSnapshot& snapshot);

}  // namespace rap::table
