#include "rap/plan/plan_record.h"

#include <cmath>

#include <fmt/format.h>

namespace rap::plan {
namespace {

std::string Num(double v) {
  if (!std::isfinite(v)) return "";
  return fmt::format("{:.9g}", v);
}

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string Text(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace

PlanRecord MakePlanRecord(const PlanDecision& d) {
  PlanRecord r;
  r.policy = d.policy;
  r.decided_by = d.decided_by;
  r.latency_samples = d.estimate.latency_samples;
  r.throughput_samples = d.estimate.throughput_samples;
  r.typical_latency_s = d.estimate.latency_s;
  r.typical_throughput_bps = d.estimate.throughput_bps;
  r.exact_requests = d.exact_requests;
  r.exact_bytes = d.exact_bytes;
  if (!d.use_store_native) {
    r.chosen_requests = d.plan.request_count();
    r.chosen_bytes = d.plan.bytes;
  }
  r.candidates = d.candidates;
  r.candidates_dropped = d.candidates_dropped;
  r.estimated_s = d.estimated_s;
  return r;
}

void SetObservedTime(PlanRecord* record, double observed_s) {
  record->observed_s = observed_s;
  record->prediction_error = kUnknown;
  if (std::isfinite(record->estimated_s) && std::isfinite(observed_s) && observed_s > 0) {
    record->prediction_error = (observed_s - record->estimated_s) / observed_s;
  }
}

std::string PlanRecordCsvHeader() {
  return "object,endpoint,purpose,policy,decided_by,latency_samples,throughput_samples,typical_latency_s,"
         "typical_throughput_bps,exact_requests,exact_bytes,chosen_requests,chosen_bytes,candidates,"
         "candidates_dropped,estimated_s,observed_s,prediction_error,outcome,payload_bytes,payload_wall_s,"
         "plan_latency_s,latency_sample_added,throughput_sample_added,throughput_pooled,pooled_samples_added";
}

std::string PlanRecordCsvRow(const PlanRecord& r) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", Text(r.object),
                     Text(r.endpoint), Text(r.purpose), Text(r.policy.ToString()), DecidedByName(r.decided_by), r.latency_samples,
                     r.throughput_samples, Num(r.typical_latency_s), Num(r.typical_throughput_bps), r.exact_requests,
                     r.exact_bytes, r.chosen_requests, r.chosen_bytes, r.candidates, r.candidates_dropped,
                     Num(r.estimated_s), Num(r.observed_s), Num(r.prediction_error), PlanOutcomeName(r.outcome),
                     r.payload_bytes, Num(r.payload_wall_s), Num(r.plan_latency_s), r.latency_sample_added ? 1 : 0,
                     r.throughput_sample_added ? 1 : 0, r.throughput_pooled ? 1 : 0, r.pooled_samples_added);
}

void WritePlanRecordsCsv(std::ostream& out, std::span<const PlanRecord> records) {
  out << PlanRecordCsvHeader() << '\n';
  for (const PlanRecord& r : records) out << PlanRecordCsvRow(r) << '\n';
}

void PlanLog::Add(PlanRecord record) {
  std::lock_guard<std::mutex> lock(mu_);
  records_.push_back(std::move(record));
}

std::vector<PlanRecord> PlanLog::Records() const {
  std::lock_guard<std::mutex> lock(mu_);
  return records_;
}

size_t PlanLog::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return records_.size();
}

void PlanLog::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  records_.clear();
}

void PlanLog::WriteCsv(std::ostream& out) const {
  std::vector<PlanRecord> copy = Records();
  WritePlanRecordsCsv(out, copy);
}

}  // namespace rap::plan
