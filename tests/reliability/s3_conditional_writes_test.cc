// rap-test-labels: network concurrent
// Concurrent writers over a real S3 server with conditional writes (docs/reliability.md): moto's
// server mode (PyPI moto[server], pinned in requirements-test.txt), started on loopback by the test.
// First the server itself is checked: a second PUT with If-None-Match: * must get 412. Then
// in-place rewrites (Delta commits), index updates and compactions run at once as separate
// processes on s3://bkt/d: every Delta version is claimed by exactly one rewrite, the log is
// contiguous, losers fail with a conflict error, and after a last update the index answers every key
// like a scan. Skipped when no moto_server is found ($RAP_MOTO_SERVER, else .venv/bin/moto_server).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <regex>

#include <fmt/format.h>

#include "reliability/crash_harness.h"

namespace rap {
namespace {

namespace fs = std::filesystem;
using rap::testing::CliRun;
using rap::testing::RunCli;
using rap::testing::RunShell;
namespace crash = rap::testing::crash;

std::string MotoServer() {
  if (const char* v = std::getenv("RAP_MOTO_SERVER")) return v;
  return rap::testing::SourceDir() + "/.venv/bin/moto_server";
}

int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

class S3ConditionalWrites : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "rap binary not built";
    if (!fs::exists(MotoServer())) GTEST_SKIP() << "no moto_server at " << MotoServer() << " (pip install -r requirements-test.txt)";
    port_ = FreePort();
    url_ = fmt::format("http://127.0.0.1:{}", port_);
    const std::string cmd = fmt::format("exec '{}' -H 127.0.0.1 -p {} >'{}' 2>&1", MotoServer(), port_, dir_.Join("moto.log"));
    const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
    ASSERT_EQ(posix_spawn(&pid_, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
    for (int i = 0; i < 200; ++i) {
      if (Curl("-X PUT " + url_ + "/bkt") == "200") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    setenv("AWS_ENDPOINT_URL", url_.c_str(), 1);
    setenv("AWS_ACCESS_KEY_ID", "testing", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "testing", 1);
    setenv("AWS_REGION", "us-east-1", 1);
  }
  void TearDown() override {
    for (const char* v : {"AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"}) unsetenv(v);
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  // The HTTP status of `curl ARGS` (a signature-shaped Authorization header: moto checks its form only).
  std::string Curl(const std::string& args) {
    CliRun r = RunShell("curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: AWS4-HMAC-SHA256 "
                        "Credential=testing/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0' " +
                        args);
    return r.out;
  }

  rap::testing::TempDir dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string url_;
};

TEST_F(S3ConditionalWrites, ServerRejectsASecondCreate) {
  const std::string put = "-X PUT -H 'If-None-Match: *' --data-binary x " + url_ + "/bkt/once";
  EXPECT_EQ(Curl(put), "200");
  EXPECT_EQ(Curl(put), "412");
}

TEST_F(S3ConditionalWrites, ConcurrentWritersTakeEachVersionOnce) {
  ASSERT_EQ(Curl("-X PUT -H 'If-None-Match: *' --data-binary x " + url_ + "/bkt/probe"), "200");
  ASSERT_EQ(Curl("-X PUT -H 'If-None-Match: *' --data-binary x " + url_ + "/bkt/probe"), "412");
  const std::string t = dir_.Join("t");
  fs::create_directories(t);
  for (int f = 0; f < 3; ++f) {
    std::string csv = "id,name\n";
    for (int i = 0; i < 40; ++i) csv += fmt::format("{},n{}-{}\n", f * 25 + i, f, i);
    rap::testing::WriteStringToFile(dir_.Join("in.csv"), csv);
    ASSERT_EQ(RunCli(fmt::format("convert --quiet '{}' '{}/f{}.parquet'", dir_.Join("in.csv"), t, f)).exit_code, 0);
  }
  const std::string table = "s3://bkt/d";
  CliRun r = RunCli(fmt::format("rewrite '{}' {} --key id --buckets 2 --quiet", t, table));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::vector<std::string> rows = crash::ScanRows(table);
  ASSERT_EQ(rows.size(), 120u);
  const std::vector<std::string> workers = {
      fmt::format("rewrite {} --in-place --key id --buckets 2 --quiet", table),
      fmt::format("rewrite {} --in-place --key id --buckets 2 --quiet", table),
      fmt::format("rewrite {} --in-place --key id --buckets 2 --quiet", table),
      fmt::format("index update {} --quiet", table),
      fmt::format("index compact {}", table),
  };
  std::vector<pid_t> pids;
  for (size_t i = 0; i < workers.size(); ++i) {
    const std::string cmd = fmt::format("exec >'{}' 2>&1; for i in 1 2 3; do '{}' {}; echo \"exit=$?\"; done",
                                        dir_.Join(fmt::format("w{}.log", i)), rap::testing::RapBinary(), workers[i]);
    const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
    pids.push_back(pid);
  }
  for (pid_t p : pids) ::waitpid(p, nullptr, 0);
  std::vector<int64_t> claimed;
  int ok = 0, conflicts = 0;
  const std::regex committed("Delta version ([0-9]+)");
  for (size_t i = 0; i < workers.size(); ++i) {
    std::istringstream in(rap::testing::ReadFileToString(dir_.Join(fmt::format("w{}.log", i))));
    std::string out;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("exit=", 0) != 0) {
        out += line + "\n";
        continue;
      }
      if (line == "exit=0") {
        ++ok;
      } else {
        ++conflicts;
        EXPECT_NE(out.find("Changed"), std::string::npos) << workers[i] << " failed otherwise:\n" << out;
      }
      for (std::sregex_iterator m(out.begin(), out.end(), committed), end; m != end; ++m) {
        if (out.find("committed by another writer first") == std::string::npos) claimed.push_back(std::stoll((*m)[1]));
      }
      out.clear();
    }
  }
  std::sort(claimed.begin(), claimed.end());
  // The log is contiguous: versions 0..N exist and N+1 does not.
  const int64_t n = claimed.empty() ? 0 : claimed.back();
  for (int64_t v = 0; v <= n + 1; ++v) {
    const std::string code = Curl(fmt::format("-I {}/bkt/d/_delta_log/{:020d}.json", url_, v));
    EXPECT_EQ(code, v <= n ? "200" : "404") << "Delta version " << v;
  }
  std::vector<int64_t> want;
  for (int64_t v = 1; v <= n; ++v) want.push_back(v);
  EXPECT_EQ(claimed, want) << "each Delta version after 0 claimed by exactly one rewrite";
  std::cout << ok << " runs succeeded, " << conflicts << " ended in a conflict; Delta versions 0.." << n << "\n";
  EXPECT_EQ(crash::ScanRows(table), rows);
  ASSERT_EQ(RunCli(fmt::format("index update {} --quiet", table)).exit_code, 0);
  std::string list;
  for (int k = -1; k < 100; ++k) list += std::to_string(k) + "\n";
  rap::testing::WriteStringToFile(dir_.Join("keys.txt"), list);
  CliRun lookup = RunCli(fmt::format("lookup {} --keys-file '{}' -f csv", table, dir_.Join("keys.txt")), false);
  ASSERT_EQ(lookup.exit_code, 0);
  EXPECT_EQ(crash::SortedRows(lookup.out), rows);
}

// The crash matrix over S3: every crash point of `rewrite` to a new s3:// table, `rewrite
// --in-place` and `index update` (after a Delta commit the index missed). After each crash the table
// scans to its rows (or a new table is absent), lookups of every key through the index answer them,
// vacuum --retain 0s keeps them answering, and the command succeeds when run again.
TEST_F(S3ConditionalWrites, CrashMatrix) {
  const std::string t = dir_.Join("t");
  fs::create_directories(t);
  for (int f = 0; f < 3; ++f) {
    std::string csv = "id,name\n";
    for (int i = 0; i < 30; ++i) csv += fmt::format("{},n{}-{}\n", f * 20 + i, f, i);
    rap::testing::WriteStringToFile(dir_.Join("in.csv"), csv);
    ASSERT_EQ(RunCli(fmt::format("convert --quiet '{}' '{}/f{}.parquet'", dir_.Join("in.csv"), t, f)).exit_code, 0);
  }
  const std::vector<std::string> rows = crash::ScanRows(t);
  std::string list;
  for (int k = -1; k < 75; ++k) list += std::to_string(k) + "\n";
  rap::testing::WriteStringToFile(dir_.Join("keys.txt"), list);
  int precommit = 0;
  auto check = [&](const std::string& table, bool may_be_absent) {
    if (may_be_absent && Curl("-I " + url_ + "/" + table.substr(5) + "/_delta_log/00000000000000000000.json") != "200") {
      // Before its first Delta commit a new table does not exist: whatever data files its prefix
      // holds, a scan and an index build refuse it (rap/table/pending_write.h), never a folder of them.
      ++precommit;
      CliRun scan = RunCli(fmt::format("scan {} -f csv", table), false);
      EXPECT_NE(scan.exit_code, 0) << table << " scanned before its first commit:\n" << scan.out;
      CliRun build = RunCli(fmt::format("index build {} --key id --quiet", table), false);
      EXPECT_NE(build.exit_code, 0) << table << " indexed before its first commit";
      return;
    }
    CliRun scan = RunCli(fmt::format("scan {} -f csv", table), false);
    if (scan.exit_code != 0) {
      EXPECT_TRUE(may_be_absent) << table << " does not scan";
      return;
    }
    EXPECT_EQ(crash::SortedRows(scan.out), rows) << table;
    for (int pass = 0; pass < 2; ++pass) {
      CliRun lookup = RunCli(fmt::format("lookup {} --keys-file '{}' -f csv", table, dir_.Join("keys.txt")));
      if (lookup.exit_code != 0 && lookup.out.find("neither an index nor a table with an index") != std::string::npos && may_be_absent) return;
      EXPECT_EQ(lookup.exit_code, 0) << lookup.out;
      if (lookup.exit_code == 0) {
        EXPECT_EQ(crash::SortedRows(lookup.out), rows) << table << " pass " << pass;
      }
      EXPECT_EQ(RunCli(fmt::format("index vacuum {} --retain 0s", table)).exit_code, 0);
    }
  };
  int total = 0;
  auto matrix = [&](const std::string& name, const std::function<std::string(int)>& prepare, bool new_table) {
    const std::string table = prepare(0);
    const std::string cmd = fmt::format(fmt::runtime(name), table);
    const int k = crash::CountCrashPoints("", cmd, dir_.Join("crash.log"));
    check(table, false);
    for (int n = 1; n <= k; ++n) {
      SCOPED_TRACE(fmt::format("{}: crash point {} of {}", cmd, n, k));
      const std::string w = prepare(n);
      const std::string c = fmt::format(fmt::runtime(name), w);
      EXPECT_EQ(crash::RunEnv(fmt::format("RAP_CRASH_AFTER_OPS={}", n), c).exit_code, 128 + SIGKILL);
      check(w, new_table);
      if (!new_table) {
        CliRun again = RunCli(c);
        EXPECT_EQ(again.exit_code, 0) << again.out;
        check(w, false);
      }
    }
    std::cout << name << ": " << k << " crash points\n";
    total += k;
  };
  // A new table per crash point (s3://bkt/new-N).
  matrix("rewrite '" + t + "' {} --key id --buckets 2 --quiet",
         [&](int n) { return fmt::format("s3://bkt/new-{}", n); }, true);
  // In place: a fresh copy of a Delta table on S3 per crash point (rewritten from the folder).
  auto delta = [&](const std::string& prefix) {
    return [&, prefix](int n) {
      const std::string table = fmt::format("s3://bkt/{}-{}", prefix, n);
      CliRun r = RunCli(fmt::format("rewrite '{}' {} --key id --buckets 2 --quiet", t, table));
      EXPECT_EQ(r.exit_code, 0) << r.out;
      if (prefix == "behind") {  // a Delta commit the index missed: an in-place rewrite killed before its index
        crash::RunEnv("RAP_CRASH_AFTER_OPS=6", fmt::format("rewrite {} --in-place --key id --buckets 2 --quiet", table));
      }
      return table;
    };
  };
  matrix("rewrite {} --in-place --key id --buckets 2 --quiet", delta("inplace"), false);
  matrix("index update {} --quiet", delta("behind"), false);
  std::cout << total << " crash points over S3 (" << precommit << " of them before a new table's first commit)\n";
}

}  // namespace
}  // namespace rap
