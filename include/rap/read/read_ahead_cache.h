// ReadAheadCache: byte ranges of one file fetched ahead of its reader (seed 001): by the RAW warmup
// (the next file's first ranges) and by the producers' fetch-ahead (each producer's next range,
// fetched while it decodes the current one; prefetch_reader.h). The fetcher registers the ranges it
// is about to fetch (Reserve, within the limit), fetches them on its own thread and fills them in;
// the file's FileReader (FileReaderOptions::read_ahead) takes every requested range that lies inside
// a cached one from the cache — waiting for it while it is still in flight, so nothing is requested
// twice — and reads the rest normally. A range that failed or was cancelled is a miss (read
// normally). A cached range is handed out to one request (Take call): every requested range inside
// it gets a slice, then the cache lets go of it, so the cache holds only what is fetched and not yet
// read. `limit_bytes` bounds the bytes held at once (reserved and not yet taken, failed or
// released). Bytes filled but never taken are reported as unused. With a memory budget (the
// scan's), each reserved range is charged to it while the cache holds it; a range that does not fit
// the budget now is not reserved (the fetcher degrades to fewer ranges, it never waits).
#pragma once

#include <condition_variable>
#include <deque>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "rap/plan/byte_range.h"
#include "rap/util/buffer.h"
#include "rap/util/memory_budget.h"

namespace rap::read {

class ReadAheadCache {
 public:
  explicit ReadAheadCache(uint64_t limit_bytes, MemoryBudget* memory = nullptr) : limit_(limit_bytes), memory_(memory) {}

  // Registers `ranges` (in order) as in flight while they fit the limit (and the memory budget);
  // returns how many fit. `fetch_ahead`: reserved by a producer's fetch-ahead of the file being
  // read, not by the warmup of a next file (bytes_unused counts the warmup's alone).
  size_t Reserve(std::span<const ByteRange> ranges, bool fetch_ahead = false);
  // Completes a reserved range (Fill) or turns it into a miss (Fail, e.g. cancelled).
  void Fill(const ByteRange& range, Buffer data);
  void Fail(const ByteRange& range);
  // Per requested range: its bytes when a cached range contains it (waits while that one is in
  // flight), else nullopt.
  std::vector<std::optional<Buffer>> Take(std::span<const ByteRange> ranges);

  // A range in flight or filled, not taken yet, contains `range`.
  bool Holds(const ByteRange& range) const;

  uint64_t bytes_reserved() const;  // reserved in total
  uint64_t bytes_held() const;      // reserved and not yet taken or failed
  uint64_t bytes_filled() const;    // fetched
  uint64_t bytes_unused() const;    // fetched by the warmup (not fetch-ahead) and never taken
  int64_t hits() const;             // requested ranges answered from the cache

 private:
  struct Entry {
    ByteRange range;
    enum class State { kPending, kReady, kFailed, kTaken } state = State::kPending;
    Buffer data;
    bool taken = false;
    bool fetch_ahead = false;
    MemoryCharge memory;  // the range's bytes, charged to memory_
  };
  uint64_t limit_;
  MemoryBudget* memory_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Entry> entries_;  // in Reserve order (a deque: Take holds references while it waits)
  uint64_t reserved_ = 0, filled_ = 0, held_ = 0;
  int64_t hits_ = 0;
};

}  // namespace rap::read
