// Runs the `rap` CLI of the same build tree (BinaryDir()/tools/rap) with arguments through the shell
// and collects its exit code and output (stdout and stderr interleaved), for end-to-end CLI tests.
#pragma once

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "testing/paths.h"

namespace rap::testing {

struct CliRun {
  int exit_code = -1;
  std::string out;
};

inline std::string RapBinary() { return BinaryDir() + "/tools/rap"; }
inline bool RapBinaryExists() { return std::filesystem::exists(RapBinary()); }

// Runs a shell command line as is and collects its exit code and standard output.
inline CliRun RunShell(const std::string& cmd) {
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// `args` is appended to the command line as is (quote paths yourself). `stderr_too`: 2>&1.
inline CliRun RunCli(const std::string& args, bool stderr_too = true) {
  return RunShell(RapBinary() + " " + args + (stderr_too ? " 2>&1" : " 2>/dev/null"));
}

// The data rows of CSV output (header dropped), sorted.
inline std::vector<std::string> SortedRows(const std::string& csv) {
  std::vector<std::string> rows;
  std::istringstream in(csv);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {
      header = false;
      continue;
    }
    if (!line.empty()) rows.push_back(line);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace rap::testing
