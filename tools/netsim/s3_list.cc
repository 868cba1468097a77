#include "netsim/s3_list.h"

#include "netsim/object_put.h"

#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <vector>

#include <fmt/format.h>

namespace rap::netsim {

namespace fs = std::filesystem;

namespace {

std::string XmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

struct Object {
  std::string key;
  uint64_t size = 0;
  struct timespec mtime {};
};

}  // namespace

bool IsListObjectsV2(const std::map<std::string, std::string>& query) {
  auto it = query.find("list-type");
  return it != query.end() && it->second == "2";
}

Result<std::string> ListObjectsV2(const fs::path& root, const std::string& bucket,
                                  const std::map<std::string, std::string>& query) {
  auto get = [&](const char* k) {
    auto it = query.find(k);
    return it == query.end() ? std::string() : it->second;
  };
  const std::string prefix = get("prefix"), token = get("continuation-token");
  size_t max_keys = 1000;
  if (!get("max-keys").empty()) {
    try {
      max_keys = static_cast<size_t>(std::stoul(get("max-keys")));
    } catch (...) {
      return Status::InvalidArgument("max-keys: not a number: " + get("max-keys"));
    }
  }
  if (bucket.empty() || bucket.find('/') != std::string::npos || bucket == "." || bucket == "..") {
    return Status::InvalidArgument("ListObjectsV2: bad bucket '" + bucket + "'");
  }
  const fs::path dir = root / bucket;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::NotFound("NoSuchBucket: " + bucket);
  std::vector<Object> objects;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    if (it->path().filename().string().rfind(kPutTempPrefix, 0) == 0) continue;  // an upload in progress
    std::string key = fs::relative(it->path(), dir, ec).generic_string();
    if (ec || key.rfind(prefix, 0) != 0 || key <= token) continue;
    struct stat st {};
    if (::stat(it->path().c_str(), &st) != 0) continue;
    objects.push_back(Object{key, static_cast<uint64_t>(st.st_size), st.st_mtim});
  }
  std::sort(objects.begin(), objects.end(), [](const Object& a, const Object& b) { return a.key < b.key; });
  const bool truncated = objects.size() > max_keys;
  if (truncated) objects.resize(max_keys);
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">";
  xml += "<Name>" + XmlEscape(bucket) + "</Name><Prefix>" + XmlEscape(prefix) + "</Prefix>";
  xml += fmt::format("<KeyCount>{}</KeyCount><MaxKeys>{}</MaxKeys><IsTruncated>{}</IsTruncated>", objects.size(),
                     max_keys, truncated ? "true" : "false");
  if (!token.empty()) xml += "<ContinuationToken>" + XmlEscape(token) + "</ContinuationToken>";
  // The continuation token is the last key of the page (keys are returned in order).
  if (truncated) xml += "<NextContinuationToken>" + XmlEscape(objects.back().key) + "</NextContinuationToken>";
  for (const Object& o : objects) {
    struct tm tm {};
    gmtime_r(&o.mtime.tv_sec, &tm);
    char when[32];
    std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    // The same ETag as a GET or HEAD of the object (server.cc): size and mtime in hex.
    const std::string etag = fmt::format("\"{:x}-{:x}\"", o.size,
                                         static_cast<uint64_t>(o.mtime.tv_sec) * 1000000000ULL +
                                             static_cast<uint64_t>(o.mtime.tv_nsec));
    xml += "<Contents><Key>" + XmlEscape(o.key) + "</Key>";
    xml += fmt::format("<LastModified>{}.{:03d}Z</LastModified>", when, static_cast<int>(o.mtime.tv_nsec / 1000000));
    xml += "<ETag>" + XmlEscape(etag) + "</ETag>";
    xml += fmt::format("<Size>{}</Size><StorageClass>STANDARD</StorageClass></Contents>", o.size);
  }
  xml += "</ListBucketResult>";
  return xml;
}

}  // namespace rap::netsim
