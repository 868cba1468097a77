// bench_range_planning: seed 000's range-planning benchmark. The same filtered, projected scan of a
// synthetic Delta table (bench/range_planning/fixture.h) is run over rap-netsim, a controlled HTTP
// server, under range-planning policies auto, exact, fixed:1MiB and store, for a low-throughput and
// a high-latency/high-throughput transport profile, with a dense and a sparse projection.
//
//   bench_range_planning [--repetitions 3] [--temp-dir PATH] [--retain-fixtures] [--csv-dir DIR]
//                        [--profiles 20ms@4MiB/s,100ms@128MiB/s] [--policies auto,exact,fixed:1MiB,store]
//                        [--modes seed,default]
//
// Modes (direct_scan.h ScanMode): `seed` runs the scan under seed 000's conditions (one file at a
// time, no file prefetch, one range per row group read in the consumer's thread, each plan's own
// throughput evidence: 16 plans per scan); `default` under `rap scan`'s defaults (prefetch producers,
// ranges split at about 1 MiB, fetch-ahead, RAW warmup, throughput evidence pooled over the scan).
//
// Method: the table is written and served once per profile (rap-netsim as a child process on a free
// port, found next to this program: <build>/tools/rap-netsim). The Delta log is read once per
// profile (outside the timed region); each measured scan runs under its mode, without the footer
// cache, so every scan reads each footer once. The timer starts when
// the prepared scan is first polled and stops after its result is consumed and checked. Policy order
// reverses on alternating repetitions; there is no warmup run. Automatic planning runs twice per
// repetition: with the estimator reset before each scan ("cold", seed-comparable) and with one
// estimator per profile endpoint that persists across scans ("persisted").
//
// Output: table 1 (one row per scan) and table 2 (one row per automatic plan) as CSV, a CSV of
// medians, and a readable summary of medians on stdout. Exits non-zero when a validation fails.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "range_planning/direct_scan.h"
#include "range_planning/fixture.h"
#include "range_planning/report.h"
#include "rap/io/http_store.h"
#include "rap/table/table.h"
#include "rap/util/units.h"
#include "testing/netsim_fixture.h"

namespace {

namespace fs = std::filesystem;
using rap::bench::Run;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_range_planning: %s\n", what.c_str());
  std::exit(2);
}

template <typename T>
T Check(rap::Result<T> r, const std::string& what) {
  if (!r.ok()) Die(what + ": " + r.status().ToString());
  return std::move(*r);
}
void Check(const rap::Status& st, const std::string& what) {
  if (!st.ok()) Die(what + ": " + st.ToString());
}

std::vector<std::string> Split(const std::string& s, char sep = ',') {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// "20ms@4MiB/s", or "local": the same files read from the local file system, no server.
rap::bench::Profile ParseProfile(const std::string& text) {
  if (text == "local") {
    rap::bench::Profile p;
    p.name = p.latency_text = p.throughput_text = "local";
    p.local = true;
    return p;
  }
  const size_t at = text.find('@');
  if (at == std::string::npos) Die(fmt::format("profile '{}': expected LATENCY@THROUGHPUT, e.g. 20ms@4MiB/s", text));
  rap::bench::Profile p;
  p.name = text;
  p.latency_text = text.substr(0, at);
  p.throughput_text = text.substr(at + 1);
  p.latency_s = Check(rap::ParseDuration(p.latency_text), "profile " + text);
  std::string rate = p.throughput_text;
  if (rate.size() > 2 && rate.substr(rate.size() - 2) == "/s") rate.resize(rate.size() - 2);
  p.throughput_bps = Check(rap::ParseByteSize(rate), "profile " + text);
  return p;
}

// rap-netsim lives next to this program in the build tree: <build>/bench/.. -> <build>/tools/rap-netsim.
void LocateNetsim() {
  if (std::getenv("RAP_NETSIM_BINARY")) return;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return;
  const fs::path candidate = exe.parent_path().parent_path() / "tools" / "rap-netsim";
  if (fs::exists(candidate)) setenv("RAP_NETSIM_BINARY", candidate.c_str(), 1);
}

struct Projection {
  std::string name;
  std::vector<std::string> columns;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_range_planning: seed 000's adaptive range-planning benchmark over rap-netsim"};
  int repetitions = 3;
  std::string temp_dir, csv_dir = ".", profiles_text = "20ms@4MiB/s,100ms@128MiB/s,local";
  std::string policies_text = "auto,exact,fixed:1MiB,store", variants_text = "cold,persisted";
  std::string low_rate = "4MiB", high_rate = "128MiB";
  bool retain = false;
  std::string scan_path = "scanner";
  std::string modes_text = "seed,default";
  rap::bench::FixtureOptions fixture_options;
  app.add_option("--repetitions", repetitions, "measured repetitions (no warmup run)")->capture_default_str();
  app.add_option("--temp-dir", temp_dir, "where the synthetic Delta tables are created (default: $TMPDIR or /tmp)");
  app.add_flag("--retain-fixtures", retain, "keep the tables after the run");
  app.add_option("--csv-dir", csv_dir, "directory for range_planning_{runs,plans,summary}.csv")->capture_default_str();
  app.add_option("--profiles", profiles_text,
                 "transport profiles LATENCY@THROUGHPUT (over rap-netsim) or local (the local file system), comma "
                 "separated")
      ->capture_default_str();
  app.add_option("--policies", policies_text, "plan policies, comma separated")->capture_default_str();
  app.add_option("--auto-estimator", variants_text, "automatic-planning variants: cold (reset per scan), persisted")
      ->capture_default_str();
  app.add_option("--low-rate", low_rate, "profiles at or below this rate must keep exact plans")->capture_default_str();
  app.add_option("--high-rate", high_rate, "profiles at or above this rate must merge a representative plan")
      ->capture_default_str();
  app.add_option("--scan-path", scan_path, "scanner (the Scanner of rap scan) or direct (FileReader loop)")
      ->check(CLI::IsMember({"scanner", "direct"}))
      ->capture_default_str();
  app.add_option("--modes", modes_text,
                 "scan conditions, comma separated: seed (seed 000's: no prefetch, no split, per-plan evidence), "
                 "default (rap scan's defaults: prefetch, split ranges, warmup, pooled evidence)")
      ->capture_default_str();
  app.add_option("--payload-mean-bytes", fixture_options.payload_mean_bytes, "mean payload value length")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (repetitions < 1) Die("--repetitions must be at least 1");

  std::vector<rap::bench::Profile> profiles;
  for (const auto& t : Split(profiles_text)) profiles.push_back(ParseProfile(t));
  std::vector<std::pair<std::string, std::string>> labels;  // (policy, estimator)
  for (const auto& t : Split(policies_text)) {
    auto pol = Check(rap::plan::ParsePlanPolicy(t), "--policies");
    if (pol.kind == rap::plan::PolicyKind::kAuto) {
      for (const auto& v : Split(variants_text)) {
        if (v != "cold" && v != "persisted") Die("--auto-estimator: expected cold and/or persisted, got " + v);
        labels.emplace_back(pol.ToString(), v);
      }
    } else {
      labels.emplace_back(pol.ToString(), "-");
    }
  }
  std::vector<rap::bench::ScanMode> modes;
  if (scan_path == "direct" && app.count("--modes") == 0) modes_text = "seed";  // the direct loop is the seed's
  for (const auto& t : Split(modes_text)) {
    if (t == "seed") {
      modes.push_back(rap::bench::ScanMode::kSeed);
    } else if (t == "default") {
      if (scan_path != "scanner") Die("--modes default needs --scan-path scanner");
      modes.push_back(rap::bench::ScanMode::kDefault);
    } else {
      Die("--modes: expected seed and/or default, got " + t);
    }
  }
  if (modes.empty()) Die("--modes: none given");
  const uint64_t low_bps = Check(rap::ParseByteSize(low_rate), "--low-rate");
  const uint64_t high_bps = Check(rap::ParseByteSize(high_rate), "--high-rate");

  // Projections: row_id + every second / every fourth payload column.
  std::vector<Projection> projections = {{"dense", {"row_id"}}, {"sparse", {"row_id"}}};
  for (int i = 0; i < fixture_options.payload_columns; i += 2) projections[0].columns.push_back(rap::bench::PayloadName(i));
  for (int i = 0; i < fixture_options.payload_columns; i += 4) projections[1].columns.push_back(rap::bench::PayloadName(i));
  const rap::read::ExprPtr filter = Check(rap::read::ParseExpr(rap::bench::kFilterText), "filter");

  if (temp_dir.empty()) temp_dir = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  const fs::path base = fs::path(temp_dir) / fmt::format("rap-range-planning-{}", getpid());
  LocateNetsim();
  std::fprintf(stdout,
               "bench_range_planning: %d repetitions, profiles %s, policies %s, modes %s, filter '%s', %s path\n",
               repetitions, profiles_text.c_str(), policies_text.c_str(), modes_text.c_str(), rap::bench::kFilterText,
               scan_path.c_str());

  std::vector<Run> runs;
  int64_t expected_rows = 0;
  for (size_t pi = 0; pi < profiles.size(); ++pi) {
    const rap::bench::Profile& profile = profiles[pi];
    const std::string root = (base / fmt::format("profile-{}", pi)).string();
    const rap::bench::Fixture fx = Check(rap::bench::WriteFixture(root, fixture_options), "fixture " + root);
    expected_rows = fx.expected_matches;
    std::fprintf(stdout, "\nprofile %s: table %s, %zu files, %llu bytes (", profile.name.c_str(), root.c_str(),
                 fx.files.size(), static_cast<unsigned long long>(fx.total_bytes));
    for (size_t i = 0; i < fx.files.size(); ++i) {
      std::fprintf(stdout, "%s%llu", i ? " + " : "", static_cast<unsigned long long>(fx.files[i].size));
    }
    std::fprintf(stdout, "), footer + page index %llu bytes per file\n",
                 static_cast<unsigned long long>(fx.files[0].footer_and_index_bytes));

    // The Delta log, read once (outside the timed region) from the same directory the server serves.
    const rap::table::TableSnapshot snap = Check(rap::table::OpenTable(root), "Delta table " + root);
    if (snap.kind != rap::table::TableKind::kDelta) Die(root + ": not read as a Delta table");
    std::vector<rap::bench::ScanFileRef> files;
    std::unique_ptr<rap::testing::NetsimServer> server;
    rap::io::ObjectStorePtr store;
    std::string store_root = "/";
    if (profile.local) {
      rap::io::ResolvedUrl local = Check(rap::io::OpenUrl(root), "local store " + root);
      store = local.store;
      store_root = local.path;
    } else {
      rap::testing::NetsimOptions no;
      no.root = root;
      no.latency = profile.latency_text;
      no.throughput = profile.throughput_text;
      server = Check(rap::testing::NetsimServer::Start(no), "starting rap-netsim");
      store = Check(rap::io::MakeHttpStore(server->url()), "HTTP store " + server->url());
    }
    for (const auto& f : snap.files) {
      files.push_back({rap::io::JoinPath(store_root, f.relative_path), f.size, f.num_records.value_or(0)});
    }
    if (files.size() != fx.files.size()) Die(root + ": Delta log does not list the files");
    // The profile endpoint's estimator per mode, kept across its scans (not the process-wide
    // registry's, so profiles and modes stay independent).
    std::map<rap::bench::ScanMode, std::shared_ptr<rap::plan::TransportEstimator>> persisted_by_mode;
    for (auto m : modes) persisted_by_mode[m] = std::make_shared<rap::plan::TransportEstimator>();

    std::vector<std::pair<rap::bench::ScanMode, const Projection*>> cells;  // mode x projection
    for (const auto m : modes) {
      for (const Projection& p : projections) cells.emplace_back(m, &p);
    }
    for (int rep = 0; rep < repetitions; ++rep) {
      std::vector<std::pair<std::string, std::string>> order = labels;
      if (rep % 2 == 1) std::reverse(order.begin(), order.end());
      for (const auto& [mode, proj_ptr] : cells) {
        const Projection& proj = *proj_ptr;
        const auto& persisted = persisted_by_mode[mode];
        rap::bench::ScanQuery query{proj.columns, filter, "event_id", {}, mode};
        for (size_t oi = 0; oi < order.size(); ++oi) {
          const auto& [policy_text, variant] = order[oi];
          const auto policy = Check(rap::plan::ParsePlanPolicy(policy_text), "policy");
          rap::plan::PlanLog log;
          query.plan = rap::io::PlanOptions();
          query.plan.policy = policy;
          query.plan.log = &log;
          // Persisted: the profile endpoint's estimator, which (as in one process) learns from every
          // scan of the endpoint, whatever its policy. Every other scan plans from an estimator of its
          // own that starts cold (seed-comparable) and reports its outcomes to the endpoint's as well.
          if (variant == "persisted") {
            query.plan.estimator = persisted;
          } else {
            query.plan.also_report_to = persisted;
          }
          if (server) Check(server->ResetStats(), "netsim reset");
          rap::read::ScanSource source;
          source.store = store;
          source.schema = snap.schema;
          source.physical_names = snap.physical_names;
          for (const auto& f : files) {
            rap::read::ScanFile sf;
            sf.path = f.path;
            sf.size = f.size;
            source.files.push_back(std::move(sf));
          }
          auto result = Check(scan_path == "scanner" ? rap::bench::ScannerScan(std::move(source), query)
                                                     : rap::bench::DirectScan(store, files, query),
                              "scan " + profile.name + " " + proj.name);

          Run run;
          run.profile = &profile;
          run.projection = proj.name;
          run.mode = rap::bench::ScanModeName(mode);
          run.policy = policy_text;
          run.estimator = variant;
          run.repetition = rep;
          run.order = static_cast<int>(oi);
          run.rows = result.rows;
          run.fingerprint = result.fingerprint;
          run.scan_s = result.seconds;
          run.metadata = result.metadata;
          for (auto& rec : log.Records()) {
            if (rec.purpose == "page_index") {
              run.metadata.index_requests += rec.chosen_requests;
              run.metadata.index_bytes += rec.payload_bytes;
            } else {
              run.plans.push_back(std::move(rec));
            }
          }
          if (server) {
            auto stats = Check(server->Stats(), "netsim stats");
            run.server_requests = stats.total.requests;
            run.server_bytes = stats.total.payload_bytes;
          } else {  // local files: what the reader requested (checked against itself, so not validated)
            run.server_requests = run.PlannedRequests() + run.metadata.requests();
            run.server_bytes = run.PlannedBytes() + run.metadata.bytes();
          }
          std::fprintf(stdout, "  rep %d %-7s %-6s %-18s %8.3f s  %3zu plans %4llu req %8.3f MiB  %s\n", rep,
                       run.mode.c_str(), proj.name.c_str(), run.Label().c_str(), run.scan_s, run.plans.size(),
                       static_cast<unsigned long long>(run.server_requests),
                       static_cast<double>(run.server_bytes) / rap::kMiB, run.fingerprint.c_str());
          std::fflush(stdout);
          runs.push_back(std::move(run));
        }
      }
    }
    if (server) Check(server->Stop(), "stopping rap-netsim");
  }

  std::error_code ec;
  fs::create_directories(csv_dir, ec);
  {
    std::ofstream out(fs::path(csv_dir) / "range_planning_runs.csv");
    rap::bench::WriteRunsCsv(out, runs);
  }
  {
    std::ofstream out(fs::path(csv_dir) / "range_planning_plans.csv");
    rap::bench::WritePlansCsv(out, runs);
  }
  const auto summary = rap::bench::Summarize(runs);
  {
    std::ofstream out(fs::path(csv_dir) / "range_planning_summary.csv");
    rap::bench::WriteSummaryCsv(out, summary);
  }
  {
    std::ofstream out(fs::path(csv_dir) / "range_planning_plot.dat");
    rap::bench::WritePlotData(out, summary);
  }
  std::cout << "\nMedians over " << repetitions << " repetitions (vs exact / vs best forced policy):";
  rap::bench::PrintSummary(std::cout, summary);
  std::cout << "\nCSV: " << (fs::path(csv_dir) / "range_planning_{runs,plans,summary}.csv").string() << "\n";

  const auto checks = rap::bench::Validate(runs, expected_rows, low_bps, high_bps, rap::plan::EstimatorConfig());
  bool ok = true;
  std::cout << "\nValidation:\n";
  for (const auto& c : checks) {
    std::cout << (c.passed ? "  PASS " : "  FAIL ") << c.name << ": " << c.detail << "\n";
    ok = ok && c.passed;
  }
  if (!retain) {
    fs::remove_all(base, ec);
  } else {
    std::cout << "fixtures kept in " << base.string() << "\n";
  }
  return ok ? 0 : 1;
}
