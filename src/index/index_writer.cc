// IndexWriter: entries -> bucketed, sorted fragments + manifest.
#include "rap/index/index_writer.h"

#include <atomic>
#include <algorithm>
#include <chrono>
#include <random>

#include "index/file_indexer.h"
#include "rap/util/thread_pool.h"

namespace rap::index {

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
  w->options_ = std::move(options);
  w->buckets_.resize(static_cast<size_t>(w->manifest_.buckets));
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

Status IndexWriter::AddEntry(IndexEntry e) {
  if (e.key.parts.size() != options_.key.size()) return Status::InvalidArgument("an entry's key has the wrong arity");
  if (e.file < 0 || static_cast<size_t>(e.file) >= manifest_.files.size()) {
    return Status::InvalidArgument("an entry names file ordinal " + std::to_string(e.file) + ", not in the file table");
  }
  if (e.num_rows <= 0 || e.first_row < 0) return Status::InvalidArgument("an entry needs first_row >= 0 and num_rows > 0");
  if (e.hoisted.size() != options_.hoist.size()) return Status::InvalidArgument("an entry lacks hoisted values");
  const int32_t b = choose_boundaries_ ? 0 : manifest_.BucketOfKey(e.key);
  std::vector<IndexEntry>* bucket = &buckets_[static_cast<size_t>(b)];
  const int64_t heap = EntryHeapBytes(e);
  // A full vector grows to twice its slots while still holding the old ones.
  auto growth = [&] {
    return bucket->size() < bucket->capacity()
               ? int64_t{0}
               : static_cast<int64_t>(std::max<size_t>(1, 2 * bucket->capacity()) * sizeof(IndexEntry));
  };
  if (options_.memory_budget > 0 && !choose_boundaries_ && buffered_bytes_ > 0 &&
      buffered_bytes_ + heap + growth() > options_.memory_budget) {
    RAP_RETURN_NOT_OK(WriteBuckets("-s" + std::to_string(spills_)));
    ++spills_;
  }
  const size_t cap = bucket->capacity();
  peak_bytes_ = std::max(peak_bytes_, buffered_bytes_ + heap + growth());
  bucket->push_back(std::move(e));
  buffered_bytes_ += heap + static_cast<int64_t>((bucket->capacity() - cap) * sizeof(IndexEntry));
  peak_bytes_ = std::max(peak_bytes_, buffered_bytes_);
  ++num_entries_;
  return Status::OK();
}

int64_t IndexWriter::EntryHeapBytes(const IndexEntry& e) {
  auto str = [](const std::string& s) { return s.capacity() > 15 ? static_cast<int64_t>(s.capacity() + 1) : 0; };
  int64_t b = static_cast<int64_t>(e.key.parts.capacity() * sizeof(KeyPart));
  for (const KeyPart& p : e.key.parts) b += str(p.s);
  b += static_cast<int64_t>(e.cover.capacity() * sizeof(Location));
  for (const Location& l : e.cover) b += str(l.aux);
  b += static_cast<int64_t>(e.hoisted.capacity() * sizeof(ArrayPtr));
  // A hoisted slice: its array header, and its share of the values it keeps alive (8 bytes a value
  // as an estimate; strings may take more).
  for (const ArrayPtr& h : e.hoisted) b += static_cast<int64_t>(sizeof(ArrayData)) + 8 * (h ? h->length : 0);
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
  std::vector<IndexEntry> all = std::move(buckets_[0]);
  const std::vector<KeyColumn>& kc = options_.key;
  // A sample of the keys at an even stride over the entries (at most kSample of them).
  constexpr size_t kSample = 1 << 16;
  const size_t stride = std::max<size_t>(1, all.size() / kSample);
  std::vector<const Key*> sample;
  for (size_t i = 0; i < all.size(); i += stride) sample.push_back(&all[i].key);
  std::sort(sample.begin(), sample.end(), [&](const Key* a, const Key* b) { return CompareKeys(kc, *a, *b) < 0; });
  std::vector<Key> bounds;
  const size_t parts = static_cast<size_t>(std::max(1, options_.buckets));
  for (size_t p = 1; p < parts && !sample.empty(); ++p) {
    const Key& k = *sample[p * sample.size() / parts];
    // Strictly increasing, and above the smallest key (partition 0 is never empty by choice).
    if (CompareKeys(kc, k, *sample.front()) <= 0) continue;
    if (!bounds.empty() && CompareKeys(kc, bounds.back(), k) >= 0) continue;
    bounds.push_back(k);
  }
  manifest_.boundaries = std::move(bounds);
  manifest_.buckets = static_cast<int32_t>(manifest_.boundaries.size() + 1);
  buckets_.assign(static_cast<size_t>(manifest_.buckets), {});
  for (IndexEntry& e : all) buckets_[static_cast<size_t>(manifest_.BucketOfKey(e.key))].push_back(std::move(e));
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
    if (buckets_[b].empty()) continue;
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
      if (buckets_[b].empty()) continue;
      pool.Submit([&, b] {
        SortEntries(options_.key, &buckets_[b]);
        written[b] = WriteFragment(*store_, dir_, fragment_names[b], options_.key, !options_.cover.empty(), options_.hoist,
                                   static_cast<int32_t>(b), run, buckets_[b], options_.fragment);
        buckets_[b].clear();
        buckets_[b].shrink_to_fit();
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
