// Index: Open, snapshots of manifest versions, fragment page directories, Refresh.
#include <condition_variable>
#include <future>
#include <cstring>

#include <fmt/format.h>

#include "index/index_impl.h"
#include "index/file_indexer.h"
#include "index/bundled_files_store.h"
#include "index/find_manifest.h"
#include "rap/index/build.h"
#include "rap/table/delta_schema.h"

namespace rap::index {

// ---- CountingStore ----

void CountingStore::Count(const io::ReadStats& st, size_t fallback_requests, uint64_t fallback_bytes) {
  requests_ += static_cast<int64_t>(st.requests.empty() ? fallback_requests : st.requests.size());
  bytes_ += st.requests.empty() ? fallback_bytes : st.payload_bytes;
}

namespace {
void MergeStats(io::ReadStats* into, const io::ReadStats& from) {
  if (!into) return;
  into->requests.insert(into->requests.end(), from.requests.begin(), from.requests.end());
  into->retries += from.retries;
  io::FinalizeReadStats(into);
}
uint64_t TotalBytes(const std::vector<Buffer>& bufs) {
  uint64_t n = 0;
  for (const Buffer& b : bufs) n += b.size();
  return n;
}
}  // namespace

Result<io::ObjectInfo> CountingStore::Head(const std::string& path) {
  ++requests_;
  return inner_->Head(path);
}

Result<std::vector<Buffer>> CountingStore::ReadRanges(const std::string& path, std::span<const ByteRange> ranges,
                                                      const io::ReadOptions& options, io::ReadStats* stats) {
  io::ReadStats st;
  auto r = inner_->ReadRanges(path, ranges, options, &st);
  Count(st, ranges.size(), r.ok() ? TotalBytes(*r) : 0);
  MergeStats(stats, st);
  return r;
}

Result<std::vector<Buffer>> CountingStore::ReadRangesNative(const std::string& path, std::span<const ByteRange> ranges,
                                                            const io::ReadOptions& options, io::ReadStats* stats) {
  io::ReadStats st;
  auto r = inner_->ReadRangesNative(path, ranges, options, &st);
  Count(st, ranges.size(), r.ok() ? TotalBytes(*r) : 0);
  MergeStats(stats, st);
  return r;
}

Result<std::pair<Buffer, io::ObjectInfo>> CountingStore::ReadTail(const std::string& path, uint64_t n,
                                                                  const io::ReadOptions& options, io::ReadStats* stats) {
  io::ReadStats st;
  auto r = inner_->ReadTail(path, n, options, &st);
  Count(st, 1, r.ok() ? r->first.size() : 0);
  MergeStats(stats, st);
  return r;
}

// ---- LookupStats ----

std::string LookupStats::ToString() const {
  return fmt::format(
      "dependent_rounds {}\nrequests {}\nbytes {}\nindex_pages_read {}\nindex_page_cache_hits {}\n"
      "index_data_pages_decoded {}\ndata_files {}\ncovered_files {}\ndata_pages_decoded {}\ndata_page_cache_hits {}\n"
      "hoisted_only {}\nrows {}\nlookup_s {:.6f}\n",
      dependent_rounds, requests, bytes, index_pages_read, index_page_cache_hits, index_data_pages_decoded, data_files,
      covered_files, data_pages_decoded, data_page_cache_hits, hoisted_only, rows, seconds);
}

// ---- fragments ----

namespace {

Result<KeyPart> DecodeBound(KeyType type, const std::string& bytes, const std::string& what) {
  KeyPart p;
  if (type == KeyType::kInt32) {
    if (bytes.size() != 4) return Status::Corrupt(what + ": ColumnIndex bound of key0 is not 4 bytes");
    int32_t v;
    std::memcpy(&v, bytes.data(), 4);
    p.i = v;
  } else if (type == KeyType::kInt64) {
    if (bytes.size() != 8) return Status::Corrupt(what + ": ColumnIndex bound of key0 is not 8 bytes");
    std::memcpy(&p.i, bytes.data(), 8);
  } else {
    p.s = bytes;
  }
  return p;
}

}  // namespace

Status Index::Impl::EnsureLoaded(FragmentState& f, const Manifest& m, io::ObjectStorePtr store, PageCache& cache) {
  std::lock_guard<std::mutex> lock(f.mu);
  if (f.loaded) return Status::OK();
  read::FileReaderOptions ro;
  if (!f.entry.etag.empty()) ro.object_info = io::ObjectInfo{f.path, f.entry.size, f.entry.etag, 0};
  // Format 2: the footer read takes the page indexes with it (one request, one round).
  if (f.entry.meta_bytes > 0) ro.tail_read_size = std::max<uint64_t>(f.entry.meta_bytes, 8);
  RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(store, f.path, ro));
  if (reader->info().size != f.entry.size) {
    return Status::Corrupt("index fragment " + f.path + " is " + std::to_string(reader->info().size) +
                           " bytes, the manifest says " + std::to_string(f.entry.size));
  }
  RAP_ASSIGN_OR_RETURN(f.layout, FragmentLayout::Of(*reader->arrow_schema(), m, f.path));
  const int leaf = reader->schema().FindColumn(KeyColumnName(0));
  if (leaf < 0) return Status::Corrupt("index fragment " + f.path + ": no leaf column key0");
  std::vector<int> rgs, leaves;
  for (int rg = 0; rg < reader->num_row_groups(); ++rg) rgs.push_back(rg);
  for (int c = 0; c < reader->schema().num_columns(); ++c) leaves.push_back(c);
  // Every column's page index at once (one read of the contiguous page-index region, cached with the
  // footer): key0's ColumnIndex picks the candidate page, and the other columns' OffsetIndexes let a
  // lookup fetch that page's rows of every column without another metadata read.
  RAP_RETURN_NOT_OK(reader->LoadPageIndex(rgs, leaves, true, true));
  std::vector<KeyPage> pages;
  for (int rg : rgs) {
    const int64_t rows = reader->row_group_num_rows(rg);
    RAP_ASSIGN_OR_RETURN(auto oi, reader->GetOffsetIndex(rg, leaf));
    RAP_ASSIGN_OR_RETURN(auto ci, reader->GetColumnIndex(rg, leaf));
    if (!oi || oi->page_locations.empty()) {
      pages.push_back({rg, 0, rows, false, {}, {}});
      continue;
    }
    const auto& locs = oi->page_locations;
    const bool bounds = ci && ci->min_values.size() == locs.size() && ci->max_values.size() == locs.size();
    for (size_t p = 0; p < locs.size(); ++p) {
      KeyPage kp;
      kp.rg = rg;
      kp.begin = locs[p].first_row_index;
      kp.end = p + 1 < locs.size() ? locs[p + 1].first_row_index : rows;
      if (kp.begin < 0 || kp.end > rows || kp.begin >= kp.end) {
        return Status::Corrupt("index fragment " + f.path + ": OffsetIndex of key0 in row group " + std::to_string(rg) +
                               " has page " + std::to_string(p) + " at rows [" + std::to_string(kp.begin) + ", " +
                               std::to_string(kp.end) + ")");
      }
      if (bounds && !ci->null_pages[p]) {
        kp.has_bounds = true;
        RAP_ASSIGN_OR_RETURN(kp.min, DecodeBound(m.key[0].type, ci->min_values[p], f.path));
        RAP_ASSIGN_OR_RETURN(kp.max, DecodeBound(m.key[0].type, ci->max_values[p], f.path));
      }
      pages.push_back(std::move(kp));
    }
  }
  f.info = reader->info();
  // Binary search needs every page's bounds and both bounds non-decreasing page over page (true of
  // a sorted fragment unless a writer truncated string bounds inconsistently; then: linear scan).
  f.all_bounds = std::all_of(pages.begin(), pages.end(), [](const KeyPage& kp) { return kp.has_bounds; });
  for (size_t p = 1; f.all_bounds && p < pages.size(); ++p) {
    f.all_bounds = CompareKeyPart(m.key[0].type, pages[p - 1].min, pages[p].min) <= 0 &&
                   CompareKeyPart(m.key[0].type, pages[p - 1].max, pages[p].max) <= 0;
  }
  f.pages = std::move(pages);
  f.cache_id = cache.Intern(fmt::format("{}#{}#{}", f.path, f.info.size, f.info.etag));
  f.loaded = true;
  return Status::OK();
}

void Index::Impl::RunAll(std::vector<std::function<void()>> tasks) const {
  if (tasks.empty()) return;
  if (tasks.size() == 1) {
    tasks[0]();
    return;
  }
  std::mutex m;
  std::condition_variable cv;
  size_t left = tasks.size();
  for (auto& t : tasks) {
    pool->Submit([&, task = std::move(t)] {
      task();
      std::lock_guard<std::mutex> lock(m);
      if (--left == 0) cv.notify_all();
    });
  }
  std::unique_lock<std::mutex> lock(m);
  cv.wait(lock, [&] { return left == 0; });
}

namespace {

// The output types of the columns the table types itself (a Delta table's schema, recorded in the
// schema file by the build: internal::kTableSchemaKey), so that a lookup returns what a scan of the
// table does; the others keep their file types. Lookups conform the decoded columns to these.
// With column mapping the file's fields have physical names: each takes the type of its logical
// column, and a nested type whose in-file names differ is kept in `file_types` for conforming.
Status ApplyTableSchema(const std::vector<parquet::KeyValue>& kvs, const std::string& what,
                        const std::map<std::string, std::string>& logical_names, SchemaPtr* schema, bool* applied,
                        std::map<std::string, DataTypePtr>* file_types) {
  for (const parquet::KeyValue& kv : kvs) {
    if (kv.key != internal::kTableSchemaKey || !kv.value || !*schema) continue;
    auto logical = table::ParseDeltaSchema(*kv.value, table::ColumnMappingMode::kNone);
    if (!logical.ok()) return logical.status().WithContext(what + ": " + internal::kTableSchemaKey);
    auto out = std::make_shared<Schema>(**schema);
    for (Field& f : out->fields) {
      const auto ln = logical_names.find(f.name);
      const int i = logical->schema->FieldIndex(ln == logical_names.end() ? f.name : ln->second);
      if (i < 0) continue;
      const DataTypePtr& type = logical->schema->fields[static_cast<size_t>(i)].type;
      if (ln != logical_names.end() && type->ToString() != f.type->ToString() && !type->children.empty()) {
        (*file_types)[f.name] = f.type;
      }
      f.type = type;
    }
    *schema = std::move(out);
    *applied = true;
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<Index::Snapshot>> Index::Impl::Load(int64_t version) const {
  RAP_ASSIGN_OR_RETURN(Manifest m, ReadManifest(*store, dir, version));
  return Load(std::move(m));
}

Result<std::shared_ptr<Index::Snapshot>> Index::Impl::Load(Manifest manifest,
                                                          const std::map<std::string, Buffer>* bundled) const {
  auto s = std::make_shared<Snapshot>();
  s->manifest = std::move(manifest);
  const Manifest& m = s->manifest;
  s->index_store = store;
  s->index_dir = dir;
  const std::string table_url = ResolveUrl(url, m.table_root);
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl tr, io::OpenUrl(table_url));
  s->data_store = tr.store;
  s->compare_etags = m.etag_source.empty() || m.etag_source == tr.store->endpoint();
  s->data_root = tr.path;
  s->by_bucket.resize(static_cast<size_t>(m.buckets));
  for (size_t i = 0; i < m.fragments.size(); ++i) {
    auto f = std::make_unique<FragmentState>();
    f->entry = m.fragments[i];
    f->path = io::JoinPath(dir, m.fragments[i].path);
    s->by_bucket[static_cast<size_t>(f->entry.bucket)].push_back(static_cast<int>(i));
    s->fragments.push_back(std::move(f));
  }
  IndexInfo& info = s->info;
  info.index_url = url;
  info.table_url = table_url;
  info.key = m.key;
  info.manifest_version = m.version;
  info.table_version = m.table_version;
  info.table_kind = m.table_kind;
  info.buckets = m.buckets;
  info.name = m.name;
  info.kind = m.kind;
  for (const FileEntry& f : m.files) {
    if (f.removed) continue;
    ++info.files;
    s->table_schema_index = f.schema;  // the newest live file's schema
  }
  info.fragments = static_cast<int64_t>(m.fragments.size());
  // Users see logical names (column mapping: Manifest::logical_names).
  for (const auto& [physical, logical] : m.logical_names) s->physical_of.emplace(logical, physical);
  for (KeyColumn& k : info.key) k.name = s->LogicalName(k.name);
  for (const std::string& c : m.cover) info.cover.push_back(s->LogicalName(c));
  for (const std::string& c : m.hoist) info.hoist.push_back(s->LogicalName(c));
  // Schema files (small; from memory when a latest bundle carried them) and, with preload, every
  // fragment's footer and key page index, in parallel.
  io::ObjectStorePtr schema_store = store;
  read::FileReaderOptions schema_options;
  if (bundled != nullptr && !bundled->empty()) {
    std::map<std::string, Buffer> files;
    for (const auto& [rel, bytes] : *bundled) files.emplace(io::JoinPath(dir, rel), bytes);
    schema_store = std::make_shared<BundledFilesStore>(store, std::move(files));
    schema_options.use_metadata_cache = false;  // bundled objects have no ETag to key the cache by
  }
  s->schemas.resize(m.schemas.size());
  std::vector<Status> errors(m.schemas.size() + (options.preload ? s->fragments.size() : 0));
  std::vector<std::function<void()>> tasks;
  for (size_t i = 0; i < m.schemas.size(); ++i) {
    tasks.push_back([&, i] {
      auto r = read::FileReader::Open(schema_store, io::JoinPath(dir, m.schemas[i]), schema_options);
      if (r.ok()) s->schemas[i] = *r; else errors[i] = r.status();
    });
  }
  if (options.preload) {
    for (size_t i = 0; i < s->fragments.size(); ++i) {
      tasks.push_back([&, i] { errors[m.schemas.size() + i] = EnsureLoaded(*s->fragments[i], m, store, *cache); });
    }
  }
  RunAll(std::move(tasks));
  for (const Status& st : errors) RAP_RETURN_NOT_OK(st);
  if (s->table_schema_index >= 0) {
    const auto& reader = s->schemas[static_cast<size_t>(s->table_schema_index)];
    s->table_schema = reader->arrow_schema();
    RAP_ASSIGN_OR_RETURN(s->blob, parquet::FindBlobSpec(reader->metadata().key_value_metadata));
    RAP_RETURN_NOT_OK(ApplyTableSchema(reader->metadata().key_value_metadata, m.schemas[static_cast<size_t>(s->table_schema_index)],
                                       m.logical_names, &s->table_schema, &s->table_types, &s->file_types));
  } else {
    // No schema files (an index written by another engine): the newest live file's footer.
    for (size_t i = m.files.size(); i-- > 0;) {
      if (m.files[i].removed) continue;
      RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(s->data_store, io::JoinPath(s->data_root, m.files[i].path)));
      s->table_schema = reader->arrow_schema();
      RAP_ASSIGN_OR_RETURN(s->blob, parquet::FindBlobSpec(reader->metadata().key_value_metadata));
      break;
    }
  }
  return s;
}

// ---- Index ----

Index::Index(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Index::~Index() = default;

Result<std::shared_ptr<Index>> Index::Open(const std::string& url, IndexOpenOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->cache = std::make_unique<PageCache>(options.page_cache_bytes);
  if (options.dictionary_cache_bytes > 0) {
    impl->dictionaries = std::make_shared<parquet::DictionaryCache>(options.dictionary_cache_bytes);
  }
  if (options.data_cache_bytes > 0) impl->data_pages = std::make_unique<DataPageCache>(options.data_cache_bytes);
  impl->pool = std::make_unique<ThreadPool>(static_cast<size_t>(std::max(1, options.threads)));
  // A table URL: its default index.
  std::string index_url = url;
  while (index_url.size() > 1 && index_url.back() == '/') index_url.pop_back();
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(index_url));
  RAP_ASSIGN_OR_RETURN(FoundManifest latest, FindManifest(index_url, r));
  impl->open_rounds = latest.rounds;
  impl->opened_from_bundle = latest.from_bundle;
  index_url = latest.url;
  r = latest.where;
  impl->url = index_url;
  impl->store = r.store;
  impl->dir = r.path;
  if (latest.from_bundle) {
    io::ObjectStorePtr store = r.store;
    const std::string next = ManifestPath(r.path, latest.manifest.version + 1);
    impl->SetProbe(std::async(std::launch::async, [store, next] { return store->Head(next); }));
  }
  RAP_ASSIGN_OR_RETURN(auto snap, impl->Load(std::move(latest.manifest), &latest.schema_files));
  impl->snapshot = std::move(snap);
  // A preloading open (a server) has spent rounds already: it settles the probe now.
  if (options.preload) RAP_RETURN_NOT_OK(impl->SettleProbe(impl->TakeProbe()).status());
  return std::shared_ptr<Index>(new Index(std::move(impl)));
}

IndexInfo Index::info() const {
  IndexInfo info = impl_->Current()->info;
  info.open_rounds = impl_->open_rounds;
  info.opened_from_bundle = impl_->opened_from_bundle;
  return info;
}

Result<Key> Index::ParseKey(const std::vector<std::string>& parts) const {
  return index::ParseKey(impl_->Current()->info.key, parts);
}

PageCacheStats Index::page_cache_stats() const { return impl_->cache->stats(); }

DataPageCacheStats Index::data_cache_stats() const {
  return impl_->data_pages ? impl_->data_pages->stats() : DataPageCacheStats{};
}

parquet::DictionaryCacheStats Index::dictionary_cache_stats() const {
  return impl_->dictionaries ? impl_->dictionaries->stats() : parquet::DictionaryCacheStats{};
}

Result<bool> Index::Refresh() {
  // A pending probe is answered by the probes below (waited for, so that it outlives nothing).
  if (auto probe = impl_->TakeProbe(); probe.valid()) probe.wait();
  return impl_->RefreshLatest();
}

Result<bool> Index::Impl::RefreshLatest() {
  RAP_ASSIGN_OR_RETURN(int64_t latest, FindLatestVersion(*store, dir));
  if (latest <= Current()->manifest.version) return false;
  RAP_ASSIGN_OR_RETURN(auto snap, Load(latest));
  std::lock_guard<std::mutex> lock(mu);
  if (snapshot->manifest.version >= snap->manifest.version) return false;
  snapshot = std::move(snap);
  return true;
}

}  // namespace rap::index
