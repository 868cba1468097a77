// Internals of rap::index::Index: the immutable snapshot of one manifest version, per-fragment key
// page directories, the counting store used for per-lookup accounting.
#pragma once

#include <atomic>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rap/format/blob_column.h"
#include "rap/index/fragment.h"
#include "rap/index/index.h"
#include "rap/index/page_cache.h"
#include "rap/read/file_reader.h"
#include "rap/util/thread_pool.h"

namespace rap::index {

// Counts the requests and bytes of every read through it (one per task, so rounds are per task).
class CountingStore final : public io::ObjectStore {
 public:
  explicit CountingStore(io::ObjectStorePtr inner) : inner_(std::move(inner)) {}
  std::string endpoint() const override { return inner_->endpoint(); }
  bool is_remote() const override { return inner_->is_remote(); }
  Result<io::ObjectInfo> Head(const std::string& path) override;
  Result<std::vector<Buffer>> ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                         const io::ReadOptions& options, io::ReadStats* stats) override;
  Result<std::vector<Buffer>> ReadRangesNative(const std::string& path, std::span<const ByteRange> ranges,
                                               const io::ReadOptions& options, io::ReadStats* stats) override;
  Result<std::pair<Buffer, io::ObjectInfo>> ReadTail(const std::string& path, uint64_t n, const io::ReadOptions& options,
                                                     io::ReadStats* stats) override;
  Result<std::vector<io::ObjectInfo>> List(const std::string& prefix) override { return inner_->List(prefix); }
  Status Put(const std::string& path, const Buffer& data) override { return inner_->Put(path, data); }

  int64_t requests() const { return requests_.load(); }
  uint64_t bytes() const { return bytes_.load(); }

 private:
  void Count(const io::ReadStats& st, size_t fallback_requests, uint64_t fallback_bytes);
  io::ObjectStorePtr inner_;
  std::atomic<int64_t> requests_{0};
  std::atomic<uint64_t> bytes_{0};
};

// Tracks the sequential request rounds of one task: Step() after each dependent step.
class RoundCounter {
 public:
  explicit RoundCounter(const CountingStore& store) : store_(store), seen_(store.requests()) {}
  void Step() {
    const int64_t now = store_.requests();
    if (now > seen_) ++rounds_;
    seen_ = now;
  }
  int rounds() const { return rounds_; }

 private:
  const CountingStore& store_;
  int64_t seen_;
  int rounds_ = 0;
};

// One page of a fragment's key column: rows [begin, end) of row group `rg`; min/max of key0 when known.
struct KeyPage {
  int rg = 0;
  int64_t begin = 0, end = 0;
  bool has_bounds = false;
  KeyPart min, max;
};

struct FragmentState {
  FragmentEntry entry;
  std::string path;  // within the index store
  std::mutex mu;
  bool loaded = false;
  io::ObjectInfo info;
  FragmentLayout layout;
  std::vector<KeyPage> pages;  // in key order (the fragment is sorted by key)
  bool all_bounds = false;     // every page has [min, max] (binary search over pages)
  uint64_t cache_id = 0;       // PageCache::Intern of this fragment's path, size and ETag
};

class Index::Snapshot {
 public:
  Manifest manifest;
  IndexInfo info;
  io::ObjectStorePtr index_store;
  std::string index_dir;
  io::ObjectStorePtr data_store;
  std::string data_root;
  // Whether the manifest's file ETags come from data_store (Manifest::etag_source).
  bool compare_etags = true;
  // The ETag a data read must match: the manifest's when comparable, else the one this snapshot saw
  // on its first read of the file (later reads then pin that version and reuse its cached footer),
  // else "" (size and row count checks only).
  std::string DataEtag(const FileEntry& f) const {
    if (compare_etags) return f.etag;
    std::lock_guard<std::mutex> lock(observed_mu);
    auto it = observed.find(f.ordinal);
    return it == observed.end() ? std::string() : it->second;
  }
  void ObserveEtag(const FileEntry& f, const std::string& etag) const {
    if (compare_etags || etag.empty()) return;
    std::lock_guard<std::mutex> lock(observed_mu);
    observed.emplace(f.ordinal, etag);
  }
  mutable std::mutex observed_mu;
  mutable std::map<int32_t, std::string> observed;
  std::vector<std::unique_ptr<FragmentState>> fragments;
  std::vector<std::vector<int>> by_bucket;  // fragment indexes per bucket
  // The schema files (by Manifest::schemas index), opened as zero-row Parquet files.
  std::vector<std::shared_ptr<read::FileReader>> schemas;
  SchemaPtr table_schema;  // the newest live file's schema (output types)
  int table_schema_index = -1;
  bool table_types = false;  // table_schema has types from the table's own schema (ApplyTableSchema)
  // The table's blob column (rap/format/blob_column.h), from the same file's key-value metadata:
  // lookups return its folded columns in its place.
  std::optional<parquet::BlobSpec> blob;
  // Column mapping (Manifest::logical_names): logical -> physical name of the top-level columns
  // whose names differ, and the in-file type of a column whose nested fields have physical names
  // (ApplyTableSchema; lookups conform its arrays by those names).
  std::map<std::string, std::string> physical_of;
  std::map<std::string, DataTypePtr> file_types;
  // Names as users see them: the logical name of a physical column name.
  const std::string& LogicalName(const std::string& physical) const {
    auto it = manifest.logical_names.find(physical);
    return it == manifest.logical_names.end() ? physical : it->second;
  }
  const std::string& PhysicalName(const std::string& logical) const {
    auto it = physical_of.find(logical);
    return it == physical_of.end() ? logical : it->second;
  }
};

class Index::Impl {
 public:
  std::string url;
  IndexOpenOptions options;
  io::ObjectStorePtr store;
  std::string dir;
  std::unique_ptr<PageCache> cache;
  std::shared_ptr<parquet::DictionaryCache> dictionaries;  // null when dictionary_cache_bytes is 0
  std::unique_ptr<DataPageCache> data_pages;              // null when data_cache_bytes is 0
  std::unique_ptr<ThreadPool> pool;
  mutable std::mutex mu;
  std::shared_ptr<const Snapshot> snapshot;
  // A replaced snapshot lives on only while lookups that started on it still hold it.
  // Deleted rows per deletion-vector id.
  mutable std::mutex dv_mu;
  mutable std::map<std::string, std::shared_ptr<const std::vector<uint64_t>>> dvs;

  // Open through a latest bundle: the probe (Head) of the version after the bundle's, started by
  // Open and settled by the first lookup after its own reads, so that it costs no round of its own.
  // When that version exists the bundle was stale: the lookup reloads and runs again.
  using Probe = std::future<Result<io::ObjectInfo>>;
  void SetProbe(Probe p) {
    std::lock_guard<std::mutex> lock(probe_mu);
    probe = std::move(p);
    probe_pending.store(probe.valid(), std::memory_order_release);
  }
  // The pending probe, now the caller's (not valid when there is none). A lookup's hot path pays
  // one atomic load once the probe is settled.
  Probe TakeProbe() {
    if (!probe_pending.load(std::memory_order_acquire)) return {};
    std::lock_guard<std::mutex> lock(probe_mu);
    probe_pending.store(false, std::memory_order_release);
    return std::move(probe);
  }
  // Waits for a taken probe; when the probed version exists, loads the newest version. True when
  // it did.
  Result<bool> SettleProbe(Probe p) {
    if (!p.valid()) return false;
    const Result<io::ObjectInfo> h = p.get();
    if (!h.ok()) {
      if (h.status().code() == StatusCode::kNotFound) return false;
      return h.status();
    }
    RAP_RETURN_NOT_OK(RefreshLatest().status());
    return true;
  }
  // Runs `f`, then settles the taken probe `p`, and runs `f` again on the newest version when the
  // probed version exists.
  template <class T>
  Result<T> RunThenSettleProbe(Probe p, const std::function<Result<T>()>& f) {
    Result<T> r = f();
    RAP_ASSIGN_OR_RETURN(const bool reloaded, SettleProbe(std::move(p)));
    return reloaded ? f() : std::move(r);
  }
  int open_rounds = 0;
  bool opened_from_bundle = false;
  std::mutex probe_mu;
  Probe probe;
  std::atomic<bool> probe_pending{false};
  // Index::Refresh: loads the newest version when it is newer than the current one.
  Result<bool> RefreshLatest();

  std::shared_ptr<const Snapshot> Current() const {
    std::lock_guard<std::mutex> lock(mu);
    return snapshot;
  }
  Result<std::shared_ptr<Snapshot>> Load(int64_t version) const;
  // A manifest already read; `bundled`: its schema files' bytes by manifest path (a latest bundle).
  Result<std::shared_ptr<Snapshot>> Load(Manifest manifest, const std::map<std::string, Buffer>* bundled = nullptr) const;
  // Loads the fragment's footer and key page directory once (through `store`, for accounting).
  static Status EnsureLoaded(FragmentState& f, const Manifest& m, io::ObjectStorePtr store, PageCache& cache);
  // Runs tasks on the pool and waits for all of them.
  void RunAll(std::vector<std::function<void()>> tasks) const;
};

}  // namespace rap::index
