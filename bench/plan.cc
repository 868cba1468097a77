// bench_plan: planning time of the range planner (seed 000) for 10, 100, 1,000 and 10,000 exact ranges.
// Each case is timed as a median over repetitions; a repetition runs the operation repeatedly for at
// least --min-ms milliseconds and reports the mean wall and thread-CPU time per call. Printed as a table and, with
// --csv PATH, written as CSV (one row per case and stage).
//
// Stages: normalise (sort, combine overlaps), plan_auto (candidates + cost choice with a trained
// estimate), plan_cold (cold start, with the >64-request bound), fixed (fixed:1MiB), and total
// (normalise + plan_auto, what a reader pays per multi-range read).
//
//   bench_plan [--repetitions N] [--min-ms MS] [--csv PATH]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "rap/plan/planner.h"
#include "rap/plan/range_set.h"
#include "rap/util/clock.h"
#include "rap/util/units.h"

namespace {

using rap::ByteRange;
using namespace rap::plan;

// A Parquet-like layout: page runs of 1-200 KiB; gaps touching (30%), small (< 64 KiB, 40%) or large
// (< 4 MiB, 30%); handed to the planner in shuffled order with a few duplicates, as readers do.
std::vector<ByteRange> Layout(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ByteRange> out;
  uint64_t off = 4;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t len = std::uniform_int_distribution<uint64_t>(rap::kKiB, 200 * rap::kKiB)(rng);
    out.push_back({off, len});
    const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
    uint64_t gap = 0;
    if (kind >= 3 && kind < 7) gap = std::uniform_int_distribution<uint64_t>(1, 64 * rap::kKiB)(rng);
    if (kind >= 7) gap = std::uniform_int_distribution<uint64_t>(1, 4 * rap::kMiB)(rng);
    off += len + gap;
  }
  for (size_t i = 0; i < n / 50; ++i) out[i * 50 + 1] = out[i * 50];  // duplicates
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Timing {
  double wall_ns = 0;  // median over repetitions of the mean wall time per call
  double cpu_ns = 0;   // the same in thread CPU time (robust against preemption on a shared machine)
};

// Each repetition runs `op` for at least min_ms of wall time.
Timing Measure(const std::function<void()>& op, int reps, double min_ms) {
  std::vector<double> wall, cpu;
  for (int r = 0; r < reps; ++r) {
    uint64_t calls = 0;
    rap::Stopwatch sw;
    const double cpu0 = ThreadCpuSeconds();
    double elapsed = 0;
    do {
      op();
      ++calls;
      elapsed = sw.ElapsedSeconds();
    } while (elapsed * 1e3 < min_ms);
    wall.push_back(elapsed * 1e9 / static_cast<double>(calls));
    cpu.push_back((ThreadCpuSeconds() - cpu0) * 1e9 / static_cast<double>(calls));
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 21;
  double min_ms = 20;
  std::string csv_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_plan: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--repetitions") {
      reps = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--min-ms") {
      min_ms = std::max(0.0, std::atof(value().c_str()));
    } else if (a == "--csv") {
      csv_path = value();
    } else {
      std::fprintf(stderr, "usage: bench_plan [--repetitions N] [--min-ms MS] [--csv PATH]\n");
      return 2;
    }
  }

  TransportEstimate trained;
  trained.latency_samples = trained.throughput_samples = 9;
  trained.latency_s = 0.02;        // 20 ms per wave
  trained.throughput_bps = 128e6;  // 128 MB/s shared
  const RangePlanner planner;
  const PlanPolicy fixed = PlanPolicy::FixedGap(rap::kMiB);

  struct Row {
    size_t ranges;
    std::string stage;
    Timing t;
    size_t requests;
  };
  std::vector<Row> rows;
  std::printf("%8s  %-10s %14s %12s %14s %12s %9s\n", "ranges", "stage", "median ns", "ns/range", "cpu ns",
              "cpu ns/range", "requests");
  for (size_t n : {size_t{10}, size_t{100}, size_t{1000}, size_t{10000}}) {
    const std::vector<ByteRange> input = Layout(n, 1234 + n);
    const RangeSet set = *NormalizeRanges(input);
    auto add = [&](const std::string& stage, Timing t, size_t requests) {
      rows.push_back({n, stage, t, requests});
      const double dn = static_cast<double>(n);
      std::printf("%8zu  %-10s %14.0f %12.1f %14.0f %12.1f %9zu\n", n, stage.c_str(), t.wall_ns, t.wall_ns / dn,
                  t.cpu_ns, t.cpu_ns / dn, requests);
    };
    add("normalise", Measure([&] { benchmark::DoNotOptimize(NormalizeRanges(input)); }, reps, min_ms), set.size());
    PlanDecision a = planner.Plan(set, PlanPolicy::Auto(), trained);
    add("plan_auto",
        Measure([&] { benchmark::DoNotOptimize(planner.Plan(set, PlanPolicy::Auto(), trained)); }, reps, min_ms),
        a.plan.request_count());
    PlanDecision c = planner.Plan(set, PlanPolicy::Auto(), TransportEstimate{});
    add("plan_cold",
        Measure([&] { benchmark::DoNotOptimize(planner.Plan(set, PlanPolicy::Auto(), TransportEstimate{})); }, reps,
                min_ms),
        c.plan.request_count());
    PlanDecision f = planner.Plan(set, fixed, trained);
    add("fixed", Measure([&] { benchmark::DoNotOptimize(planner.Plan(set, fixed, trained)); }, reps, min_ms),
        f.plan.request_count());
    add("total",
        Measure(
            [&] {
              rap::Result<RangeSet> s = NormalizeRanges(input);
              benchmark::DoNotOptimize(planner.Plan(*s, PlanPolicy::Auto(), trained));
            },
            reps, min_ms),
        a.plan.request_count());
  }

  if (!csv_path.empty()) {
    std::ofstream out(csv_path);
    if (!out) {
      std::fprintf(stderr, "bench_plan: cannot write %s\n", csv_path.c_str());
      return 1;
    }
    out << "ranges,stage,median_ns,ns_per_range,median_cpu_ns,cpu_ns_per_range,requests,repetitions,min_ms\n";
    for (const Row& r : rows) {
      const double dn = static_cast<double>(r.ranges);
      out << fmt::format("{},{},{:.0f},{:.2f},{:.0f},{:.2f},{},{},{}\n", r.ranges, r.stage, r.t.wall_ns,
                         r.t.wall_ns / dn, r.t.cpu_ns, r.t.cpu_ns / dn, r.requests, reps, min_ms);
    }
    std::printf("wrote %s\n", csv_path.c_str());
  }
  return 0;
}
