// Micro-benchmark of the format layer's byte-level decoders: value encodings, the RLE/bit-packed
// hybrid and the codecs, each on about 1M values of synthetic data encoded by rap's own encoders.
// Prints the median of the repetitions (decoded MB/s and Mvalues/s) and writes the medians as CSV.
// Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that other processes competing for
// the cores do not distort the single-threaded figures.
//
//   bench_decode_primitives [--reps N] [--values N] [--csv PATH]
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "rap/codec/codec.h"
#include "rap/format/encoding.h"
#include "rap/format/levels.h"

namespace {

using namespace rap;
using namespace rap::parquet;

struct Row {
  std::string name;
  double mb_per_s;
  double mvalues_per_s;
};

std::span<const uint8_t> AsSpan(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

void Check(const Status& st, const std::string& what) {
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s\n", what.c_str(), st.ToString().c_str());
    std::exit(1);
  }
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs `fn` reps times (after one warm-up run); returns the median CPU seconds.
double Median(int reps, const std::function<void()>& fn) {
  fn();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double a = ThreadCpuSeconds();
    fn();
    t.push_back(ThreadCpuSeconds() - a);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::string EncodeFixed(Encoding e, Type t, const void* values, int64_t n, int32_t dict_size = 0) {
  auto enc = MakeValueEncoder(e, t, 0, dict_size);
  Check(enc.status(), "encoder");
  if (e == Encoding::RLE_DICTIONARY) {
    (*enc)->PutIndices(static_cast<const int32_t*>(values), n);
  } else {
    (*enc)->PutFixed(static_cast<const uint8_t*>(values), n);
  }
  std::string out;
  (*enc)->Finish(&out);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 9;
  int64_t n = 1 << 20;
  std::string csv = "decode_primitives.csv";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--reps") reps = std::max(1, std::atoi(argv[i + 1]));
    if (a == "--values") n = std::max<int64_t>(1024, std::atoll(argv[i + 1]));
    if (a == "--csv") csv = argv[i + 1];
  }
  std::mt19937_64 rng(1);
  std::vector<Row> rows;
  auto run = [&](const std::string& name, double out_bytes, const std::function<void()>& fn) {
    const double s = Median(reps, fn);
    rows.push_back({name, out_bytes / s / 1e6, static_cast<double>(n) / s / 1e6});
    std::printf("%-40s %10.1f MB/s %10.1f Mvalues/s\n", name.c_str(), rows.back().mb_per_s, rows.back().mvalues_per_s);
  };

  // Fixed-width values.
  std::vector<int64_t> i64(static_cast<size_t>(n));
  int64_t ts = 1'700'000'000'000;
  for (auto& v : i64) v = ts += static_cast<int64_t>(rng() % 1000);
  std::vector<double> dbl(static_cast<size_t>(n));
  for (auto& v : dbl) v = std::normal_distribution<double>()(rng);
  std::vector<uint8_t> out(static_cast<size_t>(n) * 8);
  auto fixed = [&](const char* name, Encoding e, Type t, const void* values, int w) {
    const std::string enc = EncodeFixed(e, t, values, n);
    run(name, static_cast<double>(n * w), [&] {
      auto dec = MakeValueDecoder(e, t, 0, AsSpan(enc), n);
      Check(dec.status(), name);
      Check((*dec)->DecodeFixed(out.data(), n), name);
    });
  };
  fixed("PLAIN INT64", Encoding::PLAIN, Type::INT64, i64.data(), 8);
  fixed("PLAIN DOUBLE", Encoding::PLAIN, Type::DOUBLE, dbl.data(), 8);
  fixed("DELTA_BINARY_PACKED INT64 (timestamps)", Encoding::DELTA_BINARY_PACKED, Type::INT64, i64.data(), 8);
  std::vector<int32_t> i32(static_cast<size_t>(n));
  for (auto& v : i32) v = static_cast<int32_t>(rng() % 100000);
  fixed("DELTA_BINARY_PACKED INT32 (random 17b)", Encoding::DELTA_BINARY_PACKED, Type::INT32, i32.data(), 4);
  fixed("BYTE_STREAM_SPLIT DOUBLE", Encoding::BYTE_STREAM_SPLIT, Type::DOUBLE, dbl.data(), 8);
  std::vector<uint8_t> bools(static_cast<size_t>(n));
  for (auto& b : bools) b = rng() % 2;
  fixed("PLAIN BOOLEAN", Encoding::PLAIN, Type::BOOLEAN, bools.data(), 1);
  fixed("RLE BOOLEAN (random)", Encoding::RLE, Type::BOOLEAN, bools.data(), 1);

  // Dictionary indices.
  for (int32_t dict : {1000, 60000}) {
    std::vector<int32_t> idx(static_cast<size_t>(n));
    for (auto& v : idx) v = static_cast<int32_t>(rng() % static_cast<uint64_t>(dict));
    const std::string enc = EncodeFixed(Encoding::RLE_DICTIONARY, Type::INT64, idx.data(), n, dict);
    std::vector<int32_t> got(static_cast<size_t>(n));
    run("RLE_DICTIONARY indices, dict " + std::to_string(dict), static_cast<double>(n * 4), [&] {
      auto dec = MakeValueDecoder(Encoding::RLE_DICTIONARY, Type::INT64, 0, AsSpan(enc), n);
      Check(dec.status(), "dict");
      Check((*dec)->DecodeIndices(got.data(), n), "dict");
    });
  }

  // Definition levels: runs of nulls mixed with literal stretches.
  {
    std::vector<int16_t> lv(static_cast<size_t>(n));
    for (size_t i = 0; i < lv.size(); ++i) lv[i] = (i / 1000) % 3 == 0 ? (rng() % 2) : 1;
    RleBitPackedEncoder e(1);
    e.PutBatch(lv.data(), n);
    std::string enc;
    e.Finish(&enc);
    std::vector<int16_t> got(static_cast<size_t>(n));
    run("levels (hybrid, width 1)", static_cast<double>(n * 2), [&] {
      Check(DecodeLevelsV2(1, AsSpan(enc), n, got.data()), "levels");
    });
  }

  // Strings.
  std::vector<int32_t> offsets{0};
  std::vector<uint8_t> chars;
  for (int64_t i = 0; i < n; ++i) {
    const std::string s = "user_" + std::to_string(rng() % 1000000);
    chars.insert(chars.end(), s.begin(), s.end());
    offsets.push_back(static_cast<int32_t>(chars.size()));
  }
  for (Encoding e : {Encoding::PLAIN, Encoding::DELTA_LENGTH_BYTE_ARRAY, Encoding::DELTA_BYTE_ARRAY}) {
    auto enc = MakeValueEncoder(e, Type::BYTE_ARRAY, 0);
    (*enc)->PutBinary(offsets.data(), chars.data(), n);
    std::string bytes;
    (*enc)->Finish(&bytes);
    rap::UninitVector<int32_t> o;
    rap::ByteVector d;
    const std::string name = std::string(EncodingName(e)) + " BYTE_ARRAY";
    run(name, static_cast<double>(chars.size() + 4 * static_cast<size_t>(n)), [&] {
      o.assign(1, 0);
      d.clear();
      auto dec = MakeValueDecoder(e, Type::BYTE_ARRAY, 0, AsSpan(bytes), n);
      Check(dec.status(), name);
      Check((*dec)->DecodeBinary(n, {&o, &d}), name);
    });
  }

  // Codecs on the PLAIN INT64 page.
  const std::string page = EncodeFixed(Encoding::PLAIN, Type::INT64, i64.data(), n);
  std::vector<uint8_t> raw(page.size());
  for (Codec c : {Codec::SNAPPY, Codec::ZSTD, Codec::LZ4_RAW, Codec::GZIP, Codec::BROTLI}) {
    std::string comp;
    Check(Compress(c, 0, AsSpan(page), &comp), "compress");
    run(std::string("decompress ") + CodecName(c) + " (PLAIN INT64 page)", static_cast<double>(page.size()),
        [&] { Check(Decompress(c, AsSpan(comp), raw), "decompress"); });
  }

  if (FILE* f = std::fopen(csv.c_str(), "w")) {
    std::fprintf(f, "case,values,reps,median_mb_per_s,median_mvalues_per_s\n");
    for (const Row& r : rows) {
      std::fprintf(f, "\"%s\",%lld,%d,%.2f,%.2f\n", r.name.c_str(), static_cast<long long>(n), reps, r.mb_per_s,
                   r.mvalues_per_s);
    }
    std::fclose(f);
    std::printf("wrote %s\n", csv.c_str());
  }
  return 0;
}
