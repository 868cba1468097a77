// BuildIndex / UpdateIndex: table snapshot -> indexed files -> IndexWriter.
#include "rap/index/build.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <condition_variable>
#include <mutex>

#include "index/file_indexer.h"
#include "rap/table/delta_commit.h"
#include "rap/table/paimon.h"
#include "rap/table/table.h"
#include "rap/table/table_format.h"
#include "rap/util/clock.h"
#include "rap/util/thread_pool.h"

namespace rap::index {

std::string DefaultIndexUrl(const std::string& table_url, const std::string& name) {
  std::string t = table_url;
  while (t.size() > 1 && t.back() == '/') t.pop_back();
  return t + "/_rap_index/" + name;
}

namespace {

// Column mapping (Delta name or id mode): physical -> logical name of the top-level columns whose
// names differ (Manifest::logical_names). Empty without mapping.
std::map<std::string, std::string> LogicalNames(const table::TableSnapshot& snap) {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < snap.physical_names.size() && snap.schema && i < snap.schema->fields.size(); ++i) {
    if (snap.physical_names[i] != snap.schema->fields[i].name) {
      out.emplace(snap.physical_names[i], snap.schema->fields[i].name);
    }
  }
  return out;
}

// Column names as users give them (logical) as the data files name them; a name that is no column
// of the table stays as it is (the indexer reports it).
std::vector<std::string> PhysicalNames(const std::vector<std::string>& names, const table::TableSnapshot& snap) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    const int i = snap.schema ? snap.schema->FieldIndex(n) : -1;
    out.push_back(i >= 0 && static_cast<size_t>(i) < snap.physical_names.size() ? snap.physical_names[static_cast<size_t>(i)]
                                                                                  : n);
  }
  return out;
}

// Distributed builds (rap.spark) take the single-process path's names only without column mapping.
Status CheckNoColumnMapping(const table::TableSnapshot& snap) {
  const auto names = LogicalNames(snap);
  if (names.empty()) return Status::OK();
  return Status::NotSupported(snap.root + ": Delta column mapping is on (column '" + names.begin()->second +
                              "' is stored as '" + names.begin()->first +
                              "'); distributed index builds and updates (rap.spark) do not support it yet — "
                              "rap index build / update (and rap.build_index) do");
}

// The table's logical schema for the schema files (FileIndexSpec::table_schema): a Delta table's,
// as a schemaString; empty for folders of files (their files' types are the scan's) and for a schema
// the schemaString cannot express.
std::string TableSchemaJson(const table::TableSnapshot& snap) {
  if (!snap.schema || table::FormatName(snap) != "delta") return {};
  bool ntz = false;
  Result<std::string> s = table::DeltaSchemaString(*snap.schema, &ntz);
  return s.ok() ? *s : std::string();
}

// Indexes `files` (with their ordinals) on `threads` threads, in ordinal order into `writer`.
Status IndexFiles(const table::TableSnapshot& snap, const std::vector<std::pair<const table::DataFile*, int32_t>>& files,
                  const internal::FileIndexSpec& spec, int threads,
                  const std::function<void(int64_t, int64_t)>& progress,
                  const std::function<Status(internal::IndexedFile&&)>& sink, const io::CancellationToken* cancel) {
  std::vector<std::optional<Result<internal::IndexedFile>>> results(files.size());
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<bool> failed{false};
  {
    ThreadPool pool(static_cast<size_t>(std::max(1, threads)));
    for (size_t i = 0; i < files.size(); ++i) {
      pool.Submit([&, i] {
        if (cancel && cancel->cancelled()) failed.store(true);
        Result<internal::IndexedFile> r = failed.load() ? Result<internal::IndexedFile>(Status::Cancelled("index build: cancelled"))
                                                        : internal::IndexDataFile(snap.store, *files[i].first,
                                                                                  files[i].second, spec);
        if (!r.ok()) failed.store(true);
        std::lock_guard<std::mutex> lock(mu);
        results[i] = std::move(r);
        cv.notify_all();
      });
    }
    // Hand results over in order as they complete, so memory holds only the out-of-order ones.
    for (size_t i = 0; i < files.size(); ++i) {
      std::optional<Result<internal::IndexedFile>> r;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return results[i].has_value(); });
        r = std::move(results[i]);
        results[i].reset();
      }
      if (!r->ok()) {
        failed.store(true);
        // The pool's destructor finishes the queued tasks (they stop early).
        return r->status();
      }
      RAP_RETURN_NOT_OK(sink(std::move(**r)));
      if (progress) progress(static_cast<int64_t>(i + 1), static_cast<int64_t>(files.size()));
    }
  }
  return Status::OK();
}

std::string TableRootFor(const std::string& table_url, const std::string& index_url, const std::string& name) {
  if (index_url == DefaultIndexUrl(table_url, name)) return "../..";
  if (table_url.find("://") == std::string::npos) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(table_url, ec);
    if (!ec) return abs.lexically_normal().string();
  }
  return table_url;
}

Status CheckKeyTypes(std::vector<KeyColumn>* key, const internal::IndexedFile& f) {
  if (key->empty()) {
    *key = f.key;
    return Status::OK();
  }
  for (size_t i = 0; i < key->size(); ++i) {
    if ((*key)[i].type != f.key[i].type) {
      return Status::InvalidArgument(f.file.path + ": key column '" + f.key[i].name + "' is " +
                                     KeyTypeName(f.key[i].type) + " here but " + KeyTypeName((*key)[i].type) +
                                     " in the index");
    }
  }
  return Status::OK();
}

// Adds an indexed data file and its entries to `writer` (files come in ordinal order); counts its
// key rows into *key_rows when given.
Status AddIndexedFile(IndexWriter& writer, const internal::IndexedFile& f, int64_t* key_rows) {
  const int32_t ord = writer.AddFile(f.file, f.schema_file);
  if (ord != f.file.ordinal) return Status::Internal("file ordinals out of order");
  if (key_rows) *key_rows += f.key_rows;
  IndexEntry e;
  for (size_t i = 0; i < f.num_entries(); ++i) {
    f.EntryAt(i, &e);
    RAP_RETURN_NOT_OK(writer.AddEntry(e));
  }
  return Status::OK();
}

// A table format that keeps deletes in files of its own (Iceberg position and equality delete files
// and deletion vectors: DataFile::format_deletes) has each data file's deleted rows at the snapshot
// recorded as an inline deletion vector (docs/index-format.md, "Manifests"), which lookups hide as
// they hide a Delta one, and which an update compares like one (a changed set is a new vector).
Status RecordFormatDeletes(table::TableSnapshot* snap, int threads) {
  std::vector<table::DataFile*> with;
  for (table::DataFile& f : snap->files) {
    if (f.format_deletes) with.push_back(&f);
  }
  if (with.empty()) return Status::OK();
  std::vector<Status> errors(with.size());
  {
    ThreadPool pool(static_cast<size_t>(std::max(1, threads)));
    for (size_t i = 0; i < with.size(); ++i) {
      pool.Submit([&, i] {
        auto rows = table::DeletedRows(*snap, *with[i]);
        if (!rows.ok()) {
          errors[i] = rows.status();
          return;
        }
        if (!rows->empty()) with[i]->deletion_vector = table::InlineDeletionVector(*rows);
      });
    }
  }
  for (const Status& st : errors) RAP_RETURN_NOT_OK(st);
  return Status::OK();
}

// A Paimon table's primary-key rows live merged across sorted runs: the distributed build records
// no merge (RecordFormatDeletes), so an index of its files would return superseded versions.
Status CheckNotPaimon(const table::TableSnapshot& snap, const std::string& table_url) {
  if (table::FormatName(snap) != "paimon") return Status::OK();
  return Status::NotSupported(table_url + ": a distributed index build does not index Paimon tables yet (it would "
                                          "miss the merge of their sorted runs); rap index build does (docs/paimon.md)");
}

// The table at the snapshot IndexTableOptions names, its paths through its location map.
Result<table::TableSnapshot> OpenIndexedTable(const std::string& table_url, const IndexTableOptions& options) {
  table::OpenTableOptions to;
  to.snapshot_id = options.snapshot_id;
  to.as_of_ms = options.as_of_ms;
  to.location_map = options.location_map;
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(table_url, to));
  // The index names data files relative to the table root (docs/index-format.md), so a file that a
  // location map (or the metadata) puts outside the root cannot be named: refused here rather than
  // built into an index whose lookups would not find it.
  for (const table::DataFile& f : snap.files) {
    if (table::FormatName(snap) == "iceberg" && io::JoinPath(snap.root, f.relative_path) != f.path) {
      return Status::NotSupported(table_url + ": data file " + f.path + " lies outside the table root " + snap.root +
                                  "; an index names files relative to the table root, so map the data under the "
                                  "table folder (--location-map OLD=NEW with NEW inside it) to index this table");
    }
  }
  return snap;
}

// The distributed build (PlanBuild/BuildPart) records no Iceberg delete files yet.
Status CheckPlannable(const table::TableSnapshot& snap, const std::string& table_url) {
  RAP_RETURN_NOT_OK(CheckNotPaimon(snap, table_url));
  if (table::FormatName(snap) != "iceberg") return Status::OK();
  return Status::NotSupported(table_url + ": a distributed index build does not index Iceberg tables yet (it would "
                                          "miss their delete files); rap index build does (docs/iceberg.md)");
}

// What changed between an index version and a table snapshot: files that left the table (or were
// rewritten under the same name: another size), files whose deletion vector changed (a Delta DV
// update is a remove + add of the same path), and files to index (new or rewritten), in table order.
struct IndexDiff {
  std::vector<int32_t> removed;
  std::vector<std::pair<int32_t, std::optional<table::DeletionVectorDescriptor>>> dv_changes;
  std::vector<const table::DataFile*> added;
};

IndexDiff DiffIndex(const Manifest& base, const table::TableSnapshot& snap) {
  IndexDiff d;
  std::map<std::string, int32_t> live;
  for (const FileEntry& f : base.files) {
    if (!f.removed) live[f.path] = f.ordinal;
  }
  std::map<std::string, const table::DataFile*> current;
  for (const table::DataFile& f : snap.files) current[f.relative_path] = &f;
  for (const auto& [path, ord] : live) {
    auto it = current.find(path);
    if (it == current.end()) {
      d.removed.push_back(ord);
      continue;
    }
    const FileEntry& fe = base.files[static_cast<size_t>(ord)];
    const table::DataFile& df = *it->second;
    if (df.size != fe.size) {
      d.removed.push_back(ord);  // rewritten under the same name: index it again
      continue;
    }
    const std::string old_dv = fe.deletion_vector ? fe.deletion_vector->UniqueId() : "";
    const std::string new_dv = df.deletion_vector ? df.deletion_vector->UniqueId() : "";
    if (old_dv != new_dv) d.dv_changes.push_back({ord, df.deletion_vector});
  }
  std::set<std::string> removed_paths;
  for (int32_t o : d.removed) removed_paths.insert(base.files[static_cast<size_t>(o)].path);
  for (const table::DataFile& f : snap.files) {
    if (!live.count(f.relative_path) || removed_paths.count(f.relative_path)) d.added.push_back(&f);
  }
  return d;
}

// Whether an update records the new files' ETags: only when they come from the store the base's
// came from (or the base has none), so every recorded ETag is comparable through one store.
bool KeepEtags(const Manifest& base, const std::string& endpoint) {
  bool base_has_etags = false;
  for (const FileEntry& f : base.files) base_has_etags = base_has_etags || (!f.removed && !f.etag.empty());
  return base.etag_source == endpoint || (base.etag_source.empty() && !base_has_etags);
}

}  // namespace

Result<BuildResult> BuildIndex(const std::string& table_url, const BuildOptions& options) {
  const double t0 = NowSeconds();
  if (options.key_columns.empty() || options.key_columns.size() > 2) {
    return Status::InvalidArgument("--key takes one or two columns, got " + std::to_string(options.key_columns.size()));
  }
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, OpenIndexedTable(table_url, options.table));
  RAP_RETURN_NOT_OK(table::CheckPaimonIndexable(snap));  // its merge is recorded as deleted rows
  RAP_RETURN_NOT_OK(RecordFormatDeletes(&snap, options.threads));
  BuildResult out;
  out.index_url = options.index_url.empty() ? DefaultIndexUrl(table_url, options.name) : options.index_url;
  // Column mapping: the index works in the files' (physical) names; the manifest maps them back.
  const std::vector<std::string> cover = PhysicalNames(options.cover, snap);
  internal::FileIndexSpec spec{PhysicalNames(options.key_columns, snap), cover, PhysicalNames(options.hoist, snap),
                               TableSchemaJson(snap)};
  std::vector<std::pair<const table::DataFile*, int32_t>> files;
  for (size_t i = 0; i < snap.files.size(); ++i) files.push_back({&snap.files[i], static_cast<int32_t>(i)});
  if (files.empty()) return Status::InvalidArgument(table_url + ": the table has no data files to index");

  // The writer needs the key types and hoisted fields, known from the first file.
  std::unique_ptr<IndexWriter> writer;
  std::vector<KeyColumn> key;
  auto sink = [&](internal::IndexedFile&& f) -> Status {
    RAP_RETURN_NOT_OK(CheckKeyTypes(&key, f));
    if (!writer) {
      IndexWriterOptions wo;
      wo.key = key;
      wo.kind = options.kind;
      wo.name = options.name;
      wo.buckets = options.buckets;
      wo.cover = cover;
      wo.hoist = f.hoisted;
      wo.fragment = options.fragment;
      wo.threads = options.threads;
      wo.memory_budget = options.memory;
      wo.etag_source = snap.store->endpoint();
      wo.logical_names = LogicalNames(snap);
      RAP_ASSIGN_OR_RETURN(writer, IndexWriter::Make(out.index_url, wo, std::nullopt));
    }
    return AddIndexedFile(*writer, f, &out.key_rows);
  };
  RAP_RETURN_NOT_OK(IndexFiles(snap, files, spec, options.threads, options.progress, sink, options.cancel.get()));
  out.entries = writer->entries();
  out.spills = writer->spills();
  out.peak_buffered_bytes = writer->peak_buffered_bytes();
  out.files = static_cast<int64_t>(files.size());
  RAP_ASSIGN_OR_RETURN(out.manifest,
                       writer->Commit(TableRootFor(table_url, out.index_url, options.name),
                                      std::string(table::FormatName(snap)), snap.version));
  out.seconds = NowSeconds() - t0;
  return out;
}

Result<BuildPlan> PlanBuild(const std::string& table_url, const BuildOptions& options) {
  if (options.key_columns.empty() || options.key_columns.size() > 2) {
    return Status::InvalidArgument("--key takes one or two columns, got " + std::to_string(options.key_columns.size()));
  }
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(table_url));
  RAP_RETURN_NOT_OK(CheckNoColumnMapping(snap));
  RAP_RETURN_NOT_OK(CheckPlannable(snap, table_url));
  if (snap.files.empty()) return Status::InvalidArgument(table_url + ": the table has no data files to index");
  BuildPlan plan;
  plan.index_url = options.index_url.empty() ? DefaultIndexUrl(table_url, options.name) : options.index_url;
  plan.table_root = TableRootFor(table_url, plan.index_url, options.name);
  plan.table_kind = std::string(table::FormatName(snap));
  plan.table_version = snap.version;
  plan.etag_source = snap.store->endpoint();
  for (const table::DataFile& f : snap.files) {
    plan.paths.push_back(f.relative_path);
    plan.sizes.push_back(f.size);
  }
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(plan.index_url));
  Result<int64_t> latest = FindLatestVersion(*r.store, r.path);
  if (latest.ok()) {
    RAP_ASSIGN_OR_RETURN(Manifest old, ReadManifest(*r.store, r.path, *latest));
    plan.base_version = *latest;
    plan.run = old.next_run;
  } else if (latest.status().code() != StatusCode::kNotFound) {
    return latest.status();
  }
  return plan;
}

Result<Manifest> BuildPart(const std::string& table_url, const BuildPlan& plan, const std::vector<int32_t>& ordinals,
                           const std::string& token, const BuildOptions& options) {
  if (token.empty() || token.size() > 48 ||
      !std::all_of(token.begin(), token.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; })) {
    return Status::InvalidArgument("build part: the token '" + token + "' is not 1 to 48 of [A-Za-z0-9_]");
  }
  if (ordinals.empty()) return Status::InvalidArgument("build part: no files");
  if (plan.paths.size() != plan.sizes.size()) return Status::InvalidArgument("build part: the plan's paths and sizes differ in length");
  table::OpenTableOptions to;
  if (plan.table_version >= 0 && plan.table_kind == "delta") to.version = plan.table_version;
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(table_url, to));
  std::map<std::string, const table::DataFile*> by_path;
  for (const table::DataFile& f : snap.files) by_path[f.relative_path] = &f;
  std::vector<std::pair<const table::DataFile*, int32_t>> files;
  for (size_t i = 0; i < ordinals.size(); ++i) {
    const int32_t o = ordinals[i];
    if (o < 0 || static_cast<size_t>(o) >= plan.paths.size() || (i > 0 && o <= ordinals[i - 1])) {
      return Status::InvalidArgument("build part: file ordinal " + std::to_string(o) + " is out of order or not in the plan");
    }
    const std::string& path = plan.paths[static_cast<size_t>(o)];
    auto it = by_path.find(path);
    if (it == by_path.end() || it->second->size != plan.sizes[static_cast<size_t>(o)]) {
      return Status::Changed(table_url + ": " + path + " is no longer the file of the planned table version");
    }
    files.push_back({it->second, o});
  }
  internal::FileIndexSpec spec{options.key_columns, options.cover, options.hoist, TableSchemaJson(snap)};
  std::unique_ptr<IndexWriter> writer;
  std::vector<KeyColumn> key;
  // Files outside the part keep their place in the file table (ordinals are the plan's).
  auto fill_to = [&](size_t end) {
    while (writer->manifest().files.size() < end) {
      const size_t o = writer->manifest().files.size();
      FileEntry fe;
      fe.path = plan.paths[o];
      fe.size = plan.sizes[o];
      writer->AddFile(std::move(fe));
    }
  };
  auto sink = [&](internal::IndexedFile&& f) -> Status {
    RAP_RETURN_NOT_OK(CheckKeyTypes(&key, f));
    if (!writer) {
      IndexWriterOptions wo;
      wo.key = key;
      wo.buckets = options.buckets;
      wo.cover = options.cover;
      wo.hoist = f.hoisted;
      wo.fragment = options.fragment;
      wo.threads = options.threads;
      wo.memory_budget = options.memory;
      wo.etag_source = plan.etag_source;
      wo.run = plan.run;
      wo.token = token;
      RAP_ASSIGN_OR_RETURN(writer, IndexWriter::Make(plan.index_url, wo, std::nullopt));
    }
    fill_to(static_cast<size_t>(f.file.ordinal));
    return AddIndexedFile(*writer, f, nullptr);
  };
  RAP_RETURN_NOT_OK(IndexFiles(snap, files, spec, options.threads, options.progress, sink, options.cancel.get()));
  fill_to(plan.paths.size());
  RAP_RETURN_NOT_OK(writer->Stage());
  Manifest part = writer->manifest();
  part.version = plan.base_version;
  part.table_root = plan.table_root;
  part.table_kind = plan.table_kind;
  part.table_version = plan.table_version;
  part.etag_source = plan.etag_source;
  return part;
}

Result<Manifest> CommitBuild(const BuildPlan& plan, const std::vector<BuildPartResult>& parts) {
  if (parts.empty()) return Status::InvalidArgument("index build: no parts to commit");
  const size_t n = plan.paths.size();
  const Manifest& first = parts[0].part;
  Manifest m;
  m.version = plan.base_version + 1;
  m.name = first.name;
  m.table_root = plan.table_root;
  m.table_kind = plan.table_kind;
  m.table_version = plan.table_version;
  m.etag_source = plan.etag_source;
  m.key = first.key;
  m.buckets = first.buckets;
  m.cover = first.cover;
  m.hoist = first.hoist;
  m.next_run = plan.run + 1;
  m.files.resize(n);
  std::vector<bool> seen(n, false);
  std::map<std::string, int32_t> schemas;
  for (size_t p = 0; p < parts.size(); ++p) {
    const Manifest& part = parts[p].part;
    const std::string what = "index build: part " + std::to_string(p);
    if (part.key != m.key) return Status::InvalidArgument(what + ": its key columns or types differ from part 0's");
    if (part.buckets != m.buckets || part.cover != m.cover || part.hoist != m.hoist) {
      return Status::InvalidArgument(what + ": its buckets, covered or hoisted columns differ from part 0's");
    }
    if (part.files.size() != n) return Status::InvalidArgument(what + ": its file table is not the plan's");
    for (int32_t o : parts[p].ordinals) {
      if (o < 0 || static_cast<size_t>(o) >= n || seen[static_cast<size_t>(o)]) {
        return Status::InvalidArgument(what + ": file ordinal " + std::to_string(o) + " is not in the plan or indexed twice");
      }
      seen[static_cast<size_t>(o)] = true;
      FileEntry f = part.files[static_cast<size_t>(o)];
      if (f.path != plan.paths[static_cast<size_t>(o)]) return Status::InvalidArgument(what + ": file " + f.path + " is not the plan's");
      if (f.schema >= 0) {
        const std::string& rel = part.schemas.at(static_cast<size_t>(f.schema));
        auto [it, added] = schemas.emplace(rel, static_cast<int32_t>(m.schemas.size()));
        if (added) m.schemas.push_back(rel);
        f.schema = it->second;
      }
      m.files[static_cast<size_t>(o)] = std::move(f);
    }
    for (const FragmentEntry& fr : part.fragments) m.fragments.push_back(fr);
  }
  for (size_t o = 0; o < n; ++o) {
    if (!seen[o]) return Status::InvalidArgument("index build: no part indexed file " + plan.paths[o]);
  }
  std::stable_sort(m.fragments.begin(), m.fragments.end(),
                   [](const FragmentEntry& a, const FragmentEntry& b) { return a.bucket < b.bucket; });
  m.created_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch()).count();
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(plan.index_url));
  RAP_RETURN_NOT_OK(PublishManifest(*r.store, r.path, m));
  return m;
}

namespace {
Result<UpdateResult> UpdateOnce(const std::string& index_url, const UpdateOptions& options);
}  // namespace

Result<UpdateResult> UpdateIndex(const std::string& index_url, const UpdateOptions& options) {
  // A writer that loses the race for the next manifest version (Changed: nothing of it was
  // published, its fragments are discarded) starts again from the new latest version, a bounded
  // number of times.
  constexpr int kAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    Result<UpdateResult> r = UpdateOnce(index_url, options);
    if (r.ok() || r.status().code() != StatusCode::kChanged || attempt == kAttempts) {
      if (!r.ok() && r.status().code() == StatusCode::kChanged) {
        return r.status().WithContext("index update: lost the race for the next version " + std::to_string(attempt) +
                                      " times");
      }
      return r;
    }
  }
}

namespace {

Result<UpdateResult> UpdateOnce(const std::string& index_url, const UpdateOptions& options) {
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(index_url));
  RAP_ASSIGN_OR_RETURN(int64_t latest, FindLatestVersion(*r.store, r.path));
  RAP_ASSIGN_OR_RETURN(Manifest base, ReadManifest(*r.store, r.path, latest));
  const std::string table_url = ResolveUrl(index_url, base.table_root);
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, OpenIndexedTable(table_url, options.table));
  RAP_RETURN_NOT_OK(table::CheckPaimonIndexable(snap));  // its merge is recorded as deleted rows
  RAP_RETURN_NOT_OK(RecordFormatDeletes(&snap, options.threads));
  UpdateResult out;
  std::vector<KeyColumn> key = base.key;
  std::vector<std::string> key_names;
  for (const KeyColumn& k : base.key) key_names.push_back(k.name);
  internal::FileIndexSpec spec{key_names, base.cover, base.hoist, TableSchemaJson(snap)};
  std::unique_ptr<IndexWriter> writer;
  IndexWriterOptions wo;
  wo.key = base.key;
  wo.kind = base.kind;
  wo.buckets = base.buckets;
  wo.cover = base.cover;
  wo.fragment = options.fragment;
  wo.threads = options.threads;
  wo.memory_budget = options.memory;
  // The base's names are physical (column mapping); renames since then change only the logical ones.
  wo.logical_names = LogicalNames(snap);
  const bool keep_etags = KeepEtags(base, snap.store->endpoint());
  if (keep_etags) wo.etag_source = snap.store->endpoint();
  IndexDiff diff = DiffIndex(base, snap);
  const std::vector<int32_t>& removed = diff.removed;
  const auto& dv_changes = diff.dv_changes;
  std::vector<std::pair<const table::DataFile*, int32_t>> added;
  for (const table::DataFile* f : diff.added) added.push_back({f, -1});
  out.added_files = static_cast<int64_t>(added.size());
  out.removed_files = static_cast<int64_t>(removed.size());
  out.deletion_vectors_changed = static_cast<int64_t>(dv_changes.size());
  if (added.empty() && removed.empty() && dv_changes.empty() && snap.version == base.table_version &&
      *wo.logical_names == base.logical_names) {
    out.manifest = std::move(base);
    return out;
  }
  // Ordinals continue after the base file table.
  for (size_t i = 0; i < added.size(); ++i) added[i].second = static_cast<int32_t>(base.files.size() + i);
  auto make_writer = [&](const std::vector<Field>& h) -> Status {
    wo.hoist = h;
    RAP_ASSIGN_OR_RETURN(writer, IndexWriter::Make(index_url, wo, base));
    for (int32_t o : removed) RAP_RETURN_NOT_OK(writer->RemoveFile(o));
    for (auto& [o, dv] : dv_changes) RAP_RETURN_NOT_OK(writer->SetDeletionVector(o, dv));
    return Status::OK();
  };
  if (added.empty()) {
    // Hoisted types are only needed for new entries.
    std::vector<Field> h;
    for (const std::string& n : base.hoist) h.push_back({n, MakeType(TypeId::kNull), true});
    RAP_RETURN_NOT_OK(make_writer(h));
  }
  auto sink = [&](internal::IndexedFile&& f) -> Status {
    RAP_RETURN_NOT_OK(CheckKeyTypes(&key, f));
    if (!writer) RAP_RETURN_NOT_OK(make_writer(f.hoisted));
    if (!keep_etags) f.file.etag.clear();
    return AddIndexedFile(*writer, f, &out.key_rows);
  };
  RAP_RETURN_NOT_OK(IndexFiles(snap, added, spec, options.threads, options.progress, sink, options.cancel.get()));
  RAP_ASSIGN_OR_RETURN(out.manifest, writer->Commit(base.table_root, base.table_kind, snap.version));
  out.changed = true;
  return out;
}

}  // namespace

Result<UpdatePlan> PlanUpdate(const std::string& index_url) {
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(index_url));
  RAP_ASSIGN_OR_RETURN(int64_t latest, FindLatestVersion(*r.store, r.path));
  RAP_ASSIGN_OR_RETURN(Manifest base, ReadManifest(*r.store, r.path, latest));
  if (base.kind == IndexKind::kSorted) {
    return Status::NotSupported(index_url + ": a distributed update of a sorted index is not supported yet (its "
                                            "partition boundaries are the base's); use rap index update");
  }
  const std::string table_url = ResolveUrl(index_url, base.table_root);
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(table_url));
  RAP_RETURN_NOT_OK(CheckNoColumnMapping(snap));
  RAP_RETURN_NOT_OK(CheckPlannable(snap, table_url));
  const IndexDiff diff = DiffIndex(base, snap);
  UpdatePlan plan;
  BuildPlan& b = plan.build;
  b.index_url = index_url;
  b.table_root = base.table_root;
  b.table_kind = std::string(table::FormatName(snap));
  b.table_version = snap.version;
  b.etag_source = snap.store->endpoint();
  b.base_version = latest;
  b.run = base.next_run;
  for (const FileEntry& f : base.files) {
    b.paths.push_back(f.path);
    b.sizes.push_back(f.size);
  }
  for (const table::DataFile* f : diff.added) {
    plan.added.push_back(static_cast<int32_t>(b.paths.size()));
    b.paths.push_back(f->relative_path);
    b.sizes.push_back(f->size);
  }
  for (const KeyColumn& k : base.key) plan.key_columns.push_back(k.name);
  plan.buckets = base.buckets;
  plan.cover = base.cover;
  plan.hoist = base.hoist;
  plan.removed_files = static_cast<int64_t>(diff.removed.size());
  plan.deletion_vectors_changed = static_cast<int64_t>(diff.dv_changes.size());
  plan.changed = !diff.added.empty() || !diff.removed.empty() || !diff.dv_changes.empty() ||
                 snap.version != base.table_version;
  return plan;
}

Result<UpdateResult> CommitUpdate(const UpdatePlan& plan, const std::vector<BuildPartResult>& parts) {
  const BuildPlan& b = plan.build;
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl r, io::OpenUrl(b.index_url));
  RAP_ASSIGN_OR_RETURN(int64_t latest, FindLatestVersion(*r.store, r.path));
  if (latest != b.base_version) {
    return Status::Changed(b.index_url + ": version " + std::to_string(latest) + " was published after the update was " +
                           "planned on version " + std::to_string(b.base_version));
  }
  RAP_ASSIGN_OR_RETURN(Manifest base, ReadManifest(*r.store, r.path, latest));
  UpdateResult out;
  out.added_files = static_cast<int64_t>(plan.added.size());
  out.removed_files = plan.removed_files;
  out.deletion_vectors_changed = plan.deletion_vectors_changed;
  if (!plan.changed) {
    if (!parts.empty()) return Status::InvalidArgument("index update: the plan changes nothing, yet parts were given");
    out.manifest = std::move(base);
    return out;
  }
  // The changes again, from the base and the planned table version: they must be the planned ones.
  const std::string table_url = ResolveUrl(b.index_url, base.table_root);
  table::OpenTableOptions to;
  if (b.table_version >= 0 && b.table_kind == "delta") to.version = b.table_version;
  RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(table_url, to));
  const IndexDiff diff = DiffIndex(base, snap);
  bool same = diff.added.size() == plan.added.size() && b.paths.size() == base.files.size() + plan.added.size() &&
              static_cast<int64_t>(diff.removed.size()) == plan.removed_files &&
              static_cast<int64_t>(diff.dv_changes.size()) == plan.deletion_vectors_changed;
  for (size_t i = 0; same && i < diff.added.size(); ++i) {
    const size_t o = static_cast<size_t>(plan.added[i]);
    same = o == base.files.size() + i && diff.added[i]->relative_path == b.paths[o] && diff.added[i]->size == b.sizes[o];
  }
  if (!same) return Status::Changed(table_url + ": the table's files changed after the update was planned");
  const bool keep_etags = KeepEtags(base, b.etag_source);
  Manifest m = base;
  for (int32_t o : diff.removed) m.files[static_cast<size_t>(o)].removed = true;
  for (const auto& [o, dv] : diff.dv_changes) m.files[static_cast<size_t>(o)].deletion_vector = dv;
  const size_t n = b.paths.size();
  m.files.resize(n);
  std::vector<bool> seen(n, false);
  std::map<std::string, int32_t> schemas;
  for (size_t i = 0; i < m.schemas.size(); ++i) schemas.emplace(m.schemas[i], static_cast<int32_t>(i));
  for (size_t p = 0; p < parts.size(); ++p) {
    const Manifest& part = parts[p].part;
    const std::string what = "index update: part " + std::to_string(p);
    if (part.key != base.key) return Status::InvalidArgument(what + ": its key columns or types differ from the index's");
    if (part.buckets != base.buckets || part.cover != base.cover || part.hoist != base.hoist) {
      return Status::InvalidArgument(what + ": its buckets, covered or hoisted columns differ from the index's");
    }
    if (part.files.size() != n) return Status::InvalidArgument(what + ": its file table is not the plan's");
    for (int32_t o : parts[p].ordinals) {
      if (o < static_cast<int32_t>(base.files.size()) || static_cast<size_t>(o) >= n || seen[static_cast<size_t>(o)]) {
        return Status::InvalidArgument(what + ": file ordinal " + std::to_string(o) +
                                       " is not an added file of the plan or indexed twice");
      }
      seen[static_cast<size_t>(o)] = true;
      FileEntry f = part.files[static_cast<size_t>(o)];
      if (f.path != b.paths[static_cast<size_t>(o)]) return Status::InvalidArgument(what + ": file " + f.path + " is not the plan's");
      if (f.schema >= 0) {
        const std::string& rel = part.schemas.at(static_cast<size_t>(f.schema));
        auto [it, added] = schemas.emplace(rel, static_cast<int32_t>(m.schemas.size()));
        if (added) m.schemas.push_back(rel);
        f.schema = it->second;
      }
      if (!keep_etags) f.etag.clear();
      m.files[static_cast<size_t>(o)] = std::move(f);
    }
    for (const FragmentEntry& fr : part.fragments) {
      out.key_rows += fr.rows;
      m.fragments.push_back(fr);
    }
  }
  for (int32_t o : plan.added) {
    if (!seen[static_cast<size_t>(o)]) return Status::InvalidArgument("index update: no part indexed file " + b.paths[static_cast<size_t>(o)]);
  }
  m.version = base.version + 1;
  m.table_kind = b.table_kind;
  m.table_version = b.table_version;
  if (keep_etags) m.etag_source = b.etag_source;
  m.next_run = std::max(base.next_run, b.run + 1);
  m.created_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch()).count();
  RAP_RETURN_NOT_OK(PublishManifest(*r.store, r.path, m));
  out.manifest = std::move(m);
  out.changed = true;
  return out;
}

}  // namespace rap::index
