// The knobs of prefetch and warmup (seed 001), shared by ScanOptions, the PrefetchReader, the
// warmup and `rap scan --prefetch N --warmup LEVEL`. Library defaults follow Paimon C++ where it has
// one (3 producers, 600 queued batches, RAW warmup, a 256 MiB pre-buffer limit).
#pragma once

#include <cstdint>

namespace rap::read {

// How a read range is cut (read_range.h).
struct RangeOptions {
  bool split_row_groups = true;                    // cut large row groups at page boundaries (needs an OffsetIndex)
  uint64_t natural_read_size = uint64_t{1} << 20;  // target projected compressed bytes per range
};

// Parallel ordered reading of one file (prefetch_reader.h).
struct PrefetchOptions {
  int producers = 3;                           // P; <= 1: the plain path (ranges in the consumer's thread)
  int64_t queue_batches = 600;                 // all producers' queues together
  uint64_t queue_bytes = uint64_t{256} << 20;  // all producers' queues together (a batch always fits an empty queue)
  // Files whose selected compressed bytes are below this are read on the plain path: 256 KiB is a
  // few milliseconds of decoding and needs one round trip either way, so producer threads would
  // cost about what they save.
  uint64_t min_file_bytes = uint64_t{256} << 10;
  bool adaptive = true;  // the seed's adaptive disable
  // Each producer keeps the first reads (the filter columns, or the output columns without a filter)
  // of its next `fetch_ahead` ranges fetched ahead, on a fetcher thread of its own, while it decodes
  // the current range, so a producer's round trips overlap its decoding and each other (one planned
  // read for the ranges due; prefetch_reader.h). 0: off.
  int fetch_ahead = 2;
  RangeOptions ranges;
};

// How far the next file of a scan is prepared while the current one is read (warmup.h).
enum class WarmupLevel {
  kNone,     // nothing
  kRaw,      // open it (footer, page indexes) and fetch its first ranges' bytes into a read-ahead cache
  kDecoded,  // also start reading and decoding its first ranges (bounded by the prefetch queues)
};

struct WarmupOptions {
  WarmupLevel level = WarmupLevel::kRaw;
  uint64_t pre_buffer_limit = uint64_t{256} << 20;  // bytes held for the next file, at most
};

}  // namespace rap::read
