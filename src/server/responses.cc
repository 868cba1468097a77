// Error and JSON responses shared by the endpoints (src/server/server_context.h).
#include <fmt/format.h>

#include "server/server_context.h"

namespace rap::server {

void SendJson(Responder& out, int status, std::string body) {
  (void)out.Send(status, "application/json", std::move(body));
}

void SendError(const ServerContext& ctx, Responder& out, int status, std::string_view code, std::string_view message) {
  HeaderList extra;
  if (status == 429 || status == 503) extra.emplace_back("Retry-After", std::to_string(ctx.options.limits.retry_after_s));
  (void)out.Send(status, "application/json", ErrorJson(status, code, message), extra);
}

int HttpStatusOf(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk: return 200;
    case StatusCode::kInvalidArgument: return 400;
    case StatusCode::kNotFound:
    case StatusCode::kAccessDenied:
    case StatusCode::kIOError: return 502;
    case StatusCode::kTimeout: return 504;
    case StatusCode::kChanged:
    case StatusCode::kCancelled: return 503;
    case StatusCode::kResourceExhausted: return 413;
    case StatusCode::kNotSupported: return 501;
    case StatusCode::kCorrupt:
    case StatusCode::kInternal: return 500;
  }
  return 500;
}

std::string_view ErrorCodeOf(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "bad_request";
    case StatusCode::kNotFound: return "store_not_found";
    case StatusCode::kAccessDenied: return "store_access_denied";
    case StatusCode::kIOError: return "store_error";
    case StatusCode::kTimeout: return "store_timeout";
    case StatusCode::kChanged: return "data_changed";
    case StatusCode::kCancelled: return "cancelled";
    case StatusCode::kResourceExhausted: return "too_large";
    case StatusCode::kNotSupported: return "not_supported";
    case StatusCode::kCorrupt: return "corrupt_data";
    case StatusCode::kInternal: return "internal";
  }
  return "internal";
}

void SendStatus(const ServerContext& ctx, Responder& out, const Status& status) {
  SendError(ctx, out, HttpStatusOf(status), ErrorCodeOf(status), status.message());
}

bool WantsArrow(const HttpRequest& req) {
  return req.Header("accept").find(kArrowStreamType) != std::string::npos;
}

}  // namespace rap::server
