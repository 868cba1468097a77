// Append compaction of a Paimon table (`rap compact TABLE`, seed 001's other warmup user): the small
// data files of each bucket bin-packed into files of a target size, read through the prefetch
// reader (a queue of three batches, RAW warmup of the next file), written with rap's Parquet writer
// and committed as a Paimon COMPACT snapshot (manifests written through rap/avro/container_writer.h,
// the snapshot file created if absent). docs/paimon.md "Append compaction".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "rap/io/object_store.h"
#include "rap/util/result.h"

namespace rap::table {

struct PaimonCompactOptions {
  // Output files of about this many bytes (of input): 0 takes the table's `target-file-size`
  // option, else 256 MiB (Paimon's default for append tables). Files at least this big are left.
  uint64_t target_file_size = 0;
  // A bucket is compacted when it has at least this many files smaller than the target.
  int min_files = 2;
  bool dry_run = false;  // plan only: what would be read and written, nothing written
  // Rows per batch of the read (0: the Scanner's 65,536). With the queue of three batches it decides
  // which inputs the adaptive rule reads without producers (those whose first range holds more).
  int64_t batch_rows = 0;
  // Runs just before the snapshot file is written (tests stop or race there).
  std::function<void()> before_commit;
  std::function<void(int64_t done, int64_t total)> progress;  // output files written / planned
  std::shared_ptr<const io::CancellationToken> cancel;
};

struct PaimonCompactResult {
  int64_t snapshot_id = -1;       // the COMPACT snapshot committed; -1: nothing to compact (or a dry run)
  int64_t base_snapshot_id = -1;  // the snapshot that was compacted
  int64_t buckets = 0;            // buckets compacted
  int64_t files_read = 0, files_written = 0;
  int64_t rows = 0;
  uint64_t bytes_read = 0, bytes_written = 0;
  int64_t warmup_files = 0;       // input files warmed (RAW) while the one before them was read
  uint64_t warmup_bytes = 0;
  int64_t files_parallel = 0;     // input files read by parallel producers
  // Input files whose first range holds more batches than one producer's queue (three): read on the
  // plain path (the seed's adaptive rule; docs/paimon.md "Append compaction").
  int64_t adaptive_disabled = 0;
  // Deletion-vector index files the COMPACT snapshot no longer lists (every data file they held a
  // vector of was compacted: its deleted rows are gone from the new files).
  int64_t index_files_dropped = 0;
  double seconds = 0;
};

// Compacts the Paimon append table at `url` at its latest snapshot: Parquet or ORC files (written as
// Parquet); with deletion vectors, every file with a vector is rewritten without its deleted rows
// and the index files of those vectors leave the index manifest. NotSupported naming the reason for
// tables it does not compact: primary-key tables, row tracking, manifests in a format other than
// Avro, index types other than deletion vectors, data files neither Parquet nor ORC. Changed when
// another commit took the next snapshot id first (the files written are deleted again).
Result<PaimonCompactResult> CompactPaimonTable(const std::string& url, const PaimonCompactOptions& options);

}  // namespace rap::table
