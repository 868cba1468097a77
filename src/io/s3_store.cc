// S3Store: the ObjectStore for s3://bucket/key (see rap/io/s3_store.h for the signing notes).
#include "rap/io/s3_store.h"

#include <pugixml.hpp>

#include <algorithm>
#include <ctime>
#include <set>

#include "io/http_store.h"
#include "rap/io/crash_point.h"
#include "io/http_util.h"
#include "rap/io/sigv4.h"

namespace rap::io {

namespace {

constexpr const char* kUnsignedPayload = "UNSIGNED-PAYLOAD";

// "2009-10-12T17:50:30.000Z" to Unix milliseconds (0 when malformed).
int64_t ParseIso8601Ms(const std::string& s) {
  std::tm tm{};
  int ms = 0;
  int n = std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                      &tm.tm_min, &tm.tm_sec, &ms);
  if (n < 6) return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  time_t t = timegm(&tm);
  return t < 0 ? 0 : static_cast<int64_t>(t) * 1000 + (n == 7 ? ms : 0);
}

// The <Code> and <Message> of an S3 error body, "Code: Message", or "" when there is none.
std::string S3ErrorText(const std::string& body) {
  if (body.empty()) return "";
  pugi::xml_document doc;
  if (!doc.load_buffer(body.data(), body.size())) return "";
  pugi::xml_node err = doc.child("Error");
  std::string code = err.child_value("Code"), message = err.child_value("Message");
  if (code.empty()) return "";
  return message.empty() ? code : code + ": " + message;
}

class S3Store final : public HttpBasedStore {
 public:
  S3Store(std::string bucket, S3Config config, const HttpOptions& options)
      : bucket_(std::move(bucket)),
        config_(std::move(config)),
        bucket_url_(BucketUrl()),
        client_(EndpointName(), options),
        sigv4_("aws:amz:" + config_.region + ":s3") {
    client_.set_prepare([this](const HttpRequest&, CURL* easy, curl_slist**) {
      if (config_.anonymous) return Status::OK();
      curl_easy_setopt(easy, CURLOPT_AWS_SIGV4, sigv4_.c_str());
      curl_easy_setopt(easy, CURLOPT_USERNAME, config_.access_key_id.c_str());
      curl_easy_setopt(easy, CURLOPT_PASSWORD, config_.secret_access_key.c_str());
      return Status::OK();
    });
    client_.set_error_mapper([this](const HttpRequest& req, const HttpResponse& resp) { return MapError(req, resp); });
  }

  std::string endpoint() const override { return "s3://" + Host() + "/" + bucket_; }
  bool is_remote() const override { return true; }
  const HttpClient& client() const override { return client_; }

  Result<ObjectInfo> Head(const std::string& key) override {
    HttpRequest req = Request("HEAD", key);
    RAP_ASSIGN_OR_RETURN(auto resps, client_.Run({req}, ReadOptions{}, nullptr));
    const HttpResponse& r = resps[0];
    if (r.status != 200) return MapError(req, r);
    if (!r.object_size_known) return Status::Corrupt(req.object + ": HEAD response has no Content-Length");
    return ObjectInfo{key, r.object_size, r.etag, r.mtime_ms};
  }

  Result<std::vector<Buffer>> ReadRanges(const std::string& key, std::span<const ByteRange> ranges,
                                         const ReadOptions& options, ReadStats* stats) override {
    return client_.RunRanges(std::vector<HttpRequest>(ranges.size(), Request("GET", key)), ranges, options, stats);
  }

  Result<std::pair<Buffer, ObjectInfo>> ReadTail(const std::string& key, uint64_t n, const ReadOptions& options,
                                                 ReadStats* stats) override {
    if (n == 0) {
      RAP_ASSIGN_OR_RETURN(ObjectInfo info, Head(key));
      if (stats) *stats = ReadStats{};
      return std::make_pair(Buffer(), std::move(info));
    }
    HttpRequest req = Request("GET", key);
    req.kind = HttpRequest::Kind::kSuffix;
    req.suffix = n;
    RAP_ASSIGN_OR_RETURN(auto resps, client_.Run({req}, options, stats));
    HttpResponse& r = resps[0];
    ObjectInfo info{key, r.object_size, r.etag, r.mtime_ms};
    return std::make_pair(std::move(r.body), std::move(info));
  }

  Result<std::vector<ObjectInfo>> List(const std::string& prefix) override {
    std::vector<ObjectInfo> out;
    std::set<std::string> tokens_seen;
    std::string token;
    for (int page = 0;; ++page) {
      // Parameters in sorted order: curl 7.88 signs the query exactly as given.
      std::vector<std::pair<std::string, std::string>> q;
      if (!token.empty()) q.emplace_back("continuation-token", token);
      q.emplace_back("list-type", "2");
      if (!prefix.empty()) q.emplace_back("prefix", prefix);
      HttpRequest req;
      req.method = "GET";
      req.url = bucket_url_ + "/?" + sigv4::CanonicalQuery(q);
      req.object = "s3://" + bucket_ + "/" + prefix;
      req.headers = AuthHeaders(kUnsignedPayload);
      RAP_ASSIGN_OR_RETURN(auto resps, client_.Run({req}, ReadOptions{}, nullptr));
      const HttpResponse& r = resps[0];
      if (r.status != 200) return MapError(req, r);
      pugi::xml_document doc;
      pugi::xml_parse_result parsed = doc.load_buffer(r.body.data(), r.body.size());
      if (!parsed) {
        return Status::Corrupt(req.object + ": ListObjectsV2 page " + std::to_string(page) +
                               ": malformed XML at offset " + std::to_string(parsed.offset) + ": " +
                               parsed.description());
      }
      pugi::xml_node root = doc.child("ListBucketResult");
      if (!root) return Status::Corrupt(req.object + ": ListObjectsV2 page " + std::to_string(page) +
                                        ": no <ListBucketResult> element");
      for (pugi::xml_node c : root.children("Contents")) {
        ObjectInfo info;
        info.path = c.child_value("Key");
        auto size = ParseUint64(c.child_value("Size"));
        if (info.path.empty() || !size) {
          return Status::Corrupt(req.object + ": ListObjectsV2 page " + std::to_string(page) +
                                 ": <Contents> without a valid Key/Size");
        }
        info.size = *size;
        info.etag = NormalizeEtag(c.child_value("ETag"));
        info.mtime_ms = ParseIso8601Ms(c.child_value("LastModified"));
        out.push_back(std::move(info));
      }
      if (std::string(root.child_value("IsTruncated")) != "true") break;
      token = root.child_value("NextContinuationToken");
      if (token.empty()) {
        return Status::Corrupt(req.object + ": ListObjectsV2 page " + std::to_string(page) +
                               " is truncated but has no NextContinuationToken");
      }
      if (!tokens_seen.insert(token).second) {
        return Status::Corrupt(req.object + ": ListObjectsV2 returned continuation token '" + token + "' twice");
      }
    }
    std::sort(out.begin(), out.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.path < b.path; });
    return out;
  }

  Status Put(const std::string& key, const Buffer& data) override {
    // A single PUT: S3 makes the object visible atomically when the request completes.
    HttpRequest req = Request("PUT", key);
    req.body = &data;
    req.headers = AuthHeaders(sigv4::Sha256Hex(data.view()));
    req.headers.push_back("Content-Type: application/octet-stream");
    RAP_ASSIGN_OR_RETURN(auto resps, client_.Run({req}, ReadOptions{}, nullptr));
    const HttpResponse& r = resps[0];
    if (r.status != 200 && r.status != 201 && r.status != 204) return MapError(req, r);
    CrashPoint("put", req.object);
    return Status::OK();
  }

  Status PutIfAbsent(const std::string& key, const Buffer& data) override {
    // S3 conditional write: "If-None-Match: *" fails with 412 when the key exists (409 when a
    // concurrent conditional write is in progress).
    HttpRequest req = Request("PUT", key);
    req.body = &data;
    req.headers = AuthHeaders(sigv4::Sha256Hex(data.view()));
    req.headers.push_back("Content-Type: application/octet-stream");
    req.headers.push_back("If-None-Match: *");
    auto run = client_.Run({req}, ReadOptions{}, nullptr);
    if (!run.ok() && run.status().code() == StatusCode::kNotSupported) {
      return Status::NotSupported(key + ": the S3 endpoint " + EndpointName() +
                                  " does not support conditional writes (PUT with If-None-Match: *), so an object "
                                  "cannot be created atomically there (" + run.status().message() + ")");
    }
    RAP_ASSIGN_OR_RETURN(auto resps, std::move(run));
    const HttpResponse& r = resps[0];
    if (r.status == 412 && r.timing.attempts > 1) {
      // A retried conditional PUT: an earlier attempt may have created the object and lost its
      // answer (a reset or timeout after the store), so this attempt's 412 may be our own write.
      // It is ours when the object holds exactly our bytes; a writer of identical bytes leaves
      // the same state, so either way the create happened as asked.
      RAP_ASSIGN_OR_RETURN(bool ours, HoldsExactly(key, data));
      if (ours) {
        CrashPoint("create", req.object);
        return Status::OK();
      }
    }
    if (r.status == 412 || r.status == 409) {
      return Status::Changed(key + ": already exists (another writer created it first; HTTP " +
                             std::to_string(r.status) + ")");
    }
    if (r.status != 200 && r.status != 201 && r.status != 204) return MapError(req, r);
    CrashPoint("create", req.object);
    return Status::OK();
  }

  Status Delete(const std::string& key) override {
    HttpRequest req = Request("DELETE", key);
    req.headers = AuthHeaders(sigv4::Sha256Hex(""));
    RAP_ASSIGN_OR_RETURN(auto resps, client_.Run({req}, ReadOptions{}, nullptr));
    const HttpResponse& r = resps[0];
    if (r.status != 200 && r.status != 204) return MapError(req, r);
    CrashPoint("delete", req.object);
    return Status::OK();
  }

 private:
  // Whether the object `key` exists with exactly the bytes of `data` (a GET of the whole object,
  // only after a retried conditional PUT: those objects are commits and manifests, small).
  Result<bool> HoldsExactly(const std::string& key, const Buffer& data) {
    HttpRequest get = Request("GET", key);
    RAP_ASSIGN_OR_RETURN(auto got, client_.Run({get}, ReadOptions{}, nullptr));
    const HttpResponse& g = got[0];
    if (g.status == 404) return false;
    if (g.status != 200) return MapError(get, g);
    return g.body.view() == data.view();
  }

  std::string Host() const {
    std::string url = bucket_url_;
    size_t a = url.find("://") + 3;
    return url.substr(a, url.find('/', a) - a);
  }
  std::string EndpointName() const {
    size_t a = bucket_url_.find("://") + 3;
    size_t slash = bucket_url_.find('/', a);
    return slash == std::string::npos ? bucket_url_ : bucket_url_.substr(0, slash);
  }
  std::string BucketUrl() const {
    if (!config_.endpoint_url.empty()) return config_.endpoint_url + "/" + UriEncode(bucket_, false);
    if (bucket_.find('.') != std::string::npos) {
      return "https://s3." + config_.region + ".amazonaws.com/" + UriEncode(bucket_, false);
    }
    return "https://" + bucket_ + ".s3." + config_.region + ".amazonaws.com";
  }
  std::vector<std::string> AuthHeaders(const std::string& payload_hash) const {
    if (config_.anonymous) return {};
    std::vector<std::string> h = {"x-amz-content-sha256: " + payload_hash};
    if (!config_.session_token.empty()) h.push_back("x-amz-security-token: " + config_.session_token);
    return h;
  }
  HttpRequest Request(const std::string& method, const std::string& key) const {
    HttpRequest req;
    req.method = method;
    req.url = bucket_url_ + "/" + UriEncode(key, true);
    req.object = "s3://" + bucket_ + "/" + key;
    req.headers = AuthHeaders(kUnsignedPayload);
    return req;
  }
  Status MapError(const HttpRequest& req, const HttpResponse& resp) const {
    std::string detail = S3ErrorText(resp.error_body);
    std::string what = "HTTP " + std::to_string(resp.status) + (detail.empty() ? "" : " " + detail);
    if (resp.status == 403 || resp.status == 401) {
      return Status::AccessDenied(req.object + ": access denied (" + what + ") using " +
                                  config_.DescribeCredentials() + ", region " + config_.region + ", endpoint " +
                                  EndpointName());
    }
    if (resp.status == 404) {
      if (detail.rfind("NoSuchBucket", 0) == 0) {
        return Status::NotFound(req.object + ": bucket '" + bucket_ + "' not found (" + what + ") at " + EndpointName());
      }
      return Status::NotFound(req.object + ": not found (" + what + ")");
    }
    if (resp.status == 416) return Status::InvalidArgument(req.object + ": range not satisfiable (" + what + ")");
    if (resp.status == 501) {
      // e.g. a conditional PUT (If-None-Match: *) on an S3 implementation without conditional writes.
      return Status::NotSupported(req.object + ": " + req.method + " is not supported by the endpoint " +
                                  EndpointName() + " (" + what + ")");
    }
    return Status::IOError(req.object + ": " + req.method + " failed (" + what + ") at " + EndpointName());
  }

  std::string bucket_;
  S3Config config_;
  std::string bucket_url_;
  HttpClient client_;
  const std::string sigv4_;  // CURLOPT_AWS_SIGV4 provider string
};

}  // namespace

Result<ObjectStorePtr> MakeS3Store(const std::string& bucket, const S3Config& config, const HttpOptions& options) {
  if (bucket.empty() || bucket.find('/') != std::string::npos) {
    return Status::InvalidArgument("invalid S3 bucket name '" + bucket + "'");
  }
  EnsureCurlGlobalInit();
  return ObjectStorePtr(std::make_shared<S3Store>(bucket, config, options));
}

}  // namespace rap::io
