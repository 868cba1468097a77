// What the test process holds right now, for leak checks: its threads (/proc/self/task) and its open
// sockets (the "socket:[inode]" links in /proc/self/fd). Linux only, as the tests are.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <system_error>
#include <thread>

namespace rap::testing {

inline int ThreadCount() {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    ++n;
  }
  return n;
}

inline int SocketCount() {
  int n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    std::error_code lec;
    const std::string target = std::filesystem::read_symlink(it->path(), lec).string();
    if (!lec && target.rfind("socket:", 0) == 0) ++n;
  }
  return n;
}

struct ProcessResources {
  int threads = 0;
  int sockets = 0;
};

inline ProcessResources CurrentResources() { return {ThreadCount(), SocketCount()}; }

// The resources once they are no more than `limit`, or the last count after `wait` (a thread that
// was joined can stay listed for a moment): a bounded wait, not a timing assertion.
inline ProcessResources ResourcesSettledTo(const ProcessResources& limit,
                                           std::chrono::milliseconds wait = std::chrono::milliseconds(2000)) {
  const auto until = std::chrono::steady_clock::now() + wait;
  ProcessResources now = CurrentResources();
  while ((now.threads > limit.threads || now.sockets > limit.sockets) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    now = CurrentResources();
  }
  return now;
}

}  // namespace rap::testing
