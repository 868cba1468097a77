// ObjectStore: the one interface through which every byte of rap is read (DESIGN.md, io).
// Implementations: local files (pread), HTTP(S) range GETs, S3-compatible (SigV4). A URL picks one.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rap/plan/byte_range.h"
#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace rap::io {

struct ObjectInfo {
  std::string path;        // path/key relative to the store (as given to Head/List)
  uint64_t size = 0;
  std::string etag;        // ETag or a version token (local: "<mtime_ns>-<size>")
  int64_t mtime_ms = 0;    // last modified, Unix epoch milliseconds (0 when unknown)
};

// Timing of one physical request. Times are NowSeconds() values (monotonic).
struct RequestTiming {
  ByteRange range;
  double start_s = 0;       // request issued
  double first_byte_s = 0;  // the response began (HTTP: its status line arrived)
  double end_s = 0;         // last payload byte received (delivery: first_byte_s to end_s)
  uint64_t bytes = 0;       // payload bytes
  int attempts = 1;
  // Protocol of the final attempt: 10, 11 (HTTP/1.x), 20 (HTTP/2), 30 (HTTP/3); 0 when not HTTP.
  int http_version = 0;
  double latency_s() const { return first_byte_s - start_s; }
  double delivery_s() const { return end_s - first_byte_s; }
};

// Aggregate of one multi-range read.
struct ReadStats {
  std::vector<RequestTiming> requests;
  uint64_t payload_bytes = 0;
  // Wall time during which payload was arriving: the length of the union of the requests'
  // [first_byte_s, end_s] intervals, across concurrent requests.
  double payload_wall_s = 0;
  double wall_s = 0;  // first request issued to last byte received
  int retries = 0;
};

// Computes payload_bytes, payload_wall_s and wall_s from `requests`.
void FinalizeReadStats(ReadStats* stats);

// A stop flag that reads poll. A token made with a parent is also cancelled while its parent is (a
// scan's stop cancels every file's reads); the parent must outlive it.
class CancellationToken {
 public:
  CancellationToken() = default;
  explicit CancellationToken(const CancellationToken* parent) : parent_(parent) {}
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const {
    return cancelled_.load(std::memory_order_relaxed) || (parent_ != nullptr && parent_->cancelled());
  }

 private:
  std::atomic<bool> cancelled_{false};
  const CancellationToken* parent_ = nullptr;
};

struct ReadOptions {
  int max_concurrency = 10;                     // requests in flight for this read
  const CancellationToken* cancel = nullptr;    // optional
  std::string expected_etag;                    // when set, a different ETag fails with kChanged
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // Scope of transport learning: "file", "http://host:port", "s3://endpoint/bucket".
  virtual std::string endpoint() const = 0;
  // Remote stores default to the auto range-planning policy.
  virtual bool is_remote() const = 0;

  virtual Result<ObjectInfo> Head(const std::string& path) = 0;

  // Reads every range as its own request (at most options.max_concurrency in flight).
  // Buffer i holds exactly ranges[i]; a short, long or mismatched response is an error.
  virtual Result<std::vector<Buffer>> ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                                 const ReadOptions& options, ReadStats* stats) = 0;

  // The store's own multi-range read (the "store" planning policy). Default: merge gaps of up to
  // 1 MiB like common object-store clients, then slice.
  virtual Result<std::vector<Buffer>> ReadRangesNative(const std::string& path, std::span<const ByteRange> ranges,
                                                       const ReadOptions& options, ReadStats* stats);

  // The last `n` bytes (whole object if smaller) and the object's info, without a HEAD where the
  // store allows it (suffix range `bytes=-n`).
  virtual Result<std::pair<Buffer, ObjectInfo>> ReadTail(const std::string& path, uint64_t n,
                                                         const ReadOptions& options, ReadStats* stats) = 0;

  // Every object under `prefix` (recursive), sorted by path.
  virtual Result<std::vector<ObjectInfo>> List(const std::string& prefix) = 0;

  // Atomic write: readers see the old object or the whole new one.
  virtual Status Put(const std::string& path, const Buffer& data) = 0;

  // Atomic create: writes `data` only when no object exists at `path`; when one does, fails with
  // kChanged and leaves it untouched (of two concurrent callers exactly one succeeds). Default:
  // NotSupported (stores without a conditional write, e.g. plain HTTP).
  virtual Status PutIfAbsent(const std::string& path, const Buffer& data);

  // Removes the object; NotFound when there is none. Default: NotSupported (read-only stores).
  virtual Status Delete(const std::string& path);
};

using ObjectStorePtr = std::shared_ptr<ObjectStore>;

struct ResolvedUrl {
  ObjectStorePtr store;
  std::string path;  // path within the store
};

// "/a/b.parquet", "a/b", "file:///a/b", "http(s)://host/p", "s3://bucket/key".
// Stores are shared per endpoint within the process (connection reuse, shared estimator).
Result<ResolvedUrl> OpenUrl(const std::string& url);

// Drops the stores OpenUrl keeps that nobody else holds any more, so that their pooled connections
// and transfer threads end now rather than with the process; returns how many were dropped. The next
// OpenUrl of such an endpoint makes a new store. For programs that use many short-lived endpoints
// (the fault-injection tests start a server per case).
size_t ReleaseUnusedStores();

// Joins a store path and a relative child path with exactly one '/'.
std::string JoinPath(const std::string& base, const std::string& child);

}  // namespace rap::io
