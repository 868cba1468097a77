// URL resolution: picks the ObjectStore for a URL and shares one store per endpoint within the
// process, so connections and transport estimates are reused across files.
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "io/http_store.h"
#include "io/local_store.h"
#include "rap/io/disk_cache.h"
#include "rap/io/object_store.h"
#include "rap/io/s3_config.h"
#include "rap/io/s3_store.h"
#include "rap/io/store_options.h"

namespace rap::io {

namespace {

bool StartsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> PercentDecode(const std::string& url, const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
      int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) return Status::InvalidArgument(url + ": bad percent escape at position " + std::to_string(i));
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Process-wide registry of stores, keyed by endpoint (plus credentials where they differ).
class Registry {
 public:
  template <typename Make>
  ObjectStorePtr GetOrCreate(const std::string& key, Make make) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = stores_.find(key);
    if (it != stores_.end()) return it->second;
    ObjectStorePtr s = make();
    if (s) stores_.emplace(key, s);
    return s;
  }

  // Moves out the stores only the registry holds; the caller destroys them outside the lock.
  std::vector<ObjectStorePtr> TakeUnused() {
    std::vector<ObjectStorePtr> out;
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = stores_.begin(); it != stores_.end();) {
      if (it->second.use_count() == 1) {
        out.push_back(std::move(it->second));
        it = stores_.erase(it);
      } else {
        ++it;
      }
    }
    return out;
  }

 private:
  std::mutex mu_;
  std::map<std::string, ObjectStorePtr> stores_;
};

// The part of a store's registry key that tells stores with and without a disk tier apart (the tier
// of a remote store comes from RAP_CACHE_DIR, which the environment may change between calls).
std::string DiskKey(const std::shared_ptr<DiskCache>& disk) { return disk ? "|disk=" + disk->dir() : ""; }

Registry& GlobalRegistry() {
  static Registry* r = new Registry();  // never destroyed: stores may be used during static teardown
  return *r;
}

}  // namespace

size_t ReleaseUnusedStores() {
  std::vector<ObjectStorePtr> unused = GlobalRegistry().TakeUnused();
  const size_t n = unused.size();
  unused.clear();  // each store closes its connections and joins its transfer thread here
  return n;
}

Result<ResolvedUrl> OpenUrl(const std::string& url) { return OpenUrl(url, StoreOptions{}); }

Result<ResolvedUrl> OpenUrl(const std::string& url, const StoreOptions& options) {
  // Stores made with per-call settings are shared only with calls of the same settings.
  const std::string options_key = options.CacheKey();
  if (url.empty()) return Status::InvalidArgument("empty URL");
  if (StartsWith(url, "file://")) {
    std::string rest = url.substr(7);
    if (StartsWith(rest, "localhost/")) rest = rest.substr(9);
    if (rest.empty() || rest[0] != '/') {
      return Status::InvalidArgument(url + ": a file:// URL needs an absolute path (file:///dir/file)");
    }
    RAP_ASSIGN_OR_RETURN(std::string path, PercentDecode(url, rest));
    return ResolvedUrl{GlobalRegistry().GetOrCreate("file", [] { return std::make_shared<LocalStore>(); }), path};
  }
  if (StartsWith(url, "http://") || StartsWith(url, "https://")) {
    size_t authority = url.find("://") + 3;
    size_t slash = url.find('/', authority);
    std::string base = url.substr(0, slash);
    std::string path = slash == std::string::npos ? "/" : url.substr(slash);
    if (base.size() == authority) return Status::InvalidArgument(url + ": URL without a host");
    Status made;
    RAP_ASSIGN_OR_RETURN(std::shared_ptr<DiskCache> disk, DiskCacheFor(options));
    const std::string key = (options_key.empty() ? base : base + "|" + options_key) + DiskKey(disk);
    ObjectStorePtr store = GlobalRegistry().GetOrCreate(key, [&]() -> ObjectStorePtr {
      auto s = MakeHttpStore(base, HttpOptionsFor(options));
      if (!s.ok()) {
        made = s.status();
        return nullptr;
      }
      return WithDiskCache(*s, disk);
    });
    if (!made.ok()) return made;
    return ResolvedUrl{store, path};
  }
  if (StartsWith(url, "s3://")) {
    std::string rest = url.substr(5);
    size_t slash = rest.find('/');
    std::string bucket = rest.substr(0, slash);
    std::string key = slash == std::string::npos ? "" : rest.substr(slash + 1);
    if (bucket.empty()) return Status::InvalidArgument(url + ": expected s3://bucket/key");
    RAP_ASSIGN_OR_RETURN(S3Config config, LoadS3Config(options));
    Status made;
    RAP_ASSIGN_OR_RETURN(std::shared_ptr<DiskCache> disk, DiskCacheFor(options));
    std::string store_key = "s3|" + bucket + "|" + config.CacheKey();
    if (!options_key.empty()) store_key += "|" + options_key;
    store_key += DiskKey(disk);
    ObjectStorePtr store = GlobalRegistry().GetOrCreate(store_key, [&]() -> ObjectStorePtr {
      auto s = MakeS3Store(bucket, config, HttpOptionsFor(options));
      if (!s.ok()) {
        made = s.status();
        return nullptr;
      }
      return WithDiskCache(*s, disk);
    });
    if (!made.ok()) return made;
    return ResolvedUrl{store, key};
  }
  size_t scheme_end = url.find("://");
  if (scheme_end != std::string::npos && url.find('/') > scheme_end) {
    return Status::NotSupported(url + ": unsupported URL scheme '" + url.substr(0, scheme_end) +
                                "' (supported: file://, http://, https://, s3://, plain paths)");
  }
  return ResolvedUrl{GlobalRegistry().GetOrCreate("file", [] { return std::make_shared<LocalStore>(); }), url};
}

}  // namespace rap::io
