// Paimon tables written by pypaimon for C++ tests (tests/python/paimon_writer.py, run by the Python
// of the Paimon virtual environment: scripts/install-paimon-venv.sh; RAP_PAIMON_PYTHON overrides).
// Header-only.
#pragma once

#include <cstdlib>
#include <string>

#include "testing/duckdb_run.h"
#include "testing/paths.h"

namespace rap::testing {

inline std::string PaimonPython() {
  if (const char* env = std::getenv("RAP_PAIMON_PYTHON")) return env;
  return SourceDir() + "/.venv-paimon/bin/python";
}

// Writes the tables under OUT/warehouse/db.db/<name>; the exit status of the writer (0: written).
inline int WritePaimonTables(const std::string& out) {
  const std::string cmd = ShellQuote(PaimonPython()) + " " + ShellQuote(SourceDir() + "/tests/python/paimon_writer.py") +
                          " " + ShellQuote(out) + " > /dev/null";
  return std::system(cmd.c_str());
}

}  // namespace rap::testing
