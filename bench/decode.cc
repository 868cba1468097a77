// Decode throughput of rap's reader against DuckDB's, single-threaded, on the same files: one-column
// Parquet files of --rows rows (int64, double, string; PLAIN and dictionary; uncompressed, Snappy,
// ZSTD) written by rap's writer, read through FileReader on the local store (projection: the one
// column), consuming every value the way the DuckDB query does (count and sum, or summed string
// lengths; the results are cross-checked). DuckDB runs through bench/decode/duckdb_decode.mjs (@duckdb/node-api
// from tests/npm, SET threads=1); without node or the module the comparison is skipped with a note.
// Also three DuckDB-written files (snappy, zstd, uncompressed) of the shape DuckDB users have: 4
// columns i64, f64, s (string, 10% NULL), low_card (16 values), row groups of 122,880 rows, and the
// same aggregate on both sides: sum(i64), sum(f64), sum(length(s)), sum(low_card).
// Footer decode time for wide metadata is bench_footer's job: it is run when it sits beside this
// binary. Prints medians (uncompressed MB/s = PLAIN-encoded value bytes / s, and rows/s) per CPU
// second of the process (robust on a shared machine; wall-clock medians go to the CSV too), writes CSV.
//
//   bench_decode [--rows 1000000] [--reps 5] [--csv decode.csv] [--temp-dir DIR] [--retain-fixtures]
//                [--no-duckdb] [--no-footer] [--only TEXT] [--source-dir DIR]
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rap/format/writer.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"
#include "rap/util/allocator.h"

namespace {

namespace fs = std::filesystem;
using namespace rap;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_decode: %s\n", what.c_str());
  std::exit(1);
}
void Check(const Status& st, const std::string& what) {
  if (!st.ok()) Die(what + ": " + st.ToString());
}

struct Options {
  int64_t rows = 1'000'000;
  int reps = 5;
  int rounds = 3;  // rap and DuckDB timed in turn, this many times; medians over all rounds' runs
  std::string csv = "decode.csv";
  std::string temp_dir;
  std::string source_dir;
  bool retain = false;
  bool duckdb = true;
  bool rap_only = false;  // DuckDB writes its fixtures, but only rap is timed (for profiling)
  bool footer = true;
  std::string only;  // run only the cases whose name contains this
};

void Usage() {
  std::printf(
      "bench_decode: decode throughput of rap's FileReader vs DuckDB (single-threaded) on int64, double and\n"
      "string columns, PLAIN and dictionary, uncompressed/Snappy/ZSTD. Prints medians, writes CSV.\n\n"
      "  --rows N            rows per file (default 1000000)\n"
      "  --reps N            timed runs per case and round, after one warm-up (default 5)\n"
      "  --rounds N          rap and DuckDB are timed in turn N times (default 3); medians over all runs\n"
      "  --csv FILE          CSV output (default decode.csv)\n"
      "  --temp-dir DIR      where the fixtures are written (default: the system temp directory)\n"
      "  --retain-fixtures   keep the Parquet files (default: deleted at the end)\n"
      "  --no-duckdb         skip the DuckDB comparison (and the DuckDB-written fixtures)\n"
      "  --rap-only          DuckDB writes its fixtures, but only rap's reader is timed (for profiling)\n"
      "  --no-footer         do not run bench_footer\n"
      "  --only TEXT         only the cases whose name contains TEXT (e.g. \"string dict\")\n"
      "  --source-dir DIR    rap's source tree (default: found above this binary or the working directory)\n");
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      Usage();
      std::exit(0);
    } else if (a == "--rows") {
      o.rows = std::max<int64_t>(1, std::atoll(value().c_str()));
    } else if (a == "--reps") {
      o.reps = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--rounds") {
      o.rounds = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--rap-only") {
      o.rap_only = true;
    } else if (a == "--csv") {
      o.csv = value();
    } else if (a == "--temp-dir") {
      o.temp_dir = value();
    } else if (a == "--source-dir") {
      o.source_dir = value();
    } else if (a == "--retain-fixtures") {
      o.retain = true;
    } else if (a == "--no-duckdb") {
      o.duckdb = false;
    } else if (a == "--only") {
      o.only = value();
    } else if (a == "--no-footer") {
      o.footer = false;
    } else {
      Usage();
      Die("unknown argument " + a);
    }
  }
  return o;
}

enum class Kind { kInt64, kDouble, kString, kDuckDb4 };
const char* KindName(Kind k) {
  return k == Kind::kInt64 ? "int64" : k == Kind::kDouble ? "double" : k == Kind::kString ? "string" : "duckdb4";
}

// 4096 distinct values per type (so dictionary encoding never falls back), drawn uniformly.
constexpr int kDistinct = 4096;

ArrayPtr MakeColumn(Kind kind, int64_t begin, int64_t n, const std::vector<std::string>& strings,
                    const std::vector<int64_t>& ints, const std::vector<double>& doubles) {
  auto a = std::make_shared<ArrayData>();
  a->length = n;
  a->buffers.push_back(Buffer());  // no validity: no nulls
  std::mt19937_64 rng(static_cast<uint64_t>(begin) * 7919 + 1);
  std::uniform_int_distribution<int> pick(0, kDistinct - 1);
  if (kind == Kind::kString) {
    a->type = MakeType(TypeId::kString);
    std::vector<int32_t> offsets{0};
    std::string data;
    for (int64_t i = 0; i < n; ++i) {
      data += strings[static_cast<size_t>(pick(rng))];
      offsets.push_back(static_cast<int32_t>(data.size()));
    }
    a->buffers.push_back(Buffer::Copy(offsets.data(), offsets.size() * sizeof(int32_t)));
    a->buffers.push_back(Buffer::FromString(std::move(data)));
  } else if (kind == Kind::kInt64) {
    a->type = MakeType(TypeId::kInt64);
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (auto& x : v) x = ints[static_cast<size_t>(pick(rng))];
    a->buffers.push_back(Buffer::Copy(v.data(), v.size() * sizeof(int64_t)));
  } else {
    a->type = MakeType(TypeId::kFloat64);
    std::vector<double> v(static_cast<size_t>(n));
    for (auto& x : v) x = doubles[static_cast<size_t>(pick(rng))];
    a->buffers.push_back(Buffer::Copy(v.data(), v.size() * sizeof(double)));
  }
  return a;
}

struct Timing {
  double wall_s = -1;  // < 0: not measured
  double cpu_s = -1;
  std::vector<double> wall_runs, cpu_runs;  // every timed run of every round
  void Add(const std::vector<double>& wall, const std::vector<double>& cpu) {
    wall_runs.insert(wall_runs.end(), wall.begin(), wall.end());
    cpu_runs.insert(cpu_runs.end(), cpu.begin(), cpu.end());
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v.empty() ? -1.0 : v[v.size() / 2];
    };
    wall_s = median(wall_runs);
    cpu_s = median(cpu_runs);
  }
};

struct Case {
  Kind kind = Kind::kInt64;
  bool dictionary = false;
  parquet::Codec codec = parquet::Codec::UNCOMPRESSED;
  std::string path;
  uint64_t file_bytes = 0;
  double plain_bytes = 0;  // PLAIN-encoded size of the values (8 per number, 4 + length per string)
  Timing ours, duck;
  std::string ours_result, duck_result;
  std::string Name() const {
    if (kind == Kind::kDuckDb4) return fmt::format("duckdb 4-column {}", rap::codec::CodecName(codec));
    return fmt::format("{} {} {}", KindName(kind), dictionary ? "dict" : "plain", rap::codec::CodecName(codec));
  }
};

// Writes the fixture of one case; returns the PLAIN-encoded value bytes.
double WriteFixture(const Case& c, int64_t rows, const std::vector<std::string>& strings,
                    const std::vector<int64_t>& ints, const std::vector<double>& doubles) {
  parquet::WriterOptions wo;
  wo.row_group_max_rows = rows;  // one row group, as a typical 1M-row file
  wo.row_group_max_bytes = 0;
  wo.defaults.dictionary = c.dictionary;
  wo.defaults.dictionary_max_bytes = 64 << 20;
  wo.defaults.encoding = parquet::Encoding::PLAIN;
  wo.defaults.codec = c.codec;
  auto schema = std::make_shared<Schema>();
  schema->fields.push_back(Field{"v", MakeColumn(c.kind, 0, 1, strings, ints, doubles)->type, true});
  auto sink = parquet::LocalFileSink::Open(c.path);
  Check(sink.status(), "open " + c.path);
  auto writer = parquet::ParquetWriter::Open(schema, sink->get(), wo);
  Check(writer.status(), "writer");
  double plain = 0;
  constexpr int64_t kBatch = 64 * 1024;
  for (int64_t b = 0; b < rows; b += kBatch) {
    RecordBatch batch;
    batch.schema = schema;
    batch.num_rows = std::min(kBatch, rows - b);
    batch.columns.push_back(MakeColumn(c.kind, b, batch.num_rows, strings, ints, doubles));
    plain += c.kind == Kind::kString
                 ? static_cast<double>(batch.columns[0]->buffers[2].size()) + 4.0 * static_cast<double>(batch.num_rows)
                 : 8.0 * static_cast<double>(batch.num_rows);
    Check((*writer)->Write(batch), "write " + c.path);
  }
  Check((*writer)->Close(), "close " + c.path);
  if (c.dictionary && (*writer)->summary().num_dictionary_fallbacks != 0) Die(c.path + ": dictionary fell back");
  return plain;
}

int64_t CountNulls(const ArrayData& a) {
  int64_t n = 0;
  for (int64_t i = 0; i < a.length; ++i) n += a.IsNull(i) ? 1 : 0;
  return n;
}

std::string Int128ToString(__int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  for (; u > 0; u /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
  return neg ? "-" + s : s;
}

// DuckDB's double sum and ours add in different orders: compare to 6 significant digits.
std::string DuckResult(const std::string& r, Kind kind) {
  if (kind == Kind::kDuckDb4) {  // i64 sum, f64 sum, length sum, low_card sum
    const size_t a = r.find(','), b = a == std::string::npos ? a : r.find(',', a + 1);
    if (b == std::string::npos) return r;
    return fmt::format("{},{:.6g}{}", r.substr(0, a), std::strtod(r.c_str() + a + 1, nullptr), r.substr(b));
  }
  if (kind != Kind::kDouble) return r;
  const size_t comma = r.find(',');
  if (comma == std::string::npos) return r;
  return fmt::format("{},{:.6g}", r.substr(0, comma), std::strtod(r.c_str() + comma + 1, nullptr));
}

// Sum of doubles in four partial sums: one serial chain of dependent additions would dominate.
double SumDoubles(const double* v, int64_t n) {
  double s[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int k = 0; k < 4; ++k) s[k] += v[i + k];
  }
  for (; i < n; ++i) s[0] += v[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// The DuckDB-written 4-column file read through FileReader (all four columns), computing
// sum(i64), sum(f64), sum(length(s)), sum(low_card) as DuckDB does (NULLs do not count).
std::string ReadDuckDb4(const std::string& path, double* plain_bytes) {
  auto url = io::OpenUrl(path);
  Check(url.status(), path);
  read::FileReaderOptions ro;
  ro.use_metadata_cache = false;
  auto reader = read::FileReader::Open(url->store, url->path, ro);
  Check(reader.status(), path);
  auto proj = (*reader)->Project({"i64", "f64", "s", "low_card"});
  Check(proj.status(), path);
  auto batches = (*reader)->NewBatchReader(std::nullopt, *proj);
  Check(batches.status(), path);
  __int128 i64 = 0;
  int64_t lengths = 0, low = 0, rows = 0, strings = 0;
  double f64 = 0;
  while (true) {
    auto b = (*batches)->Next();
    Check(b.status(), path);
    if (!*b) break;
    const auto& cols = (*b)->columns;
    const int64_t n = (*b)->num_rows;
    rows += n;
    const ArrayData& a = *cols[0];
    const ArrayData& d = *cols[1];
    const ArrayData& s = *cols[2];
    const ArrayData& l = *cols[3];
    // NULL slots hold 0 (numbers) and add no string bytes, so plain sums are the SQL sums.
    const int64_t* iv = a.values<int64_t>();
    for (int64_t i = 0; i < n; ++i) i64 += iv[i];
    f64 += SumDoubles(d.values<double>(), n);
    lengths += s.offsets()[n] - s.offsets()[0];
    if (plain_bytes) strings += n - (s.buffers[0].empty() ? 0 : CountNulls(s));  // for the MB/s figure only
    const int64_t* lv = l.values<int64_t>();
    for (int64_t i = 0; i < n; ++i) low += lv[i];
  }
  // PLAIN-encoded value bytes: 8 per number, 4 + length per non-NULL string.
  if (plain_bytes) *plain_bytes = 24.0 * static_cast<double>(rows) + 4.0 * static_cast<double>(strings) + static_cast<double>(lengths);
  return fmt::format("{},{:.6g},{},{}", Int128ToString(i64), f64, lengths, low);
}

// One full read of the column through FileReader, consuming every value like the DuckDB query.
std::string ReadOnce(const std::string& path, Kind kind) {
  if (kind == Kind::kDuckDb4) return ReadDuckDb4(path, nullptr);
  auto url = io::OpenUrl(path);
  Check(url.status(), path);
  read::FileReaderOptions ro;
  ro.use_metadata_cache = false;  // parse the footer every run, as DuckDB does here
  auto reader = read::FileReader::Open(url->store, url->path, ro);
  Check(reader.status(), path);
  auto proj = (*reader)->Project({"v"});
  Check(proj.status(), path);
  auto batches = (*reader)->NewBatchReader(std::nullopt, *proj);
  Check(batches.status(), path);
  int64_t count = 0, lengths = 0;
  __int128 isum = 0;
  double dsum = 0;
  while (true) {
    auto b = (*batches)->Next();
    Check(b.status(), path);
    if (!*b) break;
    const ArrayData& a = *(*b)->columns[0];
    count += a.length - (a.buffers[0].empty() ? 0 : CountNulls(a));
    if (kind == Kind::kString) {
      lengths += a.offsets()[a.length] - a.offsets()[0];
    } else if (kind == Kind::kInt64) {
      const int64_t* v = a.values<int64_t>();
      for (int64_t i = 0; i < a.length; ++i) isum += v[i];
    } else {
      dsum += SumDoubles(a.values<double>(), a.length);
    }
  }
  if (kind == Kind::kString) return fmt::format("{},{}", count, lengths);
  if (kind == Kind::kInt64) return fmt::format("{},{}", count, Int128ToString(isum));
  return fmt::format("{},{:.6g}", count, dsum);
}

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Adds `reps` runs after one warm-up run (wall and CPU seconds) to *t.
void Measure(int reps, const std::function<void()>& fn, Timing* t) {
  fn();
  std::vector<double> wall, cpu;
  for (int r = 0; r < reps; ++r) {
    const auto a = std::chrono::steady_clock::now();
    const double c = ProcessCpuSeconds();
    fn();
    cpu.push_back(ProcessCpuSeconds() - c);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  t->Add(wall, cpu);
}

fs::path FindSourceDir(const Options& o, const char* argv0) {
  if (!o.source_dir.empty()) return o.source_dir;
  std::error_code ec;
  for (fs::path start : {fs::weakly_canonical(fs::path(argv0), ec).parent_path(), fs::current_path()}) {
    for (fs::path p = start; !p.empty(); p = p.parent_path()) {
      if (fs::exists(p / "bench/decode/duckdb_decode.mjs")) return p;
      if (p == p.parent_path()) break;
    }
  }
  return {};
}

std::string RunCommand(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    *status = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  *status = pclose(p);
  return out;
}

// Why DuckDB cannot run ("" when it can).
std::string DuckDbMissing(const fs::path& src) {
  int st = 0;
  RunCommand("command -v node >/dev/null 2>&1", &st);
  if (st != 0) return "node is not installed; the DuckDB comparison is skipped (scripts/install-deps.sh)";
  if (src.empty() || !fs::exists(src / "tests/npm/node_modules/@duckdb/node-api/package.json")) {
    return "@duckdb/node-api is not installed (scripts/install-npm-test-deps.sh); DuckDB skipped";
  }
  return "";
}

// The DuckDB-written 4-column fixtures (one per codec), written by duckdb_decode.mjs --write.
void AddDuckDbFixtures(const Options& o, const fs::path& src, const fs::path& dir, std::vector<Case>* cases) {
  if (!DuckDbMissing(src).empty()) return;
  for (parquet::Codec codec : {parquet::Codec::UNCOMPRESSED, parquet::Codec::SNAPPY, parquet::Codec::ZSTD,
                               parquet::Codec::LZ4_RAW, parquet::Codec::GZIP}) {
    Case c;
    c.kind = Kind::kDuckDb4;
    c.codec = codec;
    if (!o.only.empty() && c.Name().find(o.only) == std::string::npos) continue;
    c.path = (dir / fmt::format("duckdb4_{}.parquet", rap::codec::CodecName(codec))).string();
    std::string codec_name = rap::codec::CodecName(codec);
    std::transform(codec_name.begin(), codec_name.end(), codec_name.begin(), ::tolower);
    int st = 0;
    const std::string out = RunCommand(
        fmt::format("node '{}' --npm-dir '{}' --write '{}' --codec {} --rows {} 2>&1",
                    (src / "bench/decode/duckdb_decode.mjs").string(), (src / "tests/npm").string(), c.path,
                    codec_name, o.rows),
        &st);
    if (st != 0) Die("DuckDB could not write " + c.path + ": " + out);
    c.file_bytes = fs::file_size(c.path);
    ReadDuckDb4(c.path, &c.plain_bytes);
    cases->push_back(std::move(c));
  }
}

// Adds one round of DuckDB runs per fixture; false with a printed note when node or the module is
// missing or the run failed.
bool RunDuckdb(const Options& o, const fs::path& src, std::vector<Case>* cases) {
  int st = 0;
  if (const std::string why = DuckDbMissing(src); !why.empty()) {
    std::printf("note: %s\n", why.c_str());
    return false;
  }
  std::string cmd = fmt::format("node '{}' --npm-dir '{}' --reps {} --column v", (src / "bench/decode/duckdb_decode.mjs").string(),
                                (src / "tests/npm").string(), o.reps);
  for (const Case& c : *cases) cmd += " '" + c.path + "'";
  const std::string out = RunCommand(cmd, &st);
  if (st != 0) {
    std::printf("note: the DuckDB run failed (status %d); comparison skipped\n", st);
    return false;
  }
  size_t pos = 0;
  while (pos < out.size()) {
    size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    auto j = nlohmann::json::parse(out.substr(pos, nl - pos), nullptr, false);
    pos = nl + 1;
    if (j.is_discarded() || !j.is_object()) continue;
    for (Case& c : *cases) {
      if (c.path != j.value("file", "")) continue;
      c.duck.Add(j.value("runs_s", std::vector<double>{}), j.value("cpu_runs_s", std::vector<double>{}));
      std::string r;
      for (const auto& v : j["result"]) r += (r.empty() ? "" : ",") + (v.is_string() ? v.get<std::string>() : v.dump());
      c.duck_result = DuckResult(r, c.kind);
    }
  }
  return true;
}

std::string Load() {
  double l[3] = {0, 0, 0};
  if (getloadavg(l, 3) != 3) return "?";
  return fmt::format("{:.2f} {:.2f} {:.2f}", l[0], l[1], l[2]);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  // As the rap executables and bench_scan do (rap/util/allocator.h): freed page and value buffers are
  // reused instead of being page-faulted in again for every column chunk.
  rap::TuneAllocatorForScans();
  const fs::path dir = fs::path(o.temp_dir.empty() ? fs::temp_directory_path().string() : o.temp_dir) /
                       fmt::format("rap-bench-decode-{}", getpid());
  fs::create_directories(dir);

  std::mt19937_64 rng(42);
  std::vector<std::string> strings;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  std::uniform_int_distribution<int> len(4, 28), ch('a', 'z');
  for (int i = 0; i < kDistinct; ++i) {
    std::string s(static_cast<size_t>(len(rng)), ' ');
    for (char& c : s) c = static_cast<char>(ch(rng));
    strings.push_back(std::move(s));
    ints.push_back(static_cast<int64_t>(rng() >> 1) - (int64_t{1} << 61));
    doubles.push_back(std::normal_distribution<double>(0, 1e6)(rng));
  }

  std::vector<Case> cases;
  for (Kind k : {Kind::kInt64, Kind::kDouble, Kind::kString}) {
    for (bool dict : {false, true}) {
      for (parquet::Codec codec : {parquet::Codec::UNCOMPRESSED, parquet::Codec::SNAPPY, parquet::Codec::ZSTD}) {
        Case c;
        c.kind = k;
        c.dictionary = dict;
        c.codec = codec;
        if (!o.only.empty() && c.Name().find(o.only) == std::string::npos) continue;
        c.path = (dir / fmt::format("{}_{}_{}.parquet", KindName(k), dict ? "dict" : "plain",
                                    rap::codec::CodecName(codec)))
                     .string();
        c.plain_bytes = WriteFixture(c, o.rows, strings, ints, doubles);
        c.file_bytes = fs::file_size(c.path);
        cases.push_back(std::move(c));
      }
    }
  }
  const fs::path src = FindSourceDir(o, argv[0]);
  if (o.duckdb) AddDuckDbFixtures(o, src, dir, &cases);
  std::printf("%zu fixtures of %lld rows in %s\n", cases.size(), static_cast<long long>(o.rows), dir.c_str());

  // Rounds: every case in rap, then every case in DuckDB, again and again, so that both see the
  // same load; the medians are over all rounds' runs.
  const std::string load_before = Load();
  bool duck = o.duckdb && !o.rap_only;
  for (int round = 0; round < o.rounds; ++round) {
    for (Case& c : cases) {
      Measure(o.reps, [&] { c.ours_result = ReadOnce(c.path, c.kind); }, &c.ours);
    }
    if (duck) duck = RunDuckdb(o, src, &cases);
    std::printf("round %d of %d done (load average %s)\n", round + 1, o.rounds, Load().c_str());
    std::fflush(stdout);
  }
  std::printf("load average (1, 5, 15 min): %s before, %s after\n", load_before.c_str(), Load().c_str());

  auto mbs = [](const Case& c, double s) { return s > 0 ? c.plain_bytes / s / 1e6 : 0.0; };
  auto mrows = [&](double s) { return s > 0 ? static_cast<double>(o.rows) / s / 1e6 : 0.0; };
  std::printf("\nmedians of %d runs (%d rounds of %d); throughput per CPU second (wall-clock figures are in the CSV)\n",
              o.reps * o.rounds, o.rounds, o.reps);
  std::printf("%-24s %8s %8s | %9s %10s | %9s %10s | %8s\n", "case", "file MB", "plain MB", "rap MB/s",
              "rap Mrow/s", "duck MB/s", "duck Mrow/s", "rap/duck");
  for (const Case& c : cases) {
    const bool duck = c.duck.cpu_s > 0;
    const bool agree = !duck || c.duck_result == c.ours_result;
    std::string duck_cols = "        -          -";
    if (duck) duck_cols = fmt::format("{:9.1f} {:10.2f}", mbs(c, c.duck.cpu_s), mrows(c.duck.cpu_s));
    std::printf("%-24s %8.2f %8.2f | %9.1f %10.2f | %s | %7s %s\n", c.Name().c_str(),
                static_cast<double>(c.file_bytes) / 1e6, c.plain_bytes / 1e6, mbs(c, c.ours.cpu_s),
                mrows(c.ours.cpu_s), duck_cols.c_str(), duck ? fmt::format("{:.2f}x", c.duck.cpu_s / c.ours.cpu_s).c_str() : "-",
                agree ? "" : ("RESULTS DIFFER: rap " + c.ours_result + ", duckdb " + c.duck_result).c_str());
  }
  std::printf("rap/duck > 1: rap is faster. MB/s: PLAIN-encoded value bytes (8 per number, 4 + length per string).\n");

  // The DuckDB-written 4-column files in milliseconds per run (CPU and wall) and the 1.2x target.
  bool header = false;
  for (const Case& c : cases) {
    if (c.kind != Kind::kDuckDb4) continue;
    if (!header) {
      std::printf("\n%-30s | %8s %8s %6s | %8s %8s %6s | %s\n", "DuckDB-written 4 columns", "rap cpu", "duck cpu",
                  "ratio", "rap wall", "duckwall", "ratio", "1.2x (cpu)");
      header = true;
    }
    const bool duck = c.duck.cpu_s > 0;
    std::printf("%-30s | %7.1fms %7.1fms %5.2fx | %7.1fms %7.1fms %5.2fx | %s\n", c.Name().c_str(), c.ours.cpu_s * 1e3,
                duck ? c.duck.cpu_s * 1e3 : 0.0, duck ? c.duck.cpu_s / c.ours.cpu_s : 0.0, c.ours.wall_s * 1e3,
                duck ? c.duck.wall_s * 1e3 : 0.0, duck ? c.duck.wall_s / c.ours.wall_s : 0.0,
                !duck ? "-" : c.duck.cpu_s / c.ours.cpu_s >= 1.2 ? "met" : "missed");
  }

  if (FILE* f = std::fopen(o.csv.c_str(), "w")) {
    std::fprintf(f,
                 "type,encoding,codec,rows,reps,file_bytes,plain_bytes,rap_cpu_s,rap_wall_s,rap_mb_per_cpu_s,"
                 "rap_rows_per_cpu_s,duckdb_cpu_s,duckdb_wall_s,duckdb_mb_per_cpu_s,duckdb_rows_per_cpu_s,results_agree\n");
    for (const Case& c : cases) {
      const bool duck = c.duck.cpu_s > 0;
      std::string duck_cols = ",,,,";
      if (duck) {
        duck_cols = fmt::format("{:.6f},{:.6f},{:.1f},{:.0f},{}", c.duck.cpu_s, c.duck.wall_s, mbs(c, c.duck.cpu_s),
                                mrows(c.duck.cpu_s) * 1e6, c.duck_result == c.ours_result ? "yes" : "no");
      }
      std::fprintf(f, "%s,%s,%s,%lld,%d,%llu,%.0f,%.6f,%.6f,%.1f,%.0f,%s\n", KindName(c.kind),
                   c.kind == Kind::kDuckDb4 ? "duckdb" : c.dictionary ? "dictionary" : "plain", rap::codec::CodecName(c.codec), static_cast<long long>(o.rows),
                   o.reps * o.rounds, static_cast<unsigned long long>(c.file_bytes), c.plain_bytes, c.ours.cpu_s, c.ours.wall_s,
                   mbs(c, c.ours.cpu_s), mrows(c.ours.cpu_s) * 1e6, duck_cols.c_str());
    }
    std::fclose(f);
    std::printf("wrote %s\n", o.csv.c_str());
  }

  if (!o.retain) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  } else {
    std::printf("fixtures kept in %s\n", dir.c_str());
  }

  // Footer decode for wide metadata: bench_footer (not duplicated here).
  const fs::path footer = fs::weakly_canonical(fs::path(argv[0])).parent_path() / "bench_footer";
  if (o.footer && fs::exists(footer)) {
    std::printf("\nfooter decode (bench_footer --reps %d):\n", std::max(o.reps, 11));
    std::fflush(stdout);
    int st = 0;
    const fs::path footer_csv = fs::path(o.csv).replace_extension(".footer.csv");
    std::fputs(RunCommand(fmt::format("'{}' --reps {} --csv '{}'", footer.string(), std::max(o.reps, 11),
                                      footer_csv.string()),
                          &st)
                   .c_str(),
               stdout);
  }
  return 0;
}
