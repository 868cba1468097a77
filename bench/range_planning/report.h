// Results of bench_range_planning: one Run per measured scan, the two CSV tables (per scan; per
// automatic plan), the median summary and the validation rules of seed 000.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "range_planning/direct_scan.h"
#include "rap/plan/plan_record.h"

namespace rap::bench {

struct Profile {
  std::string name;  // "20ms@4MiB/s"
  std::string latency_text, throughput_text;
  double latency_s = 0;
  uint64_t throughput_bps = 0;
  bool local = false;  // "local": the files on the local file system, no server (no rate rules apply)
  // The configured model of a plan: waves * latency + bytes / throughput.
  double ModelSeconds(uint64_t requests, uint64_t bytes, uint64_t concurrency = 10) const;
};

// One measured scan.
struct Run {
  const Profile* profile = nullptr;
  std::string projection;  // "dense" / "sparse"
  std::string mode = "seed";  // ScanModeName: "seed" / "default"
  std::string policy;      // "auto", "exact", "fixed:1MiB", "store"
  std::string estimator;   // "cold" (reset per scan), "persisted" (per endpoint across scans), "-" (forced)
  int repetition = 0;
  int order = 0;  // position in the repetition's policy order
  int64_t rows = 0;
  std::string fingerprint;
  double scan_s = 0;
  std::vector<plan::PlanRecord> plans;  // column-data plans (page-index plans count as metadata)
  uint64_t server_requests = 0, server_bytes = 0;  // /_netsim/stats after a reset before the scan
  MetadataTraffic metadata;

  std::string Label() const { return estimator == "-" ? policy : policy + "/" + estimator; }
  uint64_t ExactRequests() const;
  uint64_t ExactBytes() const;
  uint64_t PlannedRequests() const;
  uint64_t PlannedBytes() const;
  double ObservedPlanSeconds() const;
  double EstimatedPlanSeconds() const;  // the planner's own estimates (NaN terms skipped)
  double ModelPlanSeconds() const;      // the configured model applied to the chosen plans
  int Decisions(plan::DecidedBy d) const;
  int CostBasedPlans() const;  // cost_exact + cost_merged
  int PooledSamples() const;   // throughput samples pooled over the scan's plans (default mode)
  bool PerPlanEvidence() const;  // no plan's evidence went to a pool (the seed's rule)
};

void WriteRunsCsv(std::ostream& out, const std::vector<Run>& runs);
void WritePlansCsv(std::ostream& out, const std::vector<Run>& runs);

// Medians per profile x projection x label (written as CSV for the plot and printed).
struct SummaryRow {
  std::string profile, mode, projection, label;
  std::string Case() const { return profile + " " + mode + " " + projection; }
  double plans = 0;  // median plans per scan (column data)
  double scan_s = 0, observed_plan_s = 0, model_plan_s = 0;
  uint64_t planned_requests = 0, planned_bytes = 0, server_requests = 0, server_bytes = 0;
  double vs_exact = 0;        // (scan - exact) / exact
  double vs_best_forced = 0;  // (scan - best forced) / best forced
  std::string decisions;      // auto only: "cold_start=6 cost_exact=5 ..."
  std::string fingerprint;
  int64_t rows = 0;
};
std::vector<SummaryRow> Summarize(const std::vector<Run>& runs);
void WriteSummaryCsv(std::ostream& out, const std::vector<SummaryRow>& rows);
void PrintSummary(std::ostream& out, const std::vector<SummaryRow>& rows);
// Median scan seconds as a whitespace-separated matrix (one row per case, one column per policy) for
// scripts/plot_range_planning.gp.
void WritePlotData(std::ostream& out, const std::vector<SummaryRow>& rows);

struct Check {
  std::string name;
  bool passed = true;
  std::string detail;
};
// The seed's validation rules, plus: every automatic scan of a high-throughput profile leaves cold
// start (at least one cost-based plan) and auto's median scan beats exact's there (per mode,
// projection and estimator variant). `low_bps`/`high_bps`: profiles at or below / at or above these
// rates must keep exact plans / merge plans, leave cold start and beat exact.
std::vector<Check> Validate(const std::vector<Run>& runs, int64_t expected_rows, uint64_t low_bps, uint64_t high_bps,
                            const plan::EstimatorConfig& estimator_config);

}  // namespace rap::bench
