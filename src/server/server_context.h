// What the endpoints share: the options, the served tables (each an immutable snapshot swapped by
// the refresh thread, so a request holds one consistent version for its whole life), the metrics
// and the transport's gauges. Endpoints (endpoint_*.cc) are free functions over this context.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rap/index/index.h"
#include "rap/read/scanner.h"
#include "rap/server/server.h"
#include "rap/table/table.h"
#include "server/http_server.h"
#include "server/http_types.h"
#include "server/metrics.h"

namespace rap::server {

// One version of a served table: its file list and the scan source over it. Never modified.
struct TableVersion {
  std::shared_ptr<const table::TableSnapshot> snapshot;
  std::shared_ptr<const read::ScanSource> source;
  SchemaPtr schema;         // every column of a full scan (data and partition columns)
  std::string fingerprint;  // changes when the file list changes (version, or paths and sizes)
  double loaded_s = 0;
};

class ServedTable {
 public:
  ServedTable(TableConfig config, int64_t index_cache_bytes, int64_t data_cache_bytes)
      : config_(std::move(config)), index_cache_bytes_(index_cache_bytes), data_cache_bytes_(data_cache_bytes) {}
  const TableConfig& config() const { return config_; }
  const std::string& name() const { return config_.name; }

  // The current version (null before the first successful load).
  std::shared_ptr<const TableVersion> current() const {
    std::lock_guard<std::mutex> lock(mu_);
    return current_;
  }
  // Opens the table again; swaps in the new version when it differs. Returns whether it changed.
  Result<bool> Refresh();

  // The RAP index (null until it opened). A lookup holds the shared_ptr for its whole life; the
  // index itself swaps manifest snapshots atomically (Index::Refresh), so every lookup sees one version.
  std::shared_ptr<index::Index> index() const {
    std::lock_guard<std::mutex> lock(mu_);
    return index_;
  }
  std::string index_error() const {
    std::lock_guard<std::mutex> lock(mu_);
    return index_error_;
  }
  // Opens the index when it is not open yet, else picks up a newer manifest. Returns whether the
  // served index version changed. A failure leaves the previous index serving.
  Result<bool> RefreshIndex();

 private:
  TableConfig config_;
  const int64_t index_cache_bytes_;
  const int64_t data_cache_bytes_;
  mutable std::mutex mu_;
  std::shared_ptr<const TableVersion> current_;
  std::shared_ptr<index::Index> index_;
  std::string index_error_;
};

struct ServerContext {
  ServerOptions options;
  std::vector<std::shared_ptr<ServedTable>> tables;
  Metrics metrics;
  HttpServer* http = nullptr;
  std::atomic<bool> shutting_down{false};

  std::shared_ptr<ServedTable> FindTable(const std::string& name) const {
    for (const auto& t : tables) {
      if (t->name() == name) return t;
    }
    return nullptr;
  }
};

// ---- Responses shared by the endpoints ----
// A JSON error response (4xx/5xx); Retry-After for 429/503.
void SendError(const ServerContext& ctx, Responder& out, int status, std::string_view code, std::string_view message);
// A library Status as an HTTP error: InvalidArgument 400, NotFound/AccessDenied/IOError (store) 502,
// Timeout 504, Changed/Cancelled 503, ResourceExhausted 413, NotSupported 501, Corrupt/Internal 500.
void SendStatus(const ServerContext& ctx, Responder& out, const Status& status);
int HttpStatusOf(const Status& status);
std::string_view ErrorCodeOf(const Status& status);
void SendJson(Responder& out, int status, std::string body);
// The requested response format: Arrow IPC stream when Accept names application/vnd.apache.arrow.stream.
bool WantsArrow(const HttpRequest& req);
inline constexpr std::string_view kArrowStreamType = "application/vnd.apache.arrow.stream";

// ---- Endpoints ----
void HandleTables(ServerContext& ctx, const HttpRequest& req, Responder& out);
void HandleScan(ServerContext& ctx, const HttpRequest& req, Responder& out, ServedTable& table);
void HandleHealth(ServerContext& ctx, const HttpRequest& req, Responder& out);
void HandleReady(ServerContext& ctx, const HttpRequest& req, Responder& out);
void HandleMetrics(ServerContext& ctx, const HttpRequest& req, Responder& out);
void HandleLookup(ServerContext& ctx, const HttpRequest& req, Responder& out, ServedTable& table);

}  // namespace rap::server
