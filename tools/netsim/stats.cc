#include "netsim/stats.h"

#include <nlohmann/json.hpp>

#include "rap/util/clock.h"

namespace rap::netsim {

static nlohmann::json CountersJson(const PathCounters& c) {
  return nlohmann::json{{"requests", c.requests}, {"gets", c.gets}, {"heads", c.heads}, {"range_gets", c.range_gets}, {"lists", c.lists},
                        {"payload_bytes", c.payload_bytes}};
}

void Stats::OnRequest(const std::string& path, bool head) {
  PathCounters& p = paths_[path];
  for (PathCounters* c : {&total_, &p}) {
    ++c->requests;
    ++(head ? c->heads : c->gets);
  }
}

void Stats::OnRangeGet(const std::string& path) {
  ++total_.range_gets;
  ++paths_[path].range_gets;
}

void Stats::OnRead(const std::string& path, uint64_t first, uint64_t length) {
  if (reads_.size() == kLogCapacity) {
    reads_.pop_front();
    ++reads_dropped_;
  }
  reads_.push_back({path, first, length});
}

void Stats::OnList(const std::string& path) {
  ++total_.lists;
  ++paths_[path].lists;
}

void Stats::OnStatus(unsigned status) { ++status_[status]; }

void Stats::OnPayload(const std::string& path, uint64_t bytes) {
  total_.payload_bytes += bytes;
  paths_[path].payload_bytes += bytes;
}

void Stats::OnFault(const std::string& kind) { ++faults_[kind]; }

void Stats::OnResponseStart() {
  ++active_;
  if (active_ > max_active_) max_active_ = active_;
}

void Stats::OnResponseEnd() {
  if (active_ > 0) --active_;
}

void Stats::Reset() {
  total_ = PathCounters{};
  paths_.clear();
  status_.clear();
  faults_.clear();
  reads_.clear();
  reads_dropped_ = 0;
  max_active_ = active_;
  reset_time_ = NowSeconds();
  reset_time_set_ = true;
}

std::string Stats::ToJson() const {
  nlohmann::json j = CountersJson(total_);
  nlohmann::json status = nlohmann::json::object();
  for (const auto& [code, n] : status_) status[std::to_string(code)] = n;
  j["status"] = std::move(status);
  nlohmann::json faults = nlohmann::json::object();
  for (const auto& [kind, n] : faults_) faults[kind] = n;
  j["faults"] = std::move(faults);
  j["active_responses"] = active_;
  j["max_active_responses"] = max_active_;
  if (reset_time_set_) j["since_reset_seconds"] = NowSeconds() - reset_time_;
  nlohmann::json paths = nlohmann::json::object();
  for (const auto& [path, c] : paths_) paths[path] = CountersJson(c);
  j["paths"] = std::move(paths);
  nlohmann::json reads = nlohmann::json::array();
  for (const Read& r : reads_) reads.push_back(nlohmann::json::array({r.path, r.first, r.length}));
  j["reads"] = std::move(reads);
  j["reads_dropped"] = reads_dropped_;
  return j.dump();
}

}  // namespace rap::netsim
