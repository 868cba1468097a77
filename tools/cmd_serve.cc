// `rap serve`: the HTTP lookup and scan server (include/rap/server/server.h, docs/server.md).
// Tables come from --table name=URL[,index=URL][,snapshot=ID]... flags and/or a --config JSON file; flags win.
// Runs until SIGTERM or SIGINT, then shuts down gracefully (in-flight requests finish, up to --grace).
#include <signal.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.h"
#include "disk_cache_flags.h"
#include "rap/server/server.h"
#include "rap/server/server_config.h"
#include "rap/util/units.h"

namespace rap::cli {
namespace {

struct ServeArgs {
  std::string config;
  std::vector<std::string> tables;
  std::string listen;
  std::string port_file;
  std::string access_log;
  bool no_access_log = false;
  int max_in_flight = -1;
  int max_queued = -1;
  int64_t max_keys = -1;
  double request_deadline_s = -1;
  double refresh_interval_s = -1;
  int io_threads = -1;
  int scan_threads = -1;
  double grace_s = 10;
  bool no_hedge = false;
  double hedge_quantile = -1;
  double hedge_max_extra = -1;
  std::string index_cache;
  std::string data_cache;
  bool no_inline_lookups = false;
  DiskCacheArgs disk_cache;
};

Status RunServe(const ServeArgs& a) {
  RAP_RETURN_NOT_OK(a.disk_cache.Apply());
  server::ServerOptions o;
  if (!a.config.empty()) RAP_RETURN_NOT_OK(server::LoadServerConfig(a.config, &o));
  for (const std::string& t : a.tables) {
    RAP_ASSIGN_OR_RETURN(server::TableConfig tc, server::ParseTableFlag(t));
    bool replaced = false;
    for (auto& existing : o.tables) {
      if (existing.name == tc.name) {
        existing = tc;
        replaced = true;
      }
    }
    if (!replaced) o.tables.push_back(std::move(tc));
  }
  if (!a.listen.empty()) {
    RAP_ASSIGN_OR_RETURN(auto hp, server::ParseListen(a.listen));
    o.host = hp.first;
    o.port = hp.second;
  }
  if (!a.access_log.empty()) o.access_log = a.access_log;
  if (a.no_access_log) o.access_log.clear();
  if (a.max_in_flight > 0) o.limits.max_in_flight = a.max_in_flight;
  if (a.max_queued >= 0) o.limits.max_queued = a.max_queued;
  if (a.max_keys > 0) o.limits.max_keys = a.max_keys;
  if (a.request_deadline_s > 0) o.limits.request_deadline_s = a.request_deadline_s;
  if (a.refresh_interval_s >= 0) o.refresh_interval_s = a.refresh_interval_s;
  if (a.io_threads > 0) o.io_threads = a.io_threads;
  if (a.scan_threads > 0) o.scan_threads = a.scan_threads;
  if (a.no_hedge) o.hedge_reads = false;
  if (a.hedge_quantile >= 0) o.hedge_quantile = a.hedge_quantile;
  if (a.hedge_max_extra >= 0) o.hedge_max_extra = a.hedge_max_extra;
  if (a.no_inline_lookups) o.inline_local_lookups = false;
  if (!a.index_cache.empty()) {
    auto b = ParseByteSize(a.index_cache);
    if (!b.ok()) return b.status().WithContext("--index-cache");
    o.index_cache_bytes = static_cast<int64_t>(*b);
  }
  if (!a.data_cache.empty()) {
    auto b = ParseByteSize(a.data_cache);
    if (!b.ok()) return b.status().WithContext("--data-cache");
    o.data_cache_bytes = static_cast<int64_t>(*b);
  }

  // Every thread the server starts inherits this mask, so SIGTERM/SIGINT reach sigwait below only.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  RAP_ASSIGN_OR_RETURN(auto srv, server::Server::Start(o));
  std::string names;
  for (const auto& t : o.tables) names += (names.empty() ? "" : ", ") + t.name;
  std::fprintf(stderr, "rap serve: listening on http://%s:%u (tables: %s)\n", o.host.c_str(), srv->port(),
               names.c_str());
  if (!a.port_file.empty()) {
    const std::string tmp = a.port_file + ".tmp";
    {
      std::ofstream f(tmp);
      f << srv->port() << "\n";
    }
    std::rename(tmp.c_str(), a.port_file.c_str());
  }
  int sig = 0;
  sigwait(&set, &sig);
  std::fprintf(stderr, "rap serve: %s, shutting down (grace %.1f s)\n", sig == SIGTERM ? "SIGTERM" : "SIGINT",
               a.grace_s);
  srv->Shutdown(a.grace_s);
  std::fprintf(stderr, "rap serve: stopped\n");
  return Status::OK();
}

CommandRegistrar reg("serve", [](CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve lookups and scans of tables over HTTP (docs/server.md)");
  cmd->add_option("--config", a->config, "JSON config file (tables, listen, limits; see docs/server.md)");
  cmd->add_option("--table,-t", a->tables, "A table to serve: name=URL[,index=INDEX_URL][,snapshot=ID][,as-of=TIME][,location-map=OLD=NEW]... "
                  "(repeatable; snapshot, as-of, location-map: Iceberg, docs/iceberg.md)");
  cmd->add_option("--listen,-l", a->listen, "Address to listen on, host:port (default 127.0.0.1:8080; port 0: any)");
  cmd->add_option("--port-file", a->port_file, "Write the bound port to this file once listening");
  cmd->add_option("--access-log", a->access_log, "Access log file ('-' = stderr, the default)");
  cmd->add_flag("--no-access-log", a->no_access_log, "Do not write an access log");
  cmd->add_option("--max-in-flight", a->max_in_flight, "Requests processed at once (worker threads; default 32)");
  cmd->add_option("--max-queued", a->max_queued, "Requests waiting for a worker before 429 (default 256)");
  cmd->add_option("--max-keys", a->max_keys, "Keys per lookup request before 413 (default 1000)");
  cmd->add_option("--request-deadline", a->request_deadline_s, "Per-request deadline in seconds (default 30)");
  cmd->add_option("--refresh-interval", a->refresh_interval_s,
                  "Seconds between polls for a new table version / index manifest (default 10; 0: never)");
  cmd->add_option("--io-threads", a->io_threads, "Network threads (default: one per core, at most 8)");
  cmd->add_flag("--no-inline-lookups", a->no_inline_lookups,
                "Run lookups of local tables on the workers too (default: on the io thread, no hand-off)");
  cmd->add_option("--scan-threads", a->scan_threads, "Row groups decoded in parallel per scan (default 1)");
  cmd->add_option("--index-cache", a->index_cache,
                  "Byte budget of each table's RAP index page cache, e.g. 1GiB (default 512MiB; 0: off)");
  cmd->add_option("--data-cache", a->data_cache,
                  "Byte budget of each table's hot data cache (data pages decoded whole), e.g. 1GiB "
                  "(default 256MiB; 0: off)");
  cmd->add_flag("--no-hedge", a->no_hedge, "Do not hedge slow range reads of remote tables");
  cmd->add_option("--hedge-quantile", a->hedge_quantile,
                  "Latency quantile after which a range read gets a duplicate (default 0.975)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--hedge-max-extra", a->hedge_max_extra,
                  "Cap on duplicates, as a fraction of the endpoint's requests (default 0.05)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--grace", a->grace_s, "Seconds in-flight requests get to finish on SIGTERM")->capture_default_str();
  a->disk_cache.AddTo(cmd);
  cmd->callback([a] {
    Status st = RunServe(*a);
    if (!st.ok()) Fail(st);
  });
});

}  // namespace
}  // namespace rap::cli
