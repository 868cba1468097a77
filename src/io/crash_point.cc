// CrashPoint: the environment-driven crash hook of the crash-consistency tests (crash_point.h).
#include "rap/io/crash_point.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>

namespace rap::io {
namespace {

struct CrashConfig {
  bool on = false;
  int64_t after = 0;
  std::string log;
};

const CrashConfig& Config() {
  static const CrashConfig config = [] {
    CrashConfig c;
    if (const char* v = std::getenv("RAP_CRASH_AFTER_OPS")) c.after = std::atoll(v);
    if (const char* v = std::getenv("RAP_CRASH_LOG")) c.log = v;
    c.on = c.after > 0 || !c.log.empty();
    return c;
  }();
  return config;
}

std::atomic<int64_t> g_points{0};

}  // namespace

void CrashPoint(const char* kind, const std::string& path) {
  const CrashConfig& c = Config();
  if (!c.on) return;
  const int64_t n = g_points.fetch_add(1) + 1;
  if (!c.log.empty()) {
    const std::string line = std::to_string(n) + " " + kind + " " + path + "\n";
    const int fd = ::open(c.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      (void)!::write(fd, line.data(), line.size());  // one write: lines of threads never interleave
      ::close(fd);
    }
  }
  if (n == c.after) ::kill(::getpid(), SIGKILL);
}

}  // namespace rap::io
