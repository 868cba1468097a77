// bench_lookup (issue 13): point lookups through the RAP index against the chain a Parquet reader
// without an index runs, on the same rap-netsim server and keys (docs/benchmarks/lookup.md).
//
//   bench_lookup [--profiles 30ms,5ms] [--batches 1,10,100] [--lookups 25,10,5] [--peer-lookups 5,3,2]
//                [--cold-lookups 5] [--peers rap-scan,hyparquet,arrowrs] [--files 16] [--rows 2000000]
//                [--columns 20] [--buckets 8] [--csv lookup.csv] [--temp-dir DIR]
//
// The table (bench/lookup/table.h): 16 files, 2M rows, 20 columns, written with the writer's default
// options (what `rap convert` writes), each key's ~10 rows spread over 3 files. The index covers the
// three looked-up columns. rap-netsim serves the table at each latency (unlimited throughput) as an
// S3 endpoint (rap: s3://bkt/t) and as plain HTTP (the npm peers). Per method and batch size:
// p50 / p99 latency of one lookup (a batch of keys), median dependent rounds (rap's LookupStats),
// requests and payload bytes (counted by rap-netsim), rows. Methods:
//   rap index covered    warm process: Index open, caches warm for other keys
//   rap index cached     the same keys again: their index pages are cached
//   rap index plain      warm, without covering data (footers cached, page index per file)
//   rap lookup CLI       a cold process per lookup (`rap lookup --keys-file`), wall time incl. exec
//   rap scan --where     the chain without an index (footer, page index, key pages, value pages);
//                        warm = metadata cache on, cold = every footer read again
//   hyparquet            filter pushdown with its page index (bench/lookup/lookup_peers.mjs)
//   arrow-rs             parquet-wasm: key column, then the matching row groups
// Every peer's row count must equal the index's for the same keys (else exit 1). Also measured: the
// index build (key rows per second, bytes per entry) beside DuckDB's SQL build of the same fragments.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lookup/table.h"
#include "rap/columnar/quantile.h"
#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/read/expr.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/util/clock.h"
#include "testing/cli_run.h"
#include "testing/duckdb_run.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace fs = std::filesystem;
using namespace rap;

namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_lookup: %s\n", what.c_str());
  std::exit(2);
}

template <typename T>
T Check(Result<T> r, const std::string& what) {
  if (!r.ok()) Die(what + ": " + r.status().ToString());
  return std::move(*r);
}

void Check(const Status& s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + s.ToString());
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) if (!item.empty()) out.push_back(item);
  return out;
}

struct Sample {
  double ms = 0;
  int rounds = -1;  // -1: not known (peers)
  uint64_t requests = 0, bytes = 0;
  int64_t rows = 0;
};

// columnar::Quantile: the value at the rounded rank q * (n - 1); with few samples p99 is the largest.
using columnar::Quantile;

template <typename F>
double MedianOf(const std::vector<Sample>& s, F f) {
  std::vector<double> v;
  for (const Sample& x : s) v.push_back(static_cast<double>(f(x)));
  return Quantile(v, 0.5);
}

using testing::ShellQuote;

// Runs a shell command, returns its stdout; exits on failure.
std::string Run(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) Die("cannot run: " + cmd);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  if (rc != 0) Die("command failed (" + std::to_string(rc) + "): " + cmd + "\n" + out);
  return out;
}

struct Bench {
  testing::NetsimServer* netsim = nullptr;
  std::string url;  // s3://bkt/t
  std::vector<std::string> columns;
  std::vector<std::string> files;
  std::string npm_dir, temp;

  void Reset() { Check(netsim->ResetStats(), "netsim reset"); }
  void Count(Sample* s) {
    auto st = Check(netsim->Stats(), "netsim stats");
    s->requests = st.total.requests;
    s->bytes = st.total.payload_bytes;
  }

  Sample IndexLookup(index::Index& idx, const std::vector<int64_t>& batch, bool cover) {
    std::vector<index::Key> keys;
    for (int64_t k : batch) keys.push_back(Check(idx.ParseKey({std::to_string(k)}), "key"));
    index::LookupOptions lo;
    lo.columns = columns;
    lo.use_cover = cover;
    Reset();
    const double t0 = NowSeconds();
    auto res = Check(idx.Lookup(keys, lo), "lookup");
    Sample s;
    s.ms = (NowSeconds() - t0) * 1e3;
    s.rounds = res.stats.dependent_rounds;
    s.rows = res.stats.rows;
    Count(&s);
    return s;
  }

  Sample ColdProcess(const std::vector<int64_t>& batch) {
    const std::string keys_file = temp + "/cold_keys.txt";
    {
      std::ofstream f(keys_file);
      for (int64_t k : batch) f << k << "\n";
    }
    std::string cols;
    for (const std::string& c : columns) cols += (cols.empty() ? "" : ",") + c;
    Reset();
    const double t0 = NowSeconds();
    const testing::CliRun run =
        testing::RunCli(fmt::format("lookup {} --keys-file {} --columns {} --format none --stats", url, ShellQuote(keys_file), cols));
    if (run.exit_code != 0) Die("rap lookup failed:\n" + run.out);
    const std::string& out = run.out;
    Sample s;
    s.ms = (NowSeconds() - t0) * 1e3;
    Count(&s);
    std::istringstream in(out);
    std::string key;
    long long v;
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      if (ls >> key >> v) {
        if (key == "dependent_rounds") s.rounds = static_cast<int>(v);
        if (key == "rows") s.rows = v;
      }
    }
    return s;
  }

  Sample ScanWhere(const std::vector<int64_t>& batch, bool warm) {
    std::string where = "k IN (";
    for (size_t i = 0; i < batch.size(); ++i) where += (i ? ", " : "") + std::to_string(batch[i]);
    where += ")";
    Reset();
    const double t0 = NowSeconds();
    table::TableSnapshot snap = Check(table::OpenTable(url), "open " + url);
    read::ScanSource src = Check(table::ToScanSource(snap), "scan source");
    read::ScanOptions o;
    o.columns = {"k"};
    o.columns.insert(o.columns.end(), columns.begin(), columns.end());
    o.filter = Check(read::ParseExpr(where), "where");
    o.reader.use_metadata_cache = warm;
    auto scanner = Check(read::Scanner::Make(std::move(src), std::move(o)), "scanner");
    Sample s;
    while (true) {
      auto b = Check(scanner->Next(), "scan");
      if (!b) break;
      s.rows += b->batch.num_rows;
    }
    s.ms = (NowSeconds() - t0) * 1e3;
    Count(&s);
    return s;
  }

  std::vector<Sample> NodePeer(const std::string& engine, const std::string& mode,
                               const std::vector<std::vector<int64_t>>& batches) {
    const std::string keys_file = temp + "/peer_keys.txt";
    {
      std::ofstream f(keys_file);
      for (const auto& b : batches) {
        for (size_t i = 0; i < b.size(); ++i) f << (i ? "," : "") << b[i];
        f << "\n";
      }
    }
    std::string file_list, cols;
    for (const std::string& f : files) file_list += (file_list.empty() ? "" : ",") + f;
    for (const std::string& c : columns) cols += (cols.empty() ? "" : ",") + c;
    const std::string script = testing::SourceDir() + "/bench/lookup/lookup_peers.mjs";
    const std::string out = Run(fmt::format("node {} {} {} {} {} bkt/t {} {} k {}", ShellQuote(script), ShellQuote(npm_dir), engine,
                                            mode, netsim->url(), file_list, cols, ShellQuote(keys_file)));
    std::vector<Sample> samples;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) continue;
      Sample s;
      s.ms = j.value("ms", 0.0);
      s.rows = j.value("rows", int64_t{0});
      s.requests = j.value("requests", uint64_t{0});
      s.bytes = j.value("bytes", uint64_t{0});
      samples.push_back(s);
    }
    if (samples.size() != batches.size()) Die(engine + ": expected " + std::to_string(batches.size()) + " results:\n" + out);
    return samples;
  }
};

struct Line {
  std::string profile, method, mode;
  int batch = 0;
  std::vector<Sample> samples;
};

// The number of rows each key batch must return (from the index, checked against every peer).
void CheckRows(const std::string& what, const std::vector<Sample>& got, const std::vector<Sample>& want) {
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (got[i].rows != want[i].rows) {
      Die(fmt::format("{}: lookup {} returned {} rows, the index {} (same keys)", what, i, got[i].rows, want[i].rows));
    }
  }
}

struct BuildFigures {
  double rap_s = 0, rap_plain_s = 0, duck_s = -1;
  int64_t key_rows = 0, entries = 0;
  uint64_t index_bytes = 0, plain_index_bytes = 0;
};

uint64_t DirBytes(const std::string& dir) {
  uint64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) if (e.is_regular_file()) n += e.file_size();
  return n;
}

BuildFigures BuildIndexes(const std::string& table_dir, const bench::LookupTable& t, const std::vector<std::string>& cover,
                          int buckets, const std::string& npm_dir, const std::string& temp) {
  BuildFigures b;
  index::BuildOptions plain;
  plain.key_columns = {"k"};
  plain.buckets = buckets;
  plain.name = "plain";
  auto r0 = Check(index::BuildIndex(table_dir, plain), "index build (plain)");
  b.rap_plain_s = r0.seconds;
  b.plain_index_bytes = DirBytes(r0.index_url);
  index::BuildOptions o = plain;
  o.name = index::kDefaultIndexName;
  o.cover = cover;
  auto r = Check(index::BuildIndex(table_dir, o), "index build");
  b.rap_s = r.seconds;
  b.key_rows = r.key_rows;
  b.entries = r.entries;
  b.index_bytes = DirBytes(r.index_url);
  // DuckDB: the same fragments (no cover) from SQL alone, docs/index-format.md.
  if (fs::exists(npm_dir + "/node_modules/@duckdb/node-api")) {
    const std::string out_dir = temp + "/duck_index";
    fs::create_directories(out_dir);
    std::string list, ords;
    for (size_t i = 0; i < t.files.size(); ++i) {
      const std::string p = table_dir + "/" + t.files[i];
      list += (i ? ", '" : "'") + p + "'";
      ords += fmt::format("{}('{}', {})", i ? ", " : "", p, i);
    }
    std::vector<std::string> sql;
    for (int bk = 0; bk < buckets; ++bk) {
      sql.push_back(fmt::format(
          "COPY (WITH ords(filename, ord) AS (VALUES {}), rows AS (SELECT k, ord AS file, file_row_number AS r "
          "FROM read_parquet([{}], filename = true, file_row_number = true) JOIN ords USING (filename) "
          "WHERE (('0x' || substr(md5(CAST(k AS VARCHAR)), 1, 15))::BIGINT % {}) = {}), "
          "runs AS (SELECT k, file, r, r - row_number() OVER (PARTITION BY k, file ORDER BY r) AS g FROM rows) "
          "SELECT k AS key0, CAST(file AS INTEGER) AS file, CAST(min(r) AS BIGINT) AS first_row, "
          "CAST(count(*) AS BIGINT) AS num_rows FROM runs GROUP BY k, file, g ORDER BY key0, file, first_row) "
          "TO '{}/b{}.parquet' (FORMAT parquet)",
          ords, list, buckets, bk, out_dir, bk));
    }
    std::string cmd = fmt::format("node {} {} 2", ShellQuote(testing::SourceDir() + "/bench/lookup/duckdb_build.mjs"), ShellQuote(npm_dir));
    for (const std::string& s : sql) cmd += " " + ShellQuote(s);
    auto j = nlohmann::json::parse(Run(cmd), nullptr, false);
    if (!j.is_discarded()) b.duck_s = j.value("ms", 0.0) / 1e3;
  }
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_lookup: RAP index point lookups vs rap scan, hyparquet and arrow-rs over rap-netsim"};
  std::string profiles = "30ms,5ms", batches_arg = "1,10,100", peers_arg = "rap-scan,hyparquet,arrowrs";
  std::string csv = "lookup.csv", temp_dir;
  std::string lookups_arg = "25,10,5", peer_lookups_arg = "5,3,2";
  int cold_lookups = 5, buckets = 8;
  bench::LookupTableOptions to;
  app.add_option("--profiles", profiles, "rap-netsim latencies (comma-separated)")->capture_default_str();
  app.add_option("--batches", batches_arg, "Keys per lookup (comma-separated)")->capture_default_str();
  app.add_option("--lookups", lookups_arg, "Timed index lookups per method, one count per batch size")->capture_default_str();
  app.add_option("--peer-lookups", peer_lookups_arg, "Timed lookups per peer, one count per batch size")->capture_default_str();
  app.add_option("--cold-lookups", cold_lookups, "Cold `rap lookup` processes per batch size")->capture_default_str();
  app.add_option("--peers", peers_arg, "Peers: rap-scan, hyparquet, arrowrs (empty: none)")->capture_default_str();
  app.add_option("--files", to.files, "Files in the table")->capture_default_str();
  app.add_option("--rows", to.rows, "Rows in the table")->capture_default_str();
  app.add_option("--columns", to.columns, "Columns (the key and value columns)")->capture_default_str();
  app.add_option("--buckets", buckets, "Index buckets")->capture_default_str();
  app.add_option("--csv", csv, "CSV output, one row per profile, method, mode and batch size")->capture_default_str();
  app.add_option("--temp-dir", temp_dir, "Where the table is written (default: a temporary directory)");
  CLI11_PARSE(app, argc, argv);
  if (!testing::RapBinaryExists()) Die("the rap binary is not built: " + testing::RapBinary());

  testing::TempDir tmp;
  const std::string root = temp_dir.empty() ? tmp.path() : temp_dir;
  const std::string table_dir = root + "/bkt/t";
  double t0 = NowSeconds();
  const bench::LookupTable table = bench::WriteLookupTable(table_dir, to);
  std::printf("table: %zu files, %lld rows, %lld keys, %zu columns, %.1f MiB, written in %.1f s\n", table.files.size(),
              static_cast<long long>(table.rows), static_cast<long long>(table.keys), table.value_columns.size() + 1,
              static_cast<double>(table.bytes) / (1 << 20), NowSeconds() - t0);
  const std::vector<std::string> columns(table.value_columns.begin(), table.value_columns.begin() + 3);
  const std::string npm_dir = testing::SourceDir() + "/tests/npm";
  const BuildFigures bf = BuildIndexes(table_dir, table, columns, buckets, npm_dir, root);
  std::printf("index build, 2 threads: %.2f s = %.2f M key rows/s (plain: %.2f s = %.2f M/s); %lld entries, "
              "%.1f bytes/entry (plain %.1f)\n",
              bf.rap_s, static_cast<double>(bf.key_rows) / bf.rap_s / 1e6, bf.rap_plain_s,
              static_cast<double>(bf.key_rows) / bf.rap_plain_s / 1e6, static_cast<long long>(bf.entries),
              static_cast<double>(bf.index_bytes) / static_cast<double>(bf.entries),
              static_cast<double>(bf.plain_index_bytes) / static_cast<double>(bf.entries));
  if (bf.duck_s >= 0) {
    std::printf("DuckDB SQL build of the same fragments (2 threads): %.2f s = %.2f M key rows/s\n", bf.duck_s,
                static_cast<double>(bf.key_rows) / bf.duck_s / 1e6);
  }

  std::vector<int> batch_sizes, lookup_counts, peer_counts;
  for (const std::string& b : SplitList(batches_arg)) batch_sizes.push_back(std::stoi(b));
  for (const std::string& b : SplitList(lookups_arg)) lookup_counts.push_back(std::stoi(b));
  for (const std::string& b : SplitList(peer_lookups_arg)) peer_counts.push_back(std::stoi(b));
  if (batch_sizes.empty() || lookup_counts.empty() || peer_counts.empty()) Die("--batches, --lookups and --peer-lookups need values");
  // The last count applies to further batch sizes.
  auto count_for = [](const std::vector<int>& counts, size_t i) { return counts[std::min(i, counts.size() - 1)]; };
  const std::vector<std::string> peers = SplitList(peers_arg);
  auto has_peer = [&](const std::string& p) { return std::find(peers.begin(), peers.end(), p) != peers.end(); };
  std::vector<Line> lines;
  setenv("AWS_ACCESS_KEY_ID", "bench", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "bench", 1);
  setenv("AWS_REGION", "us-east-1", 1);
  uint64_t seed = 1;
  for (const std::string& profile : SplitList(profiles)) {
    testing::NetsimOptions no;
    no.root = root;
    no.latency = profile;
    auto server = Check(testing::NetsimServer::Start(no), "rap-netsim");
    setenv("AWS_ENDPOINT_URL", server->url().c_str(), 1);
    Bench b;
    b.netsim = server.get();
    b.url = "s3://bkt/t";
    b.columns = columns;
    b.files = table.files;
    b.npm_dir = npm_dir;
    b.temp = root;
    auto idx = Check(index::Index::Open(b.url), "index open");
    for (const auto& w : bench::KeyBatches(5, 10, table.keys, 999)) b.IndexLookup(*idx, w, true);  // warm-up
    std::printf("\n%s latency (rap-netsim, unlimited throughput)\n%-22s %-5s %5s %9s %9s %6s %8s %10s %6s\n",
                profile.c_str(), "method", "mode", "keys", "p50_ms", "p99_ms", "rounds", "requests", "KiB", "rows");
    for (size_t bi = 0; bi < batch_sizes.size(); ++bi) {
      const int bs = batch_sizes[bi];
      const int lookups = std::max(1, count_for(lookup_counts, bi));
      const int peer_lookups = std::max(1, count_for(peer_counts, bi));
      const auto batches = bench::KeyBatches(lookups, bs, table.keys, seed++);
      Line covered{profile, "rap index covered", "warm", bs, {}};
      Line cached{profile, "rap index cached", "warm", bs, {}};
      Line plain{profile, "rap index plain", "warm", bs, {}};
      for (const auto& k : batches) {
        covered.samples.push_back(b.IndexLookup(*idx, k, true));
        cached.samples.push_back(b.IndexLookup(*idx, k, true));
      }
      const auto plain_batches = bench::KeyBatches(lookups, bs, table.keys, seed++);
      for (const auto& k : plain_batches) plain.samples.push_back(b.IndexLookup(*idx, k, false));
      Line cold{profile, "rap lookup CLI", "cold", bs, {}};
      for (int i = 0; i < cold_lookups && i < lookups; ++i) cold.samples.push_back(b.ColdProcess(batches[static_cast<size_t>(i)]));
      CheckRows("rap lookup CLI", cold.samples, covered.samples);
      std::vector<Line> bs_lines = {covered, cached, plain, cold};
      const std::vector<std::vector<int64_t>> peer_batches(batches.begin(), batches.begin() + std::min(peer_lookups, lookups));
      if (has_peer("rap-scan")) {
        for (bool warm : {true, false}) {
          Line l{profile, "rap scan --where", warm ? "warm" : "cold", bs, {}};
          for (const auto& k : peer_batches) l.samples.push_back(b.ScanWhere(k, warm));
          CheckRows("rap scan --where", l.samples, covered.samples);
          bs_lines.push_back(l);
        }
      }
      for (const char* engine : {"hyparquet", "arrowrs"}) {
        if (!has_peer(engine)) continue;
        for (const char* mode : {"warm", "cold"}) {
          Line l{profile, std::string(engine) == "arrowrs" ? "arrow-rs (parquet-wasm)" : "hyparquet", mode, bs,
                 b.NodePeer(engine, mode, peer_batches)};
          CheckRows(engine, l.samples, covered.samples);
          bs_lines.push_back(l);
        }
      }
      for (const Line& l : bs_lines) {
        std::vector<double> ms;
        for (const Sample& s : l.samples) ms.push_back(s.ms);
        const double rounds = MedianOf(l.samples, [](const Sample& s) { return s.rounds; });
        std::printf("%-22s %-5s %5d %9.1f %9.1f %6s %8.0f %10.1f %6.0f\n", l.method.c_str(), l.mode.c_str(), bs,
                    Quantile(ms, 0.5), Quantile(ms, 0.99), rounds < 0 ? "-" : fmt::format("{:.0f}", rounds).c_str(),
                    MedianOf(l.samples, [](const Sample& s) { return s.requests; }),
                    MedianOf(l.samples, [](const Sample& s) { return s.bytes; }) / 1024.0,
                    MedianOf(l.samples, [](const Sample& s) { return s.rows; }));
        lines.push_back(l);
      }
      std::fflush(stdout);
    }
  }
  std::ofstream out(csv);
  out << "profile,method,mode,keys,lookups,p50_ms,p99_ms,rounds,requests,bytes,rows,build_s,build_rows_per_s,"
         "duckdb_build_s,bytes_per_entry\n";
  for (const Line& l : lines) {
    std::vector<double> ms;
    for (const Sample& s : l.samples) ms.push_back(s.ms);
    out << fmt::format("{},{},{},{},{},{:.3f},{:.3f},{},{},{},{},{:.3f},{:.0f},{:.3f},{:.2f}\n", l.profile, l.method,
                       l.mode, l.batch, l.samples.size(), Quantile(ms, 0.5), Quantile(ms, 0.99),
                       MedianOf(l.samples, [](const Sample& s) { return s.rounds; }),
                       MedianOf(l.samples, [](const Sample& s) { return s.requests; }),
                       MedianOf(l.samples, [](const Sample& s) { return s.bytes; }),
                       MedianOf(l.samples, [](const Sample& s) { return s.rows; }), bf.rap_s,
                       static_cast<double>(bf.key_rows) / bf.rap_s, bf.duck_s,
                       static_cast<double>(bf.index_bytes) / static_cast<double>(bf.entries));
  }
  std::printf("\nwrote %s\n", csv.c_str());
  return 0;
}
