// rap: random access Parquet — command-line tool.
#include <cstdio>
#include <map>

#include <fmt/format.h>

#include "command.h"
#include "rap/util/allocator.h"

// jemalloc's options when the binary allocates through it (tools/CMakeLists.txt; read before main()
// runs, ignored under any other allocator): one arena shared by all threads, so that a scan's
// per-file threads reuse the memory the previous file's threads freed (rap/util/allocator.h); the
// server's io loops take arenas of their own. MALLOC_CONF in the environment overrides it.
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "narenas:1";
}

namespace rap::cli {
namespace {
std::map<std::string, CommandSetup>& Registry() {
  static std::map<std::string, CommandSetup> r;
  return r;
}
int g_exit_code = 0;
}  // namespace

CommandRegistrar::CommandRegistrar(std::string name, CommandSetup setup) { Registry()[std::move(name)] = std::move(setup); }

void FailWithCode(const Status& status, int exit_code) {
  std::fprintf(stderr, "rap: %s\n", status.ToString().c_str());
  g_exit_code = exit_code;
}
void Fail(const Status& status) { FailWithCode(status, 1); }
int ExitCode() { return g_exit_code; }

}  // namespace rap::cli

int main(int argc, char** argv) {
  rap::TuneAllocatorForScans();  // see rap/util/allocator.h
  CLI::App app{"rap — random access Parquet: fast scans and point lookups on a Parquet data lake"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rap 0.1.0");
  for (auto& [name, setup] : rap::cli::Registry()) setup(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return rap::cli::ExitCode();
}
