#include "serve/load.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "testing/netsim_fixture.h"

namespace rap::bench {

Result<ChildProcess> ChildProcess::Start(const std::vector<std::string>& argv, const std::string& log_path) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return Status::IOError("fork failed for " + argv[0]);
  if (pid == 0) {
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    close_range(3, ~0U, 0);  // no descriptor of the benchmark leaks into the server
    execv(args[0], args.data());
    _exit(127);
  }
  ChildProcess c;
  c.pid_ = pid;
  return c;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& o) noexcept {
  if (this != &o) {
    Stop();
    pid_ = o.pid_;
    o.pid_ = -1;
  }
  return *this;
}

bool ChildProcess::running() const {
  if (pid_ <= 0) return false;
  int st = 0;
  return waitpid(pid_, &st, WNOHANG) == 0;
}

void ChildProcess::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 200; ++i) {
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) != 0) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid_, SIGKILL);
  int st = 0;
  waitpid(pid_, &st, 0);
  pid_ = -1;
}

ProcSample ReadProc(pid_t pid) {
  ProcSample s;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the ")" closing the command name: state is field 3, utime 14, stime 15.
  const size_t close = text.rfind(')');
  if (close != std::string::npos) {
    std::istringstream in(text.substr(close + 2));
    std::string f;
    double ut = 0, st = 0;
    for (int field = 3; field <= 15 && in >> f; ++field) {
      if (field == 14) ut = std::stod(f);
      if (field == 15) st = std::stod(f);
    }
    s.cpu_s = (ut + st) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  std::ifstream status(fmt::format("/proc/{}/status", pid));
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) s.rss_kib = std::stoll(line.substr(6));
  }
  return s;
}

double LoadAverage1() {
  std::ifstream in("/proc/loadavg");
  double l = 0;
  in >> l;
  return l;
}

Result<WrkResult> RunWrk(const std::string& url, const std::string& lua_path, int conns, int threads, double seconds) {
  const std::vector<std::string> argv = {"wrk", fmt::format("-t{}", threads), fmt::format("-c{}", conns),
                                         fmt::format("-d{}s", static_cast<int>(seconds + 0.5)), "--timeout", "30s",
                                         "-s", lua_path, url};
  std::string cmd;
  for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  // fork/exec rather than popen: wrk's event loop only takes descriptors below 10 + 3 * connections,
  // so with -c1 a descriptor inherited from this process (rap-netsim's log, a socket) makes its
  // one connection fail ("connect" error, never retried). The child closes everything but stdout.
  int fds[2];
  if (pipe(fds) != 0) return Status::IOError("pipe failed for " + cmd);
  const pid_t pid = fork();
  if (pid < 0) return Status::IOError("fork failed for " + cmd);
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close_range(3, ~0U, 0);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp("wrk", args.data());
    _exit(127);
  }
  close(fds[1]);
  WrkResult r;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    r.output.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  const int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  const size_t at = r.output.find("RAP_WRK ");
  if (rc != 0 || at == std::string::npos) {
    return Status::IOError(fmt::format("wrk failed (exit {}; is the Debian package wrk installed?): {}\n{}", rc, cmd,
                                       r.output));
  }
  double requests = 0, duration_us = 0, p50 = 0, p99 = 0, p999 = 0, errors = 0;
  if (std::sscanf(r.output.c_str() + at, "RAP_WRK requests=%lf duration_us=%lf p50_us=%lf p99_us=%lf p999_us=%lf errors=%lf",
                  &requests, &duration_us, &p50, &p99, &p999, &errors) != 6) {
    return Status::IOError("cannot parse wrk's summary line: " + r.output.substr(at));
  }
  r.requests = static_cast<int64_t>(requests);
  r.seconds = duration_us / 1e6;
  r.rps = r.seconds > 0 ? requests / r.seconds : 0;
  r.p50_ms = p50 / 1e3;
  r.p99_ms = p99 / 1e3;
  r.p999_ms = p999 / 1e3;
  r.errors = static_cast<int64_t>(errors);
  return r;
}

std::string WrkLookupScript(const std::string& table, const std::string& keys_path, int keys_per_request,
                            const std::vector<std::string>& columns) {
  std::string cols_get, cols_json;
  for (const std::string& c : columns) {
    cols_get += (cols_get.empty() ? "" : ",") + c;
    cols_json += (cols_json.empty() ? "\"" : ",\"") + c + "\"";
  }
  return fmt::format(R"LUA(-- generated by bench_serve: lookups of keys read from a file, round robin per thread
local keys, n, pos, per = {{}}, 0, 0, {per}
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
function init(args)
  for line in io.lines("{keys}") do n = n + 1; keys[n] = line end
  pos = ((tid or 0) * 7919) % n
end
function request()
  if per == 1 then
    pos = pos % n + 1
    return wrk.format("GET", "/v1/tables/{table}/lookup?key=" .. keys[pos] .. "&columns={cols_get}")
  end
  local parts = {{}}
  for i = 1, per do pos = pos % n + 1; parts[i] = keys[pos] end
  return wrk.format("POST", "/v1/tables/{table}/lookup", {{["Content-Type"] = "application/json"}},
                    '{{"keys":[' .. table.concat(parts, ",") .. '],"columns":[{cols_json}]}}')
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RAP_WRK requests=%.0f duration_us=%.0f p50_us=%.0f p99_us=%.0f p999_us=%.0f errors=%.0f\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency:percentile(99.9),
    e.connect + e.read + e.write + e.timeout + e.status))
end
)LUA",
                     fmt::arg("per", keys_per_request), fmt::arg("keys", keys_path), fmt::arg("table", table),
                     fmt::arg("cols_get", cols_get), fmt::arg("cols_json", cols_json));
}

Result<std::string> HttpGet(uint16_t port, const std::string& path) {
  RAP_ASSIGN_OR_RETURN(auto c, testing::RawHttpClient::Connect(port, 30));
  RAP_ASSIGN_OR_RETURN(testing::HttpResponse r, c->Request("GET", path));
  if (r.status != 200 || !r.complete) return Status::IOError(fmt::format("GET {} answered {}", path, r.status));
  return r.body;
}

double MetricSum(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  double sum = 0;
  while (std::getline(in, line)) {
    if (line.size() <= name.size() || line.compare(0, name.size(), name) != 0) continue;
    const char next = line[name.size()];
    if (next != ' ' && next != '{') continue;
    const size_t sp = line.rfind(' ');
    sum += std::stod(line.substr(sp + 1));
  }
  return sum;
}

}  // namespace rap::bench
