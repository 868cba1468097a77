// Server: routing, the served tables and their refresh thread, metrics and the access log around
// the HTTP transport (include/rap/server/server.h).
#include "rap/server/server.h"

#include <algorithm>
#include <condition_variable>
#include <optional>
#include <set>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "rap/io/http_options.h"
#include "rap/io/object_store.h"
#include "rap/server/server_config.h"
#include "rap/table/scan_source.h"
#include "rap/util/clock.h"
#include "rap/util/hash.h"
#include "server/access_log.h"
#include "server/server_context.h"

namespace rap::server {

Result<bool> ServedTable::Refresh() {
  table::OpenTableOptions to;
  to.snapshot_id = config_.snapshot_id;
  to.as_of_ms = config_.as_of_ms;
  to.location_map = config_.location_map;
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(config_.url, to));
  std::string fp = fmt::format("{}:{}:", static_cast<int>(snap.kind), snap.version);
  Fnv1a64 h;
  for (const table::DataFile& f : snap.files) {
    h.Update(f.path);
    h.UpdateU64(f.size);
    h.UpdateU64(static_cast<uint64_t>(f.modification_time_ms));
  }
  fp += std::to_string(snap.files.size()) + ":" + h.ToString();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (current_ && current_->fingerprint == fp) return false;
  }
  auto v = std::make_shared<TableVersion>();
  RAP_ASSIGN_OR_RETURN(read::ScanSource src, table::ToScanSource(snap));
  // The table's columns as a full scan returns them (directory tables: from the first file's footer).
  RAP_ASSIGN_OR_RETURN(auto probe, read::Scanner::Make(src, read::ScanOptions{}));
  v->schema = probe->schema();
  v->snapshot = std::make_shared<const table::TableSnapshot>(std::move(snap));
  v->source = std::make_shared<const read::ScanSource>(std::move(src));
  v->fingerprint = std::move(fp);
  v->loaded_s = NowSeconds();
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(v);
  return true;
}

Result<bool> ServedTable::RefreshIndex() {
  std::shared_ptr<index::Index> idx = index();
  if (idx) return idx->Refresh();
  index::IndexOpenOptions io;
  io.page_cache_bytes = index_cache_bytes_;
  io.data_cache_bytes = data_cache_bytes_;
  auto opened = index::Index::Open(config_.index_url.empty() ? config_.url : config_.index_url, io);
  std::lock_guard<std::mutex> lock(mu_);
  if (!opened.ok()) {
    index_error_ = opened.status().message();
    return opened.status();
  }
  index_ = std::move(*opened);
  index_error_.clear();
  return true;
}

namespace {

// `/v1/tables/{name}/{action}` split into name and action (action empty without a second part);
// nullopt for any other path. The one parser of table paths (routing, metrics, inline lookups).
struct TablePath {
  std::string_view name, action;
};
std::optional<TablePath> ParseTablePath(std::string_view path) {
  constexpr std::string_view kPrefix = "/v1/tables/";
  if (path.substr(0, kPrefix.size()) != kPrefix || path.size() == kPrefix.size()) return std::nullopt;
  const std::string_view rest = path.substr(kPrefix.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return TablePath{rest, {}};
  return TablePath{rest.substr(0, slash), rest.substr(slash + 1)};
}

// The metrics label of a request path.
std::string EndpointOf(const std::string& path) {
  if (path == "/healthz") return "healthz";
  if (path == "/readyz") return "readyz";
  if (path == "/metrics") return "metrics";
  if (path == "/v1/tables" || path == "/v1/tables/") return "tables";
  if (auto t = ParseTablePath(path); t && (t->action == "scan" || t->action == "lookup")) return std::string(t->action);
  return "other";
}

}  // namespace

struct Server::Impl {
  ServerContext ctx;
  AccessLog access_log;
  std::unique_ptr<HttpServer> http;
  std::thread refresher;
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;

  void Route(const HttpRequest& req, Responder& out) {
    const std::string& p = req.path;
    if (p == "/healthz") return HandleHealth(ctx, req, out);
    if (p == "/readyz") return HandleReady(ctx, req, out);
    if (p == "/metrics") return HandleMetrics(ctx, req, out);
    if (p == "/v1/tables" || p == "/v1/tables/") return HandleTables(ctx, req, out);
    if (auto tp = ParseTablePath(p)) {
      const std::string name(tp->name), action(tp->action);
      std::shared_ptr<ServedTable> t = ctx.FindTable(name);
      if (!t) return SendError(ctx, out, 404, "unknown_table", "no table named '" + name + "' is served");
      if (action == "scan") return HandleScan(ctx, req, out, *t);
      if (action == "lookup") return HandleLookup(ctx, req, out, *t);
      return SendError(ctx, out, 404, "not_found",
                       "unknown endpoint '" + action + "' of table '" + name + "' (expected scan or lookup)");
    }
    SendError(ctx, out, 404, "not_found", "no endpoint at " + p + " (see docs/server.md)");
  }

  void Observe(const CompletedRequest& c) {
    const std::string endpoint = c.request ? EndpointOf(c.request->path) : "other";
    ctx.metrics.RecordRequest(endpoint, c.status, c.seconds, c.bytes);
    if (!c.reject_reason.empty()) ctx.metrics.RecordRejected(c.reject_reason);
    access_log.Write(c);
  }

  void RefreshLoop() {
    const auto interval = std::chrono::duration<double>(ctx.options.refresh_interval_s);
    std::unique_lock<std::mutex> lock(mu);
    while (!stop) {
      if (cv.wait_for(lock, interval, [&] { return stop; })) break;
      lock.unlock();
      for (const auto& t : ctx.tables) {
        auto changed = t->Refresh();
        auto index_changed = t->RefreshIndex();
        ctx.metrics.RecordRefresh(t->name(), (changed.ok() && *changed) || (index_changed.ok() && *index_changed),
                                  !changed.ok() || (!index_changed.ok() && !t->config().index_url.empty()));
      }
      lock.lock();
    }
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<Server>> Server::Start(ServerOptions options) {
  auto impl = std::make_unique<Impl>();
  if (options.tables.empty()) return Status::InvalidArgument("rap serve: no table configured (--table name=URL)");
  {
    io::HedgeOptions hedge = io::DefaultHedgeOptions();
    hedge.enabled = options.hedge_reads;
    if (!(options.hedge_quantile > 0 && options.hedge_quantile < 1)) {
      return Status::InvalidArgument("hedge quantile " + std::to_string(options.hedge_quantile) + ": expected a number in (0, 1)");
    }
    if (!(options.hedge_max_extra >= 0 && options.hedge_max_extra <= 1)) {
      return Status::InvalidArgument("hedge max extra " + std::to_string(options.hedge_max_extra) + ": expected a fraction in [0, 1]");
    }
    hedge.quantile = options.hedge_quantile;
    hedge.max_fraction = options.hedge_max_extra;
    io::SetDefaultHedgeOptions(hedge);
  }
  for (const TableConfig& tc : options.tables) {
    for (const auto& other : impl->ctx.tables) {
      if (other->name() == tc.name) return Status::InvalidArgument("table '" + tc.name + "' is configured twice");
    }
    auto t = std::make_shared<ServedTable>(tc, options.index_cache_bytes, options.data_cache_bytes);
    auto loaded = t->Refresh();
    if (!loaded.ok()) return loaded.status().WithContext("table '" + tc.name + "'");
    if (t->current()->snapshot->files.empty()) {
      return Status::NotFound("table '" + tc.name + "' at " + RedactUrl(tc.url) +
                              ": no data files (a missing directory or a typo in the URL?)");
    }
    // The index: optional unless configured explicitly (then a failure is an error at start).
    auto idx = t->RefreshIndex();
    if (!idx.ok() && !tc.index_url.empty()) return idx.status().WithContext("table '" + tc.name + "' index");
    impl->ctx.tables.push_back(std::move(t));
  }
  RAP_RETURN_NOT_OK(impl->access_log.Open(options.access_log));
  impl->ctx.options = options;
  HttpServerOptions ho;
  ho.host = options.host;
  ho.port = options.port;
  ho.io_threads = options.io_threads > 0
                      ? options.io_threads
                      : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  const ServerLimits& l = options.limits;
  ho.workers = std::max(1, l.max_in_flight);
  ho.max_queued = std::max(0, l.max_queued);
  ho.max_connections = std::max(1, l.max_connections);
  ho.max_header_bytes = l.max_header_bytes;
  ho.max_body_bytes = l.max_body_bytes;
  ho.read_timeout_s = l.read_timeout_s;
  ho.idle_timeout_s = l.idle_timeout_s;
  ho.write_timeout_s = l.write_timeout_s;
  ho.request_deadline_s = l.request_deadline_s;
  ho.retry_after_s = l.retry_after_s;
  if (options.inline_local_lookups) {
    // Tables whose data and index stores are both local: their lookups run on the io thread.
    auto local = std::make_shared<std::set<std::string>>();
    for (const TableConfig& tc : options.tables) {
      bool is_local = true;
      for (const std::string& url : {tc.url, tc.index_url}) {
        if (url.empty()) continue;
        auto r = io::OpenUrl(url);
        is_local = is_local && r.ok() && !r->store->is_remote();
      }
      if (is_local) local->insert(tc.name);
    }
    if (!local->empty()) {
      ho.run_on_io_thread = [local](const HttpRequest& req) {
        const auto t = ParseTablePath(req.path);
        return t && t->action == "lookup" && local->count(std::string(t->name)) > 0;
      };
    }
  }
  Impl* p = impl.get();
  RAP_ASSIGN_OR_RETURN(impl->http, HttpServer::Start(
                                       ho, [p](const HttpRequest& req, Responder& out) { p->Route(req, out); },
                                       [p](const CompletedRequest& c) { p->Observe(c); }));
  impl->ctx.http = impl->http.get();
  if (options.refresh_interval_s > 0) impl->refresher = std::thread([p] { p->RefreshLoop(); });
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::~Server() { Shutdown(0); }

uint16_t Server::port() const { return impl_->http ? impl_->http->port() : 0; }

void Server::Shutdown(double grace_s) {
  Impl& s = *impl_;
  s.ctx.shutting_down.store(true);
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.stop = true;
  }
  s.cv.notify_all();
  if (s.refresher.joinable()) s.refresher.join();
  if (s.http) s.http->Shutdown(grace_s);
}

}  // namespace rap::server
