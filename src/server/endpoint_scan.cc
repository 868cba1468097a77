// POST /v1/tables/{name}/scan: a projection, a filter and a limit over the table's current version,
// streamed with chunked transfer encoding as it is read (docs/server.md).
//
// Body (JSON, every key optional): {"columns": ["id", "name"], "where": "id > 5 AND name = 'x'",
// "limit": 100, "index": "by_user", "no_index": false}. A filter an index of the table answers is
// read through it, as `rap scan --where` (rap/index/indexed_scan.h): only the rows it names. JSON
// response: {"table": ..., "version": ..., "columns": [schema], "rows": [{...}, ...], "row_count": N,
// "truncated": false, "stats": {...}}; an error after the rows
// began ends the document with "error": {...} instead of "stats". Arrow response: the schema, one
// record batch per scanned batch, end of stream; an error after the start aborts the stream
// (the client sees an incomplete chunked body). Both stop at the response byte limit: JSON ends
// with "truncated": true; Arrow aborts (an Arrow stream cannot say it was cut).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rap/columnar/array_format.h"
#include "rap/index/indexed_scan.h"
#include "rap/read/expr.h"
#include "rap/server/arrow_ipc.h"
#include "rap/util/clock.h"
#include "server/json_output.h"
#include "server/requests.h"
#include "server/server_context.h"

namespace rap::server {
namespace {

using json = nlohmann::json;

// The index's part of the stats: "index_used" (the index's name, or null with "index_reason"), and
// when used the rows it named and its own reads.
std::string IndexStatsJson(const index::IndexedScanReport& r) {
  if (!r.used) {
    return fmt::format("\"index_used\":null,\"index_reason\":{}", columnar::JsonQuote(r.reason));
  }
  return fmt::format(
      "\"index_used\":{},\"index_kind\":{},\"index_predicate\":{},\"index_files\":{},\"index_files_unindexed\":{},"
      "\"index_candidate_rows\":{},\"index_requests\":{},\"index_bytes\":{}",
      columnar::JsonQuote(r.name), columnar::JsonQuote(r.kind), columnar::JsonQuote(r.predicate), r.files_indexed,
      r.files_unindexed, r.candidate_rows, r.index.requests, r.index.bytes);
}

std::string StatsJson(const read::ScanStats& s, const index::IndexedScanReport& indexed, double seconds) {
  return fmt::format(
      "{{\"files\":{},\"files_pruned\":{},\"row_groups\":{},\"row_groups_pruned\":{},\"rows_selected\":{},"
      "\"requests\":{},\"bytes\":{},{},\"seconds\":{:.6f}}}",
      s.files, s.files_pruned + s.files_pruned_by_stats + s.files_pruned_by_index, s.row_groups, s.row_groups_pruned,
      s.rows_selected, s.requests, s.bytes, IndexStatsJson(indexed), seconds);
}

}  // namespace

void HandleScan(ServerContext& ctx, const HttpRequest& req, Responder& out, ServedTable& table) {
  if (req.method != "POST") {
    (void)out.Send(405, "application/json", ErrorJson(405, "method_not_allowed", "scan takes POST"),
                   {{"Allow", "POST"}});
    return;
  }
  ScanRequest sr;
  if (std::string err = ParseScanRequest(req.body, &sr); !err.empty()) {
    return SendError(ctx, out, 400, "bad_request", err);
  }
  const ServerLimits& limits = ctx.options.limits;
  if (limits.max_scan_rows >= 0 && (sr.limit < 0 || sr.limit > limits.max_scan_rows)) sr.limit = limits.max_scan_rows;
  std::shared_ptr<const TableVersion> version = table.current();
  if (!version) return SendError(ctx, out, 503, "not_ready", "table '" + table.name() + "' is not loaded yet");
  read::ScanOptions so;
  so.columns = sr.columns;
  so.limit = sr.limit;
  // Producers per scan (seed 001's prefetch); one producer reads in this thread, with no warmup
  // thread either, as before prefetch existed.
  so.prefetch.producers = std::max(1, ctx.options.scan_threads);
  if (so.prefetch.producers == 1) so.warmup.level = read::WarmupLevel::kNone;
  so.batch_size = 8192;
  if (!sr.where.empty()) {
    auto e = read::ParseExpr(sr.where);
    if (!e.ok()) return SendError(ctx, out, 400, "bad_filter", "\"where\": " + e.status().message());
    so.filter = *e;
  }
  const double t0 = NowSeconds();
  // An index of the table that answers the filter restricts the files to the rows it names (a copy
  // of the version's source; without a filter or with no_index the shared one is scanned).
  index::IndexedScanReport indexed;
  std::optional<read::ScanSource> restricted;
  if (so.filter && !sr.no_index) {
    restricted = *version->source;
    index::IndexedScanOptions io;
    io.name = sr.index;
    io.open.preload = false;
    auto applied = index::ApplyIndex(table.config().url, *version->snapshot, so.filter, &*restricted, io);
    if (!applied.ok() && !sr.index.empty() && applied.status().Is(StatusCode::kNotFound)) {
      return SendError(ctx, out, 404, "unknown_index", applied.status().message());
    }
    if (!applied.ok()) return SendStatus(ctx, out, applied.status());
    indexed = std::move(*applied);
  } else {
    indexed.reason = so.filter ? "no_index" : "no filter";
  }
  if (!sr.index.empty() && !so.filter) {
    return SendError(ctx, out, 400, "bad_request", "\"index\" needs a \"where\" filter");
  }
  auto scanner = read::Scanner::Make(restricted ? std::move(*restricted) : *version->source, std::move(so));
  if (!scanner.ok()) return SendStatus(ctx, out, scanner.status());
  read::Scanner& sc = **scanner;
  const Schema& schema = *sc.schema();
  const bool arrow = WantsArrow(req);

  // The first batch before the status line, so an early failure still gets a proper status.
  auto first = sc.Next();
  if (!first.ok()) return SendStatus(ctx, out, first.status());
  if (NowSeconds() > req.deadline_s) {
    return SendError(ctx, out, 503, "deadline_exceeded",
                     fmt::format("the scan passed the request deadline of {} s", limits.request_deadline_s));
  }
  const HeaderList headers = {{"X-Rap-Table-Version", std::to_string(version->snapshot->version)}};
  if (!out.BeginStream(200, arrow ? kArrowStreamType : std::string_view("application/json"), headers).ok()) return;

  std::optional<read::ScanBatch> batch = std::move(*first);
  int64_t rows = 0;
  Status failure;
  std::string truncated_reason;
  const JsonRowWriter rows_json(schema);
  std::string chunk;
  if (arrow) {
    auto s = EncodeIpcSchema(schema);
    if (!s.ok() || !out.Write(*s).ok()) return out.AbortStream();
  } else {
    const std::string head = fmt::format("{{\"table\":{},\"version\":{},\"columns\":{},\"rows\":[",
                                         columnar::JsonQuote(table.name()), version->snapshot->version, SchemaJson(schema));
    if (!out.Write(head).ok()) return;
  }
  while (batch) {
    if (arrow) {
      auto m = EncodeIpcRecordBatch(batch->batch);
      if (!m.ok()) {
        failure = m.status();
        break;
      }
      if (out.bytes_sent() + m->size() > limits.max_response_bytes) {
        truncated_reason = "max_response_bytes";
        break;
      }
      if (!out.Write(*m).ok()) return;  // the client went away
    } else {
      for (int64_t r = 0; r < batch->batch.num_rows; ++r) {
        if (rows + r > 0) chunk += ",\n";
        rows_json.AppendRow(batch->batch, r, &chunk);
      }
      if (out.bytes_sent() + chunk.size() > limits.max_response_bytes) {
        truncated_reason = "max_response_bytes";
        chunk.clear();
        break;
      }
      if (!out.Write(chunk).ok()) return;
      chunk.clear();
    }
    rows += batch->batch.num_rows;
    if (NowSeconds() > req.deadline_s) {
      failure = Status::Timeout(fmt::format("the scan passed the request deadline of {} s after {} rows",
                                            limits.request_deadline_s, rows));
      break;
    }
    auto next = sc.Next();
    if (!next.ok()) {
      failure = next.status();
      break;
    }
    batch = std::move(*next);
  }
  if (!truncated_reason.empty()) ctx.metrics.RecordRejected("response_too_large");
  if (arrow) {
    if (!failure.ok() || !truncated_reason.empty()) return out.AbortStream();
    if (out.Write(IpcEndOfStream()).ok()) (void)out.EndStream();
    return;
  }
  chunk += fmt::format("],\"row_count\":{},\"truncated\":{}", rows, truncated_reason.empty() ? "false" : "true");
  if (!truncated_reason.empty()) chunk += ",\"truncated_reason\":" + columnar::JsonQuote(truncated_reason);
  if (!failure.ok()) {
    const int status = failure.Is(StatusCode::kTimeout) && NowSeconds() > req.deadline_s ? 503 : HttpStatusOf(failure);
    chunk += fmt::format(",\"error\":{{\"status\":{},\"code\":{},\"message\":{}}}}}\n", status,
                         columnar::JsonQuote(ErrorCodeOf(failure)), columnar::JsonQuote(failure.message()));
  } else {
    chunk += ",\"stats\":" + StatsJson(sc.stats(), indexed, NowSeconds() - t0) + "}\n";
  }
  if (out.Write(chunk).ok()) (void)out.EndStream();
}

}  // namespace rap::server
