// CompactIndex, VacuumIndex, InspectIndex.
#include "rap/index/maintenance.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <set>

#include <fmt/format.h>

#include "rap/index/build.h"
#include "rap/index/latest_bundle.h"
#include "rap/read/merge_reader.h"
#include "rap/util/thread_pool.h"

namespace rap::index {

namespace {

struct Opened {
  io::ObjectStorePtr store;
  std::string dir;
  Manifest manifest;
};

Result<Opened> OpenLatest(const std::string& index_url, int64_t version = -1) {
  Opened o;
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(index_url));
  o.store = r.store;
  o.dir = r.path;
  if (version < 0) {
    RAP_ASSIGN_OR_RETURN(version, FindLatestVersion(*o.store, o.dir));
  }
  RAP_ASSIGN_OR_RETURN(o.manifest, ReadManifest(*o.store, o.dir, version));
  return o;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The entries of `frags` (sorted runs, in run order) merged in (key, file, first_row) order,
// without those of removed files; the hoisted fields from the merged schema.
// Publishes `next` as the version after `base_version`, written by run `run`, into *out. A compaction
// that lost the race (Changed) deletes the fragments it wrote (`written`): they are nobody's.
Status PublishCompacted(const Opened& o, int64_t base_version, int64_t run, Manifest next,
                        const std::vector<std::string>& written, CompactResult* out) {
  next.version = base_version + 1;
  next.next_run = run + 1;
  next.created_ms = NowMs();
  if (Status st = PublishManifest(*o.store, o.dir, next); !st.ok()) {
    if (st.code() == StatusCode::kChanged) {
      for (const std::string& path : written) (void)o.store->Delete(io::JoinPath(o.dir, path));
    }
    return st;
  }
  out->manifest = std::move(next);
  out->changed = true;
  out->fragments_after = static_cast<int64_t>(out->manifest.fragments.size());
  return Status::OK();
}

Status MergeEntries(const Opened& o, const std::vector<const FragmentEntry*>& frags, int32_t bucket,
                    std::vector<IndexEntry>* entries, std::vector<Field>* hoisted, int64_t* kept, int64_t* dropped) {
  const Manifest& m = o.manifest;
  std::vector<read::MergeRun> runs;
  for (const FragmentEntry* f : frags) {
    read::ScanFile sf;
    sf.path = io::JoinPath(o.dir, f->path);
    sf.size = f->size;
    runs.push_back({{sf}});
  }
  read::MergeOptions mo;
  for (size_t k = 0; k < m.key.size(); ++k) mo.key_columns.push_back(KeyColumnName(k));
  RAP_ASSIGN_OR_RETURN(auto merge, read::MergeReader::Make(o.store, std::move(runs), mo));
  const std::string what = "bucket " + std::to_string(bucket) + " merge";
  RAP_ASSIGN_OR_RETURN(FragmentLayout layout, FragmentLayout::Of(*merge->schema(), m, what));
  hoisted->clear();
  for (size_t h = 0; h < m.hoist.size(); ++h) {
    const Field& lf = merge->schema()->fields[static_cast<size_t>(layout.hoist[h])];
    hoisted->push_back({m.hoist[h], lf.type->children[0].type, true});
  }
  const size_t first = entries->size();
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto batch, merge->Next());
    if (!batch) break;
    for (int64_t r = 0; r < batch->num_rows; ++r) {
      IndexEntry e;
      RAP_RETURN_NOT_OK(EntryAt(*batch, layout, m.key, r, true, &e, what));
      if (e.file < 0 || static_cast<size_t>(e.file) >= m.files.size()) {
        return Status::Corrupt("index " + o.dir + ": an entry of bucket " + std::to_string(bucket) +
                               " names file ordinal " + std::to_string(e.file) + ", not in the file table");
      }
      if (m.files[static_cast<size_t>(e.file)].removed) {
        ++*dropped;
        continue;
      }
      ++*kept;
      entries->push_back(std::move(e));
    }
  }
  // The merge orders by key with ties in run order; runs hold increasing file ordinals, but keep
  // (key, file, first_row) exact whatever the history.
  std::vector<IndexEntry> mine(std::make_move_iterator(entries->begin() + static_cast<std::ptrdiff_t>(first)),
                               std::make_move_iterator(entries->end()));
  entries->resize(first);
  SortEntries(m.key, &mine);
  for (IndexEntry& e : mine) entries->push_back(std::move(e));
  return Status::OK();
}

Result<FragmentEntry> WriteMerged(const Opened& o, const std::vector<IndexEntry>& entries,
                                  const std::vector<Field>& hoisted, int32_t bucket, int64_t run,
                                  const std::string& token, const FragmentWriteOptions& fo) {
  const Manifest& m = o.manifest;
  char name[96];
  std::snprintf(name, sizeof(name), "fragments/r%06lld-%s-b%05d.parquet", static_cast<long long>(run), token.c_str(),
                bucket);
  RAP_ASSIGN_OR_RETURN(FragmentEntry fe, WriteFragment(*o.store, o.dir, name, m.key, !m.cover.empty(), hoisted, bucket,
                                                       run, entries, fo));
  auto info = o.store->Head(io::JoinPath(o.dir, fe.path));
  if (info.ok()) fe.etag = info->etag;
  return fe;
}

// Merges `frags` (sorted runs, in run order) into one fragment, dropping entries of removed files.
Result<FragmentEntry> MergeBucket(const Opened& o, const std::vector<const FragmentEntry*>& frags, int32_t bucket,
                                  int64_t run, const std::string& token, const FragmentWriteOptions& fo,
                                  int64_t* kept, int64_t* dropped) {
  std::vector<IndexEntry> entries;
  std::vector<Field> hoisted;
  RAP_RETURN_NOT_OK(MergeEntries(o, frags, bucket, &entries, &hoisted, kept, dropped));
  return WriteMerged(o, entries, hoisted, bucket, run, token, fo);
}

// Sorted kind, --rebalance: every partition merged (in partition order the entries are in key
// order), new boundaries at even entry counts, every partition written anew.
Result<CompactResult> Rebalance(const Opened& o, const CompactOptions& options) {
  const Manifest& m = o.manifest;
  CompactResult out;
  out.fragments_before = static_cast<int64_t>(m.fragments.size());
  std::vector<std::vector<const FragmentEntry*>> by_bucket(static_cast<size_t>(m.buckets));
  for (const FragmentEntry& f : m.fragments) by_bucket[static_cast<size_t>(f.bucket)].push_back(&f);
  std::vector<IndexEntry> all;
  std::vector<Field> hoisted;
  for (size_t b = 0; b < by_bucket.size(); ++b) {
    auto& fs = by_bucket[b];
    if (fs.empty()) continue;
    std::stable_sort(fs.begin(), fs.end(), [](const FragmentEntry* a, const FragmentEntry* c) { return a->run < c->run; });
    RAP_RETURN_NOT_OK(MergeEntries(o, fs, static_cast<int32_t>(b), &all, &hoisted, &out.entries_kept,
                                   &out.entries_dropped));
  }
  const size_t parts = static_cast<size_t>(options.partitions > 0 ? options.partitions : m.buckets);
  std::vector<Key> bounds;
  for (size_t p = 1; p < parts && !all.empty(); ++p) {
    const Key& k = all[p * all.size() / parts].key;
    if (CompareKeys(m.key, k, all.front().key) <= 0) continue;
    if (!bounds.empty() && CompareKeys(m.key, bounds.back(), k) >= 0) continue;
    bounds.push_back(k);
  }
  Manifest next = m;
  next.boundaries = std::move(bounds);
  next.buckets = static_cast<int32_t>(next.boundaries.size() + 1);
  // Split the sorted entries at the new boundaries.
  std::vector<std::vector<IndexEntry>> split(static_cast<size_t>(next.buckets));
  for (IndexEntry& e : all) split[static_cast<size_t>(next.BucketOfKey(e.key))].push_back(std::move(e));
  all.clear();
  const int64_t run = m.next_run;
  std::random_device rd;
  const std::string token = fmt::format("{:08x}", static_cast<unsigned>(rd()));
  std::vector<std::optional<Result<FragmentEntry>>> written(split.size());
  {
    ThreadPool pool(static_cast<size_t>(std::max(1, options.threads)));
    for (size_t b = 0; b < split.size(); ++b) {
      if (split[b].empty()) continue;
      pool.Submit([&, b] {
        written[b] = WriteMerged(o, split[b], hoisted, static_cast<int32_t>(b), run, token, options.fragment);
      });
    }
  }
  next.fragments.clear();
  for (auto& w : written) {
    if (!w) continue;
    if (!w->ok()) return w->status();
    next.fragments.push_back(std::move(**w));
  }
  std::vector<std::string> written_paths;
  for (const FragmentEntry& f : next.fragments) written_paths.push_back(f.path);
  RAP_RETURN_NOT_OK(PublishCompacted(o, m.version, run, std::move(next), written_paths, &out));
  return out;
}

}  // namespace

namespace {
Result<CompactResult> CompactOnce(const std::string& index_url, const CompactOptions& options);
}  // namespace

Result<CompactResult> CompactIndex(const std::string& index_url, const CompactOptions& options) {
  // Of concurrent writers one takes the next version; a compaction that lost (Changed) starts
  // again from the new latest version, a bounded number of times.
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    Result<CompactResult> r = CompactOnce(index_url, options);
    if (r.ok() || r.status().code() != StatusCode::kChanged || attempt == kAttempts) return r;
  }
}

namespace {

Result<CompactResult> CompactOnce(const std::string& index_url, const CompactOptions& options) {
  RAP_ASSIGN_OR_RETURN(Opened o, OpenLatest(index_url));
  const Manifest& m = o.manifest;
  if (options.rebalance || options.partitions > 0) {
    if (m.kind != IndexKind::kSorted) {
      return Status::InvalidArgument("index " + index_url + ": --rebalance/--buckets re-partition a sorted index; this "
                                     "one is " + IndexKindName(m.kind) + " (rebuild it to change its buckets)");
    }
    return Rebalance(o, options);
  }
  CompactResult out;
  out.fragments_before = static_cast<int64_t>(m.fragments.size());
  std::vector<std::vector<const FragmentEntry*>> by_bucket(static_cast<size_t>(m.buckets));
  for (const FragmentEntry& f : m.fragments) by_bucket[static_cast<size_t>(f.bucket)].push_back(&f);
  auto covers_removed = [&](const FragmentEntry& f) {
    for (const OrdinalRange& r : f.files) {
      for (int32_t i = r.begin; i < r.end; ++i) {
        if (i >= 0 && static_cast<size_t>(i) < m.files.size() && m.files[static_cast<size_t>(i)].removed) return true;
      }
    }
    return false;
  };
  std::vector<int32_t> todo;
  for (size_t b = 0; b < by_bucket.size(); ++b) {
    auto& fs = by_bucket[b];
    std::stable_sort(fs.begin(), fs.end(), [](const FragmentEntry* a, const FragmentEntry* c) { return a->run < c->run; });
    bool removed = false;
    for (const FragmentEntry* f : fs) removed = removed || covers_removed(*f);
    if (static_cast<int>(fs.size()) >= options.min_fragments || removed) todo.push_back(static_cast<int32_t>(b));
  }
  if (todo.empty()) {
    out.manifest = m;
    out.fragments_after = out.fragments_before;
    return out;
  }
  const int64_t run = m.next_run;
  std::random_device rd;
  const std::string token = fmt::format("{:08x}", static_cast<unsigned>(rd()));
  std::vector<std::optional<Result<FragmentEntry>>> merged(todo.size());
  std::vector<int64_t> kept(todo.size(), 0), dropped(todo.size(), 0);
  {
    ThreadPool pool(static_cast<size_t>(std::max(1, options.threads)));
    for (size_t j = 0; j < todo.size(); ++j) {
      pool.Submit([&, j] {
        merged[j] = MergeBucket(o, by_bucket[static_cast<size_t>(todo[j])], todo[j], run, token, options.fragment,
                                &kept[j], &dropped[j]);
      });
    }
  }
  Manifest next = m;
  std::set<int32_t> done(todo.begin(), todo.end());
  next.fragments.clear();
  for (const FragmentEntry& f : m.fragments) {
    if (!done.count(f.bucket)) next.fragments.push_back(f);
  }
  for (size_t j = 0; j < todo.size(); ++j) {
    if (!merged[j]->ok()) return merged[j]->status();
    out.entries_kept += kept[j];
    out.entries_dropped += dropped[j];
    if ((**merged[j]).entries > 0) next.fragments.push_back(std::move(**merged[j]));
  }
  std::vector<std::string> written;
  for (size_t j = 0; j < todo.size(); ++j) written.push_back((**merged[j]).path);
  RAP_RETURN_NOT_OK(PublishCompacted(o, m.version, run, std::move(next), written, &out));
  return out;
}

}  // namespace

Result<int64_t> ParseDuration(const std::string& text) {
  if (text.empty()) return Status::InvalidArgument("empty duration");
  size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &pos);
  } catch (...) {
    return Status::InvalidArgument("duration '" + text + "' is not a number with a unit (s, m, h, d)");
  }
  const std::string unit = text.substr(pos);
  int64_t mult = 0;
  if (unit.empty() || unit == "s") mult = 1;
  else if (unit == "m") mult = 60;
  else if (unit == "h") mult = 3600;
  else if (unit == "d") mult = 86400;
  if (mult == 0 || v < 0) return Status::InvalidArgument("duration '" + text + "': expected e.g. 0s, 30m, 168h, 7d");
  return static_cast<int64_t>(v) * mult;
}

Result<VacuumResult> VacuumIndex(const std::string& index_url, const VacuumOptions& options) {
  // The retention rule (docs/reliability.md, "Retention"):
  // - a manifest version is kept while it is the latest or was superseded (the next version was
  //   created) less than `retain` ago, and so is every file a kept manifest references;
  // - a file no kept manifest references (a fragment or schema file, or a temporary of an
  //   interrupted write) is deleted only when it is older than `retain` and was written before the
  //   latest manifest was created: a writer stages its files after reading the version it builds
  //   on, so files older than the latest manifest belong to no writer that can still publish them.
  //   Slack for the clocks: 50 ms for local files (the kernel stamps files with a coarse clock),
  //   2 s for remote stores (whole-second modification times, another machine's clock). Before
  //   the first manifest exists nothing is deleted (a first build may be in progress).
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(index_url));
  auto found = FindLatestVersion(*r.store, r.path);
  if (!found.ok() && found.status().code() != StatusCode::kNotFound) return found.status();
  const int64_t latest = found.ok() ? *found : 0;
  RAP_ASSIGN_OR_RETURN(auto listing, r.store->List(r.path));
  const int64_t cutoff_ms = NowMs() - options.retain_seconds * 1000;
  std::set<std::string> referenced;
  VacuumResult out;
  if (latest == 0) return out;
  std::vector<std::string> delete_manifests;
  int64_t superseded_ms = -1;  // when the version above the one at hand was created (-1: it is the latest)
  int64_t latest_created_ms = 0;
  std::optional<Manifest> latest_manifest;
  for (int64_t v = latest; v >= 1; --v) {
    const std::string mp = ManifestPath(r.path, v);
    auto man = ReadManifest(*r.store, r.path, v);
    if (!man.ok()) {
      if (man.status().code() == StatusCode::kNotFound) continue;  // vacuumed earlier
      return man.status();
    }
    if (v == latest) {
      latest_created_ms = man->created_ms;
      latest_manifest = *man;
    }
    const bool keep = superseded_ms < 0 || superseded_ms >= cutoff_ms;
    superseded_ms = man->created_ms;
    if (!keep) {
      delete_manifests.push_back(mp);
      continue;
    }
    ++out.manifests_kept;
    for (const FragmentEntry& f : man->fragments) referenced.insert(io::JoinPath(r.path, f.path));
    for (const std::string& s : man->schemas) referenced.insert(io::JoinPath(r.path, s));
  }
  auto remove = [&](const std::string& path, uint64_t size) -> Status {
    out.deleted.push_back(path);
    out.bytes += size;
    if (options.dry_run) return Status::OK();
    Status st = r.store->Delete(path);
    if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
    return Status::OK();
  };
  const int64_t slack_ms = r.store->is_remote() ? 2000 : 50;
  const std::string frag_prefix = io::JoinPath(r.path, "fragments/");
  const std::string schema_prefix = io::JoinPath(r.path, "schemas/");
  const std::string manifest_prefix = io::JoinPath(r.path, "_manifest/");
  for (const io::ObjectInfo& info : listing) {
    const bool data = info.path.rfind(frag_prefix, 0) == 0 || info.path.rfind(schema_prefix, 0) == 0;
    const bool manifest_temp =
        info.path.rfind(manifest_prefix, 0) == 0 && info.path.find(".tmp-", manifest_prefix.size()) != std::string::npos;
    if ((!data && !manifest_temp) || referenced.count(info.path)) continue;
    if (info.mtime_ms >= cutoff_ms || info.mtime_ms + slack_ms >= latest_created_ms) continue;  // maybe a writer's
    RAP_RETURN_NOT_OK(remove(info.path, info.size));
  }
  if (!delete_manifests.empty() && !options.dry_run) {
    // The version hint names the latest before older manifests go (a writer killed between its
    // manifest and its hint leaves the hint naming a version this vacuum deletes).
    RAP_RETURN_NOT_OK(r.store->Put(LastVersionHintPath(r.path),
                                   Buffer::FromString("{\"version\":" + std::to_string(latest) + "}")));
    // And so does the latest bundle (a stale one may name fragments of versions deleted below).
    if (latest_manifest) RAP_RETURN_NOT_OK(WriteLatestBundle(*r.store, r.path, *latest_manifest));
  }
  for (const std::string& mp : delete_manifests) {
    uint64_t size = 0;
    for (const io::ObjectInfo& info : listing) {
      if (info.path == mp) size = info.size;
    }
    RAP_RETURN_NOT_OK(remove(mp, size));
  }
  return out;
}

Result<std::string> InspectIndex(const std::string& index_url, int64_t version, bool json) {
  RAP_ASSIGN_OR_RETURN(Opened o, OpenLatest(index_url, version));
  const Manifest& m = o.manifest;
  if (json) return ManifestToJson(m) + "\n";
  std::string s;
  s += fmt::format("index      {}\n", index_url);
  s += fmt::format("version    {} (created {} ms since the epoch)\n", m.version, m.created_ms);
  s += fmt::format("table      {} ({}{})\n", ResolveUrl(index_url, m.table_root), m.table_kind,
                   m.table_version >= 0 ? fmt::format(" {} {}", m.table_kind == "iceberg" ? "snapshot" : "version",
                                                      m.table_version)
                                        : "");
  // Column mapping: logical names, with the in-file name they are stored under.
  auto shown = [&](const std::string& physical) {
    auto it = m.logical_names.find(physical);
    return it == m.logical_names.end() ? physical : it->second + " (stored as " + physical + ")";
  };
  std::string key;
  for (const KeyColumn& k : m.key) key += (key.empty() ? "" : ", ") + shown(k.name) + " " + KeyTypeName(k.type);
  s += fmt::format("key        {}\n", key);
  s += fmt::format("kind       {}\n", IndexKindName(m.kind));
  s += fmt::format("buckets    {} ({})\n", m.buckets, m.bucket_function);
  if (m.kind == IndexKind::kSorted) {
    std::string bounds;
    for (const Key& b : m.boundaries) bounds += (bounds.empty() ? "" : " | ") + FormatKey(m.key, b);
    s += fmt::format("boundaries {}\n", bounds.empty() ? std::string("-") : bounds);
  }
  auto join = [&](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& x : v) out += (out.empty() ? "" : ", ") + shown(x);
    return out.empty() ? std::string("-") : out;
  };
  s += fmt::format("cover      {}\n", join(m.cover));
  s += fmt::format("hoist      {}\n", join(m.hoist));
  int64_t live = 0, removed = 0, rows = 0;
  for (const FileEntry& f : m.files) {
    if (f.removed) ++removed; else { ++live; rows += f.num_rows; }
  }
  s += fmt::format("files      {} live ({} rows), {} removed\n", live, rows, removed);
  int64_t entries = 0, ref_rows = 0;
  uint64_t bytes = 0;
  std::vector<int64_t> per_bucket(static_cast<size_t>(m.buckets), 0);
  for (const FragmentEntry& f : m.fragments) {
    entries += f.entries;
    ref_rows += f.rows;
    bytes += f.size;
    per_bucket[static_cast<size_t>(f.bucket)]++;
  }
  s += fmt::format("fragments  {} ({} bytes, {} entries, {} rows referenced, {:.1f} bytes/entry, {:.2f} rows/entry)\n",
                   m.fragments.size(), bytes, entries, ref_rows, entries ? static_cast<double>(bytes) / entries : 0.0,
                   entries ? static_cast<double>(ref_rows) / entries : 0.0);
  int64_t max_per_bucket = 0;
  for (int64_t n : per_bucket) max_per_bucket = std::max(max_per_bucket, n);
  s += fmt::format("           at most {} fragment(s) per bucket\n", max_per_bucket);
  for (const FragmentEntry& f : m.fragments) {
    std::string files;
    for (const OrdinalRange& r : f.files) files += fmt::format("{}[{},{})", files.empty() ? "" : " ", r.begin, r.end);
    s += fmt::format("  {}  bucket {} run {}: {} entries, {} rows, {} bytes, keys [{} .. {}], files {}\n", f.path,
                     f.bucket, f.run, f.entries, f.rows, f.size, f.entries ? FormatKey(m.key, f.min_key) : "",
                     f.entries ? FormatKey(m.key, f.max_key) : "", files);
  }
  return s;
}

Result<std::vector<IndexListing>> ListIndexes(const std::string& table_url) {
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(table_url));
  const std::string root = io::JoinPath(r.path, "_rap_index/");
  auto listing = r.store->List(root);
  if (!listing.ok()) {
    if (listing.status().code() == StatusCode::kNotFound) return std::vector<IndexListing>{};
    return listing.status().WithContext(table_url + ": listing the indexes under _rap_index/");
  }
  // <root><name>/_manifest/<version>.json names an index.
  std::set<std::string> names;
  for (const io::ObjectInfo& info : *listing) {
    if (info.path.rfind(root, 0) != 0) continue;
    const std::string rest = info.path.substr(root.size());
    const size_t slash = rest.find('/');
    if (slash == std::string::npos || rest.compare(slash, 11, "/_manifest/") != 0) continue;
    names.insert(rest.substr(0, slash));
  }
  std::vector<IndexListing> out;
  for (const std::string& name : names) {
    const std::string dir = io::JoinPath(r.path, "_rap_index/" + name);
    auto latest = FindLatestVersion(*r.store, dir);
    if (!latest.ok()) continue;  // a folder without a published manifest (a build in progress)
    RAP_ASSIGN_OR_RETURN(Manifest m, ReadManifest(*r.store, dir, *latest));
    IndexListing l;
    l.name = name;
    l.url = DefaultIndexUrl(table_url, name);
    l.kind = m.kind;
    l.key = m.key;
    l.version = m.version;
    l.table_version = m.table_version;
    l.buckets = m.buckets;
    for (const FragmentEntry& f : m.fragments) l.entries += f.entries;
    l.cover = m.cover;
    l.hoist = m.hoist;
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace rap::index
