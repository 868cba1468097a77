// GET /metrics: Prometheus text format 0.0.4 — the server's request metrics (metrics.h), the
// transport's gauges, the object-store counters of the process (rap/io/store_metrics.h) and the
// metadata cache.
#include <fmt/format.h>

#include "rap/io/disk_cache.h"
#include "rap/io/store_metrics.h"
#include "rap/io/store_options.h"
#include "rap/read/metadata_cache.h"
#include "server/server_context.h"

namespace rap::server {

namespace {

// The disk tier of remote reads (`--cache-dir`, rap/io/disk_cache.h), when the process has one.
void AppendDiskCacheMetrics(std::string* body) {
  auto cache = io::DiskCacheFor(io::StoreOptions{});
  if (!cache.ok() || !*cache) return;
  const io::DiskCacheStats d = (*cache)->Stats();
  const std::pair<const char*, uint64_t> counters[] = {
      {"rap_disk_cache_hits_total", d.hits},         {"rap_disk_cache_misses_total", d.misses},
      {"rap_disk_cache_hit_bytes_total", d.hit_bytes}, {"rap_disk_cache_written_bytes_total", d.written_bytes},
      {"rap_disk_cache_evictions_total", d.evictions}, {"rap_disk_cache_corrupt_entries_total", d.corrupt_entries},
      {"rap_disk_cache_write_errors_total", d.write_errors}};
  for (const auto& [name, v] : counters) {
    *body += fmt::format("# HELP {} Disk cache (--cache-dir) counter.\n# TYPE {} counter\n{} {}\n", name, name, name, v);
  }
  *body += fmt::format("# HELP rap_disk_cache_entries Entries in the disk cache.\n# TYPE rap_disk_cache_entries gauge\n"
                       "rap_disk_cache_entries {}\n# HELP rap_disk_cache_bytes Bytes in the disk cache.\n"
                       "# TYPE rap_disk_cache_bytes gauge\nrap_disk_cache_bytes {}\n",
                       d.entries, d.bytes);
}

}  // namespace

void HandleMetrics(ServerContext& ctx, const HttpRequest&, Responder& out) {
  std::string body = ctx.metrics.Render();
  body += "# HELP rap_http_in_flight_requests Requests queued or running in a worker.\n";
  body += "# TYPE rap_http_in_flight_requests gauge\n";
  body += fmt::format("rap_http_in_flight_requests {}\n", ctx.http ? ctx.http->in_flight() : 0);
  body += "# HELP rap_http_open_connections Open client connections.\n# TYPE rap_http_open_connections gauge\n";
  body += fmt::format("rap_http_open_connections {}\n", ctx.http ? ctx.http->connections() : 0);
  body += "# HELP rap_http_io_thread_requests_total Requests run on the io thread (lookups of local tables).\n";
  body += "# TYPE rap_http_io_thread_requests_total counter\n";
  body += fmt::format("rap_http_io_thread_requests_total {}\n", ctx.http ? ctx.http->io_thread_requests() : 0);
  body += fmt::format("# HELP rap_http_max_in_flight_requests The in-flight limit (workers).\n"
                      "# TYPE rap_http_max_in_flight_requests gauge\nrap_http_max_in_flight_requests {}\n",
                      ctx.options.limits.max_in_flight);

  struct Kind {
    io::StoreKind kind;
    io::StoreMetricsSnapshot s;
  };
  std::vector<Kind> kinds;
  for (io::StoreKind k : {io::StoreKind::kLocal, io::StoreKind::kHttp}) {
    kinds.push_back({k, io::StoreMetrics::Global().Snapshot(k)});
  }
  auto counter = [&](const char* name, const char* help, auto get) {
    body += fmt::format("# HELP {} {}\n# TYPE {} counter\n", name, help, name);
    for (const Kind& k : kinds) body += fmt::format("{}{{store=\"{}\"}} {}\n", name, io::StoreKindName(k.kind), get(k.s));
  };
  counter("rap_store_requests_total", "Object-store requests (range reads) that succeeded.",
          [](const io::StoreMetricsSnapshot& s) { return s.requests; });
  counter("rap_store_bytes_total", "Object-store payload bytes received.",
          [](const io::StoreMetricsSnapshot& s) { return s.bytes; });
  counter("rap_store_failed_reads_total", "Object-store reads that failed after retries.",
          [](const io::StoreMetricsSnapshot& s) { return s.failed_reads; });
  counter("rap_store_hedges_sent_total", "Hedged duplicate range requests sent.",
          [](const io::StoreMetricsSnapshot& s) { return s.hedges_sent; });
  counter("rap_store_hedges_won_total", "Hedged duplicates that answered first.",
          [](const io::StoreMetricsSnapshot& s) { return s.hedges_won; });
  body += "# HELP rap_store_first_byte_seconds Object-store request latency to the first response byte.\n";
  body += "# TYPE rap_store_first_byte_seconds histogram\n";
  for (const Kind& k : kinds) {
    uint64_t cum = 0;
    const char* store = io::StoreKindName(k.kind);
    for (size_t i = 0; i < io::kStoreLatencyBounds.size(); ++i) {
      cum += k.s.latency_buckets[i];
      body += fmt::format("rap_store_first_byte_seconds_bucket{{store=\"{}\",le=\"{}\"}} {}\n", store,
                          io::kStoreLatencyBounds[i], cum);
    }
    cum += k.s.latency_buckets.back();
    body += fmt::format("rap_store_first_byte_seconds_bucket{{store=\"{}\",le=\"+Inf\"}} {}\n", store, cum);
    body += fmt::format("rap_store_first_byte_seconds_sum{{store=\"{}\"}} {:.6f}\n", store, k.s.latency_sum_s);
    body += fmt::format("rap_store_first_byte_seconds_count{{store=\"{}\"}} {}\n", store, cum);
  }

  const read::MetadataCacheStats mc = read::MetadataCache::Global().stats();
  body += fmt::format(
      "# HELP rap_metadata_cache_hits_total Parquet metadata cache hits.\n# TYPE rap_metadata_cache_hits_total counter\n"
      "rap_metadata_cache_hits_total {}\n"
      "# HELP rap_metadata_cache_misses_total Parquet metadata cache misses.\n"
      "# TYPE rap_metadata_cache_misses_total counter\nrap_metadata_cache_misses_total {}\n"
      "# HELP rap_metadata_cache_hit_ratio Hits / (hits + misses) since start.\n"
      "# TYPE rap_metadata_cache_hit_ratio gauge\nrap_metadata_cache_hit_ratio {:.6f}\n"
      "# HELP rap_metadata_cache_entries Files whose metadata is cached.\n"
      "# TYPE rap_metadata_cache_entries gauge\nrap_metadata_cache_entries {}\n"
      "# HELP rap_metadata_cache_bytes Approximate bytes held by the metadata cache.\n"
      "# TYPE rap_metadata_cache_bytes gauge\nrap_metadata_cache_bytes {}\n",
      mc.hits, mc.misses, mc.hits + mc.misses > 0 ? static_cast<double>(mc.hits) / static_cast<double>(mc.hits + mc.misses) : 0.0,
      mc.entries, mc.bytes);
  // The RAP index page cache of every served table with an open index.
  struct Cache {
    std::string table;
    index::PageCacheStats s;
    index::DataPageCacheStats d;
  };
  std::vector<Cache> caches;
  for (const auto& t : ctx.tables) {
    if (auto idx = t->index()) caches.push_back({t->name(), idx->page_cache_stats(), idx->data_cache_stats()});
  }
  auto cache_metric = [&](const char* name, const char* type, const char* help, auto get) {
    body += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    for (const Cache& c : caches) body += fmt::format("{}{{table=\"{}\"}} {}\n", name, c.table, get(c.s));
  };
  using PC = index::PageCacheStats;
  cache_metric("rap_index_page_cache_hits_total", "counter", "RAP index pages served by the page cache.",
               [](const PC& s) { return s.hits; });
  cache_metric("rap_index_page_cache_misses_total", "counter",
               "RAP index pages not in the page cache (read from fragments).", [](const PC& s) { return s.misses; });
  cache_metric("rap_index_page_cache_evictions_total", "counter",
               "RAP index pages evicted to stay within the cache budget.", [](const PC& s) { return s.evictions; });
  cache_metric("rap_index_page_cache_entries", "gauge", "RAP index pages held by the page cache.",
               [](const PC& s) { return s.entries; });
  cache_metric("rap_index_page_cache_bytes", "gauge", "Bytes held by the RAP index page cache.",
               [](const PC& s) { return s.bytes; });
  // The hot data cache (data pages decoded whole, `--data-cache`).
  auto data_metric = [&](const char* name, const char* type, const char* help, auto get) {
    body += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    for (const Cache& c : caches) body += fmt::format("{}{{table=\"{}\"}} {}\n", name, c.table, get(c.d));
  };
  data_metric("rap_data_cache_hits_total", "counter", "Data pages served decoded by the hot data cache.",
              [](const PC& s) { return s.hits; });
  data_metric("rap_data_cache_misses_total", "counter", "Data pages not in the hot data cache (read and decoded).",
              [](const PC& s) { return s.misses; });
  data_metric("rap_data_cache_evictions_total", "counter", "Data pages evicted to stay within the cache budget.",
              [](const PC& s) { return s.evictions; });
  data_metric("rap_data_cache_entries", "gauge", "Data pages held by the hot data cache.",
              [](const PC& s) { return s.entries; });
  data_metric("rap_data_cache_bytes", "gauge", "Bytes held by the hot data cache.",
              [](const PC& s) { return s.bytes; });
  AppendDiskCacheMetrics(&body);
  (void)out.Send(200, "text/plain; version=0.0.4; charset=utf-8", std::move(body));
}

}  // namespace rap::server
