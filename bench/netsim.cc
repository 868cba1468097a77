// bench_netsim: how accurately rap-netsim (tools/netsim) applies its transport profile on loopback.
//
//   latency:    time to first byte of small GETs on a keep-alive connection, per configured latency,
//               against the configured value (and against a 0 ms baseline, the loopback overhead);
//   throughput: aggregate payload rate of 1 and 10 concurrent GETs per configured rate (payload
//               bytes over the time from the first body byte to the last), and the fairness of the
//               split (first finisher's time / last finisher's time; 1.0 = perfectly even).
// One server is started and switched between profiles at run time through /_netsim/config.
// Prints medians and writes every repetition as CSV.
//
//   bench_netsim [--repetitions N] [--latency-samples N] [--csv FILE]
//                [--latencies 0ms,20ms,50ms,100ms] [--throughputs 4MiB/s,16MiB/s,128MiB/s] [--seconds S]
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "rap/util/clock.h"
#include "rap/util/units.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace {

using rap::testing::HttpResponse;
using rap::testing::NetsimServer;
using rap::testing::RawHttpClient;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::unique_ptr<NetsimServer> g_server;  // stopped by Die() too: std::exit skips destructors

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_netsim: %s\n", what.c_str());
  g_server.reset();
  std::exit(1);
}

void Check(const rap::Status& st, const std::string& what) {
  if (!st.ok()) Die(what + ": " + st.ToString());
}

struct TransferResult {
  double aggregate_bps = 0;  // payload bytes / (last body byte - first body byte)
  double fairness = 0;       // first finisher / last finisher (elapsed since start)
};

// `clients` concurrent GETs of `path` (each `bytes` long) on fresh connections.
TransferResult Transfer(NetsimServer& server, const std::string& path, uint64_t bytes, int clients) {
  std::vector<HttpResponse> results(clients);
  std::vector<double> first(clients, 0), last(clients, 0);
  rap::Stopwatch watch;
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      auto c = RawHttpClient::Connect(server.port(), 60);
      if (!c.ok()) return;
      (*c)->set_keep_body(false);
      double sent = watch.ElapsedSeconds();
      auto r = (*c)->Request("GET", path);
      if (!r.ok()) return;
      results[i] = std::move(*r);
      first[i] = sent + results[i].first_byte_seconds;
      last[i] = sent + results[i].total_seconds;
    });
  }
  for (auto& t : threads) t.join();
  for (const HttpResponse& r : results) {
    if (!r.complete || r.body_bytes != bytes) Die(fmt::format("GET {}: incomplete response (status {})", path, r.status));
  }
  double start = *std::min_element(first.begin(), first.end());
  double end = *std::max_element(last.begin(), last.end());
  TransferResult t;
  t.aggregate_bps = double(bytes) * clients / (end - start);
  t.fairness = *std::min_element(last.begin(), last.end()) / end;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_netsim: latency and shared-throughput accuracy of rap-netsim on loopback"};
  int repetitions = 5, latency_samples = 30;
  double seconds = 1.0;
  std::string csv = "bench_netsim.csv", latencies = "0ms,20ms,50ms,100ms", throughputs = "4MiB/s,16MiB/s,128MiB/s";
  app.add_option("--repetitions", repetitions, "throughput repetitions per case")->capture_default_str();
  app.add_option("--latency-samples", latency_samples, "requests per latency setting")->capture_default_str();
  app.add_option("--seconds", seconds, "target duration of one throughput transfer")->capture_default_str();
  app.add_option("--csv", csv, "CSV output (one row per measurement)")->capture_default_str();
  app.add_option("--latencies", latencies, "latency settings")->capture_default_str();
  app.add_option("--throughputs", throughputs, "throughput settings")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (repetitions < 1 || latency_samples < 1 || !(seconds > 0) || seconds > 60) Die("bad --repetitions/--seconds");

  rap::testing::TempDir dir;
  rap::testing::WriteStringToFile(dir.Join("small.bin"), std::string(64, 'x'));
  rap::testing::NetsimOptions options;
  options.root = dir.path();
  options.extra_args = {"--quiet"};
  auto started = NetsimServer::Start(options);
  if (!started.ok()) Die(started.status().ToString());
  g_server = std::move(*started);
  NetsimServer& server = *g_server;

  std::ofstream out(csv, std::ios::trunc);
  out << "kind,setting,clients,repetition,measured,setting_value,error_pct,fairness\n";
  std::printf("rap-netsim accuracy on loopback (server %s)\n\n", NetsimServer::BinaryPath().c_str());

  // Latency: time to first byte of a 64-byte GET, keep-alive, unlimited throughput.
  std::printf("%-10s %12s %12s %12s %10s\n", "latency", "median_ms", "p10_ms", "p90_ms", "error_%");
  for (const std::string& lat : Split(latencies)) {
    auto setting = rap::ParseDuration(lat);
    if (!setting.ok()) Die(setting.status().ToString());
    Check(server.SetProfile(lat, "unlimited"), "set profile");
    auto client = RawHttpClient::Connect(server.port());
    if (!client.ok()) Die(client.status().ToString());
    std::vector<double> ttfb;
    for (int i = 0; i < latency_samples; ++i) {
      auto r = (*client)->Request("GET", "/small.bin");
      if (!r.ok() || !r->complete) Die("latency GET failed");
      ttfb.push_back(r->first_byte_seconds);
      double err = *setting > 0 ? (r->first_byte_seconds - *setting) / *setting * 100 : 0;
      out << fmt::format("latency,{},1,{},{:.6f},{:.6f},{:.3f},\n", lat, i, r->first_byte_seconds, *setting, err);
    }
    std::vector<double> sorted = ttfb;
    std::sort(sorted.begin(), sorted.end());
    double med = Median(ttfb);
    std::string err = *setting > 0 ? fmt::format("{:+.2f}", (med - *setting) / *setting * 100) : "-";
    std::printf("%-10s %12.3f %12.3f %12.3f %10s\n", lat.c_str(), med * 1e3, sorted[sorted.size() / 10] * 1e3,
                sorted[sorted.size() * 9 / 10] * 1e3, err.c_str());
  }

  // Throughput: 1 and 10 concurrent GETs sized so one transfer takes about --seconds.
  std::printf("\n%-12s %8s %16s %10s %10s\n", "throughput", "clients", "median_MiB/s", "error_%", "fairness");
  for (const std::string& tp : Split(throughputs)) {
    auto tp_bytes = rap::ParseByteSize(tp.substr(0, tp.find('/')));
    if (!tp_bytes.ok() || *tp_bytes == 0) Die("bad throughput setting " + tp);
    Check(server.SetProfile("0ms", tp), "set profile");
    for (int clients : {1, 10}) {
      uint64_t bytes = static_cast<uint64_t>(double(*tp_bytes) * seconds / clients);
      std::string name = fmt::format("t{}-{}.bin", *tp_bytes, clients);
      rap::testing::WriteStringToFile(dir.Join(name), std::string(bytes, 'y'));
      std::vector<double> rates, fairness;
      for (int rep = 0; rep < repetitions; ++rep) {
        TransferResult t = Transfer(server, "/" + name, bytes, clients);
        rates.push_back(t.aggregate_bps);
        fairness.push_back(t.fairness);
        double err = (t.aggregate_bps - double(*tp_bytes)) / double(*tp_bytes) * 100;
        out << fmt::format("throughput,{},{},{},{:.1f},{},{:.3f},{:.4f}\n", tp, clients, rep, t.aggregate_bps, *tp_bytes,
                           err, t.fairness);
      }
      double med = Median(rates);
      std::printf("%-12s %8d %16.3f %+10.2f %10.3f\n", tp.c_str(), clients, med / double(rap::kMiB),
                  (med - double(*tp_bytes)) / double(*tp_bytes) * 100, Median(fairness));
      std::error_code ec;
      std::filesystem::remove(dir.Join(name), ec);
    }
  }
  auto stats = server.Stats();
  if (stats.ok()) std::printf("\nserver counted %lu requests, %s of payload\n",
                              static_cast<unsigned long>(stats->total.requests),
                              rap::FormatBytes(stats->total.payload_bytes).c_str());
  std::printf("CSV: %s\n", csv.c_str());
  Check(server.Stop(), "stop rap-netsim");
  g_server.reset();
  return 0;
}
