// The verdict on a finished attempt of HttpClient (http_exchange.h): a transfer that failed, a
// status to retry, a plain response checked against its Content-Length, and a range or suffix
// response checked against its request and Content-Range.
#include <curl/curl.h>

#include "io/http_exchange.h"
#include "io/http_util.h"

namespace rap::io {

std::string RangeText(const HttpRequest& r) {
  if (r.kind == HttpRequest::Kind::kRange) return "range " + r.range.ToString();
  if (r.kind == HttpRequest::Kind::kSuffix) return "the last " + std::to_string(r.suffix) + " bytes";
  return r.method;
}

namespace {

bool RetryableCurlCode(CURLcode c) {
  switch (c) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_LOGIN_DENIED:
    case CURLE_OUT_OF_MEMORY:
    case CURLE_FAILED_INIT:
    case CURLE_BAD_FUNCTION_ARGUMENT:
      return false;
    default:
      return true;
  }
}

// A response that does not match its request: corrupt, worth another attempt.
Verdict CorruptResponse(const HttpRequest& req, const std::string& what) {
  Verdict v;
  v.status = Status::Corrupt(req.object + ": " + what + " (for " + RangeText(req) + ")");
  v.retry = true;
  return v;
}

// The verdict on a transfer that failed before a complete response (allocation, a body larger than
// asked for, a curl error); nullopt when the transfer completed.
std::optional<Verdict> TransferVerdict(HttpClient::Exchange* ex, const std::string& endpoint) {
  const HttpRequest& req = *ex->req;
  const HttpResponse& resp = ex->resp;
  Verdict v;
  if (ex->result == CURLE_WRITE_ERROR && ex->alloc_failed) {
    v.status = Status::ResourceExhausted(req.object + ": cannot allocate " + std::to_string(ex->alloc_failed) +
                                         " bytes for the response to " + RangeText(req));
    return v;
  }
  if (ex->result == CURLE_WRITE_ERROR && ex->overflow) {
    if (req.kind == HttpRequest::Kind::kPlain) {
      v.status = Status::ResourceExhausted(req.object + ": response body exceeds " + std::to_string(kMaxPlainBody) +
                                           " bytes");
      return v;
    }
    if (resp.status == 200) {
      v.status = Status::NotSupported(req.object + ": server ignored the Range header (HTTP 200 with " +
                                      resp.Header("content-length") + " bytes for " + RangeText(req) + ")");
      return v;
    }
    return CorruptResponse(req, "response body longer than the " + std::to_string(ex->capacity) + " bytes requested");
  }
  if (ex->result == CURLE_OK) return std::nullopt;
  std::string detail = ex->errbuf[0] ? ex->errbuf : curl_easy_strerror(ex->result);
  std::string what;
  switch (ex->result) {
    case CURLE_COULDNT_RESOLVE_HOST: what = "cannot resolve the host of endpoint " + endpoint; break;
    case CURLE_COULDNT_CONNECT: what = "cannot connect to endpoint " + endpoint; break;
    case CURLE_OPERATION_TIMEDOUT: what = "transfer from " + endpoint + " timed out or stalled"; break;
    case CURLE_PEER_FAILED_VERIFICATION:
      what = "the TLS certificate of endpoint " + endpoint + " is not trusted or does not match its host name "
             "(trust its CA with HttpOptions::ca_file or RAP_CA_BUNDLE)";
      break;
    case CURLE_SSL_CACERT_BADFILE: what = "cannot load the CA certificates to verify endpoint " + endpoint; break;
    case CURLE_SSL_CONNECT_ERROR: what = "TLS handshake with endpoint " + endpoint + " failed"; break;
    default: what = "transfer from " + endpoint + " failed"; break;
  }
  v.status = Status::IOError(req.object + ": " + what + " (" + RangeText(req) + "): " + detail);
  v.retry = RetryableCurlCode(ex->result);
  return v;
}

// A plain request: the body of a 2xx (checked against Content-Length); any status goes back to the
// caller to interpret.
Verdict PlainVerdict(HttpClient::Exchange* ex, const std::optional<uint64_t>& content_length) {
  const HttpRequest& req = *ex->req;
  HttpResponse& resp = ex->resp;
  if (resp.status >= 200 && resp.status < 300) {
    resp.body = Buffer::FromString(std::move(ex->plain_body));
    if (req.method == "HEAD" && content_length) {
      resp.object_size = *content_length;
      resp.object_size_known = true;
    } else if (req.method == "GET" && content_length && *content_length != resp.body.size()) {
      return CorruptResponse(req, "body has " + std::to_string(resp.body.size()) + " bytes, Content-Length says " +
                                      std::to_string(*content_length));
    }
  }
  return Verdict{};
}

// A range request: a 206 with the matching Content-Range, or a 200 that is exactly the range (the
// whole object from offset 0).
Verdict RangeVerdict(HttpClient::Exchange* ex, const ContentRange* cr, const std::string& cr_text,
                     const std::optional<uint64_t>& content_length, const HttpClient::ErrorFn& map_error) {
  const HttpRequest& req = *ex->req;
  HttpResponse& resp = ex->resp;
  const ByteRange& r = req.range;
  Verdict v;
  if (resp.status == 206) {
    if (!cr || cr->unsatisfied) return CorruptResponse(req, "missing or malformed Content-Range '" + cr_text + "'");
    if (cr->first != r.offset || cr->last != r.end() - 1) {
      return CorruptResponse(req, "Content-Range '" + cr_text + "' does not match the request");
    }
    if (ex->received != r.length) {
      return CorruptResponse(req, "body has " + std::to_string(ex->received) + " bytes, expected " +
                                      std::to_string(r.length));
    }
    if (cr->total) {
      resp.object_size = *cr->total;
      resp.object_size_known = true;
    }
  } else if (resp.status == 200) {
    // A 200 carries the whole object. It answers the request only when the request was the whole
    // object: offset 0 and exactly Content-Length == length bytes (then the object size is known).
    // Anything else means the server ignored Range; slicing a full download is not done on purpose.
    if (r.offset != 0 || !content_length || *content_length != r.length) {
      v.status = Status::NotSupported(req.object + ": server ignored the Range header (HTTP 200 with " +
                                      (content_length ? std::to_string(*content_length) : std::string("unknown")) +
                                      " bytes for " + RangeText(req) + ")");
      return v;
    }
    if (ex->received != r.length) {
      return CorruptResponse(req, "body has " + std::to_string(ex->received) + " bytes, expected " +
                                      std::to_string(r.length));
    }
    resp.object_size = r.length;
    resp.object_size_known = true;
  } else {
    v.status = map_error(req, resp);
    return v;
  }
  resp.body = ex->received ? ex->buf.Slice(0, ex->received) : Buffer();
  return v;
}

// A suffix request: a 206 of the last bytes, the whole object when it is no longer than the suffix,
// or a 416 for an empty object.
Verdict SuffixVerdict(HttpClient::Exchange* ex, const ContentRange* cr, const std::string& cr_text,
                      const std::optional<uint64_t>& content_length, const HttpClient::ErrorFn& map_error) {
  const HttpRequest& req = *ex->req;
  HttpResponse& resp = ex->resp;
  const long st = resp.status;
  Verdict v;
  if (st == 206) {
    if (!cr || cr->unsatisfied || !cr->total) {
      return CorruptResponse(req, "missing or malformed Content-Range '" + cr_text + "'");
    }
    uint64_t expect = std::min(req.suffix, *cr->total);
    if (cr->last != *cr->total - 1 || cr->last - cr->first + 1 != expect) {
      return CorruptResponse(req, "Content-Range '" + cr_text + "' does not match the request");
    }
    if (ex->received != expect) {
      return CorruptResponse(req, "body has " + std::to_string(ex->received) + " bytes, expected " +
                                      std::to_string(expect));
    }
    resp.object_size = *cr->total;
  } else if (st == 200) {
    // The whole object: fine when it is no longer than the suffix asked for (checked by the write
    // callback's capacity) and its length is what Content-Length announced.
    if (content_length && *content_length != ex->received) {
      return CorruptResponse(req, "body has " + std::to_string(ex->received) + " bytes, Content-Length says " +
                                      std::to_string(*content_length));
    }
    resp.object_size = ex->received;
  } else if (st == 416 && cr && cr->unsatisfied && cr->total && *cr->total == 0) {
    resp.object_size = 0;  // an empty object has no suffix to return
  } else {
    v.status = map_error(req, resp);
    return v;
  }
  resp.object_size_known = true;
  resp.body = ex->received ? ex->buf.Slice(0, ex->received) : Buffer();
  return v;
}

}  // namespace

Verdict Evaluate(HttpClient::Exchange* ex, const std::string& endpoint, const HttpClient::ErrorFn& map_error) {
  if (std::optional<Verdict> failed = TransferVerdict(ex, endpoint)) return std::move(*failed);
  const HttpRequest& req = *ex->req;
  HttpResponse& resp = ex->resp;
  const long st = resp.status;
  resp.etag = NormalizeEtag(resp.Header("etag"));
  resp.mtime_ms = ParseHttpDateMs(resp.Header("last-modified"));
  if (st == 429 || st >= 500) {
    Verdict v;
    v.status = map_error(req, resp);
    // 501 Not Implemented and 505 HTTP Version Not Supported describe the server, not a transient
    // state: retrying cannot succeed.
    v.retry = st != 501 && st != 505;
    if (auto ra = ParseRetryAfter(resp.Header("retry-after"))) v.retry_after_s = *ra;
    return v;
  }
  std::optional<uint64_t> content_length;
  if (std::string cl = resp.Header("content-length"); !cl.empty()) {
    content_length = ParseUint64(cl);
    if (!content_length) return CorruptResponse(req, "malformed Content-Length '" + cl + "'");
  }
  if (req.kind == HttpRequest::Kind::kPlain) return PlainVerdict(ex, content_length);
  std::string cr_text = resp.Header("content-range");
  ContentRange crv;
  const ContentRange* cr = ParseContentRange(cr_text, &crv) ? &crv : nullptr;
  if (req.kind == HttpRequest::Kind::kRange) return RangeVerdict(ex, cr, cr_text, content_length, map_error);
  return SuffixVerdict(ex, cr, cr_text, content_length, map_error);
}

}  // namespace rap::io
