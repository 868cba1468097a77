// rap-test-labels: slow
// The crash-consistency matrix on local files (docs/reliability.md, "Crash consistency"): every
// write path of the CLI — `rap index build`, `index update` (a folder table and a Delta table),
// `index compact`, `index vacuum`, `rap rewrite` to a new table and `--in-place` (Delta and Iceberg),
// `rap compact` (Paimon), `rap convert` —
// is run as a child that SIGKILLs itself right after each of its object-store mutations in turn
// (crash points 1..K, K those of a clean run) and at random instants. After each crash: the table
// scans to the old or the new rows; the index, when one is published, answers lookups exactly like
// a brute-force scan of the files its manifest lists and references no missing object; `index
// vacuum --retain 0s` leaves exactly the latest manifest and what it references; and running the
// command again succeeds.
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <random>

#include <fmt/format.h>

#include "reliability/crash_harness.h"
#include "testing/paimon_tables.h"

namespace rap {
namespace {

namespace fs = std::filesystem;
using rap::testing::CliRun;
using rap::testing::RunCli;
namespace crash = rap::testing::crash;

struct Scenario {
  std::string name;
  std::string base;        // the prepared state, copied afresh for every crash
  std::string command;     // "{W}" is the working copy
  std::string table = "{W}";     // the table to scan
  std::string index_of = "{W}";  // the table whose default index is checked
  bool index_may_be_absent = false;
  bool table_may_be_absent = false;
  bool rerun = true;       // the command must succeed when run again after the crash
};

class CrashMatrix : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "rap binary not built";
    for (int f = 0; f < 5; ++f) {
      // Keys overlap between neighbouring files, so a lookup answers rows of several files.
      std::string csv = "id,name,score\n";
      for (int i = 0; i < 60; ++i) csv += fmt::format("{},n{}-{},{}\n", f * 40 + i, f, i, (f * 7 + i) % 13);
      const std::string in = dir_.Join(fmt::format("f{}.csv", f));
      rap::testing::WriteStringToFile(in, csv);
      Rap(fmt::format("convert --quiet '{}' '{}'", in, dir_.Join(fmt::format("f{}.parquet", f))));
    }
    for (int k = -1; k < 5 * 40 + 21; k += 3) keys_.push_back(std::to_string(k));
  }

  CliRun Rap(const std::string& args) {
    CliRun r = RunCli(args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out;
    return r;
  }

  // A folder table of files f0..f{n-1}.
  std::string FolderTable(const std::string& name, int n) {
    const std::string t = dir_.Join(name);
    fs::create_directories(t);
    for (int f = 0; f < n; ++f) fs::copy_file(dir_.Join(fmt::format("f{}.parquet", f)), t + fmt::format("/f{}.parquet", f));
    return t;
  }

  static std::string Expand(std::string s, const std::string& w) {
    for (size_t p; (p = s.find("{W}")) != std::string::npos;) s.replace(p, 3, w);
    return s;
  }

  // Checks the state a crashed (or finished) run left in `w`.
  void CheckState(const Scenario& s, const std::string& w, const std::vector<std::string>& old_rows) {
    const std::string table = Expand(s.table, w);
    if (fs::exists(table) && !fs::is_empty(table)) {
      std::string err;
      EXPECT_EQ(crash::ScanRows(table, &err), old_rows) << table << " " << err;
    } else {
      EXPECT_TRUE(s.table_may_be_absent) << table << " is gone";
    }
    const std::string table_of_index = Expand(s.index_of, w);
    const std::string index_dir = table_of_index + "/_rap_index/default";
    crash::IndexState st = crash::InspectLocalIndex(index_dir);
    if (!st.present) {
      EXPECT_TRUE(s.index_may_be_absent) << "no index manifest in " << index_dir;
    } else {
      crash::CheckIndexAnswers(table_of_index, index_dir, st, keys_, dir_.Join("keys.txt"));
    }
    if (fs::exists(index_dir)) {
      crash::CheckVacuum(table_of_index, index_dir, st);
      if (st.present) crash::CheckIndexAnswers(table_of_index, index_dir, st, keys_, dir_.Join("keys.txt"));
    }
  }

  // Crash points 1..K and `random_kills` random instants; returns K.
  int RunMatrix(const Scenario& s, int random_kills) {
    SCOPED_TRACE(s.name);
    const std::string w = dir_.Join("w-" + s.name);
    auto fresh = [&] {
      fs::remove_all(w);
      fs::remove_all(w + "-out");
      for (const auto& e : fs::directory_iterator(dir_.path())) {  // staging folders of killed rewrites
        if (e.path().filename().string().rfind("w-" + s.name + "-out.rap-rewrite-", 0) == 0) fs::remove_all(e.path());
      }
      // cp -a keeps the modification times: local ETags are made of them, and the index recorded them.
      ASSERT_EQ(rap::testing::RunShell("cp -a '" + s.base + "' '" + w + "'").exit_code, 0);
    };
    fresh();
    const std::string source = s.table_may_be_absent ? s.base : Expand(s.table, w);
    const std::vector<std::string> old_rows = crash::ScanRows(source);
    EXPECT_FALSE(old_rows.empty());
    const std::string cmd = Expand(s.command, w);
    const auto t0 = std::chrono::steady_clock::now();
    const int k = crash::CountCrashPoints("", cmd, dir_.Join("crash.log"));
    const double clean_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CheckState(s, w, old_rows);
    EXPECT_GT(k, 0);
    for (int n = 1; n <= k; ++n) {
      SCOPED_TRACE(fmt::format("crash point {} of {}", n, k));
      fresh();
      CliRun r = crash::RunEnv(fmt::format("RAP_CRASH_AFTER_OPS={}", n), cmd);
      EXPECT_EQ(r.exit_code, 128 + SIGKILL) << "crash point " << n << " not reached: " << r.out;
      CheckState(s, w, old_rows);
      if (s.rerun) {
        CliRun again = RunCli(cmd);
        EXPECT_EQ(again.exit_code, 0) << "after a crash at point " << n << ": " << cmd << "\n" << again.out;
        CheckState(s, w, old_rows);
      }
    }
    std::mt19937 rng(static_cast<unsigned>(k));
    std::uniform_int_distribution<int64_t> delay(0, static_cast<int64_t>(clean_s * 1e6));
    for (int i = 0; i < random_kills; ++i) {
      const int64_t us = delay(rng);
      SCOPED_TRACE(fmt::format("killed after {} us", us));
      fresh();
      crash::RunAndKill("RAP_UNUSED=1", cmd, us);
      CheckState(s, w, old_rows);
    }
    std::cout << s.name << ": " << k << " crash points, " << random_kills << " random kills (clean run " << clean_s
              << " s)\n";
    return k;
  }

  rap::testing::TempDir dir_;
  std::vector<std::string> keys_;
};

TEST_F(CrashMatrix, IndexBuild) {
  Scenario s{"build", FolderTable("t-build", 3), "index build '{W}' --key id --buckets 3 --quiet"};
  s.index_may_be_absent = true;
  RunMatrix(s, 4);
}

TEST_F(CrashMatrix, IndexUpdateFolder) {
  const std::string t = FolderTable("t-update", 3);
  Rap(fmt::format("index build '{}' --key id --buckets 2 --quiet", t));
  fs::copy_file(dir_.Join("f3.parquet"), t + "/f3.parquet");
  fs::copy_file(dir_.Join("f4.parquet"), t + "/f4.parquet");
  RunMatrix({"update", t, "index update '{W}' --quiet"}, 4);
}

TEST_F(CrashMatrix, IndexCompactAndVacuum) {
  const std::string t = FolderTable("t-compact", 3);
  Rap(fmt::format("index build '{}' --key id --buckets 2 --quiet", t));
  for (int f : {3, 4}) {
    fs::copy_file(dir_.Join(fmt::format("f{}.parquet", f)), t + fmt::format("/f{}.parquet", f));
    Rap(fmt::format("index update '{}' --quiet", t));
  }
  RunMatrix({"compact", t, "index compact '{W}'"}, 4);
  Rap(fmt::format("index compact '{}'", t));
  RunMatrix({"vacuum", t, "index vacuum '{W}' --retain 0s"}, 4);
}

TEST_F(CrashMatrix, RewriteNewTable) {
  // The output is checked: a crashed rewrite leaves no output or the whole table.
  Scenario s{"rewrite", FolderTable("t-rewrite", 3), "rewrite '{W}' '{W}-out' --key id --buckets 2 --quiet"};
  s.table = "{W}-out";
  s.index_of = "{W}-out";
  s.table_may_be_absent = true;
  s.index_may_be_absent = true;
  s.rerun = false;  // the output of a finished run exists, so a second run refuses it
  RunMatrix(s, 4);
}

TEST_F(CrashMatrix, RewriteInPlaceAndDeltaUpdate) {
  const std::string t = FolderTable("t-src", 3);
  const std::string d = dir_.Join("d");
  Rap(fmt::format("rewrite '{}' '{}' --key id --buckets 2 --quiet", t, d));
  const int k = RunMatrix({"rewrite-in-place", d, "rewrite '{W}' --in-place --key id --buckets 2 --quiet"}, 4);
  // A Delta table one commit ahead of its index: an in-place rewrite stopped right before the
  // index is published (its last mutations are the manifest, the version hint and the latest bundle).
  const std::string behind = dir_.Join("d-behind");
  ASSERT_EQ(rap::testing::RunShell("cp -a '" + d + "' '" + behind + "'").exit_code, 0);
  crash::RunEnv(fmt::format("RAP_CRASH_AFTER_OPS={}", k - 5),
                fmt::format("rewrite '{}' --in-place --key id --buckets 2 --quiet", behind));
  RunMatrix({"update-delta", behind, "index update '{W}' --quiet"}, 4);
}

// `rap rewrite --in-place` of an Iceberg table (Hive's position deletes): a replace snapshot in the
// next metadata file, then the version hint, then the index. A crash between the metadata file and
// the hint leaves the hint behind: readers take the versions past it, so the table reads the new rows.
TEST_F(CrashMatrix, IcebergRewriteInPlace) {
  const std::string t = dir_.Join("ice");
  ASSERT_EQ(rap::testing::RunShell("cp -a '" + rap::testing::SharedDir() +
                                   "/iceberg-tables/impala_v2_pos_deletes_parquet' '" + t + "'")
                .exit_code,
            0);
  Scenario s{"iceberg-in-place", t, "rewrite '{W}' --in-place --key i --buckets 2 --quiet"};
  s.index_may_be_absent = true;
  RunMatrix(s, 4);
}

// `rap compact` of a Paimon append table written by pypaimon (partitioned, a NULL partition, two
// schemas): data files, a delta manifest per partition, two manifest lists, the snapshot created if
// absent, LATEST. Before the snapshot the table reads the old files; after it the new ones.
TEST_F(CrashMatrix, PaimonCompact) {
  const std::string out = dir_.Join("paimon");
  ASSERT_EQ(rap::testing::WritePaimonTables(out), 0)
      << "pypaimon did not write the tables (" << rap::testing::PaimonPython() << ")";
  Scenario s{"paimon-compact", out + "/warehouse/db.db/compact_parts", "compact '{W}' --quiet"};
  s.index_may_be_absent = true;
  RunMatrix(s, 4);
}

TEST_F(CrashMatrix, ConvertLocalOutput) {
  // A local convert writes a temporary sibling and renames it (src/format/writer_sink.cc, below the
  // io layer, so no crash points): random kills only. The output is absent or complete.
  const std::string in = dir_.Join("f0.csv");
  const std::string out = dir_.Join("conv/out.parquet");
  fs::create_directories(dir_.Join("conv"));
  const std::string want = rap::testing::ReadFileToString(dir_.Join("f0.parquet"));
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> delay(0, 30000);
  for (int i = 0; i < 8; ++i) {
    fs::remove(out);
    crash::RunAndKill("RAP_UNUSED=1", fmt::format("convert --quiet '{}' '{}'", in, out), delay(rng));
    if (fs::exists(out)) {
      EXPECT_EQ(rap::testing::ReadFileToString(out), want);
    }
  }
}

}  // namespace
}  // namespace rap
