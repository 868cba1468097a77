// GET /v1/tables: the served tables with their URL (credentials and query strings redacted), kind,
// version, file count and columns (docs/server.md).
#include <fmt/format.h>

#include "rap/server/server_config.h"
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
    body += "{\"name\":" + JsonQuote(t.name()) + ",\"url\":" + JsonQuote(RedactUrl(t.config().url));
    std::shared_ptr<const TableVersion> v = t.current();
    if (v) {
      const table::TableSnapshot& s = *v->snapshot;
      body += fmt::format(",\"kind\":{},\"version\":{},\"files\":{}",
                          s.kind == table::TableKind::kDelta ? "\"delta\"" : "\"directory\"", s.version, s.files.size());
      if (v->schema) body += ",\"columns\":" + SchemaJson(*v->schema);
    } else {
      body += ",\"loaded\":false";
    }
    body += "}";
  }
  body += "]}\n";
  SendJson(out, 200, std::move(body));
}

}  // namespace rap::server
