// bench_serve's load and measurement helpers: a child process (rap serve), its CPU time and RSS
// from /proc, wrk runs (with a Lua script that prints p50/p99/p99.9) and Prometheus counter sums.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "rap/util/result.h"

namespace rap::bench {

// A child process started with fork/exec, stdout and stderr to `log_path`; SIGTERM (then SIGKILL)
// on Stop() or destruction.
class ChildProcess {
 public:
  static Result<ChildProcess> Start(const std::vector<std::string>& argv, const std::string& log_path);
  ChildProcess() = default;
  ChildProcess(ChildProcess&& o) noexcept : pid_(o.pid_) { o.pid_ = -1; }
  ChildProcess& operator=(ChildProcess&& o) noexcept;
  ~ChildProcess() { Stop(); }
  pid_t pid() const { return pid_; }
  bool running() const;
  void Stop();

 private:
  pid_t pid_ = -1;
};

struct ProcSample {
  double cpu_s = 0;     // user + system time
  int64_t rss_kib = 0;  // VmRSS
};
ProcSample ReadProc(pid_t pid);
double LoadAverage1();  // /proc/loadavg, first field

struct WrkResult {
  int64_t requests = 0;
  double seconds = 0;
  double rps = 0;
  double p50_ms = 0, p99_ms = 0, p999_ms = 0;
  int64_t errors = 0;  // connect/read/write/timeout errors plus non-2xx/3xx responses
  std::string output;  // wrk's stdout
};
// wrk -t threads -c conns -d seconds --timeout 30s -s lua url.
Result<WrkResult> RunWrk(const std::string& url, const std::string& lua_path, int conns, int threads, double seconds);

// The Lua script: each request takes `keys_per_request` keys from the file `keys_path` (one per
// line), round robin from a per-connection offset; 1 key: GET ?key=..., more: POST JSON.
std::string WrkLookupScript(const std::string& table, const std::string& keys_path, int keys_per_request,
                            const std::vector<std::string>& columns);

// The body of GET http://127.0.0.1:port/path (Content-Length framed).
Result<std::string> HttpGet(uint16_t port, const std::string& path);
// Sum of every sample of the Prometheus metric `name` (any labels).
double MetricSum(const std::string& text, const std::string& name);

}  // namespace rap::bench
