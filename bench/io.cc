// bench_io: 10-way concurrent range reads from nginx on loopback, rap's HTTP store against
// `curl --parallel --parallel-max 10` fetching exactly the same ranges (one curl process per
// repetition, ranges given in a config file). Reports requests/s and MB/s, medians over the
// repetitions, and writes CSV.
//
//   bench_io [--reps N] [--file-mib M] [--csv PATH]
//
// rap's store keeps its connections across repetitions (that is its design: one store per endpoint
// per process); each curl run opens its own up-to-10 connections, which costs it one connection
// setup per connection on loopback. Both verify nothing but byte counts during timing; rap's bytes
// are compared with the file once per size before timing.
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

// Runs argv, returns the exit status (stdout/stderr to /dev/null).
int Run(const std::vector<std::string>& args) {
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
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 7;
  uint64_t file_mib = 256;
  std::string csv_path = "bench_io.csv";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--file-mib" && i + 1 < argc) {
      file_mib = std::max(16, std::atoi(argv[++i]));
    } else if (a == "--csv" && i + 1 < argc) {
      csv_path = argv[++i];
    } else {
      std::cerr << "usage: bench_io [--reps N] [--file-mib M] [--csv PATH]\n";
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
  if (Run({script, "start", run, root, std::to_string(port)}) != 0) {
    std::cerr << "could not start nginx with " << script << " (set RAP_SOURCE_DIR to the repository)\n";
    return 1;
  }
  std::string base = "http://127.0.0.1:" + std::to_string(port);
  auto store_or = rap::io::MakeHttpStore(base);
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
  };
  std::vector<Row> rows;
  int status = 0;
  std::printf("%-6s %10s %9s %14s %12s\n", "client", "range", "requests", "median req/s", "median MB/s");
  for (uint64_t size : {64 * rap::kKiB, 1 * rap::kMiB, 8 * rap::kMiB}) {
    int n = size <= 64 * rap::kKiB ? 400 : size <= rap::kMiB ? 100 : 30;
    std::vector<rap::ByteRange> ranges;
    std::uniform_int_distribution<uint64_t> pick(0, file_size / size - 1);
    for (int i = 0; i < n; ++i) ranges.push_back({pick(rng) * size, size});
    uint64_t total = size * static_cast<uint64_t>(n);
    rap::io::ReadOptions opts;
    opts.max_concurrency = 10;
    // Correctness once (and warm-up of the store's connections).
    auto check = store->ReadRanges("/data.bin", ranges, opts, nullptr);
    if (!check.ok()) {
      std::cerr << check.status().ToString() << "\n";
      status = 1;
      break;
    }
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
      }
    }
    std::vector<double> rap_s, curl_s;
    for (int rep = 0; rep < reps; ++rep) {
      rap::Stopwatch sw;
      auto bufs = store->ReadRanges("/data.bin", ranges, opts, nullptr);
      double t = sw.ElapsedSeconds();
      if (!bufs.ok()) {
        std::cerr << bufs.status().ToString() << "\n";
        status = 1;
        break;
      }
      rap_s.push_back(t);
      sw.Reset();
      int rc = Run({"curl", "--silent", "--fail", "--parallel", "--parallel-max", "10", "--config", cfg});
      t = sw.ElapsedSeconds();
      if (rc != 0) {
        std::cerr << "curl exited with " << rc << "\n";
        status = 1;
        break;
      }
      curl_s.push_back(t);
    }
    for (auto& [client, times] : {std::pair<std::string, std::vector<double>&>{"rap", rap_s}, {"curl", curl_s}}) {
      std::vector<double> rps, mbps;
      for (double t : times) {
        rps.push_back(n / t);
        mbps.push_back(static_cast<double>(total) / 1e6 / t);
      }
      Row row{client, size, n, Median(rps), Median(mbps)};
      rows.push_back(row);
      std::printf("%-6s %10s %9d %14.1f %12.1f\n", client.c_str(), rap::FormatBytes(size).c_str(), n, row.req_s,
                  row.mb_s);
    }
  }
  Run({script, "stop", run});
  {
    std::ofstream csv(csv_path);
    csv << "client,range_bytes,requests,concurrency,reps,median_requests_per_s,median_mb_per_s\n";
    for (const auto& r : rows) {
      csv << r.client << "," << r.size << "," << r.requests << ",10," << reps << "," << r.req_s << "," << r.mb_s << "\n";
    }
  }
  std::printf("CSV: %s\n", csv_path.c_str());
  std::string rm = "rm -rf '" + dir + "'";
  (void)std::system(rm.c_str());
  return status;
}
