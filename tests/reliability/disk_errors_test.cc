// Write errors of the disk (docs/reliability.md, "Disk full and permissions"): `rap index update`,
// `rap rewrite --in-place` and `rap convert` that hit a full disk (ENOSPC on a small tmpfs, when this
// process may mount one), a file size limit (EFBIG under RLIMIT_FSIZE, `ulimit -f 0`; needs no
// privileges) or a folder they may not write (EACCES, the child run as nobody when this process is
// root) fail with an error naming the path, leave the old version readable and exactly as it was,
// and leave no temporary file behind.
#include <sys/mount.h>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "reliability/crash_harness.h"

namespace rap {
namespace {

namespace fs = std::filesystem;
using rap::testing::CliRun;
using rap::testing::RunCli;
using rap::testing::RunShell;
namespace crash = rap::testing::crash;

class DiskErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "rap binary not built";
    for (int f = 0; f < 3; ++f) {
      std::string csv = "id,name\n";
      for (int i = 0; i < 40; ++i) csv += fmt::format("{},n{}-{}\n", f * 30 + i, f, i);
      rap::testing::WriteStringToFile(dir_.Join(fmt::format("f{}.csv", f)), csv);
      ASSERT_EQ(RunCli(fmt::format("convert --quiet '{}' '{}'", dir_.Join(fmt::format("f{}.csv", f)),
                                   dir_.Join(fmt::format("f{}.parquet", f))))
                    .exit_code,
                0);
    }
    for (int k = -1; k < 100; ++k) keys_ += std::to_string(k) + "\n";
    rap::testing::WriteStringToFile(dir_.Join("keys.txt"), keys_);
  }

  // A table at `t` of f0 and f1 with an index, then f2 added (not indexed yet).
  void MakeTable(const std::string& t) {
    fs::create_directories(t);
    for (int f : {0, 1}) ASSERT_EQ(RunShell(fmt::format("cp -a '{}/f{}.parquet' '{}/'", dir_.path(), f, t)).exit_code, 0);
    ASSERT_EQ(RunCli(fmt::format("index build '{}' --key id --quiet", t)).exit_code, 0);
    ASSERT_EQ(RunShell(fmt::format("cp -a '{}/f2.parquet' '{}/'", dir_.path(), t)).exit_code, 0);
  }

  std::string Lookup(const std::string& t) {
    return RunCli(fmt::format("lookup '{}' --keys-file '{}' -f csv", t, dir_.Join("keys.txt")), false).out;
  }

  // `rap ARGS` under `prefix` (a shell prefix such as "ulimit -f 0;") fails naming a path under
  // `t`, and `t` is unchanged: same files (no temporaries), same lookup answers.
  void ExpectCleanFailure(const std::string& prefix, const std::string& t, const std::string& args) {
    SCOPED_TRACE(prefix + " rap " + args);
    const std::set<std::string> before = crash::FilesUnder(t);
    const std::string answers = Lookup(t);
    CliRun r = RunShell(prefix + " '" + rap::testing::RapBinary() + "' " + args + " 2>&1");
    EXPECT_NE(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find(t + "/"), std::string::npos) << "the error names no path under " << t << ": " << r.out;
    EXPECT_EQ(crash::FilesUnder(t), before);
    EXPECT_EQ(Lookup(t), answers);
    std::cout << r.out;
  }

  rap::testing::TempDir dir_;
  std::string keys_;
};

TEST_F(DiskErrors, FileSizeLimit) {
  // SIGXFSZ ignored, so a write past the limit fails with EFBIG instead of killing the process.
  const std::string limit = "trap '' XFSZ; ulimit -f 0;";
  const std::string t = dir_.Join("t");
  MakeTable(t);
  ExpectCleanFailure(limit, t, fmt::format("index update '{}' --quiet", t));
  const std::string d = dir_.Join("d");
  ASSERT_EQ(RunCli(fmt::format("rewrite '{}' '{}' --key id --quiet", t, d)).exit_code, 0);
  ExpectCleanFailure(limit, d, fmt::format("rewrite '{}' --in-place --key id --quiet", d));
  fs::create_directories(dir_.Join("c"));
  ExpectCleanFailure(limit, dir_.Join("c"), fmt::format("convert --quiet '{}' '{}/out.parquet'", dir_.Join("f0.csv"),
                                                        dir_.Join("c")));
}

TEST_F(DiskErrors, DiskFull) {
  const std::string m = dir_.Join("small");
  fs::create_directories(m);
  if (::mount("tmpfs", m.c_str(), "tmpfs", 0, "size=64k") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount(path.c_str()); }
  } unmount{m};
  const std::string t = m + "/t";
  MakeTable(t);
  // Fill the rest of the file system.
  RunShell(fmt::format("dd if=/dev/zero of='{}/filler' bs=1k count=1000 2>/dev/null", m));
  ExpectCleanFailure("", t, fmt::format("index update '{}' --quiet", t));
  ExpectCleanFailure("", t, fmt::format("convert --quiet '{}' '{}/out.parquet'", dir_.Join("f0.csv"), t));
  fs::remove(m + "/filler");
  EXPECT_EQ(RunCli(fmt::format("index update '{}' --quiet", t)).exit_code, 0);  // space again: it works
}

TEST_F(DiskErrors, PermissionDenied) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run the writer as nobody";
  if (!fs::exists("/usr/bin/setpriv")) GTEST_SKIP() << "no setpriv";
  const std::string t = dir_.Join("t");
  MakeTable(t);
  fs::permissions(dir_.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                   fs::perms::others_read | fs::perms::others_exec);
  ExpectCleanFailure("HOME=/ setpriv --reuid=65534 --regid=65534 --clear-groups", t,
                     fmt::format("index update '{}' --quiet", t));
}

}  // namespace
}  // namespace rap
