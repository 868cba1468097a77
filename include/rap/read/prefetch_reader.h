// PrefetchReader: parallel, ordered reading of one file (seed 001). The file's ReadRanges are dealt
// round-robin to P producer threads; each producer runs the range task (reads and decodes a range
// into batches) for its ranges in order and owns a bounded queue of the resulting batches (a budget
// in batches and in bytes, the options' totals split evenly over the producers). The single consumer
// (Next) always takes the head of the queue that holds the next range in row order, so batches come
// out exactly as a sequential read returns them; a batch never spans two ranges.
//
// The plain path — ranges run one after another in the consumer's thread, no thread at all — is
// taken when P <= 1, when the file's selected compressed bytes are under min_file_bytes (threads cost
// more than they hide there), and (adaptive disable, the seed's rule) when the first range holds more
// batches than one producer's queue can buffer: its producer would stall on a full queue before the
// consumer got its first batch, so parallel reading cannot help that file.
//
// Fetch-ahead (PrefetchOptions::fetch_ahead = K, parallel path): each producer owns a fetcher
// thread. When the producer starts range i it hands its next K ranges (i + P, ..., i + K P; those
// not handed yet) to its fetcher, which takes every range handed to it and not begun, reserves what
// their first reads will request (FetchAheadTask's first step: in the file's ReadAheadCache and, for
// shared pages, the row group's RowGroupShare) and fetches them in one planned read while the
// producer reads and decodes range i; when the producer reaches such a range its read takes those
// bytes from the cache (waiting while they are in flight). A producer that reaches a range its
// fetcher is reserving waits for the reservation (never for the fetch), and takes a range the
// fetcher has not begun back from it, so no byte is requested twice. Each producer has at most K
// ranges fetched ahead: memory is bounded by K P ranges' compressed bytes, charged to the memory
// budget (a range that does not fit is not fetched ahead) and within the cache's limit.
//
// Decoding ahead (DECODED warmup of a file that takes the plain path): with `decode_ahead`, one
// thread runs the first range's task as soon as the reader is made, so the file's first range is
// decoded while the previous file is still being consumed; Next() then takes its output (waiting if
// it is not done). Only when the first range's batches fit the whole queue budget (queue_batches);
// the other ranges follow on the plain path. On the parallel path the producers already do this.
//
// Errors: the first error of any producer is returned by the next Next() and by every later one
// (sticky); the other producers are cancelled. Cancel() (or the destructor) stops the producers: they
// stop between batches, their in-flight reads are cancelled through the CancellationToken given at
// Make (the readers' io.cancel), and the destructor joins them, so no thread outlives the reader.
//
// Memory budget (optional, the scan's): every batch is charged to it from the end of its range task
// until the consumer takes it (PrefetchItem::memory). A producer whose range is not the one the
// consumer waits on backs off before starting it while the budget has no room for the range's
// compressed bytes; the range the consumer waits on (and the plain path) never waits.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "rap/io/object_store.h"
#include "rap/read/prefetch_options.h"
#include "rap/read/read_range.h"
#include "rap/read/scan_types.h"
#include "rap/util/memory_budget.h"
#include "rap/util/result.h"

namespace rap::read {

// Reads and decodes one range. Runs on producer threads: must touch no shared state unsynchronised.
using RangeTask = std::function<Status(const ReadRange&, RangeOutput*)>;
// Fetch-ahead of ranges: reserves the bytes their first reads will request and returns the fetch
// that fills them, one planned read (null: nothing to fetch ahead). The first step runs on a fetcher thread while the
// range's own producer waits for it, the fetch while nobody waits for it; both must touch no shared
// state unsynchronised and the fetch must return promptly once the reader's CancellationToken is
// cancelled.
using FetchAheadTask = std::function<std::function<void()>(const std::vector<const ReadRange*>&)>;

// One step of the consumer: a batch of range `range`, or the end of that range (with its counters).
struct PrefetchItem {
  size_t range = 0;
  std::optional<ScanBatch> batch;  // nullopt: the range ended
  ScanStats range_stats;           // at the end of a range
  MemoryCharge memory;             // the batch's bytes, charged to the budget given at Make
};


class PrefetchReader {
 public:
  enum class Path { kParallel, kPlain, kSmallFile, kAdaptiveDisabled };

  // `ranges` in row order; `batch_size` (rows per batch) feeds the adaptive rule; `cancel` (optional,
  // must outlive the reader) is cancelled with the producers; `memory` (optional, must outlive the
  // reader) is the budget the batches are charged to; `fetch_ahead` (optional; used on the parallel
  // path when options.fetch_ahead) fetches a producer's next range. Starts the producers (kParallel).
  static std::unique_ptr<PrefetchReader> Make(std::vector<ReadRange> ranges, RangeTask task, int64_t batch_size,
                                              const PrefetchOptions& options, io::CancellationToken* cancel = nullptr,
                                              bool decode_ahead = false, MemoryBudget* memory = nullptr,
                                              FetchAheadTask fetch_ahead = nullptr);
  ~PrefetchReader();  // cancels and joins
  PrefetchReader(const PrefetchReader&) = delete;
  PrefetchReader& operator=(const PrefetchReader&) = delete;

  Path path() const { return path_; }
  // Parallel path: every producer has run all its ranges (their batches may still be queued), so
  // the producers' threads and I/O are free; false on the plain path.
  bool idle() const;
  // Parallel path: every producer has begun its last range (so every range's reads are issued,
  // by it or by its fetcher); false on the plain path.
  bool on_last_ranges() const;
  bool decoding_ahead() const { return ahead_ != nullptr; }  // the plain path's first range runs on its own thread
  const std::vector<ReadRange>& ranges() const { return ranges_; }

  // The next item in row order, or nullopt after the last range's end.
  Result<std::optional<PrefetchItem>> Next();
  // Stops the producers and cancels their reads; does not wait (the destructor joins).
  void Cancel();
  // Consumer-side counters (complete once every range ended or the reader was cancelled).
  PrefetchStats stats() const;

 private:
  struct Shared;
  struct Ahead;  // the plain path's first range, decoded ahead
  PrefetchReader() = default;
  Status RunPlainRange(RangeOutput* out);
  void Produce(size_t producer);
  void FetchAhead(size_t producer);  // producer's fetcher thread
  // Before producer `producer` runs range `i`: takes it back from its fetcher if not begun, waits
  // while the fetcher is reserving it.
  void TakeBackFromFetcher(size_t producer, size_t i);

  Path path_ = Path::kPlain;
  std::vector<ReadRange> ranges_;
  RangeTask task_;
  FetchAheadTask fetch_;
  int fetch_ahead_ = 0;  // K
  io::CancellationToken* cancel_ = nullptr;
  MemoryBudget* memory_ = nullptr;
  size_t next_range_ = 0;
  Status failure_;
  std::unique_ptr<Shared> shared_;
  std::unique_ptr<Ahead> ahead_;
  std::vector<std::optional<PrefetchItem>> plain_items_;  // plain path: the current range's items
  size_t plain_pos_ = 0;
  PrefetchStats stats_;
};

// Approximate in-memory bytes of the rows of a batch (slices count only their rows).
uint64_t EstimateBatchBytes(const RecordBatch& batch);

}  // namespace rap::read
