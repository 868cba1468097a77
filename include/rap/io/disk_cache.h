// DiskCache: a sized local-disk tier of byte ranges read from remote object stores, shared by the
// processes that name the same directory and kept across restarts (`--cache-dir`, RAP_CACHE_DIR).
//
// An entry is one range of one *version* of an object: its key names the endpoint, the path, the
// object's ETag, the offset and the length, so a changed object is simply a different key. Entries
// are files `DIR/<2 hex>/<62 hex>.rdc` (the SHA-256 of the key) written to `DIR/tmp/` and renamed into
// place, so a reader sees a whole entry or none; each carries a header with its key and a CRC-32 of
// its payload, and an entry that fails either check (a torn write after a power loss, a bit flip, a
// hash collision) is removed and read as a miss. The format is in docs/server.md "Disk cache".
//
// Capacity: when the bytes this process knows of pass `capacity_bytes`, the least recently used
// entries are removed (a hit sets the entry's mtime, so the order survives a restart). The index of
// entries is rebuilt from the directory at open and again after every capacity/4 bytes written, so
// entries other processes wrote are counted from then on; between scans a directory shared by N
// writers can exceed the capacity by up to N × capacity/4.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "rap/io/object_store.h"
#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace rap::io {

struct DiskCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t hit_bytes = 0;
  uint64_t written_bytes = 0;
  uint64_t entries_written = 0;
  uint64_t evictions = 0;
  uint64_t corrupt_entries = 0;  // entries that failed their key or CRC check (removed)
  uint64_t write_errors = 0;     // entries that could not be written (the read itself still succeeds)
  uint64_t entries = 0;          // entries known now
  uint64_t bytes = 0;            // their payload bytes
};

class DiskCache {
 public:
  // Opens (creating) `dir` and indexes what it holds; removes leftovers of interrupted writes older
  // than an hour and evicts down to the capacity. `capacity_bytes` must be > 0.
  static Result<std::shared_ptr<DiskCache>> Open(const std::string& dir, uint64_t capacity_bytes);

  // The process-wide cache of `dir`: one per directory, made on first use; the capacity of a later
  // call with a different value is ignored (the first one wins).
  static Result<std::shared_ptr<DiskCache>> Shared(const std::string& dir, uint64_t capacity_bytes);

  // The payload stored under `key`, or nullopt (absent, evicted by another process, or corrupt).
  std::optional<Buffer> Get(const std::string& key);
  // Stores `data` under `key` (replacing any entry). A failure to write counts in write_errors and
  // is otherwise ignored: the cache is an optimisation. Payloads over capacity/8 are not stored.
  void Put(const std::string& key, const Buffer& data);

  DiskCacheStats Stats() const;
  const std::string& dir() const { return dir_; }
  uint64_t capacity_bytes() const { return capacity_; }

  DiskCache(std::string dir, uint64_t capacity);

 private:
  struct Entry {
    uint64_t bytes = 0;
    uint64_t last_use = 0;  // larger is more recent
  };
  std::string PathOf(const std::string& name) const;
  Status Rescan();
  void EvictLocked(std::vector<std::string>* doomed);
  void Forget(const std::string& name, bool corrupt);

  const std::string dir_;
  const uint64_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;  // by file name (hash hex)
  uint64_t bytes_ = 0;
  uint64_t clock_ = 0;
  uint64_t written_since_scan_ = 0;
  std::atomic<uint64_t> hits_{0}, misses_{0}, hit_bytes_{0}, written_bytes_{0}, entries_written_{0}, evictions_{0},
      corrupt_{0}, write_errors_{0};
};

// `inner` with the disk tier under its ranged reads. Only reads that name the object's version
// (ReadOptions::expected_etag) are served from and stored in the cache — a range of a known version
// never changes; every other call (tails, heads, listings, writes, reads without an ETag) goes to
// `inner` unchanged. A read served from disk makes no request and adds no RequestTiming; it returns
// the bytes of the version asked for even if the object has since been replaced (as a store read of
// that version would, or fail with Changed). `inner` keeps its endpoint() and is_remote().
ObjectStorePtr WithDiskCache(ObjectStorePtr inner, std::shared_ptr<DiskCache> cache);

// The disk cache the store settings ask for: RAP_CACHE_DIR (null when unset or empty) and
// RAP_CACHE_SIZE (a size as in ParseByteSize, default kDefaultDiskCacheBytes), one per directory in
// the process (DiskCache::Shared).
inline constexpr uint64_t kDefaultDiskCacheBytes = 4ULL << 30;
struct StoreOptions;
Result<std::shared_ptr<DiskCache>> DiskCacheFor(const StoreOptions& options);

}  // namespace rap::io
