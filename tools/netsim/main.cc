// rap-netsim: a controlled HTTP server for benchmarks and fault tests. Serves a directory with a
// fixed per-request latency and one throughput limit shared by all concurrent responses; see
// server.h for the control endpoint and faults.h for fault injection.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "netsim/config.h"
#include "netsim/faults.h"
#include "netsim/server.h"
#include "rap/util/units.h"

namespace {

int Fail(const rap::Status& status) {
  std::fprintf(stderr, "rap-netsim: %s\n", status.ToString().c_str());
  return 1;
}

// Writes the port atomically (temp file + rename) so a reader never sees a partial number.
rap::Status WritePortFile(const std::string& path, uint16_t port) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << port << "\n";
    if (!out) return rap::Status::IOError(fmt::format("port file '{}': cannot write", tmp));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return rap::Status::IOError(fmt::format("port file '{}': rename failed: {}", path, ec.message()));
  return rap::Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "rap-netsim: serve a directory over HTTP/1.1 with a controlled per-request latency and one throughput limit "
      "shared by all concurrent responses.\nControl endpoint (not counted, no latency): /_netsim/stats, "
      "/_netsim/reset, /_netsim/config?latency=20ms&throughput=4MiB/s, /_netsim/fault?kind=503&count=1, "
      "/_netsim/faults, /_netsim/faults/clear, /_netsim/health."};
  std::string root, latency = "0ms", throughput = "unlimited", bind = "127.0.0.1", port_file, chunk = "16KiB";
  uint16_t port = 0;
  uint64_t seed = 42;
  bool quiet = false;
  std::vector<std::string> fault_specs;
  app.add_option("--root", root, "directory to serve")->required()->check(CLI::ExistingDirectory);
  app.add_option("--latency", latency, "delay before the first byte of each response, e.g. 50ms")
      ->capture_default_str();
  app.add_option("--throughput", throughput, "payload rate shared by all responses, e.g. 128MiB/s; 0 or unlimited")
      ->capture_default_str();
  app.add_option("--port", port, "TCP port; 0 picks a free one (printed, and written to --port-file)")
      ->capture_default_str();
  app.add_option("--bind", bind, "address to listen on")->capture_default_str();
  app.add_option("--port-file", port_file, "write the listening port to this file once the server accepts");
  app.add_option("--chunk", chunk, "fairness quantum of the shared throughput limit: the payload granted to one response at a time")->capture_default_str();
  app.add_option("--fault", fault_specs,
                 "inject a fault, e.g. 'kind=503,count=2,path=/t/' or 'kind=reset,prob=0.1,count=-1'; kinds: reset, "
                 "4xx/5xx status, truncate[,after=N], bad_range, stall[,seconds=S], lost (writes: done, answer dropped) (repeatable)");
  app.add_option("--seed", seed, "random seed for probabilistic faults")->capture_default_str();
  app.add_flag("--quiet", quiet, "do not log connection errors");
  bool exit_with_parent = false;
  app.add_flag("--exit-with-parent", exit_with_parent, "stop when the process that started rap-netsim exits");
  CLI11_PARSE(app, argc, argv);

  rap::netsim::ServerOptions options;
  options.root = root;
  options.bind = bind;
  options.port = port;
  options.seed = seed;
  options.quiet = quiet;
  if (exit_with_parent) options.watch_parent = static_cast<int>(getppid());
  auto lat = rap::netsim::ParseLatency(latency);
  if (!lat.ok()) return Fail(lat.status());
  options.profile.latency_seconds = *lat;
  auto tput = rap::netsim::ParseThroughput(throughput);
  if (!tput.ok()) return Fail(tput.status());
  options.profile.throughput_bps = *tput;
  auto chunk_bytes = rap::ParseByteSize(chunk);
  if (!chunk_bytes.ok()) return Fail(chunk_bytes.status());
  if (*chunk_bytes < 512 || *chunk_bytes > 16 * rap::kMiB) {
    return Fail(rap::Status::InvalidArgument(fmt::format("--chunk {}: expected 512 B to 16 MiB", chunk)));
  }
  options.chunk = static_cast<size_t>(*chunk_bytes);
  for (const std::string& spec : fault_specs) {
    auto rule = rap::netsim::ParseFaultRule(spec);
    if (!rule.ok()) return Fail(rule.status());
    options.faults.push_back(std::move(*rule));
  }

  auto server = rap::netsim::Server::Create(options);
  if (!server.ok()) return Fail(server.status());
  uint16_t bound = (*server)->port();
  if (!port_file.empty()) {
    rap::Status st = WritePortFile(port_file, bound);
    if (!st.ok()) return Fail(st);
  }
  std::printf("rap-netsim: serving %s on http://%s:%u (latency %g ms, throughput %s)\n", root.c_str(), bind.c_str(),
              bound, options.profile.latency_seconds * 1e3,
              rap::netsim::FormatThroughput(options.profile.throughput_bps).c_str());
  std::fflush(stdout);
  (*server)->Run();
  std::printf("rap-netsim: stopped\n");
  return 0;
}
