// Iceberg partition transforms for pruning (the table spec's "Partition Transforms" and "Scan
// Planning"): a scan's filter is checked against each data manifest's partition summaries (the
// manifest list's field_summary bounds) and each data file's partition tuple, through the transforms
// — identity, year/month/day/hour and truncate[W] give the source column's range; bucket[N]
// (murmur3_x86_32, the spec's Appendix B) decides equality and IN on int, long, date, string,
// decimal, timestamp(tz), uuid, binary and fixed columns; void says nothing. A manifest or file that cannot hold a matching row is not read. Private
// to src/table/iceberg.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rap/read/expr.h"
#include "rap/table/iceberg_metadata.h"
#include "table/iceberg/iceberg_manifest.h"

namespace rap::table::iceberg {

// murmur3_x86_32 with seed 0 (Austin Appleby's MurmurHash3), as a signed int like Iceberg's Java.
int32_t Murmur3Hash(std::string_view bytes);
// The spec's hash of an int, long, date, time or timestamp value: murmur3 of its 8-byte
// little-endian long.
int32_t IcebergHashLong(int64_t v);
// bucket[N] of a hash: (hash & Integer.MAX_VALUE) % N.
int32_t IcebergBucket(int32_t hash, int32_t n);
// A decimal's unscaled value as the spec writes it (the bucket hash's input, the single-value
// serialization of bounds): its minimal two's-complement big-endian bytes.
std::string MinimalBigEndian(__int128 v);

// The bucket hash of a `--where` literal compared with a column of `type` (the spec's Appendix B):
// int, long and date as longs; string, binary and fixed by their bytes; decimal by the unscaled
// value's minimal big-endian bytes (the literal exact at the column's scale); timestamp(tz) in µs as
// a long of microseconds (a zone in the literal applied); uuid by its 16 bytes. nullopt for other
// types and literals that are not a value of the column.
std::optional<int32_t> BucketHashOfLiteral(const read::Literal& lit, const DataType& type);

class PartitionPruner {
 public:
  // Prunes nothing when `filter` is null or does not bind to the schema.
  PartitionPruner(const TableMetadata& meta, const IcebergSchema& schema, const read::ExprPtr& filter);
  // True when no file of the data manifest can hold a row the filter accepts (by its summaries).
  bool SkipManifest(const ManifestFile& m) const;
  // True when the data file cannot hold such a row (by its partition tuple).
  bool SkipFile(const ContentFile& f) const;

 private:
  struct Field {
    int column = -1;          // top-level index of the source column; -1: not prunable
    std::string kind;         // identity, year, month, day, hour, truncate, bucket
    int64_t param = 0;        // truncate width, bucket count
  };
  const std::vector<Field>* Spec(int32_t spec_id) const;
  const IcebergSchema& schema_;
  std::optional<read::Predicate> predicate_;
  std::vector<std::pair<int32_t, std::vector<Field>>> specs_;
  // Per column: the buckets' input hashes of the values an `=`/`IN` conjunct allows (empty: any).
  std::vector<std::optional<std::vector<int32_t>>> allowed_hashes_;
};

}  // namespace rap::table::iceberg
