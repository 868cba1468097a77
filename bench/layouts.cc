// bench_layouts: the point-lookup layouts of docs/layouts.md against the standard layout, on one
// table sorted by key (rows of about `--row-bytes` bytes, 1..8 rows per key). Per layout:
//   - file size, and its ratio to the standard layout;
//   - per looked-up key, the bytes and ranged requests a lookup needs when the index covers the
//     locations (standard / page per key: the page of each column holding the key's rows, one
//     request per column and page; frame per key: the key's frames, one request per column;
//     interleaved: the key's one range), computed from what the writer reported;
//   - a frame lookup actually run from the file: read the key's frames, decompress, check the
//     values count (median time per key);
//   - the analytics price: full-scan and single-column-scan time through rap's FileReader
//     (median of --reps) and the bytes those scans must read (column chunk sizes; the blob layout's
//     single-column scan is its blob column, the others' is "amount");
//   - blob: the key plus one JSON column of the other columns (rap rewrite --layout blob), framed;
//   - where a frame layout's scan time goes: the payload column's frames decompressed in one call
//     (as rap's scan does per page) against the same bytes compressed as one frame.
// Prints a table and writes CSV (--csv).
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "rap/format/blob_column.h"
#include "rap/format/writer.h"
#include "rap/io/object_store.h"
#include "rap/read/file_reader.h"

namespace {

using namespace rap;
using Clock = std::chrono::steady_clock;

struct Args {
  int64_t rows = 300'000;
  int64_t row_bytes = 100;
  int keys = 2000;
  int reps = 3;
  std::string dir = "/tmp/rap_bench_layouts";
  std::string csv = "layouts.csv";
};

RecordBatch MakeTable(const Args& a) {
  auto s = std::make_shared<Schema>();
  s->fields = {{"key", MakeType(TypeId::kInt64), false},     {"ts", MakeType(TypeId::kInt64), false},
               {"amount", MakeType(TypeId::kFloat64), true}, {"country", MakeType(TypeId::kString), false},
               {"payload", MakeType(TypeId::kString), true}};
  std::mt19937_64 rng(42);
  std::vector<int64_t> key, ts;
  std::vector<double> amount;
  std::string country, payload;
  std::vector<int32_t> co{0}, po{0};
  std::string pv, av;
  const int64_t payload_len = std::max<int64_t>(8, a.row_bytes - 8 - 8 - 8 - 2 - 8);
  int64_t k = 0;
  while (static_cast<int64_t>(key.size()) < a.rows) {
    const int n = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n && static_cast<int64_t>(key.size()) < a.rows; ++i) {
      key.push_back(k);
      ts.push_back(1'700'000'000'000 + static_cast<int64_t>(key.size()) * 997);
      amount.push_back(static_cast<double>(rng() % 100000) / 100.0);
      av.push_back(rng() % 20 != 0);
      static const char* kCountries[] = {"NL", "SE", "US", "DE", "FR", "BR", "JP", "IN"};
      country += kCountries[rng() % 8];
      co.push_back(static_cast<int32_t>(country.size()));
      for (int64_t j = 0; j < payload_len; ++j) payload.push_back(static_cast<char>('a' + rng() % 16));
      po.push_back(static_cast<int32_t>(payload.size()));
      pv.push_back(rng() % 10 != 0);
    }
    ++k;
  }
  auto bitmap = [](const std::string& valid) {
    std::string bm((valid.size() + 7) / 8, '\0');
    for (size_t i = 0; i < valid.size(); ++i) {
      if (valid[i]) bm[i >> 3] |= static_cast<char>(1 << (i & 7));
    }
    return Buffer::FromString(std::move(bm));
  };
  auto fixed = [&](DataTypePtr t, const void* data, size_t bytes, int64_t n, Buffer validity) {
    auto arr = std::make_shared<ArrayData>();
    arr->type = std::move(t);
    arr->length = n;
    arr->null_count = -1;
    arr->buffers = {std::move(validity), Buffer::Copy(data, bytes)};
    return arr;
  };
  auto strings = [&](const std::string& data, const std::vector<int32_t>& offs, Buffer validity) {
    auto arr = std::make_shared<ArrayData>();
    arr->type = MakeType(TypeId::kString);
    arr->length = static_cast<int64_t>(offs.size()) - 1;
    arr->null_count = -1;
    arr->buffers = {std::move(validity), Buffer::Copy(offs.data(), offs.size() * 4), Buffer::Copy(data)};
    return arr;
  };
  const int64_t n = static_cast<int64_t>(key.size());
  RecordBatch b;
  b.schema = s;
  b.num_rows = n;
  b.columns = {fixed(s->fields[0].type, key.data(), n * 8, n, {}), fixed(s->fields[1].type, ts.data(), n * 8, n, {}),
               fixed(s->fields[2].type, amount.data(), n * 8, n, bitmap(av)), strings(country, co, {}),
               strings(payload, po, bitmap(pv))};
  for (auto& c : b.columns) {
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) nulls += c->IsNull(i);
    c->null_count = nulls;
  }
  return b;
}

struct Layout {
  std::string name;
  parquet::WriterOptions options;
  bool blob = false;  // the table as key + blob (rap/format/blob_column.h)
};

std::vector<Layout> Layouts() {
  std::vector<Layout> out;
  auto base = [] {
    parquet::WriterOptions o;
    o.defaults.codec = parquet::Codec::ZSTD;
    return o;
  };
  out.push_back({"standard", base()});
  out.push_back({"page_per_key", base()});
  out.back().options.page_break_on = {"key"};
  out.push_back({"frame_per_key", base()});
  out.back().options.frame_break_on = {"key"};
  out.push_back({"frame_per_key_align4k", out.back().options});
  out.back().options.frame_align = 4096;
  out.push_back({"interleaved", base()});
  out.back().options.frame_break_on = {"key"};
  out.back().options.interleave = true;
  out.push_back({"interleaved_align4k", out.back().options});
  out.back().options.frame_align = 4096;
  out.push_back({"blob_frame_per_key", base(), true});
  out.back().options.frame_break_on = {"key"};
  return out;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

Result<double> ScanSeconds(const std::string& path, const std::vector<std::string>& columns, int reps) {
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    RAP_ASSIGN_OR_RETURN(io::ResolvedUrl u, io::OpenUrl(path));
    RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(u.store, u.path, {}));
    RAP_ASSIGN_OR_RETURN(read::Projection p, reader->Project(columns));
    RAP_ASSIGN_OR_RETURN(auto batches, reader->NewBatchReader(std::nullopt, p));
    int64_t rows = 0;
    while (true) {
      RAP_ASSIGN_OR_RETURN(auto b, batches->Next());
      if (!b) break;
      rows += b->num_rows;
    }
    if (rows != reader->num_rows()) return Status::Internal("scan returned the wrong row count");
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return Median(times);
}

// The payload column's frames (column 4) of a frame-per-key file: decompressed in one ZSTD call (as
// rap's scan decompresses a page), against the same raw bytes compressed as one frame at the default
// level. The difference is libzstd's per-frame work (each frame carries and builds its own entropy
// tables).
Status FrameDecodeCost(const std::string& file, const std::vector<std::vector<std::vector<parquet::FrameLocation>>>& frames,
                       int reps) {
  std::string cat;
  size_t raw = 0, count = 0;
  for (const auto& rg : frames) {
    if (rg.size() < 5) continue;
    for (const auto& f : rg[4]) {
      cat.append(file, static_cast<size_t>(f.offset), static_cast<size_t>(f.size));
      raw += static_cast<size_t>(f.raw_size);
      ++count;
    }
  }
  if (count == 0) return Status::OK();
  std::string out(raw, '\0');
  auto time_decode = [&](const std::string& in) -> Result<double> {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = Clock::now();
      const size_t n = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
      if (ZSTD_isError(n) || n != raw) return Status::Internal("payload frames do not decode");
      t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return Median(t);
  };
  RAP_ASSIGN_OR_RETURN(double framed, time_decode(cat));
  std::string one(ZSTD_compressBound(raw), '\0');
  const size_t n = ZSTD_compress(one.data(), one.size(), out.data(), raw, ZSTD_CLEVEL_DEFAULT);
  if (ZSTD_isError(n)) return Status::Internal("ZSTD_compress failed");
  one.resize(n);
  RAP_ASSIGN_OR_RETURN(double single, time_decode(one));
  fmt::print("  payload: {} frames ({} B -> {} B) decode in {:.1f} ms in one call ({:.2f} us/frame); the same bytes as "
             "one frame ({} B): {:.1f} ms\n",
             count, raw, cat.size(), framed * 1e3, framed * 1e6 / static_cast<double>(count), n, single * 1e3);
  return Status::OK();
}

Status Run(const Args& a) {
  std::filesystem::create_directories(a.dir);
  const RecordBatch table = MakeTable(a);
  std::mt19937_64 rng(7);
  const int64_t num_keys = table.columns[0]->values<int64_t>()[table.num_rows - 1] + 1;
  std::vector<int64_t> lookups(static_cast<size_t>(a.keys));
  for (auto& k : lookups) k = static_cast<int64_t>(rng() % static_cast<uint64_t>(num_keys));
  // Rows of each key.
  std::vector<int64_t> key_start(static_cast<size_t>(num_keys + 1), 0);
  for (int64_t i = 0; i < table.num_rows; ++i) ++key_start[table.columns[0]->values<int64_t>()[i] + 1];
  for (int64_t k = 0; k < num_keys; ++k) key_start[k + 1] += key_start[k];

  std::FILE* csv = std::fopen(a.csv.c_str(), "w");
  if (!csv) return Status::IOError("cannot write " + a.csv);
  std::fprintf(csv,
               "layout,rows,row_bytes,file_bytes,size_vs_standard,bytes_per_key,requests_per_key,frame_lookup_us,"
               "full_scan_s,column_scan_s,full_scan_bytes,column_scan_bytes\n");
  fmt::print("{} rows of ~{} bytes, {} keys, {} lookups; medians of {} scans\n", table.num_rows, a.row_bytes, num_keys,
             a.keys, a.reps);
  fmt::print("{:<22} {:>11} {:>7} {:>11} {:>9} {:>11} {:>10} {:>10} {:>12} {:>12}\n", "layout", "file bytes", "vs std",
             "bytes/key", "reqs/key", "frame us", "scan s", "col scan s", "scan bytes", "col bytes");
  double standard_bytes = 0;
  for (auto l : Layouts()) {
    RecordBatch data = table;
    if (l.blob) {
      RAP_ASSIGN_OR_RETURN(parquet::BlobLayout bl, parquet::PlanBlobLayout(*table.schema, {"key"}));
      RAP_ASSIGN_OR_RETURN(data, parquet::ToBlobBatch(bl, table));
      l.options.key_value_metadata.push_back({parquet::kBlobMetadataKey, parquet::BlobSpecToJson(bl.spec)});
    }
    parquet::MemorySink sink;
    RAP_ASSIGN_OR_RETURN(auto w, parquet::ParquetWriter::Open(data.schema, &sink, l.options));
    RAP_RETURN_NOT_OK(w->Write(data));
    RAP_RETURN_NOT_OK(w->Close());
    const std::string& file = sink.data();
    const std::string path = a.dir + "/" + l.name + ".parquet";
    std::ofstream(path, std::ios::binary).write(file.data(), static_cast<std::streamsize>(file.size()));
    if (l.name == "standard") standard_bytes = static_cast<double>(file.size());
    const auto& md = w->metadata();
    const auto& pages = w->page_locations();
    const auto& frames = w->frame_locations();
    const auto& keys = w->key_ranges();
    // Row group of a file row.
    std::vector<int64_t> rg_first{0};
    for (const auto& rg : md.row_groups) rg_first.push_back(rg_first.back() + rg.num_rows);
    double bytes = 0, requests = 0;
    std::vector<double> frame_us;
    for (int64_t k : lookups) {
      const int64_t r0 = key_start[k], r1 = key_start[k + 1];
      for (size_t g = 0; g + 1 < rg_first.size(); ++g) {
        const int64_t lo = std::max(r0, rg_first[g]) - rg_first[g], hi = std::min(r1, rg_first[g + 1]) - rg_first[g];
        if (lo >= hi) continue;
        if (!keys[g].empty()) {  // interleaved: one range of the framed (non-key) columns
          for (const auto& kr : keys[g]) {
            if (kr.first_row < hi && kr.first_row + kr.num_rows > lo) {
              bytes += static_cast<double>(kr.size);
              requests += 1;
            }
          }
          continue;
        }
        // Column 0 is the key: a lookup knows it and does not read it (as Index::Lookup), in every layout.
        for (size_t c = 1; c < pages[g].size(); ++c) {
          if (!frames[g][c].empty()) {
            const auto t0 = Clock::now();
            const auto& fl = frames[g][c];
            auto it = std::upper_bound(fl.begin(), fl.end(), lo,
                                       [](int64_t r, const parquet::FrameLocation& x) { return r < x.first_row; });
            if (it != fl.begin()) --it;
            for (; it != fl.end() && it->first_row < hi; ++it) {
              const auto& f = *it;
              if (f.first_row + f.num_rows <= lo) continue;
              bytes += static_cast<double>(f.size);
              std::string raw(static_cast<size_t>(f.raw_size), '\0');
              const size_t n = ZSTD_decompress(raw.data(), raw.size(), file.data() + f.offset, f.size);
              if (ZSTD_isError(n) || n != raw.size()) return Status::Internal("frame does not decode");
            }
            frame_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
            requests += 1;
            continue;
          }
          const auto& locs = pages[g][c].page_locations;
          for (size_t p = 0; p < locs.size(); ++p) {
            const int64_t end = p + 1 < locs.size() ? locs[p + 1].first_row_index : hi + rg_first[g + 1];
            if (locs[p].first_row_index < hi && end > lo) {
              bytes += locs[p].compressed_page_size;
              requests += 1;
            }
          }
        }
      }
    }
    int64_t full_bytes = 0, col_bytes = 0;
    for (const auto& rg : md.row_groups) {
      int64_t sum = 0;
      for (const auto& cc : rg.columns) sum += cc.meta_data->total_compressed_size;
      full_bytes += l.options.interleave ? *rg.total_compressed_size : sum;
      col_bytes += rg.columns[l.blob ? 1 : 2].meta_data->total_compressed_size;  // "blob" or "amount"
    }
    RAP_ASSIGN_OR_RETURN(double full_s, ScanSeconds(path, {}, a.reps));
    RAP_ASSIGN_OR_RETURN(double col_s, ScanSeconds(path, {l.blob ? "blob" : "amount"}, a.reps));
    if (l.name == "frame_per_key") {
      RAP_RETURN_NOT_OK(FrameDecodeCost(file, frames, a.reps));
    }
    const double per_key = bytes / static_cast<double>(lookups.size());
    const double req_key = requests / static_cast<double>(lookups.size());
    const double fus = Median(frame_us);
    fmt::print("{:<22} {:>11} {:>7.2f} {:>11.0f} {:>9.2f} {:>11} {:>10.3f} {:>10.3f} {:>12} {:>12}\n", l.name,
               file.size(), file.size() / standard_bytes, per_key, req_key,
               frame_us.empty() ? std::string("-") : fmt::format("{:.1f}", fus), full_s, col_s, full_bytes, col_bytes);
    std::fprintf(csv, "%s,%lld,%lld,%zu,%.4f,%.1f,%.3f,%.2f,%.4f,%.4f,%lld,%lld\n", l.name.c_str(),
                 static_cast<long long>(table.num_rows), static_cast<long long>(a.row_bytes), file.size(),
                 file.size() / standard_bytes, per_key, req_key, frame_us.empty() ? -1.0 : fus, full_s, col_s,
                 static_cast<long long>(full_bytes), static_cast<long long>(col_bytes));
  }
  std::fclose(csv);
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app{"bench_layouts: file size, lookup bytes/requests and scan cost of each point-lookup layout"};
  app.add_option("--rows", a.rows, "Rows")->capture_default_str();
  app.add_option("--row-bytes", a.row_bytes, "Approximate bytes per row")->capture_default_str();
  app.add_option("--keys", a.keys, "Keys looked up")->capture_default_str();
  app.add_option("--reps", a.reps, "Scan repetitions (median)")->capture_default_str();
  app.add_option("--dir", a.dir, "Where the files are written")->capture_default_str();
  app.add_option("--csv", a.csv, "CSV output")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  Status st = Run(a);
  if (!st.ok()) {
    std::fprintf(stderr, "bench_layouts: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
