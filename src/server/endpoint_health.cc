// GET /healthz (the process answers) and GET /readyz (every table is loaded — and, with
// require_index, its index — and the server is not shutting down; load balancers stop sending
// traffic on a 503).
#include "server/server_context.h"
#include "rap/columnar/array_format.h"

namespace rap::server {

void HandleHealth(ServerContext&, const HttpRequest&, Responder& out) { SendJson(out, 200, "{\"status\":\"ok\"}\n"); }

void HandleReady(ServerContext& ctx, const HttpRequest&, Responder& out) {
  std::vector<std::string> reasons;
  if (ctx.shutting_down.load()) reasons.push_back("shutting down");
  for (const auto& t : ctx.tables) {
    if (!t->current()) reasons.push_back("table '" + t->name() + "' is not loaded");
    if ((ctx.options.require_index || !t->config().index_url.empty()) && !t->index()) {
      reasons.push_back("table '" + t->name() + "': index not loaded: " + t->index_error());
    }
  }
  if (reasons.empty()) return SendJson(out, 200, "{\"status\":\"ready\"}\n");
  std::string body = "{\"status\":\"not_ready\",\"reasons\":[";
  for (size_t i = 0; i < reasons.size(); ++i) body += (i ? "," : "") + columnar::JsonQuote(reasons[i]);
  body += "]}\n";
  (void)out.Send(503, "application/json", std::move(body),
                 {{"Retry-After", std::to_string(ctx.options.limits.retry_after_s)}});
}

}  // namespace rap::server
