// bench_zorder: box queries ("map tiles", `x BETWEEN .. AND y BETWEEN ..`) over one generated 2-D
// table in three layouts (docs/benchmarks/zorder.md): the input's natural (random) order, sorted by
// x (`rap rewrite --layout sorted --key x`), and Z-ordered by x,y (`rap rewrite --layout zorder
// --cluster-by x,y`), all with the same row group and page sizes and a page index. Square boxes of
// several selectivities at random places (the same boxes for every layout) are scanned locally and
// as s3:// tables through rap-netsim at the given latencies, every scan cold (footers and page
// indexes read again). Per layout and selectivity: the median wall time, bytes, requests and pages
// read; every layout's rows of a box are checked equal (count and a sum). Prints medians, writes CSV.
// Per layout and profile, a one-row box (the point of the row v = 0) measures the fixed cost of a
// cold query (footers, the page indexes of the row groups not pruned, a page per column:
// `point_bytes`); `data_bytes` is a query's bytes minus that. The boxes
// are also written to --boxes (selectivity,where) for bench/zorder_duckdb.py.
// Every layout is written ZSTD without dictionaries, so the layouts differ only in row order.
//
//   bench_zorder [--rows 10000000] [--page-rows 1000] [--reps 5] [--latencies 20ms,30ms] [--dir D]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "rap/format/writer.h"
#include "rap/index/rewrite.h"
#include "rap/read/expr.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "rap/util/clock.h"
#include "testing/netsim_fixture.h"

namespace {

using namespace rap;
namespace fs = std::filesystem;

template <typename T>
T Check(Result<T> r, const std::string& what) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench_zorder: %s: %s\n", what.c_str(), r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(*r);
}
void Check(const Status& st, const std::string& what) {
  if (!st.ok()) {
    std::fprintf(stderr, "bench_zorder: %s: %s\n", what.c_str(), st.ToString().c_str());
    std::exit(1);
  }
}

constexpr int64_t kXMax = 1'000'000;  // x in [0, kXMax), y in [0, 1)

// The input: files of up to 2.5 M rows in random order; x int64 uniform, y double uniform, v int64
// (the row's ordinal), s a 16-byte string.
void WriteInput(const std::string& dir, int64_t rows, int64_t rg_rows, int64_t page_rows) {
  fs::create_directories(dir);
  auto schema = std::make_shared<Schema>();
  schema->fields = {{"x", MakeType(TypeId::kInt64), false},
                    {"y", MakeType(TypeId::kFloat64), false},
                    {"v", MakeType(TypeId::kInt64), false},
                    {"s", MakeType(TypeId::kString), false}};
  std::mt19937_64 rng(42);
  const int64_t per_file = 2'500'000, chunk = 500'000;
  for (int64_t f = 0, done = 0; done < rows; ++f) {
    parquet::WriterOptions wo;
    wo.row_group_max_rows = rg_rows;
    wo.defaults.page_max_rows = page_rows;
    wo.defaults.codec = parquet::Codec::ZSTD;
    wo.defaults.dictionary = false;
    wo.write_page_index = true;
    auto sink = Check(parquet::LocalFileSink::Open(fmt::format("{}/part-{:05d}.parquet", dir, f)), "sink");
    auto w = Check(parquet::ParquetWriter::Open(schema, sink.get(), wo), "writer");
    const int64_t file_rows = std::min(per_file, rows - done);
    for (int64_t c = 0; c < file_rows; c += chunk) {
      const int64_t n = std::min(chunk, file_rows - c);
      std::vector<int64_t> x(static_cast<size_t>(n)), v(static_cast<size_t>(n));
      std::vector<double> y(static_cast<size_t>(n));
      std::string s;
      std::vector<int32_t> so{0};
      for (int64_t i = 0; i < n; ++i) {
        x[size_t(i)] = static_cast<int64_t>(rng() % kXMax);
        y[size_t(i)] = static_cast<double>(rng() >> 11) * 0x1.0p-53;
        v[size_t(i)] = done + c + i;
        for (int k = 0; k < 16; ++k) s.push_back(static_cast<char>('a' + rng() % 26));
        so.push_back(static_cast<int32_t>(s.size()));
      }
      auto fixed = [&](TypeId t, const void* d, size_t bytes) {
        auto a = std::make_shared<ArrayData>();
        a->type = MakeType(t);
        a->length = n;
        a->buffers = {Buffer(), Buffer::Copy(d, bytes)};
        return a;
      };
      auto str = std::make_shared<ArrayData>();
      str->type = MakeType(TypeId::kString);
      str->length = n;
      str->buffers = {Buffer(), Buffer::Copy(so.data(), so.size() * 4), Buffer::Copy(s)};
      RecordBatch b;
      b.schema = schema;
      b.num_rows = n;
      b.columns = {fixed(TypeId::kInt64, x.data(), x.size() * 8), fixed(TypeId::kFloat64, y.data(), y.size() * 8),
                   fixed(TypeId::kInt64, v.data(), v.size() * 8), str};
      Check(w->Write(b), "write");
    }
    Check(w->Close(), "close");
    done += file_rows;
  }
}

struct Box {
  double selectivity;
  std::string where;
};

struct Run {
  double seconds = 0;
  uint64_t bytes = 0;
  int64_t requests = 0, pages_read = 0, pages_skipped = 0, row_groups_pruned = 0, rows = 0;
  int64_t v_sum = 0;
};

Run Scan(const std::string& url, const std::string& where) {
  const double t0 = NowSeconds();
  table::TableSnapshot snap = Check(table::OpenTable(url), "open " + url);
  read::ScanSource src = Check(table::ToScanSource(snap), "source");
  read::ScanOptions o;
  o.columns = {"x", "y", "v", "s"};
  o.filter = Check(read::ParseExpr(where), "where");
  o.reader.use_metadata_cache = false;  // cold: every scan reads its footers and page indexes
  auto scanner = Check(read::Scanner::Make(std::move(src), std::move(o)), "scanner");
  Run r;
  while (true) {
    auto b = Check(scanner->Next(), "scan");
    if (!b) break;
    r.rows += b->batch.num_rows;
    const int64_t* v = b->batch.columns[2]->values<int64_t>();
    for (int64_t i = 0; i < b->batch.num_rows; ++i) r.v_sum += v[i];
  }
  r.seconds = NowSeconds() - t0;
  const read::ScanStats& st = scanner->stats();
  r.bytes = st.bytes;
  r.requests = st.requests;
  r.pages_read = st.pages_read;
  r.pages_skipped = st.pages_skipped;
  r.row_groups_pruned = st.row_groups_pruned;
  return r;
}

template <typename T>
T Median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  {
    std::error_code ec;
    const fs::path exe = fs::canonical("/proc/self/exe", ec);
    const fs::path candidate = exe.parent_path().parent_path() / "tools" / "rap-netsim";
    if (!ec && fs::exists(candidate)) setenv("RAP_NETSIM_BINARY", candidate.c_str(), 1);
  }
  CLI::App app{"bench_zorder: box queries over natural, x-sorted and Z-ordered layouts, local and over rap-netsim"};
  int64_t rows = 10'000'000, page_rows = 1000, rg_rows = 1 << 20;
  int reps = 5;
  std::string latencies = "20ms,30ms", dir = "/tmp/rap-bench-zorder", csv = "zorder.csv";
  std::string selectivities = "0.0001,0.001,0.01,0.1";
  bool reuse = false;
  app.add_option("--rows", rows, "Rows of the table")->capture_default_str();
  app.add_option("--page-rows", page_rows, "Rows per page (every layout)")->capture_default_str();
  app.add_option("--row-group-rows", rg_rows, "Rows per row group (every layout)")->capture_default_str();
  app.add_option("--reps", reps, "Boxes per selectivity (random places, the same for every layout)")
      ->capture_default_str();
  app.add_option("--selectivities", selectivities, "Box areas as fractions of the plane, comma-separated")
      ->capture_default_str();
  app.add_option("--latencies", latencies, "rap-netsim latencies, comma-separated (empty: local only)")
      ->capture_default_str();
  app.add_option("--dir", dir, "Work folder (the tables are written under DIR/bkt)")->capture_default_str();
  app.add_option("--csv", csv, "CSV output")->capture_default_str();
  app.add_flag("--reuse", reuse, "Reuse the tables of an earlier run in DIR (writes the layouts missing there)");
  std::string boxes_csv = "zorder_boxes.csv";
  app.add_option("--boxes", boxes_csv, "Where the boxes are written (for bench/zorder_duckdb.py)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const std::string root = dir + "/bkt";
  const std::vector<std::string> layouts = {"natural", "sorted_x", "zorder"};
  {
    double t0 = NowSeconds();
    if (!reuse) {
      std::error_code ec;
      fs::remove_all(dir, ec);
      WriteInput(root + "/natural", rows, rg_rows, page_rows);
      std::printf("natural: %lld rows written in %.1f s\n", static_cast<long long>(rows), NowSeconds() - t0);
    }
    for (const std::string& l : {std::string("sorted_x"), std::string("zorder")}) {
      if (reuse && fs::exists(root + "/" + l)) continue;  // --reuse: only the missing layouts are written
      index::RewriteOptions o;
      if (l == "zorder") {
        o.layout = index::RewriteLayout::kZOrder;
        o.cluster_by = {"x", "y"};
      } else {
        o.layout = index::RewriteLayout::kSorted;
        o.key_columns = {"x"};
        o.cover_all = false;
      }
      o.delta = false;
      o.memory = 256ll << 20;
      o.writer.row_group_max_rows = rg_rows;
      o.writer.defaults.page_max_rows = page_rows;
      o.writer.defaults.dictionary = false;  // every layout: PLAIN pages, no dictionary page to fetch
      o.writer.defaults.codec = parquet::Codec::ZSTD;
      t0 = NowSeconds();
      auto r = Check(index::RewriteTable(root + "/natural", root + "/" + l, o), "rewrite " + l);
      std::printf("%s: rewritten in %.1f s (%llu bytes, %lld runs spilled)\n", l.c_str(), NowSeconds() - t0,
                  static_cast<unsigned long long>(r.bytes), static_cast<long long>(r.runs_spilled));
    }
  }
  std::map<std::string, uint64_t> table_bytes;
  for (const std::string& l : layouts) {
    for (const auto& e : fs::recursive_directory_iterator(root + "/" + l)) {
      if (e.is_regular_file() && e.path().extension() == ".parquet") table_bytes[l] += e.file_size();
    }
  }

  // The boxes: squares of the given area at random places inside the plane.
  std::vector<Box> boxes;
  std::mt19937_64 rng(7);
  for (size_t at = 0; at < selectivities.size();) {
    const size_t comma = selectivities.find(',', at);
    const double sel = std::stod(selectivities.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    at = comma == std::string::npos ? selectivities.size() : comma + 1;
    const double side = std::sqrt(sel);
    for (int i = 0; i < reps; ++i) {
      const double fx = static_cast<double>(rng() >> 11) * 0x1.0p-53 * (1 - side);
      const double fy = static_cast<double>(rng() >> 11) * 0x1.0p-53 * (1 - side);
      const int64_t x0 = static_cast<int64_t>(fx * kXMax), x1 = x0 + static_cast<int64_t>(side * kXMax) - 1;
      boxes.push_back({sel, fmt::format("x BETWEEN {} AND {} AND y BETWEEN {} AND {}", x0, x1, fy, fy + side)});
    }
  }

  {
    std::ofstream bf(boxes_csv);
    bf << "selectivity,where\n";
    for (const Box& b : boxes) bf << b.selectivity << ",\"" << b.where << "\"\n";
  }
  std::string point_box;
  {
    table::TableSnapshot snap = Check(table::OpenTable(root + "/natural"), "open natural");
    read::ScanOptions o;
    o.columns = {"x", "y"};
    o.filter = Check(read::ParseExpr("v = 0"), "where");
    auto sc = Check(read::Scanner::Make(Check(table::ToScanSource(snap), "source"), std::move(o)), "scanner");
    auto b = Check(sc->Next(), "scan");
    if (!b) {
      std::fprintf(stderr, "bench_zorder: no row v = 0\n");
      return 1;
    }
    const int64_t x = b->batch.columns[0]->values<int64_t>()[0];
    const double y = b->batch.columns[1]->values<double>()[0];
    point_box = fmt::format("x BETWEEN {} AND {} AND y BETWEEN {} AND {}", x, x, y, y);
  }

  std::vector<std::string> profiles = {"local"};
  for (size_t at = 0; at < latencies.size();) {
    const size_t comma = latencies.find(',', at);
    const std::string l = latencies.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    at = comma == std::string::npos ? latencies.size() : comma + 1;
    if (!l.empty()) profiles.push_back(l);
  }
  std::ofstream out(csv);
  out << "profile,layout,selectivity,boxes,table_bytes,median_s,median_bytes,median_requests,median_pages_read,"
         "median_pages_skipped,median_rows,bytes_vs_zorder,point_bytes,median_data_bytes,data_bytes_vs_zorder\n";
  bool mismatch = false;
  for (const std::string& profile : profiles) {
    std::unique_ptr<testing::NetsimServer> server;
    std::string base = root;
    if (profile != "local") {
      testing::NetsimOptions no;
      no.root = dir;
      no.latency = profile;
      server = Check(testing::NetsimServer::Start(no), "rap-netsim");
      setenv("AWS_ENDPOINT_URL", server->url().c_str(), 1);
      setenv("AWS_ACCESS_KEY_ID", "bench", 1);
      setenv("AWS_SECRET_ACCESS_KEY", "bench", 1);
      base = "s3://bkt";
    }
    // The fixed cost per layout: a one-row box.
    std::map<std::string, uint64_t> meta;
    for (const std::string& l : layouts) {
      Run r = Scan(base + "/" + l, point_box);
      if (r.rows < 1) {
        std::fprintf(stderr, "the point box has no row in %s\n", l.c_str());
        mismatch = true;
      }
      meta[l] = r.bytes;
    }
    // Per box: every layout's run (rows checked equal).
    std::map<std::string, std::map<double, std::vector<Run>>> runs;
    for (const Box& b : boxes) {
      std::optional<Run> first;
      for (const std::string& l : layouts) {
        Run r = Scan(base + "/" + l, b.where);
        if (first && (r.rows != first->rows || r.v_sum != first->v_sum)) {
          std::fprintf(stderr, "MISMATCH %s %s: %lld rows vs %lld\n", l.c_str(), b.where.c_str(),
                       static_cast<long long>(r.rows), static_cast<long long>(first->rows));
          mismatch = true;
        }
        if (!first) first = r;
        runs[l][b.selectivity].push_back(r);
      }
    }
    std::printf("\n%s (one-row box bytes: natural %llu, sorted_x %llu, zorder %llu)\n"
                "%-9s %8s %10s %12s %9s %10s %9s %11s %11s\n",
                profile.c_str(), static_cast<unsigned long long>(meta["natural"]),
                static_cast<unsigned long long>(meta["sorted_x"]), static_cast<unsigned long long>(meta["zorder"]),
                "layout", "select.", "median ms", "median bytes", "requests", "pages rd", "rows", "bytes/zord",
                "data/zord");
    for (const std::string& l : layouts) {
      for (auto& [sel, rs] : runs[l]) {
        std::vector<double> s;
        std::vector<uint64_t> by, zby;
        std::vector<int64_t> rq, pr, ps, rw;
        for (const Run& r : rs) {
          s.push_back(r.seconds);
          by.push_back(r.bytes);
          rq.push_back(r.requests);
          pr.push_back(r.pages_read);
          ps.push_back(r.pages_skipped);
          rw.push_back(r.rows);
        }
        for (const Run& r : runs["zorder"][sel]) zby.push_back(r.bytes);
        const double ratio = static_cast<double>(Median(by)) / static_cast<double>(std::max<uint64_t>(1, Median(zby)));
        auto data = [&](uint64_t b, const std::string& layout) { return b > meta[layout] ? b - meta[layout] : 0; };
        const uint64_t data_bytes = data(Median(by), l), z_data = data(Median(zby), "zorder");
        const double data_ratio = static_cast<double>(data_bytes) / static_cast<double>(std::max<uint64_t>(1, z_data));
        std::printf("%-9s %7.3g%% %10.1f %12llu %9lld %10lld %9lld %10.1fx %10.1fx\n", l.c_str(), sel * 100,
                    Median(s) * 1000, static_cast<unsigned long long>(Median(by)), static_cast<long long>(Median(rq)),
                    static_cast<long long>(Median(pr)), static_cast<long long>(Median(rw)), ratio, data_ratio);
        out << fmt::format("{},{},{},{},{},{:.4f},{},{},{},{},{},{:.2f},{},{},{:.2f}\n", profile, l, sel, rs.size(),
                           table_bytes[l], Median(s), Median(by), Median(rq), Median(pr), Median(ps), Median(rw), ratio,
                           meta[l], data_bytes, data_ratio);
      }
    }
    if (server) Check(server->Stop(), "stop rap-netsim");
  }
  std::printf("\nwrote %s\n", csv.c_str());
  return mismatch ? 2 : 0;
}
