// The crash-consistency harness (docs/reliability.md, "Crash consistency"): runs a `rap` write
// command as a child process that SIGKILLs itself after its Nth object-store mutation
// (RAP_CRASH_AFTER_OPS, include/rap/io/crash_point.h) or is killed at a random instant, then checks
// what it left: the table scans to the old or the new rows, the index (if any) answers lookups
// exactly like a brute-force scan of the files its manifest lists, no manifest references a missing
// object, and `rap index vacuum --retain 0s` removes the leftovers and nothing else.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "testing/cli_run.h"
#include "testing/paths.h"

extern char** environ;

namespace rap::testing::crash {

namespace fs = std::filesystem;

// `rap ARGS` with the environment assignments `env` ("A=1 B=2") in front.
inline CliRun RunEnv(const std::string& env, const std::string& args) {
  return RunShell(env + " " + RapBinary() + " " + args + " 2>&1");
}

// The number of crash points (object-store mutations) a clean run of `args` passes.
inline int CountCrashPoints(const std::string& env, const std::string& args, const std::string& log,
                            CliRun* run = nullptr) {
  fs::remove(log);
  CliRun r = RunEnv(env + " RAP_CRASH_LOG='" + log + "'", args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out;
  if (run) *run = r;
  if (!fs::exists(log)) return 0;
  std::istringstream in(ReadFileToString(log));
  int n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

// Runs `rap ARGS` and SIGKILLs it after `delay_us` microseconds (if it still runs).
inline void RunAndKill(const std::string& env, const std::string& args, int64_t delay_us) {
  const std::string cmd = "exec env " + env + " " + RapBinary() + " " + args + " >/dev/null 2>&1";
  pid_t pid = 0;
  const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
  ASSERT_EQ(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
  ::kill(pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
}

using rap::testing::SortedRows;

inline std::vector<std::string> ScanRows(const std::string& url, std::string* error = nullptr) {
  CliRun r = RunCli("scan '" + url + "' -f csv", false);
  if (r.exit_code != 0) {
    if (error) *error = "scan of " + url + " failed (exit " + std::to_string(r.exit_code) + ")";
    return {};
  }
  return SortedRows(r.out);
}

inline bool HasManifest(const std::string& index_dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(index_dir + "/_manifest", ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() == 25 && n.substr(20) == ".json") return true;
  }
  return false;
}

// The files under `dir`, relative to it.
inline std::set<std::string> FilesUnder(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir).string());
  }
  return out;
}

// What the latest manifest of a local index says and references.
struct IndexState {
  bool present = false;
  int64_t version = 0;
  int64_t created_ms = 0;
  std::string table_root;                // absolute local path of the indexed table
  std::vector<std::string> live_files;   // table-relative paths
  std::set<std::string> referenced;      // index-relative paths: fragments and schema files
};

inline IndexState InspectLocalIndex(const std::string& index_dir) {
  IndexState s;
  if (!HasManifest(index_dir)) return s;
  CliRun r = RunCli("index inspect '" + index_dir + "' --json", false);
  EXPECT_EQ(r.exit_code, 0) << "index inspect " << index_dir << ": " << r.out;
  if (r.exit_code != 0) return s;
  nlohmann::json m = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(m.is_discarded()) << r.out;
  if (m.is_discarded()) return s;
  s.present = true;
  s.version = m.value("version", int64_t{0});
  s.created_ms = m.value("created_ms", int64_t{0});
  const std::string root = m["table"].value("root", std::string());
  s.table_root = fs::weakly_canonical(root.empty() || root[0] == '/' ? fs::path(root) : fs::path(index_dir) / root);
  for (const auto& f : m["files"]) {
    if (!f.value("removed", false)) s.live_files.push_back(f["path"].get<std::string>());
  }
  for (const auto& f : m["fragments"]) s.referenced.insert(f["path"].get<std::string>());
  for (const auto& sc : m.value("schemas", nlohmann::json::array())) s.referenced.insert(sc.get<std::string>());
  return s;
}

// Every object the manifest references exists; lookups of `keys` through the index equal the rows
// of a brute-force scan of the live files the manifest lists.
inline void CheckIndexAnswers(const std::string& table_url, const std::string& index_dir, const IndexState& s,
                              const std::vector<std::string>& keys, const std::string& scratch) {
  for (const std::string& f : s.live_files) {
    EXPECT_TRUE(fs::exists(s.table_root + "/" + f)) << "dangling data file reference " << f << " in " << index_dir;
  }
  for (const std::string& f : s.referenced) {
    EXPECT_TRUE(fs::exists(index_dir + "/" + f)) << "dangling index reference " << f << " in " << index_dir;
  }
  std::set<std::string> key_set(keys.begin(), keys.end());
  std::vector<std::string> want;
  for (const std::string& f : s.live_files) {
    for (std::string row : ScanRows(s.table_root + "/" + f)) {
      if (key_set.count(row.substr(0, row.find(',')))) want.push_back(std::move(row));
    }
  }
  std::sort(want.begin(), want.end());
  std::string list;
  for (const std::string& k : keys) list += k + "\n";
  WriteStringToFile(scratch, list);
  CliRun r = RunCli("lookup '" + table_url + "' --keys-file '" + scratch + "' -f csv", false);
  ASSERT_EQ(r.exit_code, 0) << "lookup through " << index_dir;
  EXPECT_EQ(SortedRows(r.out), want) << "lookups through " << index_dir << " (version " << s.version
                                     << ") differ from a scan of the files it lists";
}

inline int64_t MtimeMs(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

// `rap index vacuum TABLE --retain 0s` (the retention rule, src/index/maintenance.cc): afterwards the
// index holds its latest manifest, the version hint, what that manifest references (all of which
// survived), and at most files written after that manifest was created (they may be a writer's
// in progress; 50 ms of clock slack). With no manifest at all, vacuum deletes nothing.
inline void CheckVacuum(const std::string& table_url, const std::string& index_dir, const IndexState& before) {
  const std::set<std::string> files_before = FilesUnder(index_dir);
  CliRun r = RunCli("index vacuum '" + table_url + "' --retain 0s");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  if (!before.present) {
    EXPECT_EQ(FilesUnder(index_dir), files_before) << "vacuum without a manifest deleted files";
    return;
  }
  char name[40];
  std::snprintf(name, sizeof(name), "_manifest/%020lld.json", static_cast<long long>(before.version));
  std::set<std::string> must = before.referenced;
  must.insert(name);
  std::set<std::string> have = FilesUnder(index_dir);
  have.erase("_manifest/_last_version.json");
  have.erase("_manifest/_latest.json");  // the latest bundle, replaced like the hint
  for (const std::string& f : must) EXPECT_TRUE(have.count(f)) << "vacuum deleted " << f << " of " << index_dir;
  for (const std::string& f : have) {
    if (must.count(f)) continue;
    const bool young = MtimeMs(index_dir + "/" + f) + 50 >= before.created_ms;
    const bool manifest = f.rfind("_manifest/", 0) == 0 && f.find(".tmp-") == std::string::npos;
    EXPECT_TRUE(young && !manifest) << "vacuum left " << f << " in " << index_dir;
  }
}

}  // namespace rap::testing::crash
