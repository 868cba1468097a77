// GET|POST /v1/tables/{name}/lookup: point lookups of a batch of keys through the table's RAP
// index (rap/index/index.h), with per-key pagination (docs/server.md).
//
// GET:  ?range=LO..HI or ?prefix=P (rap lookup --range/--prefix): every key in the range, in key order,
//       as {"table", "index_version", "columns", "range", "rows", "next_page_token", "stats"}.
// GET:  ?key=42&key=43&columns=a,b&limit=10&page_token=T (one page_token per key, in key order,
//       or none). A compound key is `key=["a",1]` (a JSON array) or `key=a,1` (split at the first ',').
// POST: {"keys": [42, "x", ["a", 1]], "columns": ["a", "b"], "limit": 10, "page_tokens": ["", "T"]}.
// JSON response: {"table", "index_version", "columns": [schema], "keys": [{"key": [texts], "rows":
// [{...}], "next_page_token": "T" | null}], "stats": {...}}. Arrow response (Accept:
// application/vnd.apache.arrow.stream): one record batch per key with rows, in key order; the
// header X-Rap-Key-Rows lists the row count of every key (so clients can regroup) and
// X-Rap-Next-Page-Tokens the tokens as a JSON array.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iterator>

#include "rap/columnar/array_format.h"
#include "rap/server/arrow_ipc.h"
#include "rap/util/clock.h"
#include "server/json_output.h"
#include "server/requests.h"
#include "server/server_context.h"

namespace rap::server {
namespace {

using json = nlohmann::json;

void AppendLookupStatsJson(const index::LookupStats& s, std::string* out) {
  fmt::format_to(std::back_inserter(*out),
      "{{\"rounds\":{},\"requests\":{},\"bytes\":{},\"index_pages_read\":{},\"index_page_cache_hits\":{},"
      "\"data_files\":{},\"covered_files\":{},\"data_pages_decoded\":{},\"data_page_cache_hits\":{},"
      "\"rows\":{},\"seconds\":{:.6f}}}",
      s.dependent_rounds, s.requests, s.bytes, s.index_pages_read, s.index_page_cache_hits, s.data_files,
      s.covered_files, s.data_pages_decoded, s.data_page_cache_hits, s.rows, s.seconds);
}

// GET ?range=LO..HI or ?prefix=P: the rows of every key in the range, in key order, one page.
void HandleRangeLookup(ServerContext& ctx, const HttpRequest& req, Responder& out, ServedTable& table,
                       const index::Index& idx, const LookupRequest& lr) {
  const index::IndexInfo& info = idx.info();
  if (!lr.keys.empty()) return SendError(ctx, out, 400, "bad_request", "give key=... or range/prefix, not both");
  if (!lr.range.empty() && !lr.prefix.empty()) return SendError(ctx, out, 400, "bad_request", "give range or prefix, not both");
  if (lr.page_tokens.size() > 1) return SendError(ctx, out, 400, "bad_page_token", "a range lookup takes one page_token");
  Result<index::KeyRange> range = Status::OK();
  if (!lr.range.empty()) {
    range = index::ParseKeyRange(info.key, lr.range);
  } else {
    std::vector<std::string> parts{lr.prefix};
    const size_t c = lr.prefix.find(',');
    if (info.key.size() > 1 && c != std::string::npos) parts = {lr.prefix.substr(0, c), lr.prefix.substr(c + 1)};
    range = index::PrefixRange(info.key, parts);
  }
  if (!range.ok()) return SendError(ctx, out, 400, "bad_key", range.status().message());
  index::RangeLookupOptions ro;
  ro.columns = lr.columns;
  // Bounded like a key lookup: at most max_keys x 1000 rows per page unless a smaller limit is asked.
  ro.limit = lr.limit >= 0 ? lr.limit : ctx.options.limits.max_keys * 1000;
  if (!lr.page_tokens.empty()) ro.page_token = lr.page_tokens[0];
  auto res = idx.LookupRange(*range, ro);
  if (!res.ok()) {
    if (res.status().Is(StatusCode::kInvalidArgument)) {
      const bool token = res.status().message().find("token") != std::string::npos;
      return SendError(ctx, out, 400, token ? "bad_page_token" : "bad_request", res.status().message());
    }
    return SendStatus(ctx, out, res.status());
  }
  ctx.metrics.RecordLookup(res->keys, res->stats.requests, res->stats.rows);
  const std::string token =
      res->next_page_token.empty() ? std::string("null") : columnar::JsonQuote(res->next_page_token);
  std::string body;
  HeaderList headers = {{"X-Rap-Index-Version", std::to_string(res->manifest_version)}};
  if (WantsArrow(req)) {
    auto s = EncodeIpcSchema(*res->schema);
    if (!s.ok()) return SendStatus(ctx, out, s.status());
    body = std::move(*s);
    if (res->rows.num_rows > 0) {
      auto m = EncodeIpcRecordBatch(res->rows);
      if (!m.ok()) return SendStatus(ctx, out, m.status());
      body += *m;
    }
    body += IpcEndOfStream();
    headers.emplace_back("X-Rap-Next-Page-Tokens", "[" + token + "]");
  } else {
    const JsonRowWriter rows(*res->schema);
    fmt::format_to(std::back_inserter(body), "{{\"table\":{},\"index_version\":{},\"columns\":{},\"range\":{},\"rows\":[",
                   columnar::JsonQuote(table.name()), res->manifest_version, SchemaJson(*res->schema),
                   columnar::JsonQuote(index::FormatKeyRange(info.key, *range)));
    for (int64_t r = 0; r < res->rows.num_rows && body.size() <= ctx.options.limits.max_response_bytes; ++r) {
      body += r ? ",\n" : "\n";
      rows.AppendRow(res->rows, r, &body);
    }
    body += "],\"next_page_token\":" + token + ",\"stats\":";
    AppendLookupStatsJson(res->stats, &body);
    body += "}\n";
  }
  if (body.size() > ctx.options.limits.max_response_bytes) {
    ctx.metrics.RecordRejected("response_too_large");
    return SendError(ctx, out, 413, "response_too_large",
                     fmt::format("the response exceeds {} bytes; ask for fewer columns or a smaller limit (then follow "
                                 "next_page_token)", ctx.options.limits.max_response_bytes));
  }
  (void)out.Send(200, WantsArrow(req) ? kArrowStreamType : std::string_view("application/json"), std::move(body), headers);
}

}  // namespace

void HandleLookup(ServerContext& ctx, const HttpRequest& req, Responder& out, ServedTable& table) {
  if (req.method != "GET" && req.method != "POST") {
    (void)out.Send(405, "application/json", ErrorJson(405, "method_not_allowed", "lookup takes GET or POST"),
                   {{"Allow", "GET, POST"}});
    return;
  }
  std::shared_ptr<index::Index> idx = table.index();
  if (!idx) {
    const std::string why = table.index_error();
    if (table.config().index_url.empty()) {
      return SendError(ctx, out, 404, "no_index",
                       "table '" + table.name() + "' has no RAP index (build one with `rap index build`)" +
                           (why.empty() ? "" : ": " + why));
    }
    return SendError(ctx, out, 503, "index_not_loaded", "the index of table '" + table.name() + "' is not loaded: " + why);
  }
  const index::IndexInfo& info = idx->info();
  LookupRequest lr;
  const std::string err = req.method == "GET" ? ParseLookupGet(req, info.key.size(), &lr) : ParseLookupPost(req.body, info.key.size(), &lr);
  if (!err.empty()) return SendError(ctx, out, 400, "bad_request", err);
  if (!lr.range.empty() || !lr.prefix.empty()) return HandleRangeLookup(ctx, req, out, table, *idx, lr);
  const ServerLimits& limits = ctx.options.limits;
  if (lr.keys.empty()) return SendError(ctx, out, 400, "bad_request", "no key given (key=... or \"keys\": [...])");
  if (static_cast<int64_t>(lr.keys.size()) > limits.max_keys) {
    ctx.metrics.RecordRejected("too_many_keys");
    return SendError(ctx, out, 413, "too_many_keys",
                     fmt::format("{} keys in one request; the limit is {}", lr.keys.size(), limits.max_keys));
  }
  if (!lr.page_tokens.empty() && lr.page_tokens.size() != lr.keys.size()) {
    return SendError(ctx, out, 400, "bad_page_token",
                     fmt::format("{} page tokens for {} keys: give none or one per key", lr.page_tokens.size(),
                                 lr.keys.size()));
  }
  if (std::shared_ptr<const TableVersion> v = table.current(); v && v->schema) {
    for (const std::string& c : lr.columns) {
      if (v->schema->FieldIndex(c) < 0) {
        return SendError(ctx, out, 400, "unknown_column", "table '" + table.name() + "' has no column '" + c + "'");
      }
    }
  }
  std::vector<index::Key> keys;
  keys.reserve(lr.keys.size());
  for (const auto& parts : lr.keys) {
    auto k = idx->ParseKey(parts);
    if (!k.ok()) return SendError(ctx, out, 400, "bad_key", k.status().message());
    keys.push_back(std::move(*k));
  }
  index::LookupOptions lo;
  lo.columns = lr.columns;
  lo.limit_per_key = lr.limit;
  lo.page_tokens = lr.page_tokens;
  auto res = idx->Lookup(keys, lo);
  if (!res.ok()) {
    // The request's own mistakes (a page token that does not decode, ...) are InvalidArgument.
    if (res.status().Is(StatusCode::kInvalidArgument)) {
      const bool token = res.status().message().find("token") != std::string::npos;
      return SendError(ctx, out, 400, token ? "bad_page_token" : "bad_request", res.status().message());
    }
    return SendStatus(ctx, out, res.status());
  }
  ctx.metrics.RecordLookup(static_cast<int64_t>(keys.size()), res->stats.requests, res->stats.rows);
  if (NowSeconds() > req.deadline_s) {
    return SendError(ctx, out, 503, "deadline_exceeded",
                     fmt::format("the lookup passed the request deadline of {} s", limits.request_deadline_s));
  }
  const Schema& schema = *res->schema;
  std::string body;
  HeaderList headers = {{"X-Rap-Index-Version", std::to_string(res->manifest_version)}};
  if (WantsArrow(req)) {
    auto s = EncodeIpcSchema(schema);
    if (!s.ok()) return SendStatus(ctx, out, s.status());
    body = std::move(*s);
    std::string counts, tokens = "[";
    for (size_t i = 0; i < res->keys.size(); ++i) {
      const index::KeyRows& kr = res->keys[i];
      counts += (i ? "," : "") + std::to_string(kr.rows.num_rows);
      tokens += (i ? "," : "") + (kr.next_page_token.empty() ? std::string("null") : columnar::JsonQuote(kr.next_page_token));
      if (kr.rows.num_rows == 0) continue;
      auto m = EncodeIpcRecordBatch(kr.rows);
      if (!m.ok()) return SendStatus(ctx, out, m.status());
      body += *m;
      if (body.size() > limits.max_response_bytes) break;
    }
    body += IpcEndOfStream();
    headers.emplace_back("X-Rap-Key-Rows", counts);
    headers.emplace_back("X-Rap-Next-Page-Tokens", tokens + "]");
  } else {
    const JsonRowWriter rows(schema);
    body.reserve(1024);
    fmt::format_to(std::back_inserter(body), "{{\"table\":{},\"index_version\":{},\"columns\":{},\"keys\":[", columnar::JsonQuote(table.name()),
                       res->manifest_version, SchemaJson(schema));
    for (size_t i = 0; i < res->keys.size(); ++i) {
      const index::KeyRows& kr = res->keys[i];
      body += i ? ",\n{\"key\":[" : "\n{\"key\":[";
      const std::vector<std::string> texts = index::KeyTexts(info.key, kr.key);
      for (size_t p = 0; p < texts.size(); ++p) body += (p ? "," : "") + columnar::JsonQuote(texts[p]);
      body += "],\"rows\":[";
      for (int64_t r = 0; r < kr.rows.num_rows; ++r) {
        if (r) body += ",";
        rows.AppendRow(kr.rows, r, &body);
      }
      body += "],\"next_page_token\":" + (kr.next_page_token.empty() ? std::string("null") : columnar::JsonQuote(kr.next_page_token)) + "}";
      if (body.size() > limits.max_response_bytes) break;
    }
    body += "],\"stats\":";
    AppendLookupStatsJson(res->stats, &body);
    body += "}\n";
  }
  if (body.size() > limits.max_response_bytes) {
    ctx.metrics.RecordRejected("response_too_large");
    return SendError(ctx, out, 413, "response_too_large",
                     fmt::format("the response exceeds {} bytes; ask for fewer keys, columns or a smaller limit "
                                 "(then follow next_page_token)", limits.max_response_bytes));
  }
  (void)out.Send(200, WantsArrow(req) ? kArrowStreamType : std::string_view("application/json"), std::move(body), headers);
}

}  // namespace rap::server
