// bench_scan: a local scan of a generated table — several Parquet files (page index, snappy pages,
// row groups of 128Ki rows) of event-like rows — with selective filters and dense and sparse
// projections, through rap's Scanner (one file at a time, single-threaded) and through DuckDB on the
// same files and query (tests/npm/duckdb_scan.mjs via node, `threads=1` and DuckDB's default).
// Prints median wall time, rows/s (table rows per second of scan), bytes read and requests per query
// and engine, and writes them as CSV. Method and results: docs/benchmarks/scan.md.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rap/format/writer.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/util/allocator.h"
#include "rap/util/clock.h"
#include "testing/arrays.h"
#include "testing/paths.h"

namespace rap::bench {
namespace {

namespace fs = std::filesystem;
using rap::testing::Fixed;
using rap::testing::Strings;

struct Args {
  int64_t rows = 2'000'000;
  int files = 4;
  int64_t row_group_rows = 128 * 1024;
  int reps = 5;
  std::string csv;
  std::string temp_dir;
  bool retain_fixtures = false;
  bool duckdb = true;
  std::string only;  // --query: run only this query
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));  // rap's second run
};

const char* const kCountries[] = {"US", "DE", "NL", "FR", "GB", "BR", "IN", "JP", "CA", "ES",
                                  "IT", "SE", "PL", "MX", "AU", "KR", "CH", "BE", "AT", "NO"};
const char* const kKinds[] = {"view", "click", "scroll", "purchase", "signup", "search", "share", "logout"};

// Columns: user_id (random), event_id (the row's ordinal: sorted, so pages have narrow ranges), ts
// (increasing, microseconds, UTC), country (skewed over 20 codes), kind (8 values), duration_ms
// (uniform 0..999999, 5% NULL), amount (double, 30% NULL), url (~45 bytes, high cardinality).
RecordBatch MakeRows(int64_t first, int64_t n, std::mt19937_64& rng) {
  auto schema = std::make_shared<Schema>();
  DataTypePtr ts_type = MakeType(TypeId::kTimestamp);
  auto ts = std::make_shared<DataType>(*ts_type);
  ts->unit = TimeUnit::kMicro;
  ts->timezone = "UTC";
  schema->fields = {{"user_id", MakeType(TypeId::kInt64), false}, {"event_id", MakeType(TypeId::kInt64), false},
                    {"ts", ts, false},
                    {"country", MakeType(TypeId::kString), true},
                    {"kind", MakeType(TypeId::kString), true},
                    {"duration_ms", MakeType(TypeId::kInt64), true},
                    {"amount", MakeType(TypeId::kFloat64), true},
                    {"url", MakeType(TypeId::kString), true}};
  std::vector<std::optional<int64_t>> user(n), event(n), tsv(n), duration(n);
  std::vector<std::optional<std::string>> country(n), kind(n), url(n);
  std::vector<std::optional<double>> amount(n);
  std::exponential_distribution<double> skew(0.3);
  std::lognormal_distribution<double> money(3.0, 1.0);
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    user[k] = static_cast<int64_t>(1 + rng() % 200'000);
    event[k] = first + i;
    tsv[k] = int64_t{1'767'225'600'000'000} + (first + i) * 250'000 + static_cast<int64_t>(rng() % 250'000);
    country[k] = kCountries[std::min<size_t>(19, static_cast<size_t>(skew(rng)))];
    kind[k] = kKinds[rng() % 8];
    if (rng() % 20) duration[k] = static_cast<int64_t>(rng() % 1'000'000);
    if (rng() % 10 >= 3) amount[k] = std::round(money(rng) * 100) / 100;
    url[k] = fmt::format("https://shop.example.com/p/{:06d}/{}?ref={:x}", rng() % 1'000'000, kKinds[rng() % 8],
                         rng() % 65536);
  }
  RecordBatch b;
  b.schema = schema;
  b.num_rows = n;
  b.columns = {Fixed<int64_t>(schema->fields[0].type, user), Fixed<int64_t>(schema->fields[1].type, event),
               Fixed<int64_t>(ts, tsv),
               Strings(country),
               Strings(kind),
               Fixed<int64_t>(schema->fields[5].type, duration),
               Fixed<double>(schema->fields[6].type, amount),
               Strings(url)};
  return b;
}

// Writes the table (files "part-00000.parquet", ...) unless it is already there; returns its bytes.
Result<uint64_t> WriteTable(const std::string& dir, const Args& a) {
  fs::create_directories(dir);
  uint64_t total = 0;
  const int64_t per_file = (a.rows + a.files - 1) / a.files;
  for (int f = 0; f < a.files; ++f) {
    const std::string path = fmt::format("{}/part-{:05d}.parquet", dir, f);
    if (fs::exists(path)) {
      total += fs::file_size(path);
      continue;
    }
    const int64_t first = f * per_file, n = std::min(per_file, a.rows - first);
    if (n <= 0) break;
    std::mt19937_64 rng(0x5ca9 + static_cast<uint64_t>(f));
    RecordBatch rows = MakeRows(first, n, rng);
    parquet::WriterOptions wo;
    wo.row_group_max_rows = a.row_group_rows;
    wo.defaults.codec = parquet::Codec::SNAPPY;
    RAP_ASSIGN_OR_RETURN(auto sink, parquet::LocalFileSink::Open(path));
    RAP_ASSIGN_OR_RETURN(auto writer, parquet::ParquetWriter::Open(rows.schema, sink.get(), wo));
    RAP_RETURN_NOT_OK(writer->Write(rows));
    RAP_RETURN_NOT_OK(writer->Close());
    total += fs::file_size(path);
  }
  return total;
}

struct Query {
  std::string name;
  std::vector<std::string> columns;  // first: user_id (the checksum column)
  std::string where;
};

std::vector<Query> Queries(int64_t rows) {
  const std::vector<std::string> dense = {"user_id", "event_id", "ts",     "country",
                                          "kind",    "duration_ms", "amount", "url"};
  const std::vector<std::string> sparse = {"user_id", "amount"};
  // A 0.5% id range (page and row-group pruning), and a selective predicate on unsorted columns
  // (about 0.15% of rows; only late materialisation helps).
  const int64_t lo = rows / 2, hi = lo + rows / 200;
  const std::string range = fmt::format("event_id >= {} AND event_id < {}", lo, hi);
  const std::string scattered = "country = 'NL' AND duration_ms > 980000";
  return {{"range_dense", dense, range},
          {"range_sparse", sparse, range},
          {"scattered_dense", dense, scattered},
          {"scattered_sparse", sparse, scattered}};
}

struct Measured {
  std::string engine;  // "rap", "duckdb-1t", "duckdb-Nt"
  std::string query;
  std::vector<double> times;
  std::vector<double> cpu;  // process CPU seconds (user + system, all threads) per run
  int64_t rows_out = 0;
  std::string checksum;  // sum of user_id over the result
  int64_t requests = -1, read_calls = -1, pages_read = -1;
  int64_t bytes = -1;
};

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

Result<Measured> RunRap(const std::string& dir, const Query& q, int reps, int threads) {
  Measured m;
  m.engine = threads == 1 ? "rap" : fmt::format("rap-{}t", threads);
  m.query = q.name;
  for (int rep = 0; rep <= reps; ++rep) {  // rep 0: untimed warm-up
    const double t0 = NowSeconds(), c0 = ProcessCpuSeconds();
    RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(dir, {}));
    RAP_ASSIGN_OR_RETURN(read::ScanSource src, table::ToScanSource(snap));
    read::ScanOptions o;
    o.columns = q.columns;
    RAP_ASSIGN_OR_RETURN(o.filter, read::ParseExpr(q.where));
    o.reader.use_metadata_cache = false;  // every run reads its footers, like DuckDB (no metadata cache)
    o.prefetch.producers = threads;
    o.warmup.level = threads == 1 ? read::WarmupLevel::kNone : read::WarmupLevel::kRaw;
    RAP_ASSIGN_OR_RETURN(auto scanner, read::Scanner::Make(std::move(src), std::move(o)));
    int64_t rows = 0;
    __int128 sum = 0;
    while (true) {
      RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
      if (!b) break;
      rows += b->batch.num_rows;
      const ArrayData& user = *b->batch.columns[0];
      for (int64_t i = 0; i < user.length; ++i) sum += user.values<int64_t>()[i];
    }
    const double t = NowSeconds() - t0, c = ProcessCpuSeconds() - c0;
    if (rep == 0) continue;
    m.times.push_back(t);
    m.cpu.push_back(c);
    m.rows_out = rows;
    m.checksum = fmt::format("{}", static_cast<int64_t>(sum));
    const read::ScanStats& s = scanner->stats();
    m.requests = s.requests;
    m.read_calls = s.read_calls;
    m.bytes = static_cast<int64_t>(s.bytes);
    m.pages_read = s.pages_read;
  }
  return m;
}

Result<std::vector<Measured>> RunDuckDb(const std::string& dir, const std::vector<Query>& queries, int reps) {
  nlohmann::json spec;
  spec["reps"] = reps;
  spec["threads"] = {1, 0};
  for (const Query& q : queries) {
    std::string cols;
    for (const auto& c : q.columns) cols += (cols.empty() ? "" : ", ") + c;
    spec["queries"].push_back({{"name", q.name},
                               {"sql", fmt::format("SELECT {} FROM read_parquet('{}/*.parquet') WHERE {}", cols, dir, q.where)}});
  }
  const std::string npm = rap::testing::SourceDir() + "/tests/npm";
  const std::string spec_path = dir + "/../duckdb_spec.json";
  {
    std::ofstream(spec_path) << spec.dump();
  }
  const std::string cmd = fmt::format("cd '{}' && node duckdb_scan.mjs \"$(cat '{}')\"", npm, spec_path);
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return Status::IOError("cannot run node");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (pclose(p) != 0) {
    return Status::IOError("node duckdb_scan.mjs failed (scripts/install-npm-test-deps.sh installs @duckdb/node-api)");
  }
  std::vector<Measured> res;
  try {
    const auto doc = nlohmann::json::parse(out);
    std::fprintf(stderr, "DuckDB %s\n", doc["duckdb_version"].get<std::string>().c_str());
    for (const auto& r : doc["results"]) {
      Measured m;
      const int threads = r["threads"].get<int>();
      m.engine = fmt::format("duckdb-{}t", threads);
      m.query = r["name"].get<std::string>();
      m.times = r["times_s"].get<std::vector<double>>();
      m.cpu = r["cpu_s"].get<std::vector<double>>();
      m.rows_out = r["rows"].get<int64_t>();
      m.checksum = r["sum"].is_null() ? "0" : r["sum"].get<std::string>();
      res.push_back(std::move(m));
    }
  } catch (const std::exception& e) {
    return Status::Corrupt(std::string("duckdb_scan.mjs output: ") + e.what());
  }
  return res;
}

Status Run(const Args& a) {
  const std::string base = a.temp_dir.empty() ? fs::temp_directory_path().string() + "/rap-bench-scan" : a.temp_dir;
  const std::string dir = fmt::format("{}/table-{}r-{}f-{}rg", base, a.rows, a.files, a.row_group_rows);
  const double tw = NowSeconds();
  RAP_ASSIGN_OR_RETURN(uint64_t table_bytes, WriteTable(dir, a));
  std::fprintf(stderr, "table %s: %d files, %lld rows, %.1f MB (ready in %.1f s)\n", dir.c_str(), a.files,
               static_cast<long long>(a.rows), static_cast<double>(table_bytes) / 1e6, NowSeconds() - tw);
  std::vector<Query> queries = Queries(a.rows);
  if (!a.only.empty()) {
    std::erase_if(queries, [&](const Query& q) { return q.name != a.only; });
    if (queries.empty()) return Status::InvalidArgument("--query '" + a.only + "': no such query");
  }
  std::vector<Measured> all;
  for (const Query& q : queries) {
    RAP_ASSIGN_OR_RETURN(Measured m, RunRap(dir, q, a.reps, 1));
    all.push_back(std::move(m));
    if (a.threads > 1) {
      RAP_ASSIGN_OR_RETURN(Measured mt, RunRap(dir, q, a.reps, a.threads));
      all.push_back(std::move(mt));
    }
  }
  Status duck_status = Status::OK();
  if (a.duckdb) {
    auto duck = RunDuckDb(dir, queries, a.reps);
    if (duck.ok()) {
      all.insert(all.end(), duck->begin(), duck->end());
    } else {
      duck_status = duck.status();
    }
  }
  std::printf("%-17s %-10s %10s %10s %12s %9s %12s %9s %7s  %s\n", "query", "engine", "median_ms", "cpu_ms", "rows/s",
              "rows_out", "bytes_read", "requests", "pages", "user_id_sum");
  std::string csv = "query,engine,reps,median_s,min_s,median_cpu_s,table_rows,rows_per_s,rows_out,bytes_read,requests,"
                    "pages_read,user_id_sum,result_matches_rap\n";
  for (const Query& q : queries) {
    const Measured* rap = nullptr;
    for (const Measured& m : all) {
      if (m.query == q.name && m.engine == "rap") rap = &m;
    }
    for (const Measured& m : all) {
      if (m.query != q.name) continue;
      const double med = Median(m.times);
      const double rate = med > 0 ? static_cast<double>(a.rows) / med : 0;
      const bool match = rap && rap->rows_out == m.rows_out && rap->checksum == m.checksum;
      const double cpu = Median(m.cpu);
      std::printf("%-17s %-10s %10.2f %10.2f %12.3g %9lld %12s %9s %7s  %s%s\n", q.name.c_str(), m.engine.c_str(),
                  med * 1e3, cpu * 1e3, rate, static_cast<long long>(m.rows_out), m.bytes >= 0 ? std::to_string(m.bytes).c_str() : "-",
                  m.requests >= 0 ? std::to_string(m.requests).c_str() : "-",
                  m.pages_read >= 0 ? std::to_string(m.pages_read).c_str() : "-", m.checksum.c_str(),
                  match ? "" : "  (DIFFERS from rap)");
      csv += fmt::format("{},{},{},{:.6f},{:.6f},{:.6f},{},{:.0f},{},{},{},{},{},{}\n", q.name, m.engine, m.times.size(),
                         med, m.times.empty() ? 0 : *std::min_element(m.times.begin(), m.times.end()), cpu, a.rows, rate,
                         m.rows_out, m.bytes, m.requests, m.pages_read, m.checksum, match ? 1 : 0);
    }
  }
  if (!a.csv.empty()) {
    std::ofstream out(a.csv, std::ios::trunc);
    out << csv;
    if (!out) return Status::IOError("--csv " + a.csv + ": write failed");
  }
  if (!a.retain_fixtures) fs::remove_all(dir);
  fs::remove(dir + "/../duckdb_spec.json");
  if (!duck_status.ok()) std::fprintf(stderr, "DuckDB comparison skipped: %s\n", duck_status.ToString().c_str());
  return Status::OK();
}

}  // namespace
}  // namespace rap::bench

int main(int argc, char** argv) {
  // As the rap CLI does (rap/util/allocator.h); RAP_MALLOC_TUNING=0 measures glibc's defaults.
  rap::TuneAllocatorForScans();
  rap::bench::Args a;
  CLI::App app{"bench_scan: rap's Scanner vs DuckDB on a generated local table (selective filters, dense and "
               "sparse projections); medians, rows/s, bytes read, requests; CSV"};
  app.add_option("--rows", a.rows, "Rows in the table")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--files", a.files, "Parquet files")->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--row-group-rows", a.row_group_rows, "Rows per row group")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--reps", a.reps, "Timed repetitions per query and engine (after one warm-up)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--csv", a.csv, "Write the results as CSV to this file");
  app.add_option("--temp-dir", a.temp_dir, "Where the table is generated (default: $TMPDIR/rap-bench-scan)");
  app.add_flag("--retain-fixtures", a.retain_fixtures, "Keep the generated table (reused by the next run)");
  app.add_option("--query", a.only,
                 "Run only this query (range_dense, range_sparse, scattered_dense, scattered_sparse)");
  app.add_flag("!--no-duckdb", a.duckdb, "Skip the DuckDB comparison");
  app.add_option("--threads", a.threads,
                 "rap also runs with this many threads (ScanOptions::threads; 1 = only the one-thread run; "
                 "default: the cores, as DuckDB's default)")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  CLI11_PARSE(app, argc, argv);
  rap::Status st = rap::bench::Run(a);
  if (!st.ok()) {
    std::fprintf(stderr, "bench_scan: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
