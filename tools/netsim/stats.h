// Stats: rap-netsim's traffic counters (requests and payload bytes, in total and per path), read
// and reset through the control endpoint. Control requests are never counted. Not thread-safe:
// owned by the server's single io thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>

namespace rap::netsim {

struct PathCounters {
  uint64_t requests = 0;       // counted requests (GET and HEAD, whatever the outcome)
  uint64_t gets = 0;
  uint64_t heads = 0;
  uint64_t range_gets = 0;     // GETs with a satisfiable single range (206)
  uint64_t lists = 0;          // S3 ListObjectsV2 GETs (counted in gets too)
  uint64_t payload_bytes = 0;  // response body bytes actually written to the socket
};

class Stats {
 public:
  // A counted request arrived for `path` (the decoded URL path, e.g. "/t/part-0.parquet").
  void OnRequest(const std::string& path, bool head);
  void OnRangeGet(const std::string& path);
  // A file GET about to be answered with bytes [first, first + length) (a whole-file GET: 0, size);
  // kept in a bounded log of the most recent kLogCapacity reads, so tests can check which byte
  // ranges a client asked for (e.g. "no footer request").
  void OnRead(const std::string& path, uint64_t first, uint64_t length);
  void OnList(const std::string& path);
  void OnStatus(unsigned status);
  void OnPayload(const std::string& path, uint64_t bytes);
  void OnFault(const std::string& kind);
  void OnResponseStart();
  void OnResponseEnd();

  void Reset();
  // {"requests":..,"payload_bytes":..,"gets":..,"heads":..,"range_gets":..,"status":{"206":..},
  //  "faults":{"reset":..},"active_responses":..,"max_active_responses":..,"since_reset_seconds":..,
  //  "paths":{"/a":{"requests":..,"payload_bytes":..,...}},
  //  "reads":[["/a",first,length],...] (oldest first, at most kLogCapacity), "reads_dropped":..}
  std::string ToJson() const;

  const PathCounters& total() const { return total_; }

  static constexpr size_t kLogCapacity = 4096;

 private:
  PathCounters total_;
  std::map<std::string, PathCounters> paths_;
  std::map<unsigned, uint64_t> status_;
  std::map<std::string, uint64_t> faults_;
  struct Read {
    std::string path;
    uint64_t first, length;
  };
  std::deque<Read> reads_;
  uint64_t reads_dropped_ = 0;
  uint64_t active_ = 0;
  uint64_t max_active_ = 0;
  double reset_time_ = 0;
  bool reset_time_set_ = false;
};

}  // namespace rap::netsim
