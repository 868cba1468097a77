// bench_serve: `rap serve` under load (wrk) against the lookup library on the same keys
// (docs/benchmarks/serve.md). A table of int64 keys (plus double/string/binary/list columns) is
// written once, with one RAP index per layout (plain: locations only; covered: covering data for
// the output columns; hoisted: the output columns' values in the index; interleaved: the table
// rewritten by `rap rewrite --layout interleaved` with its covering index). Per transport profile
// (local files, or s3:// over rap-netsim at a fixed latency) and layout, a `rap serve` child process
// is loaded by wrk with 1-key (GET) and 10-key (POST) lookups at each concurrency; printed and
// written as CSV: throughput, p50/p99/p99.9, the server's CPU and RSS over the run, object-store
// requests per lookup (from /metrics), and the 1-minute load average (the machine is shared).
// The same keys are looked up sequentially through Index::Lookup in this process (the library
// baseline): server overhead = wrk's p50 at concurrency 1 minus the library's p50. Then: with
// --hedge-profiles, 2% of data-file requests stalled 1 s by rap-netsim, p99 with and without
// hedged reads; with --soak, the server's RSS sampled over a long run (--rss-csv).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/index/rewrite.h"
#include "serve/load.h"
#include "testing/index_table.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace {

using namespace rap;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Args {
  int files = 8;
  int64_t rows_per_file = 125'000;
  int64_t page_rows = 1024;
  int64_t rows_per_key = 1;  // keys uniform over [0, files*rows_per_file / rows_per_key)
  std::string profiles = "local,5ms,30ms";
  std::string local_layouts = "plain,covered,hoisted,interleaved";
  std::string remote_layouts = "plain,covered";
  std::string concurrency = "1,16,64";
  std::string keys = "1,10";
  double duration_s = 8, warmup_s = 2;
  int library_lookups = 500, library_lookups_remote = 60;
  std::string hedge_profiles = "5ms,30ms";
  std::string hedge_quantiles = "0.975";
  double hedge_duration_s = 20;
  int hedge_concurrency = 16;
  std::string stall_layout = "plain";
  double soak_s = 0;
  int io_threads = 0, max_in_flight = 32;
  std::string data_cache;  // rap serve --data-cache ("": the server's default)
  bool no_inline_lookups = false;
  std::string columns = "v,name";
  std::string csv = "serve.csv", rss_csv = "serve_rss.csv", temp, rap;
};

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

template <typename T>
T Check(Result<T> r, const std::string& what) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench_serve: %s: %s\n", what.c_str(), r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(*r);
}

fs::path SelfDir() { return fs::read_symlink("/proc/self/exe").parent_path(); }

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

std::vector<std::string> kColumns = {"v", "name"};  // output: k, v, name (--columns)

// The library baseline: the same keys, sequentially, through Index::Lookup in this process.
struct LibraryResult {
  double p50_ms = 0, p99_ms = 0;
  double requests_per_lookup = 0;
};
LibraryResult MeasureLibrary(const std::string& index_url, const std::vector<std::string>& keys, int per, int lookups) {
  auto idx = Check(index::Index::Open(index_url), "Index::Open " + index_url);
  index::LookupOptions lo;
  lo.columns = kColumns;
  std::vector<double> ms;
  int64_t requests = 0;
  // Two passes over the same keys, the first untimed: the index pages the keys need are cached, as
  // they are in the server after wrk's warm-up (which starts at the same first key).
  for (int pass = 0; pass < 2; ++pass) {
    size_t pos = 0;
    for (int i = 0; i < lookups; ++i) {
      std::vector<index::Key> batch;
      for (int k = 0; k < per; ++k) {
        batch.push_back(Check(idx->ParseKey({keys[pos]}), "ParseKey"));
        pos = (pos + 1) % keys.size();
      }
      const auto t0 = Clock::now();
      auto r = Check(idx->Lookup(batch, lo), "Lookup");
      const double t = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (pass == 1) {
        ms.push_back(t);
        requests += r.stats.requests;
      }
    }
  }
  return {Quantile(ms, 0.5), Quantile(ms, 0.99), static_cast<double>(requests) / lookups};
}

// The request times (ms) of a `rap serve` access log, in order ("... 200 399 35.968ms" per line).
std::vector<double> AccessLogTimes(const std::string& path) {
  std::vector<double> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t sp = line.rfind(' ');
    if (sp == std::string::npos || line.size() < sp + 3 || line.compare(line.size() - 2, 2, "ms") != 0) continue;
    try {
      out.push_back(std::stod(line.substr(sp + 1, line.size() - sp - 3)));
    } catch (const std::exception&) {
    }
  }
  return out;
}

// A `rap serve` child process on a free port.
struct Served {
  bench::ChildProcess proc;
  uint16_t port = 0;
};
// `hedge_quantile` < 0: the server's default; `access_log` empty: none.
Served StartServer(const Args& a, const std::string& work, const std::string& table_url, const std::string& index_url,
                   bool hedge, double hedge_quantile = -1, const std::string& access_log = "") {
  const std::string port_file = work + "/serve.port";
  fs::remove(port_file);
  std::vector<std::string> argv = {a.rap, "serve", "--table", "t=" + table_url + ",index=" + index_url,
                                   "--listen", "127.0.0.1:0", "--port-file", port_file,
                                   "--refresh-interval", "0", "--io-threads", std::to_string(a.io_threads),
                                   "--max-in-flight", std::to_string(a.max_in_flight), "--max-queued", "4096"};
  if (!a.data_cache.empty()) argv.insert(argv.end(), {"--data-cache", a.data_cache});
  if (!hedge) argv.push_back("--no-hedge");
  if (hedge && hedge_quantile > 0) argv.insert(argv.end(), {"--hedge-quantile", fmt::format("{}", hedge_quantile)});
  if (access_log.empty()) {
    argv.push_back("--no-access-log");
  } else {
    fs::remove(access_log);
    argv.insert(argv.end(), {"--access-log", access_log});
  }
  if (a.no_inline_lookups) argv.push_back("--no-inline-lookups");
  Served s;
  s.proc = Check(bench::ChildProcess::Start(argv, work + "/serve.log"), "start rap serve");
  for (int i = 0; i < 600 && s.port == 0; ++i) {
    std::ifstream in(port_file);
    int p = 0;
    if (in >> p) s.port = static_cast<uint16_t>(p);
    if (!s.port) {
      if (!s.proc.running()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  if (!s.port) {
    std::fprintf(stderr, "bench_serve: rap serve did not start; its log:\n%s\n",
                 testing::ReadFileToString(work + "/serve.log").c_str());
    std::exit(1);
  }
  // Ready when /readyz answers (the index is loaded).
  const auto t0 = Clock::now();
  for (;;) {
    auto r = bench::HttpGet(s.port, "/readyz");
    if (r.ok()) break;
    if (!s.proc.running() || Clock::now() - t0 > std::chrono::seconds(120)) {
      std::fprintf(stderr, "bench_serve: rap serve on port %u is not ready: %s\n", s.port, r.status().ToString().c_str());
      std::exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::fprintf(stderr, "rap serve ready on port %u after %.2f s\n", s.port,
               std::chrono::duration<double>(Clock::now() - t0).count());
  return s;
}

struct Row {
  std::string kind, profile, layout;
  int keys = 1, conns = 1;
  bool hedge = false;
  double hedge_quantile = 0;  // stall runs with hedging: the server's --hedge-quantile
  bench::WrkResult wrk;
  // Stall runs: quantiles of the server's own per-request times (access log), which, unlike wrk's,
  // carry no coordinated-omission correction.
  double server_p50_ms = 0, server_p99_ms = 0, server_p999_ms = 0;
  double cpu_cores = 0, cpu_us_per_req = 0;
  double rss_start_mib = 0, rss_max_mib = 0, rss_end_mib = 0;
  double store_requests_per_lookup = 0, hedges_sent = 0, netsim_requests = 0, load1 = 0;
  double library_p50_ms = 0;
  double overhead_p50_ms = 0;  // kind "overhead": p50 of (HTTP time - the lookup's own time in the server)
};

class Report {
 public:
  explicit Report(const std::string& path) : out_(path) {
    out_ << "kind,profile,layout,keys,concurrency,hedge,requests,seconds,rps,p50_ms,p99_ms,p999_ms,errors,"
            "server_cpu_cores,server_cpu_us_per_request,rss_start_mib,rss_max_mib,rss_end_mib,"
            "store_requests_per_lookup,hedges_sent,netsim_requests,library_p50_ms,overhead_p50_ms,load1,"
            "hedge_quantile,server_p50_ms,server_p99_ms,server_p999_ms\n";
    std::printf("%-8s %-7s %-8s %4s %4s %5s %9s %8s %8s %9s %6s %6s %7s %8s %8s %7s %7s %6s\n", "kind", "profile",
                "layout", "keys", "conc", "hedge", "lookup/s", "p50_ms", "p99_ms", "p99.9_ms", "errors", "cpu", "us/req",
                "rss_max", "store/lk", "lib_p50", "over50", "load1");
    std::printf("(overhead rows: p50_ms = HTTP p50 of sequential requests, lib_p50 = the lookup's own time inside the\n"
                " server, over50 = p50 of the difference per request)\n");
  }
  void Add(const Row& r) {
    std::printf("%-8s %-7s %-8s %4d %4d %5s %9.0f %8.2f %8.2f %9.2f %6lld %6.2f %7.0f %8.1f %8.2f %7.2f %7.2f %6.2f\n",
                r.kind.c_str(), r.profile.c_str(), r.layout.c_str(), r.keys, r.conns, r.hedge ? "on" : "off", r.wrk.rps,
                r.wrk.p50_ms, r.wrk.p99_ms, r.wrk.p999_ms, static_cast<long long>(r.wrk.errors), r.cpu_cores,
                r.cpu_us_per_req, r.rss_max_mib, r.store_requests_per_lookup, r.library_p50_ms, r.overhead_p50_ms,
                r.load1);
    std::fflush(stdout);
    out_ << fmt::format("{},{},{},{},{},{},{},{:.2f},{:.1f},{:.3f},{:.3f},{:.3f},{},{:.3f},{:.1f},{:.1f},{:.1f},{:.1f},{:.3f},"
                        "{},{},{:.3f},{:.3f},{:.2f},{},{:.3f},{:.3f},{:.3f}\n",
                        r.kind, r.profile, r.layout, r.keys, r.conns, r.hedge ? 1 : 0, r.wrk.requests, r.wrk.seconds,
                        r.wrk.rps, r.wrk.p50_ms, r.wrk.p99_ms, r.wrk.p999_ms, r.wrk.errors, r.cpu_cores,
                        r.cpu_us_per_req, r.rss_start_mib, r.rss_max_mib, r.rss_end_mib, r.store_requests_per_lookup,
                        r.hedges_sent, r.netsim_requests, r.library_p50_ms, r.overhead_p50_ms, r.load1,
                        r.hedge_quantile, r.server_p50_ms, r.server_p99_ms, r.server_p999_ms);
    if (r.kind == "stall") {
      std::printf("         (hedge quantile %s; the server's own per-request p50 %.2f, p99 %.2f, p99.9 %.2f ms)\n",
                  r.hedge ? fmt::format("{}", r.hedge_quantile).c_str() : "-", r.server_p50_ms, r.server_p99_ms,
                  r.server_p999_ms);
    }
    out_.flush();
  }

 private:
  std::ofstream out_;
};

// One measured wrk run against `s`, with the server's CPU, RSS (sampled every `sample_s`; each
// sample also goes to `rss_out` when given) and /metrics deltas.
Row Measure(Served& s, const std::string& lua, int keys, int conns, double seconds,
            testing::NetsimServer* netsim, std::ofstream* rss_out = nullptr, double sample_s = 0.25) {
  Row r;
  r.keys = keys;
  r.conns = conns;
  r.load1 = bench::LoadAverage1();
  const std::string m0 = Check(bench::HttpGet(s.port, "/metrics"), "/metrics");
  const uint64_t n0 = netsim ? Check(netsim->Stats(), "netsim stats").total.requests : 0;
  const bench::ProcSample p0 = bench::ReadProc(s.proc.pid());
  std::atomic<bool> done{false};
  int64_t rss_max = p0.rss_kib;
  std::thread sampler([&] {
    const auto t0 = Clock::now();
    while (!done.load()) {
      for (int i = 0; i < static_cast<int>(sample_s / 0.05) && !done.load(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      const bench::ProcSample p = bench::ReadProc(s.proc.pid());
      rss_max = std::max(rss_max, p.rss_kib);
      if (rss_out) {
        *rss_out << fmt::format("{:.1f},{:.1f},{:.2f}\n", std::chrono::duration<double>(Clock::now() - t0).count(),
                                static_cast<double>(p.rss_kib) / 1024, bench::LoadAverage1());
        rss_out->flush();
      }
    }
  });
  const auto t0 = Clock::now();
  auto w = bench::RunWrk(fmt::format("http://127.0.0.1:{}", s.port), lua, conns, conns == 1 ? 1 : 2, seconds);
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  done = true;
  sampler.join();
  r.wrk = Check(std::move(w), "wrk");
  const bench::ProcSample p1 = bench::ReadProc(s.proc.pid());
  const std::string m1 = Check(bench::HttpGet(s.port, "/metrics"), "/metrics");
  const double lookups = bench::MetricSum(m1, "rap_lookup_requests_total") - bench::MetricSum(m0, "rap_lookup_requests_total");
  r.store_requests_per_lookup =
      lookups > 0 ? (bench::MetricSum(m1, "rap_lookup_store_requests_total") - bench::MetricSum(m0, "rap_lookup_store_requests_total")) / lookups : 0;
  r.hedges_sent = bench::MetricSum(m1, "rap_store_hedges_sent_total") - bench::MetricSum(m0, "rap_store_hedges_sent_total");
  if (netsim) r.netsim_requests = static_cast<double>(Check(netsim->Stats(), "netsim stats").total.requests - n0);
  r.cpu_cores = (p1.cpu_s - p0.cpu_s) / wall;
  r.cpu_us_per_req = r.wrk.requests > 0 ? (p1.cpu_s - p0.cpu_s) * 1e6 / static_cast<double>(r.wrk.requests) : 0;
  r.rss_start_mib = static_cast<double>(p0.rss_kib) / 1024;
  r.rss_max_mib = static_cast<double>(rss_max) / 1024;
  r.rss_end_mib = static_cast<double>(p1.rss_kib) / 1024;
  if (r.wrk.errors > 0) {
    std::fprintf(stderr, "bench_serve: %lld failed requests (non-2xx or socket errors) in this run; wrk said:\n%s\n",
                 static_cast<long long>(r.wrk.errors), r.wrk.output.substr(0, 3000).c_str());
  }
  return r;
}

// The server's overhead per request, exactly: sequential GETs (one keep-alive connection) of the
// same keys as wrk, each timed by the client and compared with the lookup's own time inside the
// server (its "stats" "seconds": Index::Lookup's wall time), so both see the same caches.
Row MeasureOverhead(const Served& s, const std::vector<std::string>& keys, int per, int n) {
  auto c = Check(testing::RawHttpClient::Connect(s.port, 60), "connect to rap serve");
  std::vector<double> total, lookup, over;
  size_t pos = 0;
  for (int i = 0; i < n; ++i) {
    std::string target = "/v1/tables/t/lookup?columns=";
    for (size_t ci = 0; ci < kColumns.size(); ++ci) target += (ci ? "," : "") + kColumns[ci];
    for (int k = 0; k < per; ++k, pos = (pos + 1) % keys.size()) target += "&key=" + keys[pos];
    const auto t0 = Clock::now();
    auto r = Check(c->Request("GET", target), "GET lookup");
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const size_t at = r.body.rfind("\"seconds\":");
    if (r.status != 200 || at == std::string::npos) {
      std::fprintf(stderr, "bench_serve: lookup answered %d: %s\n", r.status, r.body.substr(0, 300).c_str());
      std::exit(1);
    }
    const double inside = std::stod(r.body.substr(at + 10)) * 1e3;
    total.push_back(ms);
    lookup.push_back(inside);
    over.push_back(ms - inside);
  }
  Row r;
  r.kind = "overhead";
  r.keys = per;
  r.wrk.requests = n;
  r.wrk.p50_ms = Quantile(total, 0.5);
  r.wrk.p99_ms = Quantile(total, 0.99);
  r.library_p50_ms = Quantile(lookup, 0.5);
  r.overhead_p50_ms = Quantile(over, 0.5);
  r.load1 = bench::LoadAverage1();
  return r;
}

struct Profile {
  std::string name;  // "local" or a latency such as "30ms"
  std::unique_ptr<testing::NetsimServer> netsim;
  std::string table_url;
  // "interleaved" is its own table (the input rewritten by index::RewriteTable, local only) with
  // its default index; every other layout is an index over the input table.
  std::string TableUrl(const std::string& layout) const {
    return layout == "interleaved" ? table_url.substr(0, table_url.rfind('/')) + "/il" : table_url;
  }
  std::string IndexUrl(const std::string& layout) const {
    if (layout == "interleaved") return TableUrl(layout) + "/_rap_index/default";
    return table_url + "/_rap_index/" + (name == "local" ? layout : "s3-" + layout);
  }
};
Profile OpenProfile(const std::string& name, const std::string& root, const std::string& table_dir) {
  Profile p;
  p.name = name;
  p.table_url = table_dir;
  if (name != "local") {
    testing::NetsimOptions no;
    no.root = root;
    no.latency = name;
    p.netsim = Check(testing::NetsimServer::Start(no), "rap-netsim");
    setenv("AWS_ENDPOINT_URL", p.netsim->url().c_str(), 1);
    setenv("AWS_ACCESS_KEY_ID", "bench", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "bench", 1);
    setenv("AWS_REGION", "us-east-1", 1);
    p.table_url = "s3://bkt/t";
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{"bench_serve: rap serve under wrk load vs the lookup library (docs/benchmarks/serve.md)"};
  app.add_option("--files", a.files, "Data files in the table")->capture_default_str();
  app.add_option("--rows-per-file", a.rows_per_file, "Rows per file (keys uniform over files*rows)")->capture_default_str();
  app.add_option("--page-rows", a.page_rows, "Rows per data page")->capture_default_str();
  app.add_option("--rows-per-key", a.rows_per_key, "Mean rows per key (the key space is files*rows/this)")->capture_default_str();
  app.add_option("--columns", a.columns, "Output columns besides the key (covered/hoisted: these columns)")->capture_default_str();
  app.add_option("--profiles", a.profiles, "local and/or rap-netsim latencies (e.g. 30ms), comma-separated")->capture_default_str();
  app.add_option("--local-layouts", a.local_layouts, "Index layouts measured on local files (interleaved: the table rewritten, rap rewrite)")->capture_default_str();
  app.add_option("--remote-layouts", a.remote_layouts, "Index layouts measured over rap-netsim")->capture_default_str();
  app.add_option("--concurrency", a.concurrency, "wrk connections, comma-separated")->capture_default_str();
  app.add_option("--keys", a.keys, "Keys per lookup request, comma-separated (1: GET, more: POST)")->capture_default_str();
  app.add_option("--duration", a.duration_s, "Seconds per measured wrk run")->capture_default_str();
  app.add_option("--warmup", a.warmup_s, "Seconds of unmeasured wrk load before each run")->capture_default_str();
  app.add_option("--library-lookups", a.library_lookups, "Library baseline lookups (local)")->capture_default_str();
  app.add_option("--library-lookups-remote", a.library_lookups_remote, "Library baseline lookups (rap-netsim)")->capture_default_str();
  app.add_option("--hedge-profiles", a.hedge_profiles, "Latencies of the stall experiment ('' = skip)")->capture_default_str();
  app.add_option("--hedge-quantiles", a.hedge_quantiles,
                 "rap serve --hedge-quantile of the stall runs with hedging, comma-separated (one run each)")
      ->capture_default_str();
  app.add_option("--hedge-duration", a.hedge_duration_s, "Seconds per stall run")->capture_default_str();
  app.add_option("--hedge-concurrency", a.hedge_concurrency, "wrk connections of the stall runs")->capture_default_str();
  app.add_option("--stall-layout", a.stall_layout, "Index layout of the stall runs")->capture_default_str();
  app.add_option("--soak", a.soak_s, "Seconds of the RSS soak (local, covered, 1 key, concurrency 64; 0 = skip)")->capture_default_str();
  app.add_flag("--no-inline-lookups", a.no_inline_lookups, "rap serve --no-inline-lookups (local lookups on the workers)");
  app.add_option("--data-cache", a.data_cache, "rap serve --data-cache, e.g. 0 (off) or 1GiB (default: the server's)");
  app.add_option("--io-threads", a.io_threads, "rap serve --io-threads (0: the server's default, one per core)")->capture_default_str();
  app.add_option("--max-in-flight", a.max_in_flight, "rap serve --max-in-flight")->capture_default_str();
  app.add_option("--csv", a.csv, "CSV output, one row per run")->capture_default_str();
  app.add_option("--rss-csv", a.rss_csv, "CSV of the soak's RSS samples")->capture_default_str();
  app.add_option("--temp-dir", a.temp, "Where the table is written (default: a temporary directory)");
  app.add_option("--rap", a.rap, "The rap binary (default: tools/rap next to this benchmark's directory)");
  CLI11_PARSE(app, argc, argv);
  kColumns = SplitList(a.columns);
  if (a.rap.empty()) a.rap = (SelfDir().parent_path() / "tools" / "rap").string();
  if (!std::getenv("RAP_NETSIM_BINARY")) {
    setenv("RAP_NETSIM_BINARY", (SelfDir().parent_path() / "tools" / "rap-netsim").c_str(), 1);
  }

  testing::TempDir tmp;
  const std::string root = a.temp.empty() ? tmp.path() : a.temp;
  const std::string table_dir = root + "/bkt/t";
  fs::remove_all(table_dir);
  testing::IndexTableOptions to;
  to.files = a.files;
  to.rows = a.rows_per_file;
  to.key_space = std::max<int64_t>(1, a.files * a.rows_per_file / std::max<int64_t>(1, a.rows_per_key));
  to.row_group_rows = std::min<int64_t>(a.rows_per_file, 64 * a.page_rows);
  to.page_rows = a.page_rows;
  testing::WriteIndexTable(table_dir, to);
  std::set<std::string> local_layouts, remote_layouts;
  for (const auto& l : SplitList(a.local_layouts)) local_layouts.insert(l);
  for (const auto& l : SplitList(a.remote_layouts)) remote_layouts.insert(l);
  if (a.soak_s > 0) local_layouts.insert("covered");
  if (!a.hedge_profiles.empty()) remote_layouts.insert(a.stall_layout);
  // A local index at <table>/_rap_index/<layout> (its manifest names the table relatively). A
  // remote one at <table>/_rap_index/s3-<layout>, built from s3://bkt/t through rap-netsim (written
  // to the directory rap-netsim serves): its manifest names the table as s3://bkt/t, so every
  // profile's server reads index and data through its own rap-netsim, and the file ETags recorded
  // are the ones rap-netsim serves.
  auto build = [&](const std::string& table_url, const std::string& layout, const std::string& index_url) {
    index::BuildOptions bo;
    bo.index_url = index_url;
    bo.key_columns = {"k"};
    if (layout == "covered") {
      bo.cover = kColumns;
    } else if (layout == "hoisted") {
      bo.hoist = kColumns;
    } else if (layout != "plain") {
      std::fprintf(stderr, "bench_serve: unknown layout '%s' (plain, covered, hoisted, interleaved)\n", layout.c_str());
      std::exit(2);
    }
    auto b = Check(index::BuildIndex(table_url, bo), "build index " + index_url);
    std::printf("index %s: %lld entries, %.1f s\n", index_url.c_str(), static_cast<long long>(b.entries), b.seconds);
  };
  for (const std::string& l : remote_layouts) {
    if (l == "interleaved") {
      std::fprintf(stderr, "bench_serve: the interleaved layout is measured on local files only\n");
      return 2;
    }
  }
  for (const std::string& l : local_layouts) {
    if (l != "interleaved") {
      build(table_dir, l, index::DefaultIndexUrl(table_dir, l));
      continue;
    }
    // The input rewritten as one interleaved file per bucket (a ZSTD frame per key, a key's frames
    // of every column adjacent) with a covering index of every column: a lookup is one range per file.
    index::RewriteOptions ro;
    ro.key_columns = {"k"};
    ro.layout = index::RewriteLayout::kInterleaved;
    ro.buckets = a.files;
    const std::string il = root + "/bkt/il";
    fs::remove_all(il);
    auto rw = Check(index::RewriteTable(table_dir, il, ro), "rewrite (interleaved)");
    std::printf("rewrite %s: %lld rows into %zu interleaved files, %.1f MiB, index %lld entries, %.1f s\n", il.c_str(),
                static_cast<long long>(rw.rows), rw.files.size(), static_cast<double>(rw.bytes) / (1 << 20),
                static_cast<long long>(rw.entries), rw.seconds);
  }
  if (!remote_layouts.empty()) {
    Profile builder = OpenProfile("0ms", root, table_dir);
    for (const std::string& l : remote_layouts) build(builder.table_url, l, table_dir + "/_rap_index/s3-" + l);
  }
  std::vector<std::string> keys;
  {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 20000; ++i) keys.push_back(std::to_string(rng() % static_cast<uint64_t>(to.key_space)));
    std::ofstream k(root + "/keys.txt");
    for (const auto& s : keys) k << s << "\n";
  }
  std::printf("table: %d files x %lld rows, keys uniform over [0, %lld), output columns k, %s; %u cores\n\n",
              a.files, static_cast<long long>(a.rows_per_file), static_cast<long long>(to.key_space), a.columns.c_str(),
              std::thread::hardware_concurrency());
  std::map<int, std::string> lua;
  for (const auto& kc : SplitList(a.keys + ",1")) {
    const int per = std::stoi(kc);
    if (lua.count(per)) continue;
    lua[per] = root + fmt::format("/lookup_{}.lua", per);
    std::ofstream(lua[per]) << bench::WrkLookupScript("t", root + "/keys.txt", per, kColumns);
  }

  Report report(a.csv);
  for (const std::string& pname : SplitList(a.profiles)) {
    Profile prof = OpenProfile(pname, root, table_dir);
    const bool local = pname == "local";
    for (const std::string& layout : SplitList(local ? a.local_layouts : a.remote_layouts)) {
      std::map<int, double> lib_p50;
      for (const auto& kc : SplitList(a.keys)) {
        const int per = std::stoi(kc);
        const LibraryResult lr =
            MeasureLibrary(prof.IndexUrl(layout), keys, per, local ? a.library_lookups : a.library_lookups_remote);
        lib_p50[per] = lr.p50_ms;
        Row r;
        r.kind = "library";
        r.profile = pname;
        r.layout = layout;
        r.keys = per;
        r.wrk.p50_ms = r.library_p50_ms = lr.p50_ms;
        r.wrk.p99_ms = lr.p99_ms;
        r.store_requests_per_lookup = lr.requests_per_lookup;
        r.load1 = bench::LoadAverage1();
        report.Add(r);
      }
      Served s = StartServer(a, root, prof.TableUrl(layout), prof.IndexUrl(layout), /*hedge=*/true);
      for (const auto& kc : SplitList(a.keys)) {
        const int per = std::stoi(kc);
        for (const auto& cc : SplitList(a.concurrency)) {
          const int conns = std::stoi(cc);
          if (a.warmup_s > 0) (void)Check(bench::RunWrk(fmt::format("http://127.0.0.1:{}", s.port), lua[per], conns,
                                                        conns == 1 ? 1 : 2, a.warmup_s), "wrk warm-up");
          Row r = Measure(s, lua[per], per, conns, a.duration_s, prof.netsim.get());
          r.kind = "serve";
          r.profile = pname;
          r.layout = layout;
          r.hedge = !local;
          r.library_p50_ms = lib_p50[per];
          report.Add(r);
          if (conns == 1) {
            Row o = MeasureOverhead(s, keys, per, local ? 300 : 60);
            o.profile = pname;
            o.layout = layout;
            o.hedge = r.hedge;
            report.Add(o);
          }
        }
      }
    }
  }

  for (const std::string& pname : SplitList(a.hedge_profiles)) {
    Profile prof = OpenProfile(pname, root, table_dir);
    std::vector<double> quantiles = {-1};  // -1: hedging off
    for (const std::string& q : SplitList(a.hedge_quantiles)) quantiles.push_back(std::stod(q));
    for (double quantile : quantiles) {
      const bool hedge = quantile > 0;
      const std::string log = root + "/serve-access.log";
      Served s = StartServer(a, root, prof.TableUrl(a.stall_layout), prof.IndexUrl(a.stall_layout), hedge, quantile, log);
      (void)Check(bench::RunWrk(fmt::format("http://127.0.0.1:{}", s.port), lua[1], a.hedge_concurrency, 2,
                                std::max(2.0, a.warmup_s)), "wrk warm-up");
      // 2% of the data-file requests (f<NN>.parquet; not the index) answer their headers, then stall 1 s.
      if (Status st = prof.netsim->AddFault("kind=stall&seconds=1&prob=0.02&count=-1&path=/bkt/t/f"); !st.ok()) {
        std::fprintf(stderr, "bench_serve: netsim fault: %s\n", st.ToString().c_str());
        return 1;
      }
      const size_t logged_before = AccessLogTimes(log).size();
      Row r = Measure(s, lua[1], 1, a.hedge_concurrency, a.hedge_duration_s, prof.netsim.get());
      (void)prof.netsim->ClearFaults();
      std::vector<double> server_ms = AccessLogTimes(log);
      server_ms.erase(server_ms.begin(), server_ms.begin() + static_cast<std::ptrdiff_t>(std::min(logged_before, server_ms.size())));
      r.server_p50_ms = Quantile(server_ms, 0.5);
      r.server_p99_ms = Quantile(server_ms, 0.99);
      r.server_p999_ms = Quantile(server_ms, 0.999);
      r.kind = "stall";
      r.profile = pname;
      r.layout = a.stall_layout;
      r.hedge = hedge;
      r.hedge_quantile = hedge ? quantile : 0;
      report.Add(r);
    }
  }

  if (a.soak_s > 0) {
    Profile prof = OpenProfile("local", root, table_dir);
    Served s = StartServer(a, root, prof.table_url, prof.IndexUrl("covered"), true);
    std::ofstream rss(a.rss_csv);
    rss << "seconds,rss_mib,load1\n";
    Row r = Measure(s, lua[1], 1, 64, a.soak_s, nullptr, &rss, 5.0);
    r.kind = "soak";
    r.profile = "local";
    r.layout = "covered";
    report.Add(r);
  }
  std::printf("\nCSV: %s%s\n", a.csv.c_str(), a.soak_s > 0 ? (", RSS samples: " + a.rss_csv).c_str() : "");
  return 0;
}
