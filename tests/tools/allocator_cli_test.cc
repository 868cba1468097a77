// The rap binary's allocator settings (rap/util/allocator.h): when it allocates through jemalloc, it
// runs with one arena (its `malloc_conf` in tools/main.cc), so a scan's per-file threads reuse the
// memory the previous file's threads freed; the environment's MALLOC_CONF still overrides it. The
// test binaries themselves use the C library's allocator, where UseOwnMallocArena does nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "rap/util/allocator.h"
#include "testing/cli_run.h"

namespace {

// What a shell command prints (stdout and whatever it redirects there).
std::string Shell(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

bool RapLinksJemalloc() {
  return Shell("ldd " + rap::testing::RapBinary() + " 2>/dev/null").find("libjemalloc") != std::string::npos;
}

TEST(AllocatorCli, RapBinaryRunsJemallocWithOneArena) {
  if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "the rap CLI is not built";
  if (!RapLinksJemalloc()) GTEST_SKIP() << "this rap binary uses the C library's allocator (no libjemalloc-dev)";
  // jemalloc prints its options at exit with stats_print; the binary's own malloc_conf comes first.
  const auto run = rap::testing::RunCli("--version", true);
  ASSERT_EQ(run.exit_code, 0) << run.out;
  std::string out = Shell("MALLOC_CONF=stats_print:true " + rap::testing::RapBinary() + " --version 2>&1");
  EXPECT_NE(out.find("opt.narenas: 1\n"), std::string::npos) << out.substr(0, 2000);
  // The environment overrides the binary's setting.
  out = Shell("MALLOC_CONF=stats_print:true,narenas:3 " + rap::testing::RapBinary() + " --version 2>&1");
  EXPECT_NE(out.find("opt.narenas: 3\n"), std::string::npos) << out.substr(0, 2000);
}

TEST(AllocatorCli, UseOwnMallocArenaIsANoOpWithoutJemalloc) {
  // This test binary does not link jemalloc (only the rap binary does): nothing to bind.
  EXPECT_FALSE(rap::UseOwnMallocArena());
}

}  // namespace
