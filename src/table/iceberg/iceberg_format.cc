// Apache Iceberg tables through the table-format seam (rap/table/table_format.h): detected by their
// table metadata (`metadata/<...>.metadata.json`, or a URL naming such a file), opened at a snapshot
// (current, `snapshot_id`, `as_of_ms`) by reading the metadata JSON (iceberg_metadata.cc), the
// snapshot's manifest list and manifests (Avro, iceberg_manifest.cc); deletes from position and
// equality delete files and deletion vectors (iceberg_deletes.cc). docs/iceberg.md.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <thread>

#include "rap/table/delta_schema.h"

#include "table/formats.h"
#include "table/iceberg/iceberg_partition.h"
#include "table/iceberg/iceberg_stats.h"
#include "table/iceberg/iceberg_table.h"
#include "table/path_util.h"
#include "table/small_object.h"

namespace rap::table {

namespace iceberg {

namespace {

constexpr uint64_t kMaxMetadataBytes = uint64_t{256} << 20;

std::string StripDotSlash(std::string s) {
  while (s.rfind("./", 0) == 0) s = s.substr(2);
  return TrimTrailingSlash(s);
}

bool IsMetadataFile(const std::string& name) { return name.size() > 14 && EndsWith(name, ".metadata.json"); }

// The version a metadata file name carries: "v12.metadata.json" -> 12, "00012-<uuid>.metadata.json" -> 12.
int64_t MetadataVersion(const std::string& name) {
  const char* p = name.c_str();
  if (*p == 'v') ++p;
  char* end = nullptr;
  const long long v = std::strtoll(p, &end, 10);
  return end == p ? -1 : v;
}

// The metadata file of the table at `root`: the version hint, else the newest by listing.
Result<std::string> FindMetadataFile(TableProbe& probe) {
  const std::string dir = probe.root() + "/metadata";
  for (const char* hint_name : {"version-hint.text", "version-hint.txt"}) {
    auto hint = ReadObject(probe.store(), dir + "/" + hint_name, 1024);
    if (!hint.ok()) continue;
    std::string h = *hint;
    while (!h.empty() && (h.back() == '\n' || h.back() == '\r' || h.back() == ' ')) h.pop_back();
    if (h.empty()) continue;
    const std::string candidate = IsMetadataFile(h) ? dir + "/" + h : dir + "/v" + h + ".metadata.json";
    if (!probe.store()->Head(candidate).ok()) continue;
    // The hint is only a hint (a writer creates vN+1 first and rewrites the hint after it, and may
    // stop in between): newer versions after it are taken, as Iceberg's own file-system tables do.
    const std::string name = candidate.substr(dir.size() + 1);
    int64_t v = name[0] == 'v' ? MetadataVersion(name) : -1;
    if (v < 0) return candidate;
    std::string newest = candidate;
    for (int i = 0; i < 1000; ++i) {
      const std::string next = dir + "/v" + std::to_string(v + 1) + ".metadata.json";
      if (!probe.store()->Head(next).ok()) return newest;
      newest = next;
      ++v;
    }
    break;  // a thousand versions past the hint: the listing below finds the newest
  }
  std::string best;
  int64_t best_version = -1;
  for (const std::string& rel : probe.RelativePaths()) {
    const std::vector<std::string> s = SplitPath(rel);
    if (s.size() != 2 || s[0] != "metadata" || !IsMetadataFile(s[1])) continue;
    const int64_t v = MetadataVersion(s[1]);
    if (v > best_version || (v == best_version && s[1] > best)) {
      best_version = v;
      best = s[1];
    }
  }
  if (best.empty()) return Status::NotFound(probe.url() + ": no metadata/*.metadata.json");
  return dir + "/" + best;
}

// The manifests' bytes, fetched concurrently (up to kManifestFetches at a time: on an object store
// each is a round trip, and a table of a few dozen manifests is then read in one); parsed
// afterwards, in order, on the calling thread.
constexpr size_t kManifestFetches = 32;

Result<std::vector<std::vector<ContentFile>>> ReadManifestEntries(const io::ObjectStorePtr& store,
                                                                  const LocationMap& locations,
                                                                  const std::vector<const ManifestFile*>& manifests) {
  std::vector<std::string> paths;
  for (const ManifestFile* m : manifests) {
    RAP_ASSIGN_OR_RETURN(std::string path, locations.Resolve(m->path));
    paths.push_back(std::move(path));
  }
  std::vector<Result<std::string>> bytes(paths.size(), Status::Internal("not read"));
  auto fetch = [&](size_t i) { bytes[i] = ReadObject(store, paths[i], kMaxMetadataBytes); };
  if (!store->is_remote() || paths.size() < 2) {
    for (size_t i = 0; i < paths.size(); ++i) fetch(i);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (size_t t = 0; t < std::min(kManifestFetches, paths.size()); ++t) {
      threads.emplace_back([&] {
        for (size_t i = next++; i < paths.size(); i = next++) fetch(i);
      });
    }
    for (std::thread& t : threads) t.join();
  }
  std::vector<std::vector<ContentFile>> out;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!bytes[i].ok()) return bytes[i].status();
    const std::string& b = *bytes[i];
    RAP_ASSIGN_OR_RETURN(std::vector<ContentFile> entries,
                         ParseManifest(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(b.data()), b.size()),
                                       *manifests[i], paths[i]));
    out.push_back(std::move(entries));
  }
  return out;
}

Result<std::vector<ManifestFile>> ReadManifests(const io::ObjectStorePtr& store, const LocationMap& locations,
                                                const Snapshot& snap) {
  if (snap.manifest_list.empty()) {  // v1 snapshot listing its manifests
    std::vector<ManifestFile> out;
    for (const std::string& p : snap.manifests) out.push_back(ManifestFile{p, 0, 0, 0, snap.snapshot_id, {}});
    return out;
  }
  RAP_ASSIGN_OR_RETURN(std::string path, locations.Resolve(snap.manifest_list));
  RAP_ASSIGN_OR_RETURN(std::string bytes, ReadObject(store, path, kMaxMetadataBytes));
  return ParseManifestList(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                           path);
}

// Whether delete file `d` applies to data file `f` (the Iceberg spec's "Scan Planning" rules).
bool Applies(const ContentFile& d, const ContentFile& f, const TableMetadata& m) {
  if (d.content == 1) {  // position deletes and deletion vectors: same or later data sequence number
    if (d.data_sequence_number < f.data_sequence_number) return false;
    if (d.referenced_data_file && *d.referenced_data_file != f.file_path) return false;
  } else {  // equality deletes: strictly later
    if (d.data_sequence_number <= f.data_sequence_number) return false;
  }
  const PartitionSpec* spec = m.Spec(d.spec_id);
  if (d.content == 2 && spec && spec->Unpartitioned()) return true;  // global equality deletes
  return d.spec_id == f.spec_id && d.partition_key == f.partition_key;
}

class IcebergTableFormat : public TableFormat {
 public:
  std::string_view name() const override { return "iceberg"; }

  // A metadata file named by the URL: no request to detect it (a missing one fails Open's read,
  // naming it).
  bool NamedByRoot(const std::string& root) const override { return IsMetadataFile(root); }

  Result<bool> Detect(TableProbe& probe) const override {
    if (IsMetadataFile(probe.root())) return true;
    for (const std::string& rel : probe.RelativePaths()) {
      const std::vector<std::string> s = SplitPath(rel);
      if (s.size() == 2 && s[0] == "metadata" && IsMetadataFile(s[1])) return true;
    }
    return false;
  }

  Result<TableSnapshot> Open(TableProbe& probe, const OpenTableOptions& options) const override {
    if (options.version) {
      return Status::InvalidArgument(probe.url() + ": an Iceberg table is read at a snapshot (--snapshot ID or "
                                                   "--as-of TIME), not a Delta version");
    }
    std::string metadata_path;
    std::string root = probe.root();
    if (IsMetadataFile(root)) {
      metadata_path = root;
      const size_t slash = root.rfind('/');
      root = slash == std::string::npos ? "" : root.substr(0, slash);
      if (EndsWith(root, "/metadata")) root = root.substr(0, root.size() - 9);
    } else {
      RAP_ASSIGN_OR_RETURN(metadata_path, FindMetadataFile(probe));
    }
    RAP_ASSIGN_OR_RETURN(std::string text, ReadObject(probe.store(), metadata_path, kMaxMetadataBytes));
    RAP_ASSIGN_OR_RETURN(TableMetadata meta, ParseTableMetadata(text, metadata_path));
    LocationMap locations(options.location_map, meta.location, root);
    RAP_ASSIGN_OR_RETURN(const Snapshot* snap,
                         SelectSnapshot(meta, options.snapshot_id, options.as_of_ms, metadata_path));
    auto state = std::make_shared<IcebergState>();
    state->metadata_path = metadata_path;
    state->location_map = options.location_map;
    int32_t schema_id = meta.current_schema_id;
    if (snap && snap->schema_id && (options.snapshot_id || options.as_of_ms) && meta.Schema(*snap->schema_id)) {
      schema_id = *snap->schema_id;  // time travel reads the snapshot's own schema
    }
    state->schema = *meta.Schema(schema_id);
    TableSnapshot out;
    out.kind = TableKind::kDirectory;
    out.format = this;
    out.store = probe.store();
    out.root = root;
    out.version = snap ? snap->snapshot_id : -1;
    out.schema = state->schema.schema;
    out.field_ids = state->schema.field_ids;
    if (auto nm = meta.properties.find("schema.name-mapping.default"); nm != meta.properties.end()) {
      RAP_ASSIGN_OR_RETURN(read::NameMapping mapping, ParseNameMapping(nm->second, metadata_path));
      out.name_mapping = std::make_shared<const read::NameMapping>(std::move(mapping));
    }
    const std::vector<std::optional<std::string>>& initial = state->schema.initial_defaults;
    if (std::any_of(initial.begin(), initial.end(), [](const auto& d) { return d.has_value(); })) {
      for (size_t i = 0; i < initial.size() && i < out.schema->fields.size(); ++i) {
        const Field& f = out.schema->fields[i];
        if (!initial[i]) {
          out.column_defaults.push_back(nullptr);
          continue;
        }
        auto arr = MakePartitionArray(f.name, *f.type, initial[i], 1);
        if (!arr.ok()) return Status::Corrupt(metadata_path + ": initial-default of '" + f.name + "': " +
                                              arr.status().message());
        out.column_defaults.push_back(*arr);
      }
    }
    state->metadata_json = std::move(text);
    if (!snap) {
      out.format_state = state;
      return out;
    }
    RAP_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests, ReadManifests(probe.store(), locations, *snap));
    std::vector<ContentFile> data, deletes;
    // The scan's filter against partition summaries and tuples (data manifests and files only).
    const PartitionPruner pruner(meta, state->schema, options.filter);
    std::vector<const ManifestFile*> kept;
    for (const ManifestFile& m : manifests) {
      if (!pruner.SkipManifest(m)) kept.push_back(&m);
    }
    RAP_ASSIGN_OR_RETURN(std::vector<std::vector<ContentFile>> read, ReadManifestEntries(probe.store(), locations, kept));
    for (std::vector<ContentFile>& entries : read) {
      for (ContentFile& e : entries) {
        if (e.status == 2) continue;  // DELETED entries are not live
        if (pruner.SkipFile(e)) continue;
        if (meta.format_version == 1) e.data_sequence_number = 0;
        (e.content == 0 ? data : deletes).push_back(std::move(e));
      }
    }
    for (const ContentFile& f : data) {
      // ORC files are read by the Scanner's ORC path, which it takes by the ".orc" name.
      std::string ext = f.file_path.size() > 4 ? f.file_path.substr(f.file_path.size() - 4) : std::string();
      for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const bool orc_name = ext == ".orc";
      if (f.file_format == "ORC" && !orc_name) {
        return Status::NotSupported(f.file_path + ": an Iceberg ORC data file whose name does not end in .orc "
                                    "(rap takes ORC files by their name)");
      }
      if (f.file_format != "PARQUET" && f.file_format != "ORC") {
        return Status::NotSupported(f.file_path + ": Iceberg data files in " + f.file_format +
                                    " are not read by rap (Parquet and ORC only)");
      }
      DataFile df;
      RAP_ASSIGN_OR_RETURN(df.path, locations.Resolve(f.file_path));
      const std::string rel = RelativeTo(root, df.path);
      df.relative_path = rel.empty() ? df.path : rel;
      df.size = static_cast<uint64_t>(f.file_size);
      df.num_records = f.record_count;
      df.column_stats = IcebergFileStats(f, state->schema);
      std::vector<DeleteRef>& refs = state->deletes[df.path];
      for (const ContentFile& d : deletes) {
        if (!Applies(d, f, meta)) continue;
        RAP_ASSIGN_OR_RETURN(std::string dpath, locations.Resolve(d.file_path));
        refs.push_back(DeleteRef{d, dpath});
      }
      df.format_deletes = !refs.empty();
      state->original_paths[df.path] = f.file_path;
      state->partitions[df.path] = FilePartition{f.spec_id, f.partition_key, f.partition};
      out.files.push_back(std::move(df));
    }
    std::sort(out.files.begin(), out.files.end(),
              [](const DataFile& a, const DataFile& b) { return a.relative_path < b.relative_path; });
    out.format_state = state;
    return out;
  }

  Result<std::vector<uint64_t>> DeletedRows(const TableSnapshot& snapshot, const DataFile& file) const override {
    auto state = std::dynamic_pointer_cast<const IcebergState>(snapshot.format_state);
    if (!state) return Status::Internal(file.path + ": an Iceberg snapshot without its state");
    return IcebergDeletedRows(snapshot, *state, file);
  }
};

}  // namespace

LocationMap::LocationMap(std::vector<std::pair<std::string, std::string>> user, std::string location,
                         std::string root) {
  for (auto& [from, to] : user) prefixes_.push_back({TrimTrailingSlash(from), TrimTrailingSlash(to)});
  const std::string loc = StripDotSlash(location);
  if (!loc.empty()) prefixes_.push_back({loc, root});
}

Result<std::string> LocationMap::Resolve(const std::string& path) const {
  const std::string p = StripDotSlash(path);
  for (const auto& [from, to] : prefixes_) {
    if (p.size() > from.size() && p.compare(0, from.size(), from) == 0 && p[from.size()] == '/') {
      return to.empty() ? p.substr(from.size() + 1) : to + p.substr(from.size());
    }
  }
  if (p.find("://") != std::string::npos) {
    return Status::NotFound(path + ": outside the table's location; map it with --location-map OLD=NEW");
  }
  return p;
}

Result<std::string> ReadObject(const io::ObjectStorePtr& store, const std::string& path, uint64_t limit) {
  return ReadSmallObject(store, path, limit, "Iceberg metadata files");
}

}  // namespace iceberg

const TableFormat& IcebergFormat() {
  static const iceberg::IcebergTableFormat format;
  return format;
}

}  // namespace rap::table
