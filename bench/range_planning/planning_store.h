// PlanningStore: an ObjectStore decorator for bench_range_planning that sends every multi-range read
// of column data through io::ReadPlanned (the range planner) with the benchmark's policy, estimator
// and PlanLog, and passes metadata reads (the footer tail, the page index) straight to the inner
// store while counting them. Column data and metadata are told apart by the file's data_end (the
// first byte after its last column chunk), which the fixture knows.
//
// With `serve_metadata_from_tail`, metadata ranges that lie inside the last footer tail read of the
// same file are answered from that tail (no request), as the seed's reader did: its one 64 KiB footer
// read per file also covered the page index. rap's FileReader currently issues separate requests for
// the page index even when the tail holds it; the flag keeps the benchmark comparable with the seed
// and is reported in the benchmark's output.
//
// The benchmark needs this because the FileReader fetches column data with ObjectStore::ReadRanges
// directly; with this decorator the reader stays untouched and every data read is one planned read.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "rap/io/object_store.h"
#include "rap/io/planned_read.h"
#include "rap/plan/estimator.h"
#include "rap/plan/plan_record.h"
#include "rap/plan/planner.h"

namespace rap::bench {

struct MetadataTraffic {
  uint64_t tail_requests = 0, tail_bytes = 0;    // footer reads (ReadTail)
  uint64_t index_requests = 0, index_bytes = 0;  // page-index and other reads at or past data_end
  uint64_t index_from_tail = 0;                  // metadata ranges answered from a cached tail
  uint64_t requests() const { return tail_requests + index_requests; }
  uint64_t bytes() const { return tail_bytes + index_bytes; }
};

class PlanningStore : public io::ObjectStore {
 public:
  // `data_end`: per store path, the first byte that is not column data.
  PlanningStore(io::ObjectStorePtr inner, std::map<std::string, uint64_t> data_end, bool serve_metadata_from_tail)
      : inner_(std::move(inner)), data_end_(std::move(data_end)), serve_from_tail_(serve_metadata_from_tail) {}

  // Settings of the next scan (not thread-safe with a running scan).
  void Configure(plan::PlanPolicy policy, std::shared_ptr<plan::TransportEstimator> estimator, plan::PlanLog* log);
  MetadataTraffic TakeMetadataTraffic();  // counters since the last call, then reset

  // A distinct endpoint, so a reader that plans on its own learns separately from the benchmark.
  std::string endpoint() const override { return "bench+" + inner_->endpoint(); }
  // Not remote: a reader that applies its default policy uses exact ranges, leaving the planning here.
  bool is_remote() const override { return false; }
  Result<io::ObjectInfo> Head(const std::string& path) override { return inner_->Head(path); }
  Result<std::vector<Buffer>> ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                         const io::ReadOptions& options, io::ReadStats* stats) override;
  Result<std::vector<Buffer>> ReadRangesNative(const std::string& path, std::span<const ByteRange> ranges,
                                               const io::ReadOptions& options, io::ReadStats* stats) override {
    return ReadRanges(path, ranges, options, stats);
  }
  Result<std::pair<Buffer, io::ObjectInfo>> ReadTail(const std::string& path, uint64_t n,
                                                     const io::ReadOptions& options, io::ReadStats* stats) override;
  Result<std::vector<io::ObjectInfo>> List(const std::string& prefix) override { return inner_->List(prefix); }
  Status Put(const std::string& path, const Buffer& data) override { return inner_->Put(path, data); }

  const io::ObjectStorePtr& inner() const { return inner_; }

 private:
  io::ObjectStorePtr inner_;
  std::map<std::string, uint64_t> data_end_;
  std::mutex mu_;
  plan::PlanPolicy policy_ = plan::PlanPolicy::Auto();
  std::shared_ptr<plan::TransportEstimator> estimator_;
  plan::PlanLog* log_ = nullptr;
  MetadataTraffic meta_;
  bool serve_from_tail_ = false;
  struct Tail {
    uint64_t offset = 0;  // file offset of the tail's first byte
    Buffer bytes;
  };
  std::map<std::string, Tail> tails_;  // the last tail read per path
};

}  // namespace rap::bench
