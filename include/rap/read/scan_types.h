// The values a scan hands out and counts: batches with their row ids, the scan's counters, and what
// one read range produced (the unit the prefetch reader moves between threads). Apart from
// scanner.h so that the prefetch reader, the scanner and their users share them without including
// each other.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rap/columnar/array.h"

namespace rap::read {

// The prefetch reader's counters (one file's, or a scan's sum).
struct PrefetchStats {
  int64_t ranges = 0;
  int64_t files_parallel = 0;         // files read by producers
  int64_t adaptive_disabled = 0;      // files on the plain path by the adaptive rule
  int64_t small_files = 0;            // files on the plain path by min_file_bytes
  int64_t decoded_ahead = 0;          // plain-path files whose first range was decoded ahead
  int64_t fetched_ahead = 0;          // ranges whose first read a fetcher fetched ahead
  int64_t queue_full = 0;             // a producer found its queue full
  int64_t max_queue_depth = 0;        // batches in one queue, at most
  int64_t batches = 0;
  double consumer_wait_s = 0;         // the consumer blocked on an empty queue
  std::vector<double> range_seconds;  // per range: the range task's wall time (read + decode)
  void Add(const PrefetchStats& o);
};

struct ScanStats {
  int64_t files = 0, files_pruned = 0;            // pruned by partition values
  int64_t files_pruned_by_stats = 0;              // pruned by ScanFile::column_stats (not opened)
  int64_t files_pruned_by_index = 0;              // no ScanFile::candidate_rows (not opened)
  int64_t rows_pruned_by_index = 0;               // rows of read row groups outside ScanFile::candidate_rows
  int64_t row_groups = 0, row_groups_pruned = 0;  // pruned by statistics
  // ORC: row groups (rowIndexStride rows) of the stripes a filter read whose row index was read,
  // and those of them its statistics or bloom filters pruned (not read; a stripe decoded whole
  // prunes none), and of those the ones only the bloom filters ruled out (`=` / IN).
  int64_t row_index_groups = 0, row_index_groups_pruned = 0;
  int64_t bloom_filter_groups_pruned = 0;
  int64_t rows_in_row_groups = 0;                 // rows of the row groups that were not pruned
  int64_t rows_deleted = 0;                       // rows dropped by deletion vectors
  int64_t rows_candidate = 0;                     // rows left after page pruning and deletions
  int64_t rows_selected = 0;                      // rows that passed the filter
  int64_t rows_output = 0;
  int64_t pages_read = 0, pages_skipped = 0;      // data pages decoded / stepped over
  // Pages a range of a split row group took already decoded from another range (read_range.h):
  // data pages straddling a range boundary, and dictionary pages; dictionary pages decoded.
  int64_t pages_shared = 0, dictionary_pages_shared = 0, dictionary_pages_read = 0;
  int64_t filter_dictionary_chunks = 0;           // filter column chunks evaluated on their dictionary
  int64_t requests = 0, read_calls = 0;
  uint64_t bytes = 0;
  int64_t footer_requests = 0;        // of `requests`: footer (tail) reads
  uint64_t footer_bytes = 0;          // of `bytes`: footer (tail) reads
  int64_t page_index_from_tail = 0;   // page-index ranges sliced from the footer read (no request)
  // Prefetch (prefetch_reader.h): the readers' counters summed over the files (PrefetchStats::Add);
  // the bytes producers' fetchers reserved for fetch-ahead; per file after the first, the consumer's
  // wait for the file's first item (the file boundary).
  PrefetchStats prefetch;
  uint64_t prefetch_fetch_ahead_bytes = 0;
  std::vector<double> file_boundary_wait_s;
  // Warmup (warmup.h): files warmed; bytes fetched for them ahead of time; bytes fetched ahead (by the
  // warmup or a producer's fetch-ahead) that the scan never used (a limit, or pruning); files that
  // did not fit the pre-buffer limit whole.
  int64_t warmup_files = 0;
  uint64_t warmup_bytes = 0;
  uint64_t warmup_bytes_unused = 0;
  int64_t warmup_partial = 0;
  // Files taken whose warmup began while the consumer was still two files before them (the file
  // before them had been started early), and files the consumer reached before their warmup was done (it
  // waited for it: latency the warmup did not hide).
  int64_t warmup_ahead = 0;
  int64_t warmup_waited = 0;
  // Memory budget (ScanOptions::memory_limit): the most charged at once; producers that waited for room.
  uint64_t memory_peak = 0;
  int64_t memory_waits = 0;
  std::string ToString() const;  // one "key value" per line
};

struct ScanBatch {
  RecordBatch batch;
  // Per row: file ordinal * 2^40 + the row's index within its file (see docs/fingerprint.md).
  std::vector<uint64_t> row_ids;
};

// What one range produced: its batches in row order and its counters.
struct RangeOutput {
  ScanStats stats;
  std::vector<ScanBatch> batches;
};

}  // namespace rap::read
