// rap serve: an HTTP API over lookups and scans of the configured tables (docs/server.md).
// Endpoints: GET /v1/tables, GET|POST /v1/tables/{name}/lookup, POST /v1/tables/{name}/scan,
// GET /healthz, GET /readyz, GET /metrics (Prometheus text). Responses are JSON, or an Arrow IPC
// stream with `Accept: application/vnd.apache.arrow.stream`.
//
// Bounded by construction: a fixed pool of `limits.max_in_flight` worker threads runs requests
// (plus `io_threads` for the network), at most `limits.max_queued` requests wait for a worker
// (beyond that: 429 with Retry-After), a request waiting past its deadline gets 503 with
// Retry-After, bodies and headers beyond their limits get 413 / 431, and a response is cut at
// `limits.max_response_bytes`. Slow clients are closed after the read / write timeouts, so they
// cannot hold a worker. Shutdown() is graceful: no new connections or requests (503), in-flight
// requests finish (up to the grace period), then every connection closes and every thread is joined.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rap/io/http_options.h"
#include "rap/util/result.h"

namespace rap::server {

struct TableConfig {
  std::string name;       // the {name} of /v1/tables/{name}/...: [A-Za-z0-9_.-]+
  std::string url;        // table URL (path, file://, http(s)://, s3://)
  std::string index_url;  // RAP index; empty = the table's default index (<url>/_rap_index/...)
  // Iceberg (snapshots also Paimon): serve this snapshot (then the table never changes on refresh), or
  // the one current at as_of_ms; the location map as `rap scan --location-map` (docs/iceberg.md).
  std::optional<int64_t> snapshot_id = std::nullopt;
  std::optional<int64_t> as_of_ms = std::nullopt;
  std::vector<std::pair<std::string, std::string>> location_map = {};
};

struct ServerLimits {
  int max_in_flight = 32;                       // worker threads = requests processed at once
  int max_queued = 256;                         // requests waiting for a worker; beyond: 429
  int max_connections = 4096;                   // open connections; beyond: accepted and closed
  int64_t max_keys = 1000;                      // keys per lookup request; beyond: 413
  uint64_t max_body_bytes = 1 << 20;            // request body; beyond: 413
  uint64_t max_header_bytes = 16 << 10;         // request line + headers; beyond: 431
  uint64_t max_response_bytes = 256ull << 20;   // a response body is cut (and marked) here
  int64_t max_scan_rows = -1;                   // cap of a scan's limit (< 0: none)
  double request_deadline_s = 30;               // from the request's arrival; beyond: 503
  double read_timeout_s = 10;                   // to receive a whole request (slow clients)
  double idle_timeout_s = 60;                   // keep-alive connection without a request
  double write_timeout_s = 30;                  // one write to a client that does not read
  int retry_after_s = 1;                        // Retry-After of 429 / 503
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;  // 0: any free port (see Server::port())
  std::vector<TableConfig> tables;
  ServerLimits limits;
  int io_threads = 0;                // network threads (Asio); 0: one per core (at most 8)
  int scan_threads = 1;              // ScanOptions::prefetch.producers of each scan (1: no threads, no warmup)
  double refresh_interval_s = 10;    // poll for a newer index manifest / table version (<= 0: never)
  std::string access_log = "-";      // "-": stderr, "": none, else a file (appended)
  bool require_index = false;        // /readyz also waits for every table's index
  // Byte budget of each table's RAP index page cache (decoded index pages, LRU). Lookups whose
  // index pages are cached take one round (no index read); size it to the hot part of the index
  // (a covered page of 256 entries decodes to roughly 50-80 KB).
  int64_t index_cache_bytes = 512ll << 20;
  // Byte budget of each table's hot data cache: data pages decoded whole (LRU; 0: off). A lookup of
  // a key whose pages are cached reads and decodes nothing (index::IndexOpenOptions::data_cache_bytes).
  int64_t data_cache_bytes = 256ll << 20;
  // Hedged range reads (rap/io/http_options.h HedgeOptions) for the HTTP/S3 stores of the tables.
  // Process-wide: Start() sets the default for stores created from then on.
  bool hedge_reads = true;
  // The hedging delay's latency quantile and the cap on duplicates as a fraction of requests
  // (HedgeOptions::quantile / max_fraction).
  double hedge_quantile = io::HedgeOptions{}.quantile;
  double hedge_max_extra = io::HedgeOptions{}.max_fraction;
  // Lookups of a table whose data and index are local files run on the io thread that parsed the
  // request (no hand-off to a worker: a local lookup is a few page-cache reads, like a file served
  // by nginx's event loop). Remote tables always use the workers, whose reads may wait on the network.
  bool inline_local_lookups = true;
};

class Server {
 public:
  // Opens every table (an error names the table that failed), binds and starts serving.
  static Result<std::unique_ptr<Server>> Start(ServerOptions options);
  ~Server();  // Shutdown(0) when still running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const;
  // Graceful stop (see above); idempotent. Returns when every thread has been joined.
  void Shutdown(double grace_s);

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rap::server
