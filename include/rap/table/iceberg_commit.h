// Committing to an Iceberg table (the Iceberg table spec v1 and v2): a `replace` snapshot whose data files
// are new files written into the table (rap rewrite --in-place), with its manifest and manifest list
// written as Avro (rap/avro/container_writer.h) and the next metadata file created if absent. Under a
// partitioned default spec, each new file holds the rows of one partition and carries its tuple.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rap/avro/value.h"
#include "rap/format/statistics.h"
#include "rap/table/table.h"
#include "rap/util/result.h"

namespace rap::table::iceberg {

// A top-level primitive column of a new Parquet file, from its footer: bytes, values, nulls and the
// file's min and max in the Statistics encoding of `kind` (rap/format/statistics.h), combined over
// the row groups.
struct NewColumnStats {
  std::string name;
  parquet::StatsKind kind = parquet::StatsKind::kNone;
  int64_t size = 0, values = 0;
  std::optional<int64_t> nulls;
  std::optional<std::string> min, max;
};

struct NewDataFile {
  std::string relative_path;  // in the table's folder ("data/part-00000-rap-1a2b.parquet")
  int64_t size = 0;
  int64_t record_count = 0;
  // Written as the manifest entry's column_sizes, value_counts, null_value_counts and (for types
  // whose Iceberg single-value form is Parquet's plain encoding) lower_bounds / upper_bounds.
  std::vector<NewColumnStats> columns;
  // Its partition tuple under the table's default spec (ReplacePartition::values); empty when the
  // spec does not partition (every field of the tuple is then null).
  std::vector<avro::Value> partition;
};

// The live data files of one partition of the default spec, and its tuple (one value per field of
// the spec, as the files' manifest entries hold it).
struct ReplacePartition {
  std::vector<size_t> files;  // indices into TableSnapshot::files
  std::vector<avro::Value> values;
};

struct ReplaceCommit {
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  std::string metadata_path;  // the new metadata file (store path)
};

// Whether a replace of the snapshot `snapshot` (opened by OpenTable from an Iceberg table) can be
// committed: format version 1 or 2, the table's current snapshot. Checked before any file is written;
// NotSupported / InvalidArgument naming the table and the reason.
Status CheckReplace(const TableSnapshot& snapshot, const std::string& table_url);

// The snapshot's data files by partition of the table's default spec, in the order of their tuples;
// empty when that spec does not partition (no field, or only void fields). The rows of one partition
// are rewritten into files of that partition, so every file must be under the default spec:
// NotSupported naming the table, a file and its spec otherwise (after partition evolution, the old
// files' rows would need the new spec's transforms computed; not built).
Result<std::vector<ReplacePartition>> ReplacePartitions(const TableSnapshot& snapshot, const std::string& table_url);

// Commits a `replace` snapshot whose live data files are exactly `files` (every data and delete file
// of `snapshot` leaves the table; its rows are the files' rows). The metadata gains the snapshot,
// made current on `main`, and the name mapping of the current schema (`schema.name-mapping.default`:
// rap's Parquet files carry no field ids). The next metadata file is created if absent (`vN+1` or
// `0000N+1-<uuid>`): Changed when another commit took that version or the table moved since
// `snapshot` was read; the manifest and manifest list are then deleted again. `before_commit` runs
// just before the metadata file is written (tests stop there).
Result<ReplaceCommit> CommitReplace(const TableSnapshot& snapshot, const std::vector<NewDataFile>& files,
                                    const std::string& token, const std::function<void()>& before_commit = {});

}  // namespace rap::table::iceberg
