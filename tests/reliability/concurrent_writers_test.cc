// rap-test-labels: concurrent
// Concurrent writers on one table (docs/reliability.md, "Concurrent writers"): `rap rewrite
// --in-place` (Delta commits), `rap index update` and `rap index compact` run as separate processes
// at once, repeatedly. Every Delta version and every index manifest version is taken exactly once
// (the log and the manifests are contiguous, each version claimed by one writer); a loser fails
// with a conflict error (Changed) or retries; nothing is lost (after a last update the index answers
// every key like a scan of the table); the rows never change. And `index vacuum --retain 0s`
// racing lookups never deletes what they read. The same for Iceberg commits (`rap rewrite
// --in-place` of an Iceberg table: each metadata version taken once) and Paimon's (`rap compact`:
// each snapshot id taken once).
#include <gtest/gtest.h>

#include <iostream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "reliability/crash_harness.h"
#include "testing/paimon_tables.h"

namespace rap {
namespace {

namespace fs = std::filesystem;
using rap::testing::CliRun;
using rap::testing::RunCli;
namespace crash = rap::testing::crash;

// Starts `sh -c script` with its output to `log`; returns the pid.
pid_t Spawn(const std::string& script, const std::string& log) {
  const std::string cmd = "exec >'" + log + "' 2>&1; " + script;
  const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  return pid;
}

// A shell loop running `rap ARGS` `times` times, printing "exit=N" after each run.
std::string Loop(const std::string& args, int times) {
  return fmt::format("for i in $(seq {}); do '{}' {}; echo \"exit=$?\"; done", times, rap::testing::RapBinary(), args);
}

class ConcurrentWriters : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "rap binary not built";
    const std::string t = dir_.Join("t");
    fs::create_directories(t);
    for (int f = 0; f < 4; ++f) {
      std::string csv = "id,name\n";
      for (int i = 0; i < 50; ++i) csv += fmt::format("{},n{}-{}\n", f * 30 + i, f, i);
      rap::testing::WriteStringToFile(dir_.Join("in.csv"), csv);
      ASSERT_EQ(RunCli(fmt::format("convert --quiet '{}' '{}/f{}.parquet'", dir_.Join("in.csv"), t, f)).exit_code, 0);
    }
    for (int k = -1; k < 4 * 30 + 25; ++k) keys_.push_back(std::to_string(k));
    table_ = dir_.Join("d");
    CliRun r = RunCli(fmt::format("rewrite '{}' '{}' --key id --buckets 2 --quiet", t, table_));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    rows_ = crash::ScanRows(table_);
    ASSERT_EQ(rows_.size(), 200u);
  }

  rap::testing::TempDir dir_;
  std::string table_;
  std::vector<std::string> rows_;
  std::vector<std::string> keys_;
};

// The versions NNN of the files "<20 digits>.json" in `dir`, sorted.
std::vector<int64_t> Versions(const std::string& dir) {
  std::vector<int64_t> v;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    EXPECT_EQ(n.find(".tmp-"), std::string::npos) << "temporary left in " << dir << ": " << n;
    if (n.size() == 25 && n.substr(20) == ".json") v.push_back(std::stoll(n.substr(0, 20)));
  }
  std::sort(v.begin(), v.end());
  return v;
}

TEST_F(ConcurrentWriters, RewritesUpdatesAndCompactionsTakeEachVersionOnce) {
  struct Worker {
    std::string args;
    int times;
  };
  const std::vector<Worker> workers = {
      {fmt::format("rewrite '{}' --in-place --key id --buckets 2 --quiet", table_), 3},
      {fmt::format("rewrite '{}' --in-place --key id --buckets 2 --quiet", table_), 3},
      {fmt::format("rewrite '{}' --in-place --key id --buckets 2 --quiet", table_), 3},
      {fmt::format("index update '{}' --quiet", table_), 4},
      {fmt::format("index update '{}' --quiet", table_), 4},
      {fmt::format("index compact '{}'", table_), 4},
  };
  std::vector<pid_t> pids;
  for (size_t i = 0; i < workers.size(); ++i) {
    pids.push_back(Spawn(Loop(workers[i].args, workers[i].times), dir_.Join(fmt::format("w{}.log", i))));
  }
  for (pid_t p : pids) ::waitpid(p, nullptr, 0);
  // Every run ended in success or a conflict error; the Delta versions claimed by the rewrites.
  std::vector<int64_t> claimed;
  int ok = 0, conflicts = 0;
  const std::regex committed("Delta version ([0-9]+)");
  for (size_t i = 0; i < workers.size(); ++i) {
    const std::string log = rap::testing::ReadFileToString(dir_.Join(fmt::format("w{}.log", i)));
    std::istringstream in(log);
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
        EXPECT_NE(out.find("Changed"), std::string::npos) << workers[i].args << " failed otherwise:\n" << out;
      }
      // A rewrite that committed names its version, also when the index publish after it lost.
      for (std::sregex_iterator m(out.begin(), out.end(), committed), end; m != end; ++m) {
        if (out.find("committed by another writer first") == std::string::npos) claimed.push_back(std::stoll((*m)[1]));
      }
      out.clear();
    }
  }
  std::sort(claimed.begin(), claimed.end());
  const std::vector<int64_t> log_versions = Versions(table_ + "/_delta_log");
  ASSERT_FALSE(log_versions.empty());
  for (size_t v = 0; v < log_versions.size(); ++v) EXPECT_EQ(log_versions[v], static_cast<int64_t>(v));
  std::vector<int64_t> want(log_versions.begin() + 1, log_versions.end());
  EXPECT_EQ(claimed, want) << "each Delta version after 0 claimed by exactly one rewrite";
  const std::string index_dir = table_ + "/_rap_index/default";
  const std::vector<int64_t> manifests = Versions(index_dir + "/_manifest");
  for (size_t v = 0; v < manifests.size(); ++v) EXPECT_EQ(manifests[v], static_cast<int64_t>(v + 1));
  std::cout << ok << " runs succeeded, " << conflicts << " ended in a conflict; Delta versions 0.." << log_versions.back()
            << ", index versions 1.." << manifests.back() << "\n";
  // Nothing lost: the table's rows are the same, and after a last update the index covers them all.
  EXPECT_EQ(crash::ScanRows(table_), rows_);
  ASSERT_EQ(RunCli(fmt::format("index update '{}' --quiet", table_)).exit_code, 0);
  crash::IndexState st = crash::InspectLocalIndex(index_dir);
  ASSERT_TRUE(st.present);
  crash::CheckIndexAnswers(table_, index_dir, st, keys_, dir_.Join("keys.txt"));
}

TEST_F(ConcurrentWriters, VacuumRetainZeroNeverDeletesWhatLookupsRead) {
  // Old versions to vacuum: index updates after in-place rewrites.
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(RunCli(fmt::format("rewrite '{}' --in-place --key id --buckets 2 --quiet", table_)).exit_code, 0);
  }
  std::string list;
  for (const std::string& k : keys_) list += k + "\n";
  rap::testing::WriteStringToFile(dir_.Join("keys.txt"), list);
  const std::string lookup = Loop(fmt::format("lookup '{}' --keys-file '{}' -f csv", table_, dir_.Join("keys.txt")), 8);
  const pid_t reader = Spawn(lookup, dir_.Join("reader.log"));
  const pid_t vacuum = Spawn(Loop(fmt::format("index vacuum '{}' --retain 0s", table_), 8), dir_.Join("vacuum.log"));
  ::waitpid(reader, nullptr, 0);
  ::waitpid(vacuum, nullptr, 0);
  const std::string log = rap::testing::ReadFileToString(dir_.Join("reader.log"));
  EXPECT_EQ(log.find("exit=1"), std::string::npos) << log;
  // Each lookup answered the same rows as a scan.
  const std::vector<std::string>& want = rows_;
  std::istringstream in(log);
  std::string block;
  int lookups = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("exit=", 0) == 0) {
      EXPECT_EQ(crash::SortedRows(block), want);
      ++lookups;
      block.clear();
    } else {
      block += line + "\n";
    }
  }
  EXPECT_EQ(lookups, 8);
  EXPECT_EQ(rap::testing::ReadFileToString(dir_.Join("vacuum.log")).find("exit=1"), std::string::npos);
}

// Runs each worker's loop at once and waits; the runs' outputs (one per run) and exit codes. Every
// failed run must have failed with a conflict (Changed).
std::vector<std::pair<int, std::string>> RunWorkers(const rap::testing::TempDir& dir, const std::string& prefix,
                                                    const std::vector<std::pair<std::string, int>>& workers) {
  std::vector<pid_t> pids;
  for (size_t i = 0; i < workers.size(); ++i) {
    pids.push_back(Spawn(Loop(workers[i].first, workers[i].second), dir.Join(fmt::format("{}{}.log", prefix, i))));
  }
  for (pid_t p : pids) ::waitpid(p, nullptr, 0);
  std::vector<std::pair<int, std::string>> runs;
  for (size_t i = 0; i < workers.size(); ++i) {
    std::istringstream in(rap::testing::ReadFileToString(dir.Join(fmt::format("{}{}.log", prefix, i))));
    std::string out;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("exit=", 0) != 0) {
        out += line + "\n";
        continue;
      }
      const int code = std::stoi(line.substr(5));
      if (code != 0) {
        EXPECT_NE(out.find("Changed"), std::string::npos) << workers[i].first << " failed otherwise:\n" << out;
      }
      runs.push_back({code, out});
      out.clear();
    }
  }
  return runs;
}

// Four processes rewrite an Iceberg table in place three times each, at once: every metadata
// version after the table's own is created by exactly one of them (vN.metadata.json contiguous, one
// replace snapshot per version, each snapshot id reported by the run that committed it), the losers
// fail with Changed, the rows never change, and the index answers every key like a scan.
TEST_F(ConcurrentWriters, IcebergReplaceCommitsTakeEachVersionOnce) {
  const std::string t = dir_.Join("ice");
  ASSERT_EQ(rap::testing::RunShell("cp -a '" + rap::testing::SharedDir() +
                                   "/iceberg-tables/impala_v2_pos_deletes_parquet' '" + t + "'").exit_code, 0);
  const std::vector<std::string> rows = crash::ScanRows(t);
  ASSERT_FALSE(rows.empty());
  const std::string cmd = fmt::format("rewrite '{}' --in-place --key i --buckets 2 --quiet", t);
  auto runs = RunWorkers(dir_, "ice", {{cmd, 3}, {cmd, 3}, {cmd, 3}, {cmd, 3}});
  std::vector<std::string> claimed;
  const std::regex committed("Iceberg snapshot ([0-9]+)");
  int ok = 0;
  for (const auto& [code, out] : runs) {
    std::smatch m;
    if (std::regex_search(out, m, committed)) claimed.push_back(m[1]);
    ok += code == 0;
  }
  std::vector<int> versions;
  for (const auto& e : fs::directory_iterator(t + "/metadata")) {
    const std::string n = e.path().filename().string();
    if (n[0] == 'v' && n.ends_with(".metadata.json")) versions.push_back(std::stoi(n.substr(1)));
  }
  std::sort(versions.begin(), versions.end());
  for (size_t v = 0; v < versions.size(); ++v) EXPECT_EQ(versions[v], static_cast<int>(v + 1));
  EXPECT_EQ(claimed.size(), versions.size() - 7) << "one replace commit per metadata version after v7";
  const std::string newest = rap::testing::ReadFileToString(t + fmt::format("/metadata/v{}.metadata.json", versions.back()));
  for (const std::string& id : claimed) EXPECT_NE(newest.find("\"snapshot-id\": " + id), std::string::npos) << id;
  std::cout << ok << " of " << runs.size() << " rewrites committed; metadata v1..v" << versions.back() << "\n";
  EXPECT_GE(ok, 1);
  EXPECT_EQ(crash::ScanRows(t), rows);
  ASSERT_EQ(RunCli(fmt::format("index update '{}' --quiet", t)).exit_code, 0);
  const std::string index_dir = t + "/_rap_index/default";
  crash::IndexState st = crash::InspectLocalIndex(index_dir);
  ASSERT_TRUE(st.present);
  crash::CheckIndexAnswers(t, index_dir, st, keys_, dir_.Join("keys.txt"));
}

// Three processes compact the same Paimon append table (written by pypaimon) at once: one COMPACT
// snapshot per snapshot id (the ids contiguous), the others fail with Changed or find nothing left
// to compact; the rows never change.
TEST_F(ConcurrentWriters, PaimonCompactionsTakeEachSnapshotOnce) {
  const std::string out = dir_.Join("paimon");
  ASSERT_EQ(rap::testing::WritePaimonTables(out), 0) << "pypaimon did not write the tables";
  const std::string t = out + "/warehouse/db.db/compact_bucketed";
  const std::vector<std::string> rows = crash::ScanRows(t);
  ASSERT_FALSE(rows.empty());
  std::vector<int> before;
  for (const auto& e : fs::directory_iterator(t + "/snapshot")) {
    const std::string n = e.path().filename().string();
    if (n.rfind("snapshot-", 0) == 0) before.push_back(std::stoi(n.substr(9)));
  }
  const std::string cmd = fmt::format("compact '{}' --quiet", t);
  auto runs = RunWorkers(dir_, "paimon", {{cmd, 2}, {cmd, 2}, {cmd, 2}});
  int compacted = 0;
  for (const auto& [code, text] : runs) compacted += text.find("(COMPACT)") != std::string::npos;
  std::vector<int> ids;
  for (const auto& e : fs::directory_iterator(t + "/snapshot")) {
    const std::string n = e.path().filename().string();
    if (n.rfind("snapshot-", 0) == 0) ids.push_back(std::stoi(n.substr(9)));
  }
  std::sort(ids.begin(), ids.end());
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], static_cast<int>(i + 1));
  EXPECT_EQ(static_cast<size_t>(compacted), ids.size() - before.size()) << "one COMPACT snapshot per new id";
  EXPECT_GE(compacted, 1);
  EXPECT_EQ(crash::ScanRows(t), rows);
}

}  // namespace
}  // namespace rap
