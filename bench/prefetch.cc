// bench_prefetch: seed 001's prefetch and warmup benchmark. A table of 8 Parquet files (about 8 MiB
// each, 4 row groups, page index) is scanned as an s3:// table through rap-netsim (its S3 calls)
// under two transport profiles, and from local files: a full scan and a filtered, projected scan,
// on the sequential path (--prefetch 1 --warmup none) and with P producers x warmup NONE/RAW/DECODED.
//
//   bench_prefetch [--repetitions 3] [--profiles 20ms@256MiB/s,50ms@64MiB/s,local] [--producers 1,2,3,4,8]
//                  [--csv FILE] [--temp-dir DIR] [--files 8] [--rows-per-file N] [--without-fetch-ahead]
//                  [--settings "sequential,P=3 raw"] [--netsim-chunk 16KiB] [--format parquet|orc]
//                  [--python PY]
//
// --format orc: the same table rewritten as ORC files by pyarrow's ORC writer (about 4 stripes per
// file, SNAPPY; bench/python/prefetch_orc.py run by PY, default $RAP_BENCH_PYTHON or python3), and
// the peer is pyarrow's ORC reader (pyarrow.dataset(format="orc").to_table(use_threads=False)) on
// the local files, for both queries.
//
// Per setting: median scan time, time to first batch, the consumer's median wait at a file boundary,
// requests, bytes, peak RSS of the setting (VmHWM of a child process — this program re-run with
// --rss-child — that makes one scan with that setting and nothing else), warmed bytes never used. Every setting's fingerprint must equal the sequential one (exit 1 else).
// The physical floor printed per profile is max(bytes / throughput, sequential decode CPU seconds /
// cores) + one latency.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rap/columnar/quantile.h"
#include "rap/format/writer.h"
#include "rap/read/fingerprint.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/util/clock.h"
#include "testing/arrays.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace fs = std::filesystem;
using namespace rap;

namespace {

template <typename T>
T Check(Result<T> r, const std::string& what) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench_prefetch: %s: %s\n", what.c_str(), r.status().ToString().c_str());
    std::exit(2);
  }
  return std::move(*r);
}

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

int64_t PeakRssKiB() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  }
  return 0;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// 8 files of `rows` rows in 4 row groups: id int64, v double (10% NULL), s string, payload string.
void WriteTable(const std::string& dir, int files, int64_t rows) {
  std::mt19937_64 rng(1);
  auto schema = std::make_shared<Schema>();
  schema->fields = {{"id", MakeType(TypeId::kInt64), false},
                    {"v", MakeType(TypeId::kFloat64), true},
                    {"s", MakeType(TypeId::kString), true},
                    {"payload", MakeType(TypeId::kString), true}};
  const char* kWords[] = {"apple", "kiwi", "melon", "pear", "plum", "fig", "lime", "date"};
  for (int f = 0; f < files; ++f) {
    std::vector<std::optional<int64_t>> id;
    std::vector<std::optional<double>> v;
    std::vector<std::optional<std::string>> s, payload;
    for (int64_t r = 0; r < rows; ++r) {
      id.push_back(f * rows + r);
      v.push_back(rng() % 10 ? std::optional<double>(static_cast<double>(rng() % 100000) / 100.0) : std::nullopt);
      s.push_back(kWords[rng() % 8]);
      std::string p(16 + rng() % 16, 'a');
      for (char& c : p) c = static_cast<char>('a' + rng() % 26);
      payload.push_back(std::move(p));
    }
    RecordBatch b;
    b.schema = schema;
    b.num_rows = rows;
    b.columns = {testing::Fixed<int64_t>(schema->fields[0].type, id), testing::Fixed<double>(schema->fields[1].type, v),
                 testing::Strings(s), testing::Strings(payload)};
    parquet::WriterOptions wo;
    wo.row_group_max_rows = rows / 4;
    // Pages out of step, as writers that cut pages by bytes make them: a split row group has pages
    // that feed two ranges (fetched and decoded once, read_range.h).
    wo.defaults.page_max_rows = 8192;
    wo.columns["v"].page_max_rows = 6000;
    wo.columns["payload"].page_max_bytes = 256 << 10;
    wo.defaults.codec = parquet::Codec::SNAPPY;
    const std::string bytes = Check(parquet::WriteParquetToString(schema, {b}, wo), "write");
    fs::create_directories(dir);
    testing::WriteStringToFile(fmt::format("{}/part-{}.parquet", dir, f), bytes);
  }
}

struct Setting {
  std::string name;
  int producers = 1;
  read::WarmupLevel warmup = read::WarmupLevel::kNone;
  int fetch_ahead = 2;  // PrefetchOptions::fetch_ahead (ranges per producer)
};

struct Query {
  std::string name;
  std::vector<std::string> columns;
  std::string where;
};

struct Result1 {
  double seconds = 0, first_batch = 0, boundary_wait = 0, cpu = 0;
  int64_t requests = 0, rss_kib = 0, warmup_waited = 0;
  uint64_t bytes = 0, unused = 0;
  std::string fingerprint;
};

bool g_use_page_index = true;  // --no-page-index

Result1 RunOnce(const std::string& url, const Query& q, const Setting& s) {
  const double c0 = CpuSeconds();
  table::TableSnapshot snap = Check(table::OpenTable(url), "open " + url);
  read::ScanSource src = Check(table::ToScanSource(snap), "source");
  read::ScanOptions o;
  o.columns = q.columns;
  if (!q.where.empty()) o.filter = Check(read::ParseExpr(q.where), "where");
  o.reader.use_metadata_cache = false;  // every scan reads its footers
  o.use_page_index = g_use_page_index;
  o.prefetch.producers = s.producers;
  o.warmup.level = s.warmup;
  o.prefetch.fetch_ahead = s.fetch_ahead;
  const double t0 = NowSeconds();
  auto scanner = Check(read::Scanner::Make(std::move(src), std::move(o)), "scanner");
  read::Fingerprinter fp;
  Result1 r;
  bool first = true;
  while (true) {
    auto b = Check(scanner->Next(), "scan");
    if (!b) break;
    if (first) r.first_batch = NowSeconds() - t0;
    first = false;
    if (!fp.Add(b->batch, b->row_ids).ok()) std::exit(2);
  }
  r.seconds = NowSeconds() - t0;
  r.cpu = CpuSeconds() - c0;
  const read::ScanStats& st = scanner->stats();
  r.requests = st.requests;
  r.bytes = st.bytes;
  r.unused = st.warmup_bytes_unused;
  r.warmup_waited = st.warmup_waited;
  r.boundary_wait = columnar::Quantile(st.file_boundary_wait_s, 0.5);
  r.fingerprint = fp.ToString();
  r.rss_kib = PeakRssKiB();
  return r;
}

// Peak RSS of one scan with setting `s`, in a child process (this program with --rss-child), so the
// figure is that scan's alone; -1 when the child fails.
int64_t ChildPeakRssKiB(const std::string& url, size_t query, const Setting& s) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return -1;
  const std::string cmd =
      fmt::format("'{}' --rss-child '{}' --rss-query {} --rss-producers {} --rss-warmup {} --fetch-ahead {}{}",
                  exe.string(), url, query, s.producers, static_cast<int>(s.warmup), s.fetch_ahead,
                  g_use_page_index ? "" : " --no-page-index");
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  long long kib = -1;
  if (std::fscanf(p, "%lld", &kib) != 1) kib = -1;
  if (pclose(p) != 0) return -1;
  return kib;
}

// Runs `python bench/python/prefetch_orc.py ARGS...`; the parsed JSON it prints, or null.
nlohmann::json RunPython(const std::string& python, const std::vector<std::string>& args) {
  std::string cmd = fmt::format("'{}' '{}/bench/python/prefetch_orc.py'", python, rap::testing::SourceDir());
  for (const std::string& a : args) cmd += " '" + a + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return nullptr;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (pclose(p) != 0) return nullptr;
  try {
    return nlohmann::json::parse(out);
  } catch (const std::exception&) {
    return nullptr;
  }
}

// Runs tests/npm/SCRIPT with a JSON spec (a peer reader through node); the parsed JSON it prints, or
// null when node or the script fails.
nlohmann::json RunNodePeer(const std::string& script, const nlohmann::json& spec, const std::string& scratch) {
  const std::string npm = rap::testing::SourceDir() + "/tests/npm";
  const std::string spec_path = scratch + "/peer_spec.json";
  std::ofstream(spec_path) << spec.dump();
  const std::string cmd = fmt::format("cd '{}' && node {} \"$(cat '{}')\"", npm, script, spec_path);
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return nullptr;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (pclose(p) != 0) return nullptr;
  try {
    return nlohmann::json::parse(out);
  } catch (const std::exception&) {
    return nullptr;
  }
}

void LocateNetsim() {
  if (std::getenv("RAP_NETSIM_BINARY")) return;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path candidate = exe.parent_path().parent_path() / "tools" / "rap-netsim";
  if (!ec && fs::exists(candidate)) setenv("RAP_NETSIM_BINARY", candidate.c_str(), 1);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_prefetch: seed 001's prefetch and warmup benchmark (s3:// over rap-netsim, and local)"};
  int reps = 3, files = 8;
  int64_t rows = 200000;
  std::string profiles = "20ms@256MiB/s,50ms@64MiB/s,local", producers_list = "1,2,3,4,8";
  std::string csv = "prefetch.csv", temp, only, netsim_chunk, format = "parquet";
  std::string python = std::getenv("RAP_BENCH_PYTHON") ? std::getenv("RAP_BENCH_PYTHON") : "python3";
  bool without_fetch_ahead = false, no_peers = false;
  int fetch_k = 2;
  app.add_option("--repetitions", reps, "Timed repetitions per setting (median)")->capture_default_str();
  app.add_option("--profiles", profiles, "LATENCY@THROUGHPUT (rap-netsim) or local, comma-separated")->capture_default_str();
  app.add_option("--producers", producers_list, "Producer counts P")->capture_default_str();
  app.add_option("--csv", csv, "CSV output (one row per profile, query and setting)")->capture_default_str();
  app.add_option("--temp-dir", temp, "Where the table is written (default: a temporary directory)");
  app.add_option("--files", files, "Files in the table")->capture_default_str();
  app.add_option("--rows-per-file", rows, "Rows per file (4 row groups)")->capture_default_str();
  app.add_flag("--without-fetch-ahead", without_fetch_ahead,
               "Also run each P >= 2 RAW setting with the producers' fetch-ahead off (\"P=N raw -fa\")");
  app.add_option("--fetch-ahead", fetch_k, "PrefetchOptions::fetch_ahead: ranges each producer fetches ahead")
      ->capture_default_str();
  app.add_flag("--no-peers", no_peers,
               "Skip the peers (hyparquet over HTTP from rap-netsim, full scan; DuckDB on the local files)");
  app.add_option("--netsim-chunk", netsim_chunk, "rap-netsim's --chunk (its fairness quantum; default: its own, 16KiB)");
  app.add_option("--format", format, "parquet, or orc (the table rewritten as ORC by pyarrow)")
      ->check(CLI::IsMember({"parquet", "orc"}))
      ->capture_default_str();
  bool no_page_index = false;
  app.add_flag("--no-page-index", no_page_index, "ScanOptions::use_page_index off (Parquet page index, ORC row index)");
  app.add_option("--python", python, "Python with pyarrow, for --format orc")->capture_default_str();
  app.add_option("--settings", only, "Only these settings, comma-separated names (e.g. \"sequential,P=3 raw\")");
  std::string rss_url;
  size_t rss_query = 0;
  int rss_producers = 1, rss_warmup = 0;
  app.add_option("--rss-child", rss_url, "(internal) scan URL once with --rss-* and print the peak RSS in KiB");
  app.add_option("--rss-query", rss_query, "(internal) query index for --rss-child");
  app.add_option("--rss-producers", rss_producers, "(internal) P for --rss-child");
  app.add_option("--rss-warmup", rss_warmup, "(internal) warmup level for --rss-child (0 none, 1 raw, 2 decoded)");
  CLI11_PARSE(app, argc, argv);
  g_use_page_index = !no_page_index;
  const std::vector<Query> queries = {{"full", {}, ""},
                                      {"filtered", {"id", "s"}, "v < 100 AND s IN ('kiwi', 'plum')"}};
  if (!rss_url.empty()) {
    Setting s{"child", rss_producers, static_cast<read::WarmupLevel>(rss_warmup), fetch_k};
    RunOnce(rss_url, queries.at(rss_query), s);
    std::printf("%lld\n", static_cast<long long>(PeakRssKiB()));
    return 0;
  }
  LocateNetsim();
  testing::TempDir tmp;
  const std::string root = temp.empty() ? tmp.path() : temp;
  const std::string table_dir = root + "/bkt/t";
  WriteTable(table_dir, files, rows);
  if (format == "orc") {
    const nlohmann::json conv = RunPython(python, {"convert", table_dir, "4"});
    if (conv.is_null()) {
      std::fprintf(stderr, "bench_prefetch: %s bench/python/prefetch_orc.py convert failed (pyarrow?)\n",
                   python.c_str());
      return 2;
    }
    std::printf("ORC files written by pyarrow %s: stripes per file %s\n", "(Apache ORC C++)",
                conv["stripes"].dump().c_str());
  }
  uint64_t table_bytes = 0;
  for (const auto& e : fs::directory_iterator(table_dir)) table_bytes += e.file_size();
  std::printf("table: %d %s files, %.1f MiB in total, %lld rows per file, 4 row groups/stripes\n", files,
              format.c_str(), static_cast<double>(table_bytes) / (1 << 20), static_cast<long long>(rows));

  std::vector<Setting> settings = {{"sequential", 1, read::WarmupLevel::kNone, fetch_k}};
  for (size_t at = 0; at < producers_list.size();) {
    size_t comma = producers_list.find(',', at);
    const int p = std::stoi(producers_list.substr(at, comma - at));
    for (auto [lvl, name] : {std::pair{read::WarmupLevel::kNone, "none"}, std::pair{read::WarmupLevel::kRaw, "raw"},
                             std::pair{read::WarmupLevel::kDecoded, "decoded"}}) {
      if (p == 1 && lvl == read::WarmupLevel::kNone) continue;  // that is "sequential"
      settings.push_back({fmt::format("P={} {}", p, name), p, lvl, fetch_k});
      if (without_fetch_ahead && p >= 2 && lvl == read::WarmupLevel::kRaw) {
        settings.push_back({fmt::format("P={} raw -fa", p), p, lvl, 0});
      }
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (!only.empty()) {
    // The first setting is the reference of the fingerprints (and of the floor's CPU): keep it.
    const std::string wanted = "," + only + ",";
    std::vector<Setting> kept = {settings[0]};
    for (size_t i = 1; i < settings.size(); ++i) {
      if (wanted.find("," + settings[i].name + ",") != std::string::npos) kept.push_back(settings[i]);
    }
    settings = std::move(kept);
  }
  std::ofstream out(csv);
  out << "profile,query,setting,producers,warmup,median_s,first_batch_s,boundary_wait_ms,requests,bytes,peak_rss_mib,"
         "warmup_unused_bytes,floor_s,fingerprint,warmup_waited\n";
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  bool mismatch = false;
  for (size_t at = 0; at < profiles.size();) {
    size_t comma = profiles.find(',', at);
    const std::string profile = profiles.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    at = comma == std::string::npos ? profiles.size() : comma + 1;
    std::unique_ptr<testing::NetsimServer> server;
    std::string url = table_dir;
    double latency = 0, throughput = 0;
    if (profile != "local") {
      const size_t sep = profile.find('@');
      testing::NetsimOptions no;
      no.root = root;
      no.latency = profile.substr(0, sep);
      no.throughput = profile.substr(sep + 1);
      if (!netsim_chunk.empty()) no.extra_args = {"--chunk", netsim_chunk};
      server = Check(testing::NetsimServer::Start(no), "rap-netsim");
      setenv("AWS_ENDPOINT_URL", server->url().c_str(), 1);
      setenv("AWS_ACCESS_KEY_ID", "bench", 1);
      setenv("AWS_SECRET_ACCESS_KEY", "bench", 1);
      url = "s3://bkt/t";
      latency = std::stod(no.latency) / 1000.0;
      throughput = std::stod(no.throughput) * (1 << 20);
    }
    for (size_t qi = 0; qi < queries.size(); ++qi) {
      const Query& q = queries[qi];
      std::string reference;
      double seq_cpu = 0;
      std::printf("\n%s, %s scan\n%-14s %9s %9s %10s %8s %10s %8s %10s %7s\n", profile.c_str(), q.name.c_str(),
                  "setting", "median_s", "first_s", "bound_ms", "requests", "MiB", "rss_MiB", "unused_KiB", "waited");
      for (const Setting& s : settings) {
        std::vector<Result1> runs;
        RunOnce(url, q, s);  // untimed warm-up of page cache and connections
        for (int r = 0; r < reps; ++r) runs.push_back(RunOnce(url, q, s));
        std::vector<double> t, fb, bw, ww;
        for (const Result1& r : runs) {
          ww.push_back(static_cast<double>(r.warmup_waited));
          t.push_back(r.seconds);
          fb.push_back(r.first_batch);
          bw.push_back(r.boundary_wait);
        }
        Result1 last = runs.back();
        last.rss_kib = ChildPeakRssKiB(url, qi, s);
        if (reference.empty()) {
          reference = last.fingerprint;
          std::vector<double> cpu;
          for (const Result1& r : runs) cpu.push_back(r.cpu);
          seq_cpu = Median(cpu);
        }
        for (const Result1& r : runs) {
          if (r.fingerprint != reference) {
            std::fprintf(stderr, "FINGERPRINT MISMATCH: %s %s %s: %s vs %s\n", profile.c_str(), q.name.c_str(),
                         s.name.c_str(), r.fingerprint.c_str(), reference.c_str());
            mismatch = true;
          }
        }
        const double floor = std::max(throughput > 0 ? static_cast<double>(last.bytes) / throughput : 0.0,
                                      seq_cpu / cores) + latency;
        std::printf("%-14s %9.3f %9.3f %10.2f %8lld %10.1f %8.1f %10.1f %7.1f\n", s.name.c_str(), Median(t),
                    Median(fb), Median(bw) * 1e3, static_cast<long long>(last.requests),
                    static_cast<double>(last.bytes) / (1 << 20), static_cast<double>(last.rss_kib) / 1024,
                    static_cast<double>(last.unused) / 1024, Median(ww));
        out << fmt::format("{},{},{},{},{},{:.4f},{:.4f},{:.3f},{},{},{:.1f},{},{:.4f},{},{:.1f}\n", profile, q.name,
                           s.name, s.producers, static_cast<int>(s.warmup), Median(t), Median(fb), Median(bw) * 1e3,
                           last.requests, last.bytes, static_cast<double>(last.rss_kib) / 1024, last.unused, floor,
                           last.fingerprint, Median(ww));
        out.flush();
      }
      // The peers, on the same files in the same run: hyparquet (JavaScript) over HTTP range requests
      // from the same rap-netsim, all files at once (its full scan only: no filter pushdown to
      // compare); DuckDB with 2 threads on the local files (both queries). DuckDB's httpfs extension
      // is not installed on this machine and cannot be downloaded offline, so DuckDB has no remote row.
      if (!no_peers) {
        nlohmann::json doc;
        std::string peer;
        if (format == "orc") {
          if (!server) {
            nlohmann::json spec = {{"reps", reps}, {"dir", table_dir}, {"columns", q.columns}, {"query", q.name}};
            doc = RunPython(python, {"scan", spec.dump()});
            peer = "pyarrow-orc-1t";
            if (!doc.is_null()) doc = {{"results", {{{"times_s", doc["times_s"]}, {"rows", doc["rows"]}}}}};
          }
        } else if (server && q.name == "full") {
          nlohmann::json spec = {{"reps", reps}, {"parallel", true}, {"urls", nlohmann::json::array()}};
          for (int f = 0; f < files; ++f) spec["urls"].push_back(fmt::format("{}/bkt/t/part-{}.parquet", server->url(), f));
          doc = RunNodePeer("hyparquet_http_scan.mjs", spec, root);
          peer = "hyparquet";
          if (!doc.is_null()) doc = {{"results", {{{"times_s", doc["times_s"]}, {"rows", doc["rows"]}}}}};
        } else if (!server) {
          std::string sql = q.columns.empty() ? "*" : "";
          for (const std::string& c : q.columns) sql += (sql.empty() ? "" : ", ") + c;
          sql = fmt::format("SELECT {} FROM read_parquet('{}/*.parquet')", sql, table_dir);
          if (!q.where.empty()) sql += " WHERE " + q.where;
          nlohmann::json spec = {{"reps", reps}, {"threads", {2}}, {"queries", {{{"name", q.name}, {"sql", sql}}}}};
          doc = RunNodePeer("duckdb_scan.mjs", spec, root);
          peer = "duckdb-2t";
        }
        if (!peer.empty() && doc.is_null()) {
          std::printf("peer %s: failed (node or tests/npm's packages missing; for ORC: python or pyarrow)\n", peer.c_str());
        } else if (!peer.empty()) {
          const auto times = doc["results"][0]["times_s"].get<std::vector<double>>();
          const long long peer_rows = doc["results"][0]["rows"].get<long long>();
          std::printf("%-14s %9.3f %9s %10s %8s %10s %8s %10s  (%lld rows)\n", ("peer " + peer).c_str(), Median(times),
                      "-", "-", "-", "-", "-", "-", peer_rows);
          out << fmt::format("{},{},peer {},0,0,{:.4f},,,,,,,,\n", profile, q.name, peer, Median(times));
          out.flush();
        }
      }
      std::printf("floor (max(bytes / throughput, sequential CPU %.3f s / %u cores) + latency): see CSV floor_s\n",
                  seq_cpu, cores);
    }
  }
  std::printf("\nCSV: %s\n", csv.c_str());
  if (mismatch) return 1;
  return 0;
}
