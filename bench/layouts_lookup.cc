// bench_layouts_lookup: point lookups through the RAP index per file layout, over rap-netsim (HTTP
// with a configured latency). One random table (rows of about --row-bytes bytes, 1..8 rows per key)
// is rewritten with `rap rewrite`'s library call (index::RewriteTable: bucketed, sorted, indexed in
// the same pass, every non-key column covered) into each layout; rap-netsim serves them all. Per
// layout and latency, --keys single-key lookups of every non-key column run one after another,
// first cold (index pages not cached), then the same keys again warm (index pages cached). Per
// lookup: wall time, physical requests, payload bytes and dependent rounds as LookupStats reports
// them (rap-netsim's own request counter is printed as a cross-check). Prints medians and p99 and
// writes CSV. --batch N adds, per layout and latency, one N-key lookup against the same N keys
// looked up one at a time (time, index data pages decoded, requests).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "rap/format/writer.h"
#include "rap/index/index.h"
#include "rap/index/rewrite.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace {

using namespace rap;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

void Check(const Status& st, const std::string& what) {
  if (!st.ok()) {
    std::fprintf(stderr, "bench_layouts_lookup: %s: %s\n", what.c_str(), st.ToString().c_str());
    std::exit(1);
  }
}

// One Parquet file of shuffled rows: key int64 (1..8 rows per key), ts int64, amount double (10%
// NULL), country string, payload string (the rest of --row-bytes).
int64_t WriteInput(const std::string& path, int64_t rows, int64_t row_bytes) {
  auto s = std::make_shared<Schema>();
  s->fields = {{"key", MakeType(TypeId::kInt64), false},     {"ts", MakeType(TypeId::kInt64), false},
               {"amount", MakeType(TypeId::kFloat64), true}, {"country", MakeType(TypeId::kString), false},
               {"payload", MakeType(TypeId::kString), true}};
  std::mt19937_64 rng(42);
  std::vector<int64_t> key;
  for (int64_t k = 0; static_cast<int64_t>(key.size()) < rows; ++k) {
    const int n = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n && static_cast<int64_t>(key.size()) < rows; ++i) key.push_back(k);
  }
  const int64_t keys = key.back() + 1;
  std::shuffle(key.begin(), key.end(), rng);
  const int64_t payload_len = std::max<int64_t>(8, row_bytes - 8 - 8 - 8 - 2 - 8);
  std::vector<int64_t> ts(static_cast<size_t>(rows));
  std::vector<double> amount(static_cast<size_t>(rows));
  Buffer amount_valid = Buffer::Allocate(static_cast<size_t>((rows + 7) / 8));
  std::memset(amount_valid.mutable_data(), 0, amount_valid.size());
  std::string country, payload;
  std::vector<int32_t> co{0}, po{0};
  static const char* kCountries[] = {"DE", "FR", "US", "JP", "BR", "IN", "GB", "NL"};
  for (int64_t r = 0; r < rows; ++r) {
    ts[size_t(r)] = 1'700'000'000'000 + r * 997;
    if (rng() % 10 != 0) {
      amount[size_t(r)] = static_cast<double>(rng() % 100000) / 100.0;
      amount_valid.mutable_data()[r / 8] |= static_cast<uint8_t>(1u << (r % 8));
    }
    country += kCountries[rng() % 8];
    co.push_back(static_cast<int32_t>(country.size()));
    for (int64_t i = 0; i < payload_len; ++i) payload.push_back(static_cast<char>('a' + rng() % 16));
    po.push_back(static_cast<int32_t>(payload.size()));
  }
  auto fixed = [&](TypeId t, const void* data, size_t bytes, Buffer validity, int64_t nulls) {
    auto a = std::make_shared<ArrayData>();
    a->type = MakeType(t);
    a->length = rows;
    a->null_count = nulls;
    a->buffers = {std::move(validity), Buffer::Copy(data, bytes)};
    return a;
  };
  auto str = [&](const std::string& d, const std::vector<int32_t>& o) {
    auto a = std::make_shared<ArrayData>();
    a->type = MakeType(TypeId::kString);
    a->length = rows;
    a->buffers = {Buffer(), Buffer::Copy(o.data(), o.size() * 4), Buffer::Copy(d.data(), d.size())};
    return a;
  };
  int64_t nulls = 0;
  for (int64_t r = 0; r < rows; ++r) nulls += !((amount_valid.data()[r / 8] >> (r % 8)) & 1);
  RecordBatch b;
  b.schema = s;
  b.num_rows = rows;
  b.columns = {fixed(TypeId::kInt64, key.data(), key.size() * 8, Buffer(), 0),
               fixed(TypeId::kInt64, ts.data(), ts.size() * 8, Buffer(), 0),
               fixed(TypeId::kFloat64, amount.data(), amount.size() * 8, amount_valid, nulls), str(country, co),
               str(payload, po)};
  parquet::WriterOptions wo;
  wo.defaults.codec = parquet::Codec::ZSTD;
  auto bytes = parquet::WriteParquetToString(s, {b}, wo);
  Check(bytes.status(), "write the input");
  rap::testing::WriteStringToFile(path, *bytes);
  return keys;
}

struct LayoutSpec {
  std::string name;
  index::RewriteLayout layout;
  int64_t align;
};

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}


}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_layouts_lookup: RAP index lookups per file layout over rap-netsim"};
  int64_t rows = 200'000, row_bytes = 100;
  int keys = 60, buckets = 4, batch = 0;
  std::string latencies = "30ms,5ms", csv = "layouts_lookup.csv", temp;
  app.add_option("--rows", rows, "Table rows")->capture_default_str();
  app.add_option("--row-bytes", row_bytes, "Approximate bytes per row")->capture_default_str();
  app.add_option("--keys", keys, "Keys looked up per layout and latency (each cold, then warm)")->capture_default_str();
  app.add_option("--buckets", buckets, "rap rewrite --buckets (output files)")->capture_default_str();
  app.add_option("--latencies", latencies, "rap-netsim latencies, comma-separated")->capture_default_str();
  app.add_option("--csv", csv, "CSV output")->capture_default_str();
  app.add_option("--batch", batch,
                 "Also per layout and latency: one lookup of this many keys vs as many single-key lookups, each "
                 "through a fresh Index (0: skip)")
      ->capture_default_str();
  app.add_option("--temp-dir", temp, "Where the tables are written (default: a temporary directory)");
  CLI11_PARSE(app, argc, argv);
  rap::testing::TempDir tmp;
  const std::string root = temp.empty() ? tmp.path() : temp;
  fs::create_directories(root + "/input");
  const int64_t key_count = WriteInput(root + "/input/part-0.parquet", rows, row_bytes);
  const std::vector<LayoutSpec> layouts = {
      {"sorted", index::RewriteLayout::kSorted, 0},
      {"page_per_key", index::RewriteLayout::kPagePerKey, 0},
      {"frame_per_key", index::RewriteLayout::kFramePerKey, 0},
      {"frame_per_key_4k", index::RewriteLayout::kFramePerKey, 4096},
      {"interleaved", index::RewriteLayout::kInterleaved, 0},
      {"interleaved_4k", index::RewriteLayout::kInterleaved, 4096},
  };
  std::vector<uint64_t> sizes;
  for (const LayoutSpec& l : layouts) {
    index::RewriteOptions o;
    o.key_columns = {"key"};
    o.layout = l.layout;
    o.align = l.align;
    o.buckets = buckets;
    o.writer.defaults.codec = parquet::Codec::ZSTD;
    auto r = index::RewriteTable(root + "/input", root + "/" + l.name, o);
    Check(r.status(), "rewrite " + l.name);
    sizes.push_back(r->bytes);
    std::printf("%-18s %lld files, %.2f MB, %lld frames, rewrite %.2f s\n", l.name.c_str(),
                static_cast<long long>(r->files.size()), r->bytes / 1e6, static_cast<long long>(r->frames), r->seconds);
  }
  rap::testing::NetsimOptions no;
  no.root = root;
  auto server = rap::testing::NetsimServer::Start(no);
  Check(server.status(), "start rap-netsim");
  std::FILE* out = std::fopen(csv.c_str(), "w");
  if (!out) Check(Status::IOError(csv + ": cannot open"), "csv");
  std::fprintf(out, "latency,layout,file_bytes,size_vs_sorted,phase,keys,p50_ms,p99_ms,requests_per_key,"
                    "bytes_per_key,rounds_per_key,netsim_requests_per_key\n");
  std::printf("\n%-8s %-18s %6s %-5s %8s %8s %9s %10s %7s %9s\n", "latency", "layout", "size", "phase", "p50 ms",
              "p99 ms", "req/key", "bytes/key", "rounds", "netsim rq");
  std::mt19937_64 rng(7);
  std::vector<std::string> key_texts;
  for (int i = 0; i < keys; ++i) key_texts.push_back(std::to_string(static_cast<int64_t>(rng() % key_count)));
  for (size_t start = 0; start <= latencies.size();) {
    const size_t comma = std::min(latencies.find(',', start), latencies.size());
    const std::string latency = latencies.substr(start, comma - start);
    start = comma + 1;
    if (latency.empty()) continue;
    Check((*server)->SetProfile(latency, "unlimited"), "netsim profile");
    for (size_t li = 0; li < layouts.size(); ++li) {
      const LayoutSpec& l = layouts[li];
      index::IndexOpenOptions oo;
      auto idx = index::Index::Open((*server)->url() + "/" + l.name, oo);
      Check(idx.status(), "open the index of " + l.name);
      index::LookupOptions lo;
      lo.columns = {"ts", "amount", "country", "payload"};
      for (const char* phase : {"cold", "warm"}) {
        std::vector<double> ms;
        double requests = 0, bytes = 0, rounds = 0;
        Check((*server)->ResetStats(), "netsim reset");
        for (const std::string& kt : key_texts) {
          auto key = (*idx)->ParseKey({kt});
          Check(key.status(), "key");
          const auto t0 = Clock::now();
          auto res = (*idx)->Lookup({&*key, 1}, lo);
          ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
          Check(res.status(), "lookup in " + l.name);
          if (res->keys[0].rows.num_rows == 0) Check(Status::Internal("key " + kt + " not found"), l.name);
          requests += static_cast<double>(res->stats.requests);
          bytes += static_cast<double>(res->stats.bytes);
          rounds += res->stats.dependent_rounds;
        }
        auto ns = (*server)->Stats();
        Check(ns.status(), "netsim stats");
        const double n = static_cast<double>(key_texts.size());
        const double size_ratio = static_cast<double>(sizes[li]) / static_cast<double>(sizes[0]);
        std::printf("%-8s %-18s %6.2f %-5s %8.1f %8.1f %9.2f %10.0f %7.2f %9.2f\n", latency.c_str(), l.name.c_str(),
                    size_ratio, phase, Quantile(ms, 0.5), Quantile(ms, 0.99), requests / n, bytes / n, rounds / n,
                    static_cast<double>(ns->total.requests) / n);
        std::fprintf(out, "%s,%s,%llu,%.3f,%s,%d,%.2f,%.2f,%.2f,%.0f,%.2f,%.2f\n", latency.c_str(), l.name.c_str(),
                     static_cast<unsigned long long>(sizes[li]), size_ratio, phase, keys, Quantile(ms, 0.5),
                     Quantile(ms, 0.99), requests / n, bytes / n, rounds / n,
                     static_cast<double>(ns->total.requests) / n);
      }
    }
  }
  std::fclose(out);
  if (batch > 0) {
    // A batch against the same keys one at a time, each through a fresh Index (nothing cached):
    // the batch should cost no more than the singles (issue 36: it was quadratic in the batch).
    std::printf("\n%-8s %-18s %6s %10s %10s %12s %12s %10s %10s\n", "latency", "layout", "keys", "batch ms",
                "singles ms", "batch pages", "singles pgs", "batch req", "singles rq");
    for (size_t start = 0; start <= latencies.size();) {
      const size_t comma = std::min(latencies.find(',', start), latencies.size());
      const std::string latency = latencies.substr(start, comma - start);
      start = comma + 1;
      if (latency.empty()) continue;
      Check((*server)->SetProfile(latency, "unlimited"), "netsim profile");
      for (const LayoutSpec& l : layouts) {
        index::LookupOptions lo;
        lo.columns = {"ts", "amount", "country", "payload"};
        auto open = [&] {
          auto idx = index::Index::Open((*server)->url() + "/" + l.name, index::IndexOpenOptions{});
          Check(idx.status(), "open the index of " + l.name);
          return *idx;
        };
        std::vector<index::Key> ks;
        auto first = open();
        for (int i = 0; i < batch; ++i) {
          auto key = first->ParseKey({std::to_string(static_cast<int64_t>(rng() % key_count))});
          Check(key.status(), "key");
          ks.push_back(*key);
        }
        auto t0 = Clock::now();
        auto res = first->Lookup(ks, lo);
        const double batch_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        Check(res.status(), "batch lookup in " + l.name);
        auto singles = open();
        double singles_ms = 0;
        int64_t pages = 0, requests = 0;
        for (const index::Key& k : ks) {
          t0 = Clock::now();
          auto one = singles->Lookup({&k, 1}, lo);
          singles_ms += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
          Check(one.status(), "single lookup in " + l.name);
          pages += one->stats.index_data_pages_decoded;
          requests += one->stats.requests;
        }
        std::printf("%-8s %-18s %6d %10.1f %10.1f %12lld %12lld %10lld %10lld\n", latency.c_str(), l.name.c_str(), batch,
                    batch_ms, singles_ms, static_cast<long long>(res->stats.index_data_pages_decoded),
                    static_cast<long long>(pages), static_cast<long long>(res->stats.requests),
                    static_cast<long long>(requests));
      }
    }
  }
  Check((*server)->Stop(), "stop rap-netsim");
  return 0;
}
