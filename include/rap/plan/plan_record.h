// PlanRecord: one row per executed physical plan (sample counts, transport estimate, exact and chosen
// shapes, estimated and observed time, prediction error, the deciding rule), a thread-safe PlanLog that
// collects them, and the CSV form written by `--plan-log FILE`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "rap/plan/estimator.h"
#include "rap/plan/planner.h"

namespace rap::plan {

struct PlanRecord {
  std::string object;    // path of the object read
  std::string endpoint;  // store endpoint (scope of the estimator)
  std::string purpose;   // what the read was for, e.g. "data" (column pages) or "page_index"
  PlanPolicy policy;
  DecidedBy decided_by = DecidedBy::kColdStart;
  // The estimator when the plan was made.
  size_t latency_samples = 0;
  size_t throughput_samples = 0;
  double typical_latency_s = kUnknown;
  double typical_throughput_bps = kUnknown;
  // Shapes.
  uint64_t exact_requests = 0;
  uint64_t exact_bytes = 0;
  uint64_t chosen_requests = 0;
  uint64_t chosen_bytes = 0;
  size_t candidates = 0;
  size_t candidates_dropped = 0;
  // Times. observed_s: wall time of the plan's execution, from issuing its requests to holding every
  // response (slicing included, decoding excluded). prediction_error = (observed_s - estimated_s) / observed_s:
  // positive when the model was optimistic (the plan took longer than predicted); NaN when either time is unknown.
  double estimated_s = kUnknown;
  double observed_s = kUnknown;
  double prediction_error = kUnknown;
  // Outcome and what it taught the estimator.
  PlanOutcomeKind outcome = PlanOutcomeKind::kFailed;
  uint64_t payload_bytes = 0;
  double payload_wall_s = 0;
  double plan_latency_s = kUnknown;
  bool latency_sample_added = false;
  bool throughput_sample_added = false;
  // The plan's throughput evidence went to a scan's ThroughputPool (not a sample of its own), and the
  // pooled samples its end handed to the planning estimator.
  bool throughput_pooled = false;
  size_t pooled_samples_added = 0;
};

// The part of a record known before execution.
PlanRecord MakePlanRecord(const PlanDecision& decision);
// Sets observed_s and prediction_error.
void SetObservedTime(PlanRecord* record, double observed_s);

// CSV (RFC 4180 quoting for text fields; NaN as an empty field; times in seconds, rates in bytes/s).
std::string PlanRecordCsvHeader();                                                 // without a trailing newline
std::string PlanRecordCsvRow(const PlanRecord& record);                            // without a trailing newline
void WritePlanRecordsCsv(std::ostream& out, std::span<const PlanRecord> records);  // header + rows

// Thread-safe collector of records, in the order they were added.
class PlanLog {
 public:
  void Add(PlanRecord record);
  std::vector<PlanRecord> Records() const;
  size_t size() const;
  void Clear();
  void WriteCsv(std::ostream& out) const;

 private:
  mutable std::mutex mu_;
  std::vector<PlanRecord> records_;
};

}  // namespace rap::plan
