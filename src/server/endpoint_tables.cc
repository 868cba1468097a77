// GET /v1/tables: the served tables with their URL (credentials and query strings redacted), kind,
// version, file count and columns (docs/server.md).
#include <fmt/format.h>

#include "rap/columnar/array_format.h"
#include "rap/server/server_config.h"
#include "rap/table/table_format.h"
#include "server/json_output.h"
#include "server/server_context.h"

namespace rap::server {

void HandleTables(ServerContext& ctx, const HttpRequest& req, Responder& out) {
  if (req.method != "GET") {
    (void)out.Send(405, "application/json", ErrorJson(405, "method_not_allowed", "/v1/tables takes GET"),
                   {{"Allow", "GET"}});
    return;
  }
  std::string body = "{\"tables\":[";
  for (size_t i = 0; i < ctx.tables.size(); ++i) {
    const ServedTable& t = *ctx.tables[i];
    if (i) body += ",";
    body += "{\"name\":" + columnar::JsonQuote(t.name()) + ",\"url\":" + columnar::JsonQuote(RedactUrl(t.config().url));
    std::shared_ptr<const TableVersion> v = t.current();
    if (v) {
      const table::TableSnapshot& s = *v->snapshot;
      body += fmt::format(",\"kind\":{},\"version\":{},\"files\":{}",
                          columnar::JsonQuote(std::string(table::FormatName(s))), s.version, s.files.size());
      if (v->schema) body += ",\"columns\":" + SchemaJson(*v->schema);
    } else {
      body += ",\"loaded\":false";
    }
    if (std::shared_ptr<index::Index> idx = t.index()) {
      const index::IndexInfo& info = idx->info();
      std::string key = "[";
      for (size_t k = 0; k < info.key.size(); ++k) {
        key += (k ? "," : "") + fmt::format("{{\"name\":{},\"type\":\"{}\"}}", columnar::JsonQuote(info.key[k].name),
                                            index::KeyTypeName(info.key[k].type));
      }
      body += fmt::format(",\"index\":{{\"url\":{},\"manifest_version\":{},\"table_version\":{},\"files\":{},"
                          "\"fragments\":{},\"buckets\":{},\"key\":{}]}}",
                          columnar::JsonQuote(RedactUrl(info.index_url)), info.manifest_version, info.table_version, info.files,
                          info.fragments, info.buckets, key);
    } else {
      body += ",\"index\":null";
    }
    body += "}";
  }
  body += "]}\n";
  SendJson(out, 200, std::move(body));
}

}  // namespace rap::server
