// bench_write: Parquet write throughput (MB/s of uncompressed Arrow input) of the rap writer for one
// int64, double or string column with PLAIN, dictionary, Snappy and ZSTD. Files go to memory, so
// the figures are encoding + compression only. Prints medians over repetitions and writes CSV.
//
//   bench_write [--rows N] [--reps N] [--cardinality N] [--csv PATH]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <time.h>

#include "rap/format/writer.h"
#include "rap/util/clock.h"

namespace {

using rap::parquet::Codec;
using rap::parquet::Encoding;

struct Args {
  int64_t rows = 2'000'000;
  int reps = 5;
  int64_t cardinality = 10'000;  // distinct values per column (dictionary-friendly but not trivial)
  std::string csv = "bench_write.csv";
};

struct Config {
  const char* name;
  bool dictionary;
  Codec codec;
  int level;
};

rap::ArrayPtr MakeColumn(rap::TypeId id, int64_t rows, int64_t cardinality, std::mt19937_64& rng, int64_t* bytes) {
  auto a = std::make_shared<rap::ArrayData>();
  a->type = rap::MakeType(id);
  a->length = rows;
  a->buffers.emplace_back();
  std::uniform_int_distribution<int64_t> pick(0, cardinality - 1);
  if (id == rap::TypeId::kString) {
    std::vector<std::string> dict;
    for (int64_t i = 0; i < cardinality; ++i)
      dict.push_back("value-" + std::to_string(i * 7919) + "-" + std::to_string(i));
    std::vector<int32_t> offsets{0};
    std::string data;
    for (int64_t r = 0; r < rows; ++r) {
      data += dict[static_cast<size_t>(pick(rng))];
      offsets.push_back(static_cast<int32_t>(data.size()));
    }
    *bytes = static_cast<int64_t>(offsets.size() * 4 + data.size());
    a->buffers.push_back(rap::Buffer::Copy(offsets.data(), offsets.size() * 4));
    a->buffers.push_back(rap::Buffer::FromString(std::move(data)));
  } else {
    std::vector<uint8_t> v(static_cast<size_t>(rows) * 8);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t k = pick(rng);
      if (id == rap::TypeId::kInt64) {
        const int64_t x = k * 1'000'003;
        std::memcpy(v.data() + r * 8, &x, 8);
      } else {
        const double x = static_cast<double>(k) * 0.37 + 1e3;
        std::memcpy(v.data() + r * 8, &x, 8);
      }
    }
    *bytes = static_cast<int64_t>(v.size());
    a->buffers.push_back(rap::Buffer::FromVector(std::move(v)));
  }
  return a;
}

// CPU time of this thread: on a shared machine wall time also measures the other tenants, so both
// figures are reported.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

const char* TypeName(rap::TypeId id) {
  return id == rap::TypeId::kInt64 ? "int64" : id == rap::TypeId::kFloat64 ? "double" : "string";
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--rows")
      args.rows = std::atoll(argv[i + 1]);
    else if (k == "--reps")
      args.reps = std::atoi(argv[i + 1]);
    else if (k == "--cardinality")
      args.cardinality = std::atoll(argv[i + 1]);
    else if (k == "--csv")
      args.csv = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: bench_write [--rows N] [--reps N] [--cardinality N] [--csv PATH]\n");
      return 2;
    }
  }
  if (args.rows <= 0 || args.reps <= 0 || args.cardinality <= 0) {
    std::fprintf(stderr, "bench_write: --rows, --reps and --cardinality must be positive\n");
    return 2;
  }
  const Config configs[] = {
      {"plain", false, Codec::UNCOMPRESSED, 0},      {"dictionary", true, Codec::UNCOMPRESSED, 0},
      {"plain+snappy", false, Codec::SNAPPY, 0},     {"plain+zstd1", false, Codec::ZSTD, 1},
      {"dictionary+snappy", true, Codec::SNAPPY, 0}, {"dictionary+zstd3", true, Codec::ZSTD, 3},
  };
  std::FILE* csv = std::fopen(args.csv.c_str(), "w");
  if (!csv) {
    std::fprintf(stderr, "bench_write: cannot write %s\n", args.csv.c_str());
    return 1;
  }
  std::fprintf(csv,
               "type,config,rows,input_bytes,file_bytes,reps,median_s,median_mb_per_s,min_mb_per_s,max_mb_per_s,"
               "median_cpu_s,median_cpu_mb_per_s\n");
  std::printf("%-8s %-18s %10s %10s %10s %10s %12s\n", "type", "config", "input MB", "file MB", "median s", "MB/s",
              "CPU MB/s");
  std::mt19937_64 rng(42);
  for (rap::TypeId id : {rap::TypeId::kInt64, rap::TypeId::kFloat64, rap::TypeId::kString}) {
    int64_t input_bytes = 0;
    auto column = MakeColumn(id, args.rows, args.cardinality, rng, &input_bytes);
    auto schema = std::make_shared<rap::Schema>();
    schema->fields = {{"v", rap::MakeType(id), false}};
    rap::RecordBatch batch{schema, args.rows, {column}};
    for (const auto& cfg : configs) {
      rap::parquet::WriterOptions o;
      o.defaults.dictionary = cfg.dictionary;
      o.defaults.codec = cfg.codec;
      o.defaults.codec_level = cfg.level;
      std::vector<double> secs, cpu;
      uint64_t file_bytes = 0;
      for (int r = 0; r < args.reps; ++r) {
        rap::Stopwatch sw;
        const double cpu0 = ThreadCpuSeconds();
        auto file = rap::parquet::WriteParquetToString(schema, {batch}, o);
        cpu.push_back(ThreadCpuSeconds() - cpu0);
        secs.push_back(sw.ElapsedSeconds());
        if (!file.ok()) {
          std::fprintf(stderr, "bench_write: %s\n", file.status().ToString().c_str());
          return 1;
        }
        file_bytes = file->size();
      }
      std::sort(secs.begin(), secs.end());
      std::sort(cpu.begin(), cpu.end());
      const double median = secs[secs.size() / 2];
      const double median_cpu = std::max(cpu[cpu.size() / 2], 1e-9);
      const double mb = static_cast<double>(input_bytes) / 1e6;
      std::printf("%-8s %-18s %10.1f %10.1f %10.4f %10.1f %12.1f\n", TypeName(id), cfg.name, mb, file_bytes / 1e6,
                  median, mb / median, mb / median_cpu);
      std::fprintf(csv, "%s,%s,%lld,%lld,%llu,%d,%.6f,%.2f,%.2f,%.2f,%.6f,%.2f\n", TypeName(id), cfg.name,
                   static_cast<long long>(args.rows), static_cast<long long>(input_bytes),
                   static_cast<unsigned long long>(file_bytes), args.reps, median, mb / median, mb / secs.back(),
                   mb / secs.front(), median_cpu, mb / median_cpu);
    }
  }
  std::fclose(csv);
  std::printf("CSV: %s\n", args.csv.c_str());
  return 0;
}
