// CSV tables, medians and validation of bench_range_planning (see report.h).
#include "range_planning/report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace rap::bench {

namespace {

constexpr plan::DecidedBy kRules[] = {plan::DecidedBy::kColdStart, plan::DecidedBy::kColdStartRequestBound,
                                      plan::DecidedBy::kCostExact, plan::DecidedBy::kCostMerged,
                                      plan::DecidedBy::kForcedPolicy};

std::string Num(double v, int digits = 6) { return std::isfinite(v) ? fmt::format("{:.{}f}", v, digits) : ""; }

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

uint64_t MedianU(const std::vector<uint64_t>& v) {
  std::vector<double> d(v.begin(), v.end());
  return static_cast<uint64_t>(std::llround(Median(d)));
}

bool IsAuto(const Run& r) { return r.policy == "auto"; }

}  // namespace

double Profile::ModelSeconds(uint64_t requests, uint64_t bytes, uint64_t concurrency) const {
  const double waves = static_cast<double>(plan::RequestWaves(requests, concurrency));
  return waves * latency_s + (throughput_bps ? static_cast<double>(bytes) / static_cast<double>(throughput_bps) : 0);
}

namespace {
// Sum of f(plan) over a run's plans.
template <typename T, typename F>
T SumPlans(const std::vector<plan::PlanRecord>& plans, F f) {
  T s = 0;
  for (const auto& p : plans) s += f(p);
  return s;
}
double Finite(double v) { return std::isfinite(v) ? v : 0; }
}  // namespace

uint64_t Run::ExactRequests() const {
  return SumPlans<uint64_t>(plans, [](const auto& p) { return p.exact_requests; });
}
uint64_t Run::ExactBytes() const {
  return SumPlans<uint64_t>(plans, [](const auto& p) { return p.exact_bytes; });
}
uint64_t Run::PlannedRequests() const {
  return SumPlans<uint64_t>(plans, [](const auto& p) { return p.chosen_requests; });
}
uint64_t Run::PlannedBytes() const {
  return SumPlans<uint64_t>(plans, [](const auto& p) { return p.chosen_bytes; });
}
double Run::ObservedPlanSeconds() const {
  return SumPlans<double>(plans, [](const auto& p) { return Finite(p.observed_s); });
}
double Run::EstimatedPlanSeconds() const {
  return SumPlans<double>(plans, [](const auto& p) { return Finite(p.estimated_s); });
}
double Run::ModelPlanSeconds() const {
  return SumPlans<double>(plans,
                          [&](const auto& p) { return profile->ModelSeconds(p.chosen_requests, p.chosen_bytes); });
}
int Run::Decisions(plan::DecidedBy d) const {
  int n = 0;
  for (const auto& p : plans) n += p.decided_by == d;
  return n;
}
int Run::CostBasedPlans() const {
  return Decisions(plan::DecidedBy::kCostExact) + Decisions(plan::DecidedBy::kCostMerged);
}
int Run::PooledSamples() const {
  return SumPlans<int>(plans, [](const auto& p) { return static_cast<int>(p.pooled_samples_added); });
}
bool Run::PerPlanEvidence() const {
  for (const auto& p : plans) {
    if (p.throughput_pooled) return false;
  }
  return true;
}

void WriteRunsCsv(std::ostream& out, const std::vector<Run>& runs) {
  out << "profile,latency_s,throughput_bps,mode,projection,policy,estimator,repetition,order,rows,fingerprint,plans,"
         "exact_requests,exact_bytes,planned_requests,planned_bytes,server_requests,server_bytes,footer_requests,"
         "footer_bytes,page_index_requests,page_index_bytes,estimated_plan_s,model_plan_s,observed_plan_s,scan_s,"
         "pooled_samples";
  for (auto d : kRules) out << ",decided_" << plan::DecidedByName(d);
  out << "\n";
  for (const Run& r : runs) {
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                       r.profile->name, Num(r.profile->latency_s), r.profile->throughput_bps, r.mode, r.projection,
                       r.policy, r.estimator,
                       r.repetition, r.order, r.rows, r.fingerprint, r.plans.size(), r.ExactRequests(), r.ExactBytes(),
                       r.PlannedRequests(), r.PlannedBytes(), r.server_requests, r.server_bytes,
                       r.metadata.tail_requests, r.metadata.tail_bytes, r.metadata.index_requests,
                       r.metadata.index_bytes, Num(r.EstimatedPlanSeconds()), Num(r.ModelPlanSeconds()),
                       Num(r.ObservedPlanSeconds()), Num(r.scan_s), r.PooledSamples());
    for (auto d : kRules) out << "," << r.Decisions(d);
    out << "\n";
  }
}

void WritePlansCsv(std::ostream& out, const std::vector<Run>& runs) {
  out << "profile,mode,projection,estimator,repetition,plan,object,purpose,decided_by,latency_samples,"
         "throughput_samples,"
         "typical_latency_s,typical_throughput_bps,exact_requests,exact_bytes,chosen_requests,chosen_bytes,"
         "candidates,candidates_dropped,estimated_s,model_s,observed_s,prediction_error,model_error,payload_bytes,"
         "payload_wall_s,plan_latency_s,latency_sample_added,throughput_sample_added,throughput_pooled,"
         "pooled_samples_added\n";
  for (const Run& r : runs) {
    if (!IsAuto(r)) continue;
    for (size_t i = 0; i < r.plans.size(); ++i) {
      const auto& p = r.plans[i];
      const double model = r.profile->ModelSeconds(p.chosen_requests, p.chosen_bytes);
      const double model_err = std::isfinite(p.observed_s) && p.observed_s > 0 ? (p.observed_s - model) / p.observed_s
                                                                               : std::nan("");
      out << fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
          r.profile->name, r.mode, r.projection, r.estimator, r.repetition, i, p.object, p.purpose,
          plan::DecidedByName(p.decided_by), p.latency_samples, p.throughput_samples,
                         Num(p.typical_latency_s), Num(p.typical_throughput_bps, 0), p.exact_requests, p.exact_bytes,
                         p.chosen_requests, p.chosen_bytes, p.candidates, p.candidates_dropped, Num(p.estimated_s),
                         Num(model), Num(p.observed_s), Num(p.prediction_error, 4), Num(model_err, 4),
                         p.payload_bytes, Num(p.payload_wall_s), Num(p.plan_latency_s),
                         p.latency_sample_added ? 1 : 0, p.throughput_sample_added ? 1 : 0,
                         p.throughput_pooled ? 1 : 0, p.pooled_samples_added);
    }
  }
}

std::vector<SummaryRow> Summarize(const std::vector<Run>& runs) {
  // Groups in first-appearance order of (profile, mode, projection), labels in a fixed order.
  using CaseKey = std::tuple<std::string, std::string, std::string>;
  std::vector<CaseKey> cases;
  std::map<std::pair<CaseKey, std::string>, std::vector<const Run*>> groups;
  std::vector<std::string> labels;
  for (const Run& r : runs) {
    const CaseKey c{r.profile->name, r.mode, r.projection};
    if (std::find(cases.begin(), cases.end(), c) == cases.end()) cases.push_back(c);
    if (std::find(labels.begin(), labels.end(), r.Label()) == labels.end()) labels.push_back(r.Label());
    groups[{c, r.Label()}].push_back(&r);
  }
  std::vector<SummaryRow> out;
  for (const CaseKey& c : cases) {
    std::vector<SummaryRow> rows;
    for (const std::string& label : labels) {
      auto it = groups.find({c, label});
      if (it == groups.end()) continue;
      SummaryRow s;
      std::tie(s.profile, s.mode, s.projection) = c;
      s.label = label;
      std::vector<double> scan, obs, model, plans;
      std::vector<uint64_t> preq, pbytes, sreq, sbytes;
      std::map<plan::DecidedBy, std::vector<double>> dec;
      for (const Run* r : it->second) {
        scan.push_back(r->scan_s);
        plans.push_back(static_cast<double>(r->plans.size()));
        obs.push_back(r->ObservedPlanSeconds());
        model.push_back(r->ModelPlanSeconds());
        preq.push_back(r->PlannedRequests());
        pbytes.push_back(r->PlannedBytes());
        sreq.push_back(r->server_requests);
        sbytes.push_back(r->server_bytes);
        for (auto d : kRules) dec[d].push_back(r->Decisions(d));
        s.fingerprint = r->fingerprint;
        s.rows = r->rows;
      }
      s.scan_s = Median(scan);
      s.plans = Median(plans);
      s.observed_plan_s = Median(obs);
      s.model_plan_s = Median(model);
      s.planned_requests = MedianU(preq);
      s.planned_bytes = MedianU(pbytes);
      s.server_requests = MedianU(sreq);
      s.server_bytes = MedianU(sbytes);
      if (it->second.front()->policy == "auto") {
        for (auto d : kRules) {
          const double m = Median(dec[d]);
          if (m > 0) s.decisions += fmt::format("{}{}={:g}", s.decisions.empty() ? "" : " ", plan::DecidedByName(d), m);
        }
      }
      rows.push_back(std::move(s));
    }
    double exact = std::nan(""), best = std::nan("");
    for (const auto& s : rows) {
      if (s.label == "exact") exact = s.scan_s;
      if (s.label.rfind("auto", 0) != 0 && !(best <= s.scan_s)) best = s.scan_s;
    }
    for (auto& s : rows) {
      s.vs_exact = (s.scan_s - exact) / exact;
      s.vs_best_forced = (s.scan_s - best) / best;
      out.push_back(std::move(s));
    }
  }
  return out;
}

void WriteSummaryCsv(std::ostream& out, const std::vector<SummaryRow>& rows) {
  out << "case,profile,mode,projection,policy,median_scan_s,median_plans,median_observed_plan_s,median_model_plan_s,"
         "planned_requests,planned_bytes,server_requests,server_bytes,vs_exact,vs_best_forced,decisions,rows,"
         "fingerprint\n";
  for (const auto& s : rows) {
    out << fmt::format("\"{}\",{},{},{},{},{},{:g},{},{},{},{},{},{},{},{},\"{}\",{},{}\n", s.Case(), s.profile,
                       s.mode, s.projection, s.label, Num(s.scan_s), s.plans, Num(s.observed_plan_s),
                       Num(s.model_plan_s),
                       s.planned_requests, s.planned_bytes, s.server_requests, s.server_bytes, Num(s.vs_exact, 4),
                       Num(s.vs_best_forced, 4), s.decisions, s.rows, s.fingerprint);
  }
}

void PrintSummary(std::ostream& out, const std::vector<SummaryRow>& rows) {
  std::string last;
  for (const auto& s : rows) {
    const std::string c = s.Case();
    if (c != last) {
      out << fmt::format("\n{}\n  {:<16} {:>9} {:>6} {:>10} {:>12} {:>9} {:>12} {:>8} {:>9}  {}\n", c, "policy",
                         "scan s", "plans", "plan req", "plan MiB", "srv req", "srv MiB", "vs exact", "vs best",
                         "auto decisions");
      last = c;
    }
    out << fmt::format("  {:<16} {:>9.3f} {:>6g} {:>10} {:>12.3f} {:>9} {:>12.3f} {:>+7.1f}% {:>+8.1f}%  {}\n", s.label,
                       s.scan_s, s.plans, s.planned_requests, static_cast<double>(s.planned_bytes) / kMiB,
                       s.server_requests,
                       static_cast<double>(s.server_bytes) / kMiB, 100 * s.vs_exact, 100 * s.vs_best_forced,
                       s.decisions);
  }
}

void WritePlotData(std::ostream& out, const std::vector<SummaryRow>& rows) {
  std::vector<std::string> cases, labels;
  std::map<std::pair<std::string, std::string>, double> value;
  for (const auto& s : rows) {
    const std::string c = s.Case();
    if (std::find(cases.begin(), cases.end(), c) == cases.end()) cases.push_back(c);
    if (std::find(labels.begin(), labels.end(), s.label) == labels.end()) labels.push_back(s.label);
    value[{c, s.label}] = s.scan_s;
  }
  out << "case";
  for (const auto& l : labels) out << " \"" << l << "\"";
  out << "\n";
  for (const auto& c : cases) {
    out << "\"" << c << "\"";
    for (const auto& l : labels) {
      auto it = value.find({c, l});
      out << " " << (it == value.end() ? std::string("NaN") : Num(it->second, 4));
    }
    out << "\n";
  }
}

namespace {

bool HighThroughput(const Run& r, uint64_t high_bps) {
  return !r.profile->local && (r.profile->throughput_bps == 0 || r.profile->throughput_bps >= high_bps);
}

// 8 and 9. At high throughput every automatic scan leaves cold start (at least one cost-based plan) and
// auto's median scan time beats exact's, per profile, mode, projection and estimator variant.
void ValidateHighThroughput(const std::vector<Run>& runs, uint64_t high_bps, std::vector<Check>* checks) {
  Check leave{"every high-throughput automatic scan leaves cold start (>= 1 cost-based plan)", true, ""};
  Check beat{"auto beats exact at high throughput (median scan time)", true, ""};
  int scans = 0;
  std::map<std::string, std::vector<double>> auto_s, exact_s;  // case (+ variant) -> scan times
  for (const Run& r : runs) {
    if (!HighThroughput(r, high_bps)) continue;
    const std::string c = r.profile->name + " " + r.mode + " " + r.projection;
    if (r.policy == "exact") exact_s[c].push_back(r.scan_s);
    if (!IsAuto(r)) continue;
    ++scans;
    auto_s[c + " " + r.Label()].push_back(r.scan_s);
    if (r.CostBasedPlans() == 0) {
      leave.passed = false;
      leave.detail +=
          fmt::format("{} {} rep {}: {} plans, all cold start; ", c, r.Label(), r.repetition, r.plans.size());
    }
  }
  if (scans == 0) {
    leave.passed = beat.passed = false;
    leave.detail = beat.detail = "no automatic scan ran in a profile at or above the high rate";
  } else if (leave.passed) {
    leave.detail = fmt::format("{} automatic scans, each with a cost-based plan", scans);
  }
  std::vector<std::string> figures;
  for (const auto& [key, times] : auto_s) {
    const std::string c = key.substr(0, key.rfind(' '));
    auto ex = exact_s.find(c);
    if (ex == exact_s.end()) {
      beat.passed = false;
      figures.push_back(key + ": no exact scan to compare with (add the exact policy)");
      continue;
    }
    const double vs = (Median(times) - Median(ex->second)) / Median(ex->second);
    if (!(vs < 0)) beat.passed = false;
    figures.push_back(fmt::format("{}: {:+.1f}%", key, 100 * vs));
  }
  if (scans > 0) beat.detail = fmt::format("auto vs exact: {}", fmt::join(figures, ", "));
  checks->push_back(std::move(leave));
  checks->push_back(std::move(beat));
}

}  // namespace

std::vector<Check> Validate(const std::vector<Run>& runs, int64_t expected_rows, uint64_t low_bps, uint64_t high_bps,
                            const plan::EstimatorConfig& ec) {
  std::vector<Check> checks;
  // 1. Same rows for every policy (per projection: the columns differ between projections).
  {
    Check c{"same fingerprint for every policy", true, ""};
    std::map<std::string, std::set<std::string>> fps;
    for (const Run& r : runs) {
      fps[r.projection].insert(r.fingerprint);
      if (r.rows != expected_rows) {
        c.passed = false;
        c.detail += fmt::format("{} {} {}: {} rows, expected {}; ", r.profile->name, r.projection, r.Label(), r.rows,
                                expected_rows);
      }
    }
    for (const auto& [proj, set] : fps) {
      if (set.size() != 1) c.passed = false;
      c.detail += fmt::format("{}: {} rows, {}; ", proj, expected_rows, fmt::join(set, " != "));
    }
    checks.push_back(std::move(c));
  }
  // 2. A small plan never adds a throughput sample (the seed's per-plan rule; pooled scans below).
  {
    Check c{"a small plan never increments the throughput sample count (per-plan evidence)", true, ""};
    int small = 0;
    for (const Run& r : runs) {
      if (!IsAuto(r) || !r.PerPlanEvidence()) continue;
      for (size_t i = 0; i < r.plans.size(); ++i) {
        const auto& p = r.plans[i];
        const bool small_plan = p.payload_bytes < ec.min_throughput_bytes;
        if (!small_plan) continue;
        ++small;
        const bool next_grew = i + 1 < r.plans.size() && r.plans[i + 1].throughput_samples > p.throughput_samples &&
                               p.throughput_samples < ec.window;
        if (p.throughput_sample_added || next_grew) {
          c.passed = false;
          c.detail += fmt::format("{} {} {} plan {}; ", r.profile->name, r.projection, r.Label(), i);
        }
      }
    }
    if (c.passed) c.detail = fmt::format("{} small automatic plans, none added a throughput sample", small);
    checks.push_back(std::move(c));
  }
  // 2b. Pooled evidence (default mode): no plan adds a throughput sample of its own; samples come from
  //     the pool only (each meets the rule inside the estimator).
  {
    Check c{"a pooled plan adds no throughput sample of its own", true, ""};
    int pooled_runs = 0, samples = 0;
    for (const Run& r : runs) {
      if (!IsAuto(r) || r.PerPlanEvidence()) continue;
      ++pooled_runs;
      samples += r.PooledSamples();
      for (size_t i = 0; i < r.plans.size(); ++i) {
        if (r.plans[i].throughput_pooled && r.plans[i].throughput_sample_added) {
          c.passed = false;
          c.detail += fmt::format("{} {} {} {} plan {}; ", r.profile->name, r.mode, r.projection, r.Label(), i);
        }
      }
    }
    if (c.passed) {
      c.detail = pooled_runs
                     ? fmt::format("{} automatic scans with pooled evidence, {} pooled samples", pooled_runs, samples)
                     : "no scan with pooled evidence";
    }
    checks.push_back(std::move(c));
  }
  // 3. No cost-based plan before three throughput (and latency) samples; cold start keeps exact
  //    plans unless the request bound applies.
  {
    Check c{"no cost-based plan before three eligible throughput samples", true, ""};
    int cost = 0;
    for (const Run& r : runs) {
      if (!IsAuto(r)) continue;
      for (size_t i = 0; i < r.plans.size(); ++i) {
        const auto& p = r.plans[i];
        const bool is_cost = p.decided_by == plan::DecidedBy::kCostExact || p.decided_by == plan::DecidedBy::kCostMerged;
        cost += is_cost;
        const bool trained = p.throughput_samples >= 3 && p.latency_samples >= 3;
        const bool bad_cold = p.decided_by == plan::DecidedBy::kColdStart && p.chosen_requests != p.exact_requests;
        if ((is_cost && !trained) || (!is_cost && trained) || bad_cold) {
          c.passed = false;
          c.detail += fmt::format("{} {} {} plan {} ({} with {}/{} samples); ", r.profile->name, r.projection,
                                  r.Label(), i, plan::DecidedByName(p.decided_by), p.latency_samples,
                                  p.throughput_samples);
        }
      }
    }
    if (c.passed) c.detail = fmt::format("{} cost-based plans, all with >= 3 samples in both windows", cost);
    checks.push_back(std::move(c));
  }
  // 4 and 5. Low throughput keeps exact plans; a high-throughput profile merges at least one representative
  // plan (the seed's rule, per profile; the detail lists the scans with a merged plan per case).
  {
    Check lo{"the low-throughput profile keeps exact plans", true, ""};
    Check hi{"the high-throughput profile merges at least one representative plan", true, ""};
    int lo_plans = 0, hi_scans = 0;
    std::map<std::string, int> merged_scans;   // profile / projection / label -> scans with a merged plan
    std::map<std::string, int> merged_profile;  // profile -> scans with a merged plan
    for (const Run& r : runs) {
      if (!IsAuto(r)) continue;
      if (r.profile->throughput_bps && r.profile->throughput_bps <= low_bps) {
        for (const auto& p : r.plans) {
          ++lo_plans;
          if (p.chosen_requests != p.exact_requests || p.chosen_bytes != p.exact_bytes) {
            lo.passed = false;
            lo.detail += fmt::format("{} {} {}: {} -> {} requests; ", r.profile->name, r.projection, r.Label(),
                                     p.exact_requests, p.chosen_requests);
          }
        }
      }
      if (HighThroughput(r, high_bps)) {
        ++hi_scans;
        bool merged = false;
        for (const auto& p : r.plans) merged = merged || (p.exact_requests > 1 && p.chosen_requests < p.exact_requests);
        merged_scans[r.profile->name + " " + r.mode + " " + r.projection + " " + r.Label()] += merged ? 1 : 0;
        merged_profile[r.profile->name] += merged ? 1 : 0;
      }
    }
    std::vector<std::string> per_case;
    for (const auto& [name, n] : merged_scans) per_case.push_back(fmt::format("{}: {}", name, n));
    for (const auto& [name, n] : merged_profile) {
      if (n == 0) hi.passed = false;  // seed 000: per profile
    }
    if (lo.passed) lo.detail = fmt::format("{} automatic plans, all exact", lo_plans);
    hi.detail = fmt::format("automatic scans with a merged plan: {}", fmt::join(per_case, ", "));
    if (lo_plans == 0) {
      lo.passed = false;
      lo.detail = "no automatic plan ran in a profile at or below the low rate";
    }
    if (hi_scans == 0) {
      hi.passed = false;
      hi.detail = "no automatic scan ran in a profile at or above the high rate";
    }
    checks.push_back(std::move(lo));
    checks.push_back(std::move(hi));
  }
  // 6. Throughput estimates stay below twice the configured rate.
  {
    Check c{"no throughput estimate exceeds twice the configured rate", true, ""};
    double worst = 0;
    for (const Run& r : runs) {
      if (!IsAuto(r) || r.profile->throughput_bps == 0) continue;
      for (const auto& p : r.plans) {
        if (!std::isfinite(p.typical_throughput_bps)) continue;
        const double ratio = p.typical_throughput_bps / static_cast<double>(r.profile->throughput_bps);
        worst = std::max(worst, ratio);
        if (ratio > 2.0) c.passed = false;
      }
    }
    c.detail = fmt::format("highest estimate / configured rate: {:.3f}", worst);
    checks.push_back(std::move(c));
  }
  // 7. Server traffic = planned traffic + metadata reads (footer tails, page index).
  {
    Check c{"server totals equal planned totals plus the footer (and page-index) reads", true, ""};
    std::set<std::string> shapes;
    for (const Run& r : runs) {
      if (r.profile->local) continue;  // no server
      const uint64_t req = r.PlannedRequests() + r.metadata.requests();
      const uint64_t bytes = r.PlannedBytes() + r.metadata.bytes();
      if (req != r.server_requests || bytes != r.server_bytes) {
        c.passed = false;
        c.detail += fmt::format("{} {} {} rep {}: server {} req {} B, planned+metadata {} req {} B; ", r.profile->name,
                                r.projection, r.Label(), r.repetition, r.server_requests, r.server_bytes, req, bytes);
      }
      shapes.insert(fmt::format("footer {} req {} B, page index {} req {} B ({} ranges from the tail)",
                                r.metadata.tail_requests, r.metadata.tail_bytes, r.metadata.index_requests,
                                r.metadata.index_bytes, r.metadata.index_from_tail));
    }
    if (c.passed) c.detail = fmt::format("{} scans; metadata per scan: {}", runs.size(), fmt::join(shapes, " | "));
    checks.push_back(std::move(c));
  }
  ValidateHighThroughput(runs, high_bps, &checks);
  return checks;
}

}  // namespace rap::bench
