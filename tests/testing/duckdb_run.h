// Runs SQL in DuckDB through node and tests/npm/duckdb_sql.mjs, for tests that read files DuckDB
// writes (and compare with what DuckDB itself reads). Header-only; needs nlohmann-json.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rap/util/result.h"
#include "testing/paths.h"

namespace rap::testing {

inline std::string NpmDir() { return SourceDir() + "/tests/npm"; }

// Why DuckDB cannot run here ("" when it can): the test then skips with this reason.
inline std::string DuckDbMissing() {
  if (std::system("command -v node >/dev/null 2>&1") != 0) {
    return "node is not installed (scripts/install-deps.sh installs nodejs)";
  }
  if (!std::filesystem::exists(NpmDir() + "/node_modules/@duckdb/node-api/package.json")) {
    return "npm module @duckdb/node-api is missing under tests/npm (run scripts/install-npm-test-deps.sh)";
  }
  return "";
}

inline std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs the statements in one fresh in-memory DuckDB (threads=1); returns the rows of the last one.
inline Result<nlohmann::json> RunDuckDb(const std::vector<std::string>& statements) {
  std::string cmd = "cd " + ShellQuote(NpmDir()) + " && node duckdb_sql.mjs";
  for (const auto& s : statements) cmd += " " + ShellQuote(s);
  cmd += " 2>&1";
  std::string out;
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return Status::Internal("cannot start node");
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  const int st = ::pclose(p);
  if (st != 0) return Status::Internal("duckdb_sql.mjs failed (" + std::to_string(st) + "): " + out);
  nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  if (j.is_discarded()) return Status::Internal("duckdb_sql.mjs printed invalid JSON: " + out.substr(0, 300));
  return j;
}

}  // namespace rap::testing
