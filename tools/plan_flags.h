// --plan and --plan-log, shared by `rap cat` and `rap scan`: every column-data read of the command
// runs through the range planner (io::ReadPlanned) with the chosen policy; --plan-log writes one CSV
// row per executed physical plan (plan::PlanRecord).
#pragma once

#include <fstream>
#include <map>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "rap/io/planned_read.h"
#include "rap/plan/plan_record.h"
#include "rap/plan/planner.h"
#include "rap/util/result.h"

namespace rap::cli {

struct PlanFlags {
  std::string policy;    // empty: auto for remote stores, exact for local files
  std::string log_path;  // empty: no log
  std::shared_ptr<plan::PlanLog> log = std::make_shared<plan::PlanLog>();

  void AddTo(CLI::App* cmd) {
    cmd->add_option("--plan", policy,
                    "Range planning policy: auto, exact, fixed:SIZE (e.g. fixed:1MiB) or store "
                    "(default: auto for remote stores, exact for local files)");
    cmd->add_option("--plan-log", log_path, "Write one CSV row per physical plan (shapes, estimates, times, rule)");
  }

  Result<io::PlanOptions> Options() const {
    io::PlanOptions o;
    if (!policy.empty()) {
      RAP_ASSIGN_OR_RETURN(plan::PlanPolicy p, plan::ParsePlanPolicy(policy));
      o.policy = p;
    }
    o.log = log.get();  // always collected: --stats summarises it, --plan-log writes it
    return o;
  }

  // "plans 16 (cold_start 6, cost_exact 5, cost_merged 5), planned requests 20, planned bytes 1234"
  std::string Summary() const {
    std::map<std::string, int> by_rule;
    uint64_t requests = 0, bytes = 0, exact_requests = 0, exact_bytes = 0;
    auto records = log->Records();
    for (const auto& r : records) {
      by_rule[std::string(plan::DecidedByName(r.decided_by))]++;
      requests += r.chosen_requests;
      bytes += r.chosen_bytes;
      exact_requests += r.exact_requests;
      exact_bytes += r.exact_bytes;
    }
    std::string rules;
    for (const auto& [k, v] : by_rule) rules += (rules.empty() ? "" : ", ") + k + " " + std::to_string(v);
    return "plans " + std::to_string(records.size()) + (rules.empty() ? "" : " (" + rules + ")") +
           "\nplanned_requests " + std::to_string(requests) + " (exact " + std::to_string(exact_requests) + ")" +
           "\nplanned_bytes " + std::to_string(bytes) + " (exact " + std::to_string(exact_bytes) + ")\n";
  }

  Status WriteLog() const {
    if (log_path.empty()) return Status::OK();
    std::ofstream out(log_path, std::ios::trunc);
    if (!out) return Status::IOError("--plan-log " + log_path + ": cannot open for writing");
    log->WriteCsv(out);
    if (!out) return Status::IOError("--plan-log " + log_path + ": write failed");
    return Status::OK();
  }
};

}  // namespace rap::cli
