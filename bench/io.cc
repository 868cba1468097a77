// bench_io: 10-way concurrent range reads from nginx on loopback, rap's HTTP store against
// `curl --parallel --parallel-max 10` fetching exactly the same ranges (one curl process per
// repetition, ranges given in a config file). Reports requests/s and MB/s, medians over the
// repetitions, and writes CSV.
//
//   bench_io [--reps N] [--file-mib M] [--csv PATH] [--tls]
//
// --tls serves HTTPS with HTTP/2 (scripts/nginx-test-server.sh ... tls, self-signed certificate
// trusted by both clients): rap multiplexes its requests over one connection, and so does curl
// --parallel (one connection per run).
//
// rap's store keeps its connections across repetitions (that is its design: one store per endpoint
// per process); each curl run opens its own up-to-10 connections, which costs it one connection
// setup per connection on loopback. Both verify nothing but byte counts during timing; rap's bytes
// are compared with the file once per size before timing.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <netinet/in.h>
#include <sys/socket.h>

#include "rap/io/http_options.h"
#include "rap/io/http_store.h"
#include "rap/io/object_store.h"
#include "rap/util/clock.h"
#include "rap/util/units.h"

namespace {

std::string SourceDir() {
  const char* v = std::getenv("RAP_SOURCE_DIR");
#ifdef RAP_SOURCE_DIR_DEFAULT
  return v && *v ? v : RAP_SOURCE_DIR_DEFAULT;
#else
  if (v && *v) return v;
  // bench binaries live in <build>/bench; the sources are found relative to the working directory.
  return ".";
#endif
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

double CpuSeconds(const rusage& u) {
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// This process's user+system CPU seconds so far (all threads, so rap's transfer thread counts).
double SelfCpuSeconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return CpuSeconds(u);
}

// Runs argv, returns the exit status (stdout/stderr to /dev/null) and, if asked, the child's CPU seconds.
int Run(const std::vector<std::string>& args, double* cpu_s = nullptr) {
  pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    FILE* devnull = std::fopen("/dev/null", "w");
    if (devnull) {
      ::dup2(fileno(devnull), 1);
      ::dup2(fileno(devnull), 2);
    }
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  rusage u{};
  ::wait4(pid, &status, 0, &u);
  if (cpu_s) *cpu_s = CpuSeconds(u);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 7;
  uint64_t file_mib = 256;
  std::string csv_path = "bench_io.csv";
  bool tls = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--file-mib" && i + 1 < argc) {
      file_mib = std::max(16, std::atoi(argv[++i]));
    } else if (a == "--csv" && i + 1 < argc) {
      csv_path = argv[++i];
    } else if (a == "--tls") {
      tls = true;
    } else {
      std::cerr << "usage: bench_io [--reps N] [--file-mib M] [--csv PATH] [--tls]\n";
      return a == "--help" ? 0 : 2;
    }
  }
  char tmpl[] = "/tmp/rap-bench-io-XXXXXX";
  if (!::mkdtemp(tmpl)) {
    std::perror("mkdtemp");
    return 1;
  }
  std::string dir = tmpl;
  std::string root = dir + "/root", run = dir + "/nginx";
  std::string mkdir_cmd = "mkdir -p '" + root + "'";
  if (std::system(mkdir_cmd.c_str()) != 0) return 1;
  const uint64_t file_size = file_mib * rap::kMiB;
  std::vector<uint8_t> data(file_size);
  std::mt19937_64 rng(42);
  for (size_t i = 0; i + 8 <= data.size(); i += 8) {
    uint64_t x = rng();
    std::memcpy(&data[i], &x, 8);
  }
  {
    std::ofstream out(root + "/data.bin", std::ios::binary);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  }
  int port = FreePort();
  std::string script = SourceDir() + "/scripts/nginx-test-server.sh";
  std::vector<std::string> start = {script, "start", run, root, std::to_string(port)};
  if (tls) start.push_back("tls");
  if (Run(start) != 0) {
    std::cerr << "could not start nginx with " << script << " (set RAP_SOURCE_DIR to the repository)\n";
    return 1;
  }
  const std::string base = (tls ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(port);
  const std::string ca_file = run + "/cert.pem";  // written by the script in tls mode
  rap::io::HttpOptions http_options;
  if (tls) http_options.ca_file = ca_file;
  auto store_or = rap::io::MakeHttpStore(base, http_options);
  if (!store_or.ok()) {
    std::cerr << store_or.status().ToString() << "\n";
    return 1;
  }
  rap::io::ObjectStorePtr store = *store_or;

  struct Row {
    std::string client;
    uint64_t size;
    int requests;
    double req_s, mb_s;
    double cpu_ms;  // median user+system CPU per repetition (rap: whole process; curl: the child)
  };
  std::vector<Row> rows;
  int status = 0;
  std::printf("%s, 10 concurrent range GETs, %d repetitions\n", base.c_str(), reps);
  std::printf("%-6s %10s %9s %14s %12s %12s\n", "client", "range", "requests", "median req/s", "median MB/s",
              "CPU ms/rep");
  int h2_requests = 0, checked_requests = 0;
  for (uint64_t size : {64 * rap::kKiB, 1 * rap::kMiB, 8 * rap::kMiB}) {
    int n = size <= 64 * rap::kKiB ? 400 : size <= rap::kMiB ? 100 : 30;
    std::vector<rap::ByteRange> ranges;
    std::uniform_int_distribution<uint64_t> pick(0, file_size / size - 1);
    for (int i = 0; i < n; ++i) ranges.push_back({pick(rng) * size, size});
    uint64_t total = size * static_cast<uint64_t>(n);
    rap::io::ReadOptions opts;
    opts.max_concurrency = 10;
    // Correctness once (and warm-up of the store's connections).
    rap::io::ReadStats check_stats;
    auto check = store->ReadRanges("/data.bin", ranges, opts, &check_stats);
    if (!check.ok()) {
      std::cerr << check.status().ToString() << "\n";
      status = 1;
      break;
    }
    for (const auto& t : check_stats.requests) h2_requests += t.http_version == 20;
    checked_requests += static_cast<int>(check_stats.requests.size());
    for (int i = 0; i < n; ++i) {
      if (std::memcmp((*check)[i].data(), data.data() + ranges[i].offset, size) != 0) {
        std::cerr << "rap returned wrong bytes for range " << ranges[i].ToString() << "\n";
        status = 1;
      }
    }
    std::string cfg = dir + "/curl-" + std::to_string(size) + ".cfg";
    {
      std::ofstream c(cfg);
      for (size_t i = 0; i < ranges.size(); ++i) {
        // `next` separates per-URL options; a trailing one would start an empty (invalid) entry.
        c << (i ? "next\n" : "") << "url = \"" << base << "/data.bin\"\nrange = \"" << ranges[i].offset << "-"
          << ranges[i].end() - 1 << "\"\noutput = \"/dev/null\"\n";
        // Per-URL options: each `next` block needs its own (a command-line --cacert would only
        // apply to one of them).
        if (tls) c << "cacert = \"" << ca_file << "\"\nhttp2\n";
      }
    }
    std::vector<double> rap_s, curl_s, rap_cpu, curl_cpu;
    for (int rep = 0; rep < reps; ++rep) {
      double cpu0 = SelfCpuSeconds();
      rap::Stopwatch sw;
      auto bufs = store->ReadRanges("/data.bin", ranges, opts, nullptr);
      double t = sw.ElapsedSeconds();
      rap_cpu.push_back(SelfCpuSeconds() - cpu0);
      if (!bufs.ok()) {
        std::cerr << bufs.status().ToString() << "\n";
        status = 1;
        break;
      }
      rap_s.push_back(t);
      sw.Reset();
      std::vector<std::string> curl = {"curl", "--silent", "--fail", "--parallel", "--parallel-max", "10", "--config", cfg};
      double cpu = 0;
      int rc = Run(curl, &cpu);
      t = sw.ElapsedSeconds();
      curl_cpu.push_back(cpu);
      if (rc != 0) {
        std::cerr << "curl exited with " << rc << "\n";
        status = 1;
        break;
      }
      curl_s.push_back(t);
    }
    struct Series {
      const char* client;
      const std::vector<double>& times;
      const std::vector<double>& cpu;
    };
    for (const Series& series : {Series{"rap", rap_s, rap_cpu}, Series{"curl", curl_s, curl_cpu}}) {
      std::vector<double> rps, mbps;
      for (double t : series.times) {
        rps.push_back(n / t);
        mbps.push_back(static_cast<double>(total) / 1e6 / t);
      }
      Row row{series.client, size, n, Median(rps), Median(mbps), Median(series.cpu) * 1e3};
      rows.push_back(row);
      std::printf("%-6s %10s %9d %14.1f %12.1f %12.1f\n", series.client, rap::FormatBytes(size).c_str(), n,
                  row.req_s, row.mb_s, row.cpu_ms);
    }
  }
  std::printf("rap: %d of %d checked requests over HTTP/2, %ld connections opened in all\n", h2_requests,
              checked_requests, rap::io::ConnectionsOpened(*store));
  Run({script, "stop", run});
  {
    std::ofstream csv(csv_path);
    csv << "client,protocol,range_bytes,requests,concurrency,reps,median_requests_per_s,median_mb_per_s,"
           "median_cpu_ms\n";
    for (const auto& r : rows) {
      csv << r.client << "," << (tls ? "https-h2" : "http-1.1") << "," << r.size << "," << r.requests << ",10,"
          << reps << "," << r.req_s << "," << r.mb_s << "," << r.cpu_ms << "\n";
    }
  }
  std::printf("CSV: %s\n", csv_path.c_str());
  std::string rm = "rm -rf '" + dir + "'";
  (void)std::system(rm.c_str());
  return status;
}
