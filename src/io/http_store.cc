#include "io/http_store.h"

#include <mutex>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "io/http_util.h"
#include "rap/io/store_options.h"

namespace rap::io {

namespace {
std::mutex g_hedge_mu;
HedgeOptions g_hedge;
}  // namespace

void SetDefaultHedgeOptions(const HedgeOptions& options) {
  std::lock_guard<std::mutex> lock(g_hedge_mu);
  g_hedge = options;
}

HedgeOptions DefaultHedgeOptions() {
  std::lock_guard<std::mutex> lock(g_hedge_mu);
  return g_hedge;
}

HttpOptions HttpOptionsFromEnv() { return HttpOptionsFor(StoreOptions{}); }

HttpOptions HttpOptionsFor(const StoreOptions& options) {
  HttpOptions o;
  o.hedge = DefaultHedgeOptions();
  const std::string hedge = options.Get("RAP_HTTP_HEDGE");
  if (hedge == "0" || hedge == "1") o.hedge.enabled = hedge == "1";
  auto num = [&options](const char* name, double* out) {
    const std::string v = options.Get(name);
    if (!v.empty()) {
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (end && *end == '\0' && d > 0) *out = d;
    }
  };
  double attempts = o.max_attempts, low_time = static_cast<double>(o.low_speed_time_s);
  double concurrency = o.max_endpoint_concurrency;
  num("RAP_HTTP_MAX_ATTEMPTS", &attempts);
  num("RAP_HTTP_MAX_CONCURRENCY", &concurrency);
  o.max_endpoint_concurrency = static_cast<int>(std::min(concurrency, 4096.0));
  num("RAP_HTTP_DEADLINE_S", &o.deadline_s);
  num("RAP_HTTP_CONNECT_TIMEOUT_S", &o.connect_timeout_s);
  num("RAP_HTTP_LOW_SPEED_TIME_S", &low_time);
  o.max_attempts = static_cast<int>(attempts);
  o.low_speed_time_s = static_cast<long>(low_time);
  if (options.Get("RAP_HTTP_INSECURE") == "1") o.verify_tls = false;
  for (const char* name : {"RAP_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE"}) {
    if (std::string v = options.Get(name); !v.empty()) {
      o.ca_file = v;
      break;
    }
  }
  if (std::string v = options.Get("SSL_CERT_DIR"); !v.empty()) o.ca_dir = v;
  return o;
}

HttpStore::HttpStore(std::string base_url, const HttpOptions& options)
    : base_url_(std::move(base_url)), client_(base_url_, options) {}

std::string HttpStore::Url(const std::string& path) const {
  if (!path.empty() && path[0] == '/') return base_url_ + path;
  return base_url_ + "/" + path;
}

Result<ObjectInfo> HttpStore::Head(const std::string& path) {
  HttpRequest req;
  req.method = "HEAD";
  req.url = Url(path);
  req.object = req.url;
  std::vector<HttpRequest> reqs{req};
  RAP_ASSIGN_OR_RETURN(auto resps, client_.Run(std::move(reqs), ReadOptions{}, nullptr));
  const HttpResponse& r = resps[0];
  if (r.status != 200) return HttpClient::DefaultError(req, r);
  if (!r.object_size_known) return Status::NotSupported(Url(path) + ": HEAD response has no Content-Length");
  return ObjectInfo{path, r.object_size, r.etag, r.mtime_ms};
}

Result<std::vector<Buffer>> HttpStore::ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                                  const ReadOptions& options, ReadStats* stats) {
  std::vector<HttpRequest> reqs(ranges.size());
  std::string url = Url(path);
  for (HttpRequest& r : reqs) {
    r.url = url;
    r.object = url;
  }
  return client_.RunRanges(std::move(reqs), ranges, options, stats);
}

Result<std::pair<Buffer, ObjectInfo>> HttpStore::ReadTail(const std::string& path, uint64_t n,
                                                          const ReadOptions& options, ReadStats* stats) {
  if (n == 0) {
    RAP_ASSIGN_OR_RETURN(ObjectInfo info, Head(path));
    if (stats) *stats = ReadStats{};
    return std::make_pair(Buffer(), std::move(info));
  }
  std::vector<HttpRequest> reqs(1);
  reqs[0].url = Url(path);
  reqs[0].object = reqs[0].url;
  reqs[0].kind = HttpRequest::Kind::kSuffix;
  reqs[0].suffix = n;
  RAP_ASSIGN_OR_RETURN(auto resps, client_.Run(std::move(reqs), options, stats));
  HttpResponse& r = resps[0];
  ObjectInfo info{path, r.object_size, r.etag, r.mtime_ms};
  return std::make_pair(std::move(r.body), std::move(info));
}

Result<std::vector<ObjectInfo>> HttpStore::List(const std::string& prefix) {
  // Plain HTTP has no listing. nginx's `autoindex_format json` is understood (directories walked
  // recursively); any other answer is NotSupported.
  std::string p = prefix.empty() || prefix[0] != '/' ? "/" + prefix : prefix;
  size_t slash = p.rfind('/');
  std::string dir = p.substr(0, slash + 1);
  std::vector<ObjectInfo> out;
  std::vector<std::string> dirs = {dir};
  constexpr size_t kMaxDirectories = 100000;
  for (size_t visited = 0; !dirs.empty(); ++visited) {
    if (visited >= kMaxDirectories) {
      return Status::ResourceExhausted(Url(prefix) + ": listing visits more than " + std::to_string(kMaxDirectories) +
                                       " directories");
    }
    std::string d = dirs.back();
    dirs.pop_back();
    HttpRequest req;
    req.url = Url(d);
    req.object = req.url;
    RAP_ASSIGN_OR_RETURN(auto resps, client_.Run({req}, ReadOptions{}, nullptr));
    const HttpResponse& r = resps[0];
    if (r.status == 404 && d == dir) return out;  // nothing under the prefix
    if (r.status != 200) return HttpClient::DefaultError(req, r);
    auto json = nlohmann::json::parse(r.body.view(), nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_array()) {
      return Status::NotSupported(req.url + ": plain HTTP has no listing, and this server's directory page is not an "
                                  "nginx autoindex JSON listing; use s3:// or name the files explicitly");
    }
    for (const auto& e : json) {
      auto name = e.find("name"), type = e.find("type");
      if (!e.is_object() || name == e.end() || !name->is_string() || type == e.end() || !type->is_string()) {
        return Status::Corrupt(req.url + ": autoindex entry without a string name/type");
      }
      std::string child = d + UriEncode(name->get<std::string>(), false);
      if (*type == "directory") {
        if (child.compare(0, std::min(child.size(), p.size()), p, 0, std::min(child.size(), p.size())) == 0) {
          dirs.push_back(child + "/");
        }
        continue;
      }
      if (*type != "file" || child.compare(0, p.size(), p) != 0) continue;
      auto size = e.find("size");
      if (size == e.end() || !size->is_number_unsigned()) return Status::Corrupt(req.url + ": autoindex file entry without a size");
      ObjectInfo info;
      info.path = child;
      info.size = size->get<uint64_t>();
      auto mtime = e.find("mtime");
      if (mtime != e.end() && mtime->is_string()) info.mtime_ms = ParseHttpDateMs(mtime->get<std::string>());
      // nginx's own ETag for a static file: hex(mtime seconds)-hex(size), as HEAD would report it.
      char etag[64];
      std::snprintf(etag, sizeof(etag), "%llx-%llx", static_cast<unsigned long long>(info.mtime_ms / 1000),
                    static_cast<unsigned long long>(info.size));
      info.etag = etag;
      out.push_back(std::move(info));
    }
  }
  std::sort(out.begin(), out.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.path < b.path; });
  return out;
}

Status HttpStore::Put(const std::string& path, const Buffer&) {
  return Status::NotSupported(Url(path) + ": the plain HTTP store is read-only (use s3:// or a local path to write)");
}

Result<ObjectStorePtr> MakeHttpStore(const std::string& base_url, const HttpOptions& options) {
  if (base_url.rfind("http://", 0) != 0 && base_url.rfind("https://", 0) != 0) {
    return Status::InvalidArgument(base_url + ": not an http:// or https:// base URL");
  }
  size_t authority = base_url.find("://") + 3;
  if (base_url.find('/', authority) != std::string::npos || authority == base_url.size()) {
    return Status::InvalidArgument(base_url + ": expected scheme://host[:port] without a path");
  }
  EnsureCurlGlobalInit();
  return ObjectStorePtr(std::make_shared<HttpStore>(base_url, options));
}

long ConnectionsOpened(const ObjectStore& store) {
  auto* http = dynamic_cast<const HttpBasedStore*>(&store);
  return http ? http->client().connections_opened() : -1;
}

}  // namespace rap::io
