// IndexWriter: entries -> bucketed, sorted fragments + manifest.
#include "rap/index/index_writer.h"

#include <atomic>
#include <algorithm>
#include <array>
#include <unordered_map>
#include <charconv>
#include <chrono>
#include <random>

#include "index/file_indexer.h"
#include "rap/util/thread_pool.h"

namespace rap::index {

namespace {

// An entry's place packed in 64 bits: file ordinal (26 bits) above its first row (38 bits), so that
// one unsigned comparison orders (file, first_row).
constexpr int kRowBits = 38;
constexpr uint64_t kRowMask = (uint64_t{1} << kRowBits) - 1;
constexpr int64_t kMaxFiles = int64_t{1} << (64 - kRowBits);

// Grows `v` by half its size (not doubling), so a full buffer wastes at most a third of its slots.
template <typename T>
void Grow(std::vector<T>* v) {
  if (v->size() == v->capacity()) v->reserve(std::max<size_t>(16, v->capacity() + v->capacity() / 2));
}

template <typename T>
int64_t Cap(const std::vector<T>& v) {
  return static_cast<int64_t>(v.capacity() * sizeof(T));
}

// A page location's fields (Location without aux) as a hash key.
struct LocationKeyHash {
  size_t operator()(const std::array<int64_t, 7>& k) const {
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int64_t v : k) h = (h ^ static_cast<uint64_t>(v)) * 0x100000001b3ULL;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

}  // namespace

// The buffered entries of one bucket, column by column: per key part the integers or the bytes of
// all strings with their end offsets, the packed (file, first_row), the row count, and for covered
// and hoisted indexes the locations and hoisted slices of all entries with per-entry ends.
struct IndexWriter::Bucket {
  std::vector<KeyType> types;
  std::vector<std::vector<int64_t>> ints;      // [part], integer parts
  std::vector<std::string> bytes;              // [part], string parts
  std::vector<std::vector<uint64_t>> ends;     // [part], string parts: end offset of each entry's bytes
  std::vector<uint64_t> pos;                   // file << kRowBits | first_row
  std::vector<uint32_t> rows;                  // num_rows
  std::vector<uint32_t> cover_end;             // covered: end of each entry's records in `cover`
  // Covered: each entry's records as ids into `locations`. A page's location (no aux) is kept once
  // however many entries read it (`page_ids`): the entries of a table nobody rewrote share their
  // pages, and 80-byte records per entry made a covered build's buffer ~10x its plain one (spilling
  // at the memory budget). Records with aux (frame layouts) are kept per entry.
  std::vector<uint32_t> cover;
  std::vector<Location> locations;
  std::unordered_map<std::array<int64_t, 7>, uint32_t, LocationKeyHash> page_ids;
  std::vector<ArrayPtr> hoisted;               // hoisted: entry-major, one slice per hoisted column
  int64_t extra = 0;                           // heap bytes beyond the vectors (aux strings, slices)

  explicit Bucket(const std::vector<KeyColumn>& key) {
    for (const KeyColumn& k : key) types.push_back(k.type);
    ints.resize(key.size());
    bytes.resize(key.size());
    ends.resize(key.size());
  }
  size_t size() const { return pos.size(); }
  bool empty() const { return pos.empty(); }
  std::string_view Str(size_t k, size_t i) const {
    const uint64_t b = i == 0 ? 0 : ends[k][i - 1];
    return std::string_view(bytes[k]).substr(b, ends[k][i] - b);
  }
  int64_t Bytes() const {
    // (page_ids: a node of key, id and links per page location, ~96 bytes.)
    int64_t b = Cap(pos) + Cap(rows) + Cap(cover_end) + Cap(cover) + Cap(locations) + Cap(hoisted) + extra +
                static_cast<int64_t>(page_ids.size() * 96 + page_ids.bucket_count() * sizeof(void*));
    for (size_t k = 0; k < types.size(); ++k) {
      b += Cap(ints[k]) + Cap(ends[k]) + static_cast<int64_t>(bytes[k].capacity());
    }
    return b;
  }
  void Clear() {
    const std::vector<KeyColumn> none;
    Bucket fresh(none);
    fresh.types = types;
    fresh.ints.resize(types.size());
    fresh.bytes.resize(types.size());
    fresh.ends.resize(types.size());
    *this = std::move(fresh);
  }
  void KeyAt(size_t i, Key* key) const {
    key->parts.resize(types.size());
    for (size_t k = 0; k < types.size(); ++k) {
      if (IsIntegerKey(types[k])) key->parts[k].i = ints[k][i];
      else key->parts[k].s.assign(Str(k, i));
    }
  }
  // Entry `i` as an IndexEntry (reusing `e`'s storage).
  void EntryAt(size_t i, IndexEntry* e) const {
    KeyAt(i, &e->key);
    e->file = static_cast<int32_t>(pos[i] >> kRowBits);
    e->first_row = static_cast<int64_t>(pos[i] & kRowMask);
    e->num_rows = rows[i];
    e->cover.clear();
    if (!cover_end.empty()) {
      const uint32_t b = i == 0 ? 0 : cover_end[i - 1];
      e->cover.reserve(cover_end[i] - b);
      for (uint32_t j = b; j < cover_end[i]; ++j) e->cover.push_back(locations[cover[j]]);
    }
    e->hoisted.clear();
    if (!hoisted.empty()) {
      const size_t h = hoisted.size() / size();
      e->hoisted.assign(hoisted.begin() + static_cast<std::ptrdiff_t>(i * h),
                        hoisted.begin() + static_cast<std::ptrdiff_t>((i + 1) * h));
    }
  }
  int CompareKeyAt(size_t a, size_t b) const {
    for (size_t k = 0; k < types.size(); ++k) {
      if (IsIntegerKey(types[k])) {
        if (ints[k][a] != ints[k][b]) return ints[k][a] < ints[k][b] ? -1 : 1;
      } else {
        const int c = Str(k, a).compare(Str(k, b));
        if (c != 0) return c < 0 ? -1 : 1;
      }
    }
    return 0;
  }
  // The entries' order by (key, file, first_row).
  std::vector<uint32_t> Order() const {
    const size_t n = size();
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
    auto less = [&](uint32_t a, uint32_t b) {
      const int c = CompareKeyAt(a, b);
      return c != 0 ? c < 0 : pos[a] < pos[b];
    };
    // The entries arrive as sorted runs — each data file's entries in (key, first_row) order, files in
    // ordinal order — so the runs are merged (O(n log runs) comparisons) instead of sorted again
    // (O(n log n)); a buffer that is not made of few runs is sorted.
    std::vector<size_t> starts{0};
    for (size_t i = 1; i < n; ++i) {
      if (less(order[i], order[i - 1])) starts.push_back(i);
    }
    if (starts.size() == 1) return order;
    if (starts.size() > n / 8) {
      std::sort(order.begin(), order.end(), less);
      return order;
    }
    starts.push_back(n);
    std::vector<uint32_t> other(n);
    while (starts.size() > 2) {  // merge runs pairwise, between `order` and `other`
      std::vector<size_t> next{0};
      for (size_t r = 0; r + 1 < starts.size(); r += 2) {
        const auto b = order.begin();
        const size_t mid = starts[r + 1], end = r + 2 < starts.size() ? starts[r + 2] : starts[r + 1];
        std::merge(b + static_cast<std::ptrdiff_t>(starts[r]), b + static_cast<std::ptrdiff_t>(mid),
                   b + static_cast<std::ptrdiff_t>(mid), b + static_cast<std::ptrdiff_t>(end),
                   other.begin() + static_cast<std::ptrdiff_t>(starts[r]), less);
        next.push_back(end);
      }
      starts = std::move(next);
      order.swap(other);
    }
    return order;
  }
};

IndexWriter::~IndexWriter() = default;

Status IndexWriter::Append(Bucket& bk, const IndexEntry& e) {
  for (size_t k = 0; k < bk.types.size(); ++k) {
    if (IsIntegerKey(bk.types[k])) {
      Grow(&bk.ints[k]);
      bk.ints[k].push_back(e.key.parts[k].i);
    } else {
      bk.bytes[k] += e.key.parts[k].s;
      Grow(&bk.ends[k]);
      bk.ends[k].push_back(bk.bytes[k].size());
    }
  }
  Grow(&bk.pos);
  bk.pos.push_back(static_cast<uint64_t>(e.file) << kRowBits | static_cast<uint64_t>(e.first_row));
  Grow(&bk.rows);
  bk.rows.push_back(static_cast<uint32_t>(e.num_rows));
  if (!options_.cover.empty()) {
    for (const Location& l : e.cover) {
      uint32_t id = static_cast<uint32_t>(bk.locations.size());
      bool added = true;
      if (l.aux.empty()) {
        auto [it, fresh] = bk.page_ids.try_emplace(
            std::array<int64_t, 7>{l.column, l.kind, l.codec, l.offset, l.size, l.first_row, l.num_rows}, id);
        id = it->second;
        added = fresh;
      }
      if (added) {
        Grow(&bk.locations);
        bk.locations.push_back(l);
        if (l.aux.capacity() > 15) bk.extra += static_cast<int64_t>(l.aux.capacity() + 1);
      }
      Grow(&bk.cover);
      bk.cover.push_back(id);
    }
    Grow(&bk.cover_end);
    bk.cover_end.push_back(static_cast<uint32_t>(bk.cover.size()));
  }
  for (const ArrayPtr& h : e.hoisted) {
    Grow(&bk.hoisted);
    bk.hoisted.push_back(h);
    // A hoisted slice: its array header and its share of the values it keeps alive (8 bytes a value
    // as an estimate; strings may take more).
    bk.extra += static_cast<int64_t>(sizeof(ArrayData)) + 8 * (h ? h->length : 0);
  }
  return Status::OK();
}

Result<std::unique_ptr<IndexWriter>> IndexWriter::Make(std::string index_url, IndexWriterOptions options,
                                                       std::optional<Manifest> base) {
  if (options.key.empty() || options.key.size() > 2) {
    return Status::InvalidArgument("an index key has one or two columns, got " + std::to_string(options.key.size()));
  }
  if (options.buckets < 1 || options.buckets > (1 << 20)) {
    return Status::InvalidArgument("--buckets must be in 1..1048576, got " + std::to_string(options.buckets));
  }
  std::unique_ptr<IndexWriter> w(new IndexWriter());
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(index_url));
  w->store_ = r.store;
  w->dir_ = r.path;
  w->index_url_ = std::move(index_url);
  if (base) {
    if (base->key != options.key) return Status::InvalidArgument("the key columns differ from the index's");
    options.buckets = base->buckets;
    options.kind = base->kind;
    w->manifest_ = std::move(*base);
  } else {
    RAP_ASSIGN_OR_RETURN(w->manifest_.version, [&]() -> Result<int64_t> {
      auto latest = FindLatestVersion(*w->store_, w->dir_);
      if (latest.ok()) return *latest;
      if (latest.status().code() == StatusCode::kNotFound) return 0;
      return latest.status();
    }());
    if (w->manifest_.version > 0) {
      // A rebuild: a full new version; runs keep counting so fragment names never repeat.
      RAP_ASSIGN_OR_RETURN(Manifest old, ReadManifest(*w->store_, w->dir_, w->manifest_.version));
      w->manifest_.next_run = old.next_run;
    }
    w->manifest_.name = options.name;
    w->manifest_.key = options.key;
    w->manifest_.kind = options.kind;
    w->manifest_.bucket_function = options.kind == IndexKind::kSorted ? kRangeFunction : kBucketFunction;
    w->manifest_.buckets = options.kind == IndexKind::kSorted ? 1 : options.buckets;
    w->choose_boundaries_ = options.kind == IndexKind::kSorted;
    w->manifest_.cover = options.cover;
    for (const Field& h : options.hoist) w->manifest_.hoist.push_back(h.name);
  }
  if (options.logical_names) w->manifest_.logical_names = *options.logical_names;
  w->options_ = std::move(options);
  for (int32_t b = 0; b < w->manifest_.buckets; ++b) w->buckets_.push_back(std::make_unique<Bucket>(w->options_.key));
  return w;
}

int32_t IndexWriter::AddFile(FileEntry file, const std::string& schema_file) {
  file.ordinal = static_cast<int32_t>(manifest_.files.size());
  file.schema = -1;
  if (!schema_file.empty()) {
    const std::string rel = internal::SchemaFilePath(schema_file);
    int32_t idx = -1;
    for (size_t i = 0; i < manifest_.schemas.size(); ++i) {
      if (manifest_.schemas[i] == rel) idx = static_cast<int32_t>(i);
    }
    if (idx < 0) {
      idx = static_cast<int32_t>(manifest_.schemas.size());
      manifest_.schemas.push_back(rel);
      schema_files_.push_back({rel, schema_file});
    }
    file.schema = idx;
  }
  manifest_.files.push_back(std::move(file));
  return manifest_.files.back().ordinal;
}

Status IndexWriter::RemoveFile(int32_t ordinal) {
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= manifest_.files.size()) {
    return Status::InvalidArgument("no file with ordinal " + std::to_string(ordinal));
  }
  manifest_.files[static_cast<size_t>(ordinal)].removed = true;
  return Status::OK();
}

Status IndexWriter::SetDeletionVector(int32_t ordinal, std::optional<table::DeletionVectorDescriptor> dv) {
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= manifest_.files.size()) {
    return Status::InvalidArgument("no file with ordinal " + std::to_string(ordinal));
  }
  manifest_.files[static_cast<size_t>(ordinal)].deletion_vector = std::move(dv);
  return Status::OK();
}

Status IndexWriter::AddEntry(const IndexEntry& e) {
  if (e.key.parts.size() != options_.key.size()) return Status::InvalidArgument("an entry's key has the wrong arity");
  if (e.file < 0 || static_cast<size_t>(e.file) >= manifest_.files.size()) {
    return Status::InvalidArgument("an entry names file ordinal " + std::to_string(e.file) + ", not in the file table");
  }
  if (e.num_rows <= 0 || e.first_row < 0) return Status::InvalidArgument("an entry needs first_row >= 0 and num_rows > 0");
  if (e.hoisted.size() != options_.hoist.size()) return Status::InvalidArgument("an entry lacks hoisted values");
  if (e.file >= kMaxFiles || static_cast<uint64_t>(e.first_row) > kRowMask || e.num_rows > UINT32_MAX) {
    return Status::NotSupported("index entry of file " + std::to_string(e.file) + " at row " +
                                std::to_string(e.first_row) + " (" + std::to_string(e.num_rows) +
                                " rows): an index holds at most 2^26 files, 2^38 rows a file and 2^32 rows a run");
  }
  int32_t b = 0;
  if (choose_boundaries_) {
    b = 0;
  } else if (manifest_.kind == IndexKind::kHash && e.key.parts.size() == 1 && IsIntegerKey(options_.key[0].type)) {
    // One integer key: its canonical form (decimal) formatted in place, no strings allocated.
    char text[24];
    const auto r = std::to_chars(text, text + sizeof(text), e.key.parts[0].i);
    b = BucketOfCanonical(std::string_view(text, static_cast<size_t>(r.ptr - text)), manifest_.buckets);
  } else {
    b = manifest_.BucketOfKey(e.key);
  }
  Bucket& bucket = *buckets_[static_cast<size_t>(b)];
  // A full column grows by half while still holding its old slots: the bucket's bytes again, at most.
  const int64_t before = bucket.Bytes();
  const int64_t growth = bucket.size() == bucket.pos.capacity() ? before : 0;
  const int64_t heap = EntryHeapBytes(e);
  if (options_.memory_budget > 0 && !choose_boundaries_ && buffered_bytes_ > 0 &&
      buffered_bytes_ + heap + growth > options_.memory_budget) {
    RAP_RETURN_NOT_OK(WriteBuckets("-s" + std::to_string(spills_)));
    ++spills_;
    return AddEntry(e);
  }
  peak_bytes_ = std::max(peak_bytes_, buffered_bytes_ + heap + growth);
  RAP_RETURN_NOT_OK(Append(bucket, e));
  buffered_bytes_ += bucket.Bytes() - before;
  peak_bytes_ = std::max(peak_bytes_, buffered_bytes_);
  ++num_entries_;
  return Status::OK();
}

int64_t IndexWriter::EntryHeapBytes(const IndexEntry& e) {
  // Its columns' slots: packed place (8), row count (4), 8 per integer part or the bytes and an end
  // offset per string part, the cover records with their end, the hoisted slices.
  int64_t b = 12;
  for (const KeyPart& p : e.key.parts) b += 8 + static_cast<int64_t>(p.s.size());
  if (!e.cover.empty()) b += 4 + static_cast<int64_t>(e.cover.size() * sizeof(Location));
  for (const Location& l : e.cover) b += l.aux.capacity() > 15 ? static_cast<int64_t>(l.aux.capacity() + 1) : 0;
  for (const ArrayPtr& h : e.hoisted) b += static_cast<int64_t>(sizeof(ArrayPtr) + sizeof(ArrayData)) + 8 * (h ? h->length : 0);
  return b;
}

Result<Manifest> IndexWriter::Commit(const std::string& table_root, const std::string& table_kind,
                                     int64_t table_version) {
  RAP_RETURN_NOT_OK(Stage());
  Result<Manifest> published = Publish(table_root, table_kind, table_version);
  // Another writer took the version: nothing of this run is published, so its fragments go (its
  // schema files are named by their content and may be the winner's too).
  if (!published.ok() && published.status().code() == StatusCode::kChanged) DiscardStaged(false);
  return published;
}

void IndexWriter::ChooseBoundaries() {
  choose_boundaries_ = false;
  std::unique_ptr<Bucket> all = std::move(buckets_[0]);
  const std::vector<KeyColumn>& kc = options_.key;
  // A sample of the keys at an even stride over the entries (at most kSample of them).
  constexpr size_t kSample = 1 << 16;
  const size_t stride = std::max<size_t>(1, all->size() / kSample);
  std::vector<Key> sample;
  for (size_t i = 0; i < all->size(); i += stride) {
    sample.emplace_back();
    all->KeyAt(i, &sample.back());
  }
  std::sort(sample.begin(), sample.end(), [&](const Key& a, const Key& b) { return CompareKeys(kc, a, b) < 0; });
  std::vector<Key> bounds;
  const size_t parts = static_cast<size_t>(std::max(1, options_.buckets));
  for (size_t p = 1; p < parts && !sample.empty(); ++p) {
    const Key& k = sample[p * sample.size() / parts];
    // Strictly increasing, and above the smallest key (partition 0 is never empty by choice).
    if (CompareKeys(kc, k, sample.front()) <= 0) continue;
    if (!bounds.empty() && CompareKeys(kc, bounds.back(), k) >= 0) continue;
    bounds.push_back(k);
  }
  manifest_.boundaries = std::move(bounds);
  manifest_.buckets = static_cast<int32_t>(manifest_.boundaries.size() + 1);
  buckets_.clear();
  for (int32_t b = 0; b < manifest_.buckets; ++b) buckets_.push_back(std::make_unique<Bucket>(kc));
  IndexEntry e;
  for (size_t i = 0; i < all->size(); ++i) {
    all->EntryAt(i, &e);
    (void)Append(*buckets_[static_cast<size_t>(manifest_.BucketOfKey(e.key))], e);
  }
}

Status IndexWriter::Stage() {
  if (staged_) return Status::OK();
  if (choose_boundaries_) ChooseBoundaries();
  ChooseRunToken();
  for (const auto& [rel, bytes] : schema_files_) {
    staged_schemas_.push_back(io::JoinPath(dir_, rel));
    RAP_RETURN_NOT_OK(store_->Put(staged_schemas_.back(), Buffer::Copy(bytes)));
  }
  RAP_RETURN_NOT_OK(WriteBuckets(""));
  if (spills_ > 0) {
    // Spilled fragments were written before the last ones: bucket order, then write order.
    std::stable_sort(manifest_.fragments.begin() + static_cast<std::ptrdiff_t>(first_new_fragment_), manifest_.fragments.end(),
                     [](const FragmentEntry& a, const FragmentEntry& b) { return a.bucket < b.bucket; });
  }
  const int64_t run = run_;
  manifest_.next_run = run + 1;
  staged_ = true;
  return Status::OK();
}

void IndexWriter::ChooseRunToken() {
  if (!run_token_.empty()) return;
  run_ = options_.run.value_or(manifest_.next_run);
  first_new_fragment_ = manifest_.fragments.size();
  run_token_ = options_.token;
  if (run_token_.empty()) {
    std::random_device rd;
    char random[16];
    std::snprintf(random, sizeof(random), "%08x", static_cast<unsigned>(rd()));
    run_token_ = random;
  }
}

Status IndexWriter::WriteBuckets(const std::string& suffix) {
  ChooseRunToken();
  const int64_t run = run_;
  std::vector<std::string> fragment_names(buckets_.size());
  for (size_t b = 0; b < buckets_.size(); ++b) {
    if (buckets_[b]->empty()) continue;
    char name[160];
    std::snprintf(name, sizeof(name), "fragments/r%06lld-%s-b%05zu%s.parquet", static_cast<long long>(run),
                  run_token_.c_str(), b, suffix.c_str());
    fragment_names[b] = name;
    staged_fragments_.push_back(io::JoinPath(dir_, name));
  }
  std::vector<std::optional<Result<FragmentEntry>>> written(buckets_.size());
  {
    ThreadPool pool(static_cast<size_t>(std::max(1, options_.threads)));
    for (size_t b = 0; b < buckets_.size(); ++b) {
      if (buckets_[b]->empty()) continue;
      pool.Submit([&, b] {
        Bucket& bk = *buckets_[b];
        const std::vector<uint32_t> order = bk.Order();
        // Entries are materialised a batch at a time, in key order, into reused IndexEntry slots.
        auto source = [&](size_t begin, size_t end, std::vector<IndexEntry>* scratch) {
          scratch->resize(end - begin);
          for (size_t i = begin; i < end; ++i) bk.EntryAt(order[i], &(*scratch)[i - begin]);
          return scratch->data();
        };
        written[b] = WriteFragmentBatches(*store_, dir_, fragment_names[b], options_.key, !options_.cover.empty(),
                                          options_.hoist, static_cast<int32_t>(b), run, bk.size(), source,
                                          options_.fragment);
        bk.Clear();
      });
    }
  }
  buffered_bytes_ = 0;
  for (auto& w : written) {
    if (!w) continue;
    if (!w->ok()) return w->status();
    FragmentEntry fe = std::move(**w);
    auto info = store_->Head(io::JoinPath(dir_, fe.path));
    if (info.ok()) fe.etag = info->etag;
    manifest_.fragments.push_back(std::move(fe));
  }
  return Status::OK();
}

void IndexWriter::DiscardStaged(bool schema_files) {
  for (const std::string& path : staged_fragments_) (void)store_->Delete(path);
  staged_fragments_.clear();
  if (schema_files) {
    for (const std::string& path : staged_schemas_) (void)store_->Delete(path);
    staged_schemas_.clear();
  }
}

Result<Manifest> IndexWriter::Publish(const std::string& table_root, const std::string& table_kind,
                                      int64_t table_version) {
  if (!staged_) return Status::Internal(index_url_ + ": IndexWriter::Publish before Stage");
  manifest_.version += 1;
  manifest_.table_root = table_root;
  manifest_.table_kind = table_kind;
  manifest_.table_version = table_version;
  if (!options_.etag_source.empty()) manifest_.etag_source = options_.etag_source;
  manifest_.created_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
  RAP_RETURN_NOT_OK(PublishManifest(*store_, dir_, manifest_));
  return manifest_;
}

}  // namespace rap::index
