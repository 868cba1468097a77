// PlanningStore (see planning_store.h).
#include "range_planning/planning_store.h"

#include <fmt/format.h>

namespace rap::bench {

void PlanningStore::Configure(plan::PlanPolicy policy, std::shared_ptr<plan::TransportEstimator> estimator,
                              plan::PlanLog* log) {
  std::lock_guard<std::mutex> lock(mu_);
  policy_ = policy;
  estimator_ = std::move(estimator);
  log_ = log;
}

MetadataTraffic PlanningStore::TakeMetadataTraffic() {
  std::lock_guard<std::mutex> lock(mu_);
  MetadataTraffic out = meta_;
  meta_ = MetadataTraffic();
  return out;
}

Result<std::vector<Buffer>> PlanningStore::ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                                      const io::ReadOptions& options, io::ReadStats* stats) {
  auto it = data_end_.find(path);
  if (it == data_end_.end()) {
    return Status::InvalidArgument(fmt::format("PlanningStore: '{}' is not a file of the benchmark table", path));
  }
  bool data = !ranges.empty();
  for (const ByteRange& r : ranges) data = data && r.end() <= it->second;
  if (!data && serve_from_tail_) {
    std::lock_guard<std::mutex> lock(mu_);
    auto t = tails_.find(path);
    bool inside = t != tails_.end() && !ranges.empty();
    for (const ByteRange& r : ranges) {
      inside = inside && r.offset >= t->second.offset && r.end() <= t->second.offset + t->second.bytes.size();
    }
    if (inside) {
      std::vector<Buffer> out;
      for (const ByteRange& r : ranges) out.push_back(t->second.bytes.Slice(r.offset - t->second.offset, r.length));
      meta_.index_from_tail += ranges.size();
      return out;
    }
  }
  if (!data) {
    io::ReadStats local;
    io::ReadStats* st = stats ? stats : &local;
    auto result = inner_->ReadRanges(path, ranges, options, st);
    std::lock_guard<std::mutex> lock(mu_);
    meta_.index_requests += st->requests.size();
    for (const auto& t : st->requests) meta_.index_bytes += t.bytes;
    return result;
  }
  io::PlanOptions po;
  {
    std::lock_guard<std::mutex> lock(mu_);
    po.policy = policy_;
    po.estimator = estimator_;
    po.log = log_;
  }
  po.cancel = options.cancel;
  po.expected_etag = options.expected_etag;
  return io::ReadPlanned(*inner_, path, ranges, po);
}

Result<std::pair<Buffer, io::ObjectInfo>> PlanningStore::ReadTail(const std::string& path, uint64_t n,
                                                                  const io::ReadOptions& options,
                                                                  io::ReadStats* stats) {
  io::ReadStats local;
  io::ReadStats* st = stats ? stats : &local;
  auto result = inner_->ReadTail(path, n, options, st);
  std::lock_guard<std::mutex> lock(mu_);
  if (result.ok() && result->first.size() <= result->second.size) {
    tails_[path] = Tail{result->second.size - result->first.size(), result->first};
  }
  meta_.tail_requests += st->requests.size();
  for (const auto& t : st->requests) meta_.tail_bytes += t.bytes;
  return result;
}

}  // namespace rap::bench
