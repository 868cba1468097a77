// MemoryBudget: one byte budget shared by everything a scan holds at once — decompressed pages,
// decoded batches waiting in the prefetch queues, the warmup's read-ahead bytes (docs/reliability.md
// "Memory budget"). Holders charge what they allocate and release it when it goes away
// (MemoryCharge, RAII). Three ways to charge:
//   Charge     the work the scan is waiting on right now: never waits (waiting could deadlock the
//              scan), counted even over the limit; ResourceExhausted only when the unit alone is
//              larger than the limit (it can never fit).
//   TryCharge  optional work (read-ahead): charged only when it fits now, else the caller degrades.
//   WaitForRoom  work ahead of the consumer (a producer's next range): waits until the bytes fit
//              under the limit or `stop_waiting()` turns true (the work became the one waited on,
//              or the scan was cancelled); it charges nothing itself.
// Thread-safe. The limit is never exceeded by optional or ahead-of-consumer work; it can be exceeded
// only by the memory of the one range the consumer waits on while later ranges' batches sit queued.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "rap/util/result.h"

namespace rap {

class MemoryBudget;

// Bytes charged to a budget, released when this goes away (or on Release()). Move-only. It keeps
// the budget alive (a charged page buffer may outlive the scan inside a returned batch).
class MemoryCharge {
 public:
  MemoryCharge() = default;
  MemoryCharge(std::shared_ptr<MemoryBudget> budget, uint64_t bytes) : budget_(std::move(budget)), bytes_(bytes) {}
  MemoryCharge(MemoryCharge&& o) noexcept : budget_(std::move(o.budget_)), bytes_(o.bytes_) { o.budget_ = nullptr; }
  MemoryCharge& operator=(MemoryCharge&& o) noexcept;
  MemoryCharge(const MemoryCharge&) = delete;
  MemoryCharge& operator=(const MemoryCharge&) = delete;
  ~MemoryCharge() { Release(); }
  void Release();
  uint64_t bytes() const { return budget_ ? bytes_ : 0; }

 private:
  std::shared_ptr<MemoryBudget> budget_;
  uint64_t bytes_ = 0;
};

// Create with std::make_shared (charges hold a shared_ptr to it).
class MemoryBudget : public std::enable_shared_from_this<MemoryBudget> {
 public:
  explicit MemoryBudget(uint64_t limit_bytes) : limit_(limit_bytes) {}

  uint64_t limit() const { return limit_; }
  uint64_t used() const;
  uint64_t peak() const;  // the most charged at once
  int64_t waits() const;  // WaitForRoom calls that had to wait

  // ResourceExhausted "<what()>: needs N bytes, more than the memory budget of L bytes" when
  // `bytes` alone exceeds the limit; else charges them (even over the limit).
  Result<MemoryCharge> Charge(uint64_t bytes, const std::function<std::string()>& what);
  // Charges `bytes` without any check (the work waited on, whose unit size is not a limit).
  MemoryCharge ForceCharge(uint64_t bytes);
  // Charges `bytes` when they fit under the limit now; else charges nothing (an empty charge, false).
  bool TryCharge(uint64_t bytes, MemoryCharge* charge);
  // Waits until `bytes` more fit under the limit or stop_waiting() is true (checked at every release
  // and every few milliseconds). Charges nothing.
  void WaitForRoom(uint64_t bytes, const std::function<bool()>& stop_waiting);
  // The ResourceExhausted error of a unit that can never fit, for callers that check before allocating.
  Status CheckFits(uint64_t bytes, const std::function<std::string()>& what) const;

 private:
  friend class MemoryCharge;
  void Release(uint64_t bytes);

  const uint64_t limit_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t used_ = 0, peak_ = 0;
  int64_t waits_ = 0;
};

}  // namespace rap
