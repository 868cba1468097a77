// HttpStore: the ObjectStore for http(s):// URLs. Private; see rap/io/http_store.h.
#pragma once

#include <memory>
#include <string>

#include "io/http_client.h"
#include "rap/io/http_store.h"

namespace rap::io {

// The transport shared by the HTTP-based stores, so ConnectionsOpened() can reach it.
class HttpBasedStore : public ObjectStore {
 public:
  virtual const HttpClient& client() const = 0;
};

class HttpStore final : public HttpBasedStore {
 public:
  HttpStore(std::string base_url, const HttpOptions& options);

  std::string endpoint() const override { return base_url_; }
  bool is_remote() const override { return true; }
  const HttpClient& client() const override { return client_; }

  Result<ObjectInfo> Head(const std::string& path) override;
  Result<std::vector<Buffer>> ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                         const ReadOptions& options, ReadStats* stats) override;
  Result<std::pair<Buffer, ObjectInfo>> ReadTail(const std::string& path, uint64_t n, const ReadOptions& options,
                                                 ReadStats* stats) override;
  Result<std::vector<ObjectInfo>> List(const std::string& prefix) override;
  Status Put(const std::string& path, const Buffer& data) override;

 private:
  std::string Url(const std::string& path) const;
  std::string base_url_;
  HttpClient client_;
};

}  // namespace rap::io
