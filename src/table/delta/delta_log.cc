#include "rap/table/delta_log.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "table/delta/delta_actions.h"
#include "table/delta/delta_checkpoint.h"
#include "table/formats.h"
#include "table/path_util.h"

namespace rap::table {

namespace {

constexpr uint64_t kMaxLogFileBytes = 512ull << 20;  // a commit or manifest larger than this is refused

struct CheckpointFiles {
  int64_t version = -1;
  enum class Kind { kClassic, kMultiPart, kV2 } kind = Kind::kClassic;
  std::vector<std::string> paths;  // classic: 1; multi-part: ordered parts; v2: the manifest
  int parts_expected = 1;
  bool complete() const { return static_cast<int>(paths.size()) == parts_expected; }
};

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Parsed `_delta_log/` listing.
struct LogListing {
  std::map<int64_t, std::string> commits;  // version -> store path
  std::map<int64_t, std::vector<CheckpointFiles>> checkpoints;
};

Result<LogListing> ListLog(const io::ObjectStorePtr& store, const std::string& log_dir) {
  RAP_ASSIGN_OR_RETURN(std::vector<io::ObjectInfo> infos, store->List(log_dir + "/"));
  LogListing out;
  std::map<std::pair<int64_t, int>, CheckpointFiles> multipart;  // (version, parts) -> files
  std::map<std::pair<int64_t, int>, std::map<int, std::string>> parts_seen;
  for (const io::ObjectInfo& info : infos) {
    std::string name = RelativeTo(log_dir, info.path);
    if (name.empty() || name.find('/') != std::string::npos) continue;  // _sidecars/, .tmp/, _autostats/
    if (name.size() < 21 || !AllDigits(name.substr(0, 20)) || name[20] != '.') continue;
    int64_t version = std::stoll(name.substr(0, 20));
    std::string rest = name.substr(21);
    if (rest == "json") {
      out.commits[version] = info.path;
    } else if (rest == "checkpoint.parquet") {
      CheckpointFiles c;
      c.version = version;
      c.paths = {info.path};
      out.checkpoints[version].push_back(c);
    } else if (rest.rfind("checkpoint.", 0) == 0) {
      std::string tail = rest.substr(11);  // "0000000001.0000000002.parquet" or "<uuid>.json|parquet"
      if (tail.size() == 29 && AllDigits(tail.substr(0, 10)) && tail[10] == '.' && AllDigits(tail.substr(11, 10)) &&
          tail.substr(21) == ".parquet") {
        int part = std::stoi(tail.substr(0, 10));
        int parts = std::stoi(tail.substr(11, 10));
        if (part >= 1 && part <= parts) parts_seen[{version, parts}][part] = info.path;
      } else if ((tail.size() > 5 && tail.substr(tail.size() - 5) == ".json") ||
                 (tail.size() > 8 && tail.substr(tail.size() - 8) == ".parquet")) {
        CheckpointFiles c;
        c.version = version;
        c.kind = CheckpointFiles::Kind::kV2;
        c.paths = {info.path};
        out.checkpoints[version].push_back(c);
      }
    }
    // .crc checksums, NNN.MMM.compacted.json log compactions and _last_checkpoint are not needed.
  }
  for (auto& [key, parts] : parts_seen) {
    CheckpointFiles c;
    c.version = key.first;
    c.kind = CheckpointFiles::Kind::kMultiPart;
    c.parts_expected = key.second;
    for (auto& [n, path] : parts) c.paths.push_back(path);
    out.checkpoints[key.first].push_back(c);
  }
  return out;
}

Result<std::string> ReadWhole(const io::ObjectStorePtr& store, const std::string& path) {
  RAP_ASSIGN_OR_RETURN(io::ObjectInfo info, store->Head(path));
  if (info.size > kMaxLogFileBytes) {
    return Status::ResourceExhausted(path + ": " + std::to_string(info.size) + " bytes is larger than the " +
                                     std::to_string(kMaxLogFileBytes) + " byte limit for Delta log files");
  }
  if (info.size == 0) return std::string();
  ByteRange r{0, info.size};
  RAP_ASSIGN_OR_RETURN(std::vector<Buffer> bufs,
                       store->ReadRanges(path, std::span<const ByteRange>(&r, 1), io::ReadOptions{}, nullptr));
  if (bufs.size() != 1) return Status::Internal(path + ": store returned " + std::to_string(bufs.size()) + " buffers");
  return std::string(bufs[0].view());
}

// `_last_checkpoint`: the version the writer last checkpointed (a hint; the listing is checked too).
std::optional<int64_t> ReadLastCheckpoint(const io::ObjectStorePtr& store, const std::string& log_dir) {
  auto text = ReadWhole(store, log_dir + "/_last_checkpoint");
  if (!text.ok()) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("version") || !j["version"].is_number_integer()) {
    return std::nullopt;
  }
  return j["version"].get<int64_t>();
}

std::string VersionName(int64_t v) {
  char name[32];
  std::snprintf(name, sizeof name, "%020lld", static_cast<long long>(v));
  return name;
}

// A commit name no writer can produce (20 digits beyond int64): a store that has it answers every
// path with 200 (a catch-all or single-page-app fallback), so probing would find commits forever.
constexpr const char* kAbsentCommit = "99999999999999999999.json";

// A missing object: 404, or 403 from a bucket's web endpoint that may not list.
bool IsMissing(const Status& st) { return st.Is(StatusCode::kNotFound) || st.Is(StatusCode::kAccessDenied); }

// OK when the store says that a path that cannot exist is missing; else the error that explains
// why the log cannot be found by probing.
Status CheckStoreReportsMissing(const io::ObjectStorePtr& store, const std::string& log_dir) {
  auto head = store->Head(log_dir + "/" + kAbsentCommit);
  if (head.ok()) {
    return Status::NotSupported(log_dir + ": the server answers 200 for " + kAbsentCommit +
                                ", a commit that cannot exist (a catch-all or fallback page), so the Delta log "
                                "cannot be probed without a listing; serve the table without the fallback, with a "
                                "JSON directory index, or from s3://");
  }
  if (!IsMissing(head.status())) return head.status();
  return Status::OK();
}

// The log of a store that cannot list (plain HTTP without a JSON directory index), found as the
// protocol allows: the checkpoint that `_last_checkpoint` names (classic, multi-part or V2), then
// successive commit files probed from the one after it (or from 0) until one is missing. Empty when
// neither `_last_checkpoint` nor commit 0 exists. `first_only`: stop at the first file found (enough
// to tell that there is a log). More than `max_commits` commits to probe is an error, so is a store
// that answers 200 for a commit that cannot exist.
Result<LogListing> ProbeLog(const io::ObjectStorePtr& store, const std::string& log_dir, int64_t max_commits,
                            bool first_only) {
  LogListing out;
  int64_t next = 0;
  bool checked_store = false;
  auto text = ReadWhole(store, log_dir + "/_last_checkpoint");
  if (!text.ok() && !IsMissing(text.status())) return text.status();
  if (text.ok()) {
    RAP_RETURN_NOT_OK(CheckStoreReportsMissing(store, log_dir));
    checked_store = true;
    nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("version") || !j["version"].is_number_integer() ||
        j["version"].get<int64_t>() < 0) {
      return Status::Corrupt(log_dir + "/_last_checkpoint: expected a JSON object with a non-negative integer "
                             "\"version\" (the log cannot be listed here, so it is needed)");
    }
    CheckpointFiles cp;
    cp.version = j["version"].get<int64_t>();
    const std::string base = log_dir + "/" + VersionName(cp.version) + ".checkpoint";
    if (j.contains("v2Checkpoint") && j["v2Checkpoint"].is_object() && j["v2Checkpoint"].contains("path") &&
        j["v2Checkpoint"]["path"].is_string()) {
      const std::string name = j["v2Checkpoint"]["path"].get<std::string>();
      if (name.find('/') != std::string::npos) {
        return Status::NotSupported(log_dir + "/_last_checkpoint: v2Checkpoint path '" + name +
                                    "' is not a file name in _delta_log/");
      }
      cp.kind = CheckpointFiles::Kind::kV2;
      cp.paths = {log_dir + "/" + name};
    } else if (j.contains("parts") && j["parts"].is_number_integer() && j["parts"].get<int64_t>() > 1) {
      const int64_t parts = j["parts"].get<int64_t>();
      if (parts > 100000) return Status::Corrupt(log_dir + "/_last_checkpoint: " + std::to_string(parts) + " parts");
      cp.kind = CheckpointFiles::Kind::kMultiPart;
      cp.parts_expected = static_cast<int>(parts);
      for (int64_t k = 1; k <= parts; ++k) {
        char part[32];
        std::snprintf(part, sizeof part, ".%010lld.%010lld.parquet", static_cast<long long>(k),
                      static_cast<long long>(parts));
        cp.paths.push_back(base + part);
      }
    } else {
      cp.paths = {base + ".parquet"};
    }
    out.checkpoints[cp.version].push_back(std::move(cp));
    next = j["version"].get<int64_t>() + 1;
    if (first_only) return out;
  }
  for (int64_t v = next;; ++v) {
    const std::string path = log_dir + "/" + VersionName(v) + ".json";
    auto head = store->Head(path);
    if (!head.ok()) {
      if (IsMissing(head.status())) break;
      return head.status();
    }
    if (v - next >= max_commits) {
      return Status::ResourceExhausted(log_dir + ": more than " + std::to_string(max_commits) +
                                       " commits to probe without a listing (from " + VersionName(next) +
                                       ".json); write a checkpoint or use a store that lists (s3://, file)");
    }
    if (!checked_store) {
      RAP_RETURN_NOT_OK(CheckStoreReportsMissing(store, log_dir));
      checked_store = true;
    }
    out.commits[v] = path;
    if (first_only) break;
  }
  return out;
}

// The log's files: listed when the store can list them, else probed (ProbeLog). A failed listing
// whose probe finds nothing is an empty log (not a Delta table).
Result<LogListing> DiscoverLog(const io::ObjectStorePtr& store, const std::string& log_dir, int64_t max_commits,
                               bool first_only) {
  auto listed = ListLog(store, log_dir);
  if (listed.ok() && (!listed->commits.empty() || !listed->checkpoints.empty())) return listed;
  return ProbeLog(store, log_dir, max_commits, first_only);
}

class Replay {
 public:
  void Apply(DeltaActions& actions, DeltaLogSnapshot* snap) {
    for (DeltaRemove& r : actions.removes) live_.erase(FileActionKey(Decoded(r.path), r.deletion_vector));
    for (DeltaAddFile& a : actions.adds) {
      std::string key = FileActionKey(Decoded(a.path), a.deletion_vector);
      // An add of a path replaces any earlier add of the same path (e.g. with a new deletion vector,
      // which comes with a remove of the old pair anyway).
      live_[key] = std::move(a);
    }
    if (actions.protocol) {
      snap->protocol = std::move(*actions.protocol);
      have_protocol_ = true;
    }
    if (actions.metadata) {
      snap->metadata = std::move(*actions.metadata);
      have_metadata_ = true;
    }
  }
  bool have_metadata() const { return have_metadata_; }
  bool have_protocol() const { return have_protocol_; }
  std::vector<DeltaAddFile> TakeFiles() {
    std::vector<DeltaAddFile> out;
    out.reserve(live_.size());
    for (auto& [k, a] : live_) out.push_back(std::move(a));
    std::sort(out.begin(), out.end(), [](const DeltaAddFile& a, const DeltaAddFile& b) { return a.path < b.path; });
    return out;
  }

 private:
  static std::string Decoded(const std::string& p) {
    auto d = PercentDecode(p, p);
    return d.ok() ? *d : p;
  }
  std::map<std::string, DeltaAddFile> live_;
  bool have_metadata_ = false;
  bool have_protocol_ = false;
};

Status LoadCheckpoint(const io::ObjectStorePtr& store, const std::string& log_dir, const CheckpointFiles& cp,
                      DeltaLogSnapshot* snap, Replay* replay) {
  std::vector<std::string> files = cp.paths;
  if (cp.kind == CheckpointFiles::Kind::kV2) {
    DeltaActions manifest;
    const std::string& path = cp.paths[0];
    if (path.size() > 5 && path.substr(path.size() - 5) == ".json") {
      RAP_ASSIGN_OR_RETURN(std::string text, ReadWhole(store, path));
      RAP_RETURN_NOT_OK(ParseJsonActions(path, text, &manifest));
    } else {
      RAP_RETURN_NOT_OK(ReadParquetCheckpointActions(store, path, &manifest));
    }
    if (!manifest.has_checkpoint_metadata) {
      return Status::Corrupt(path + ": V2 checkpoint without a checkpointMetadata action");
    }
    std::vector<DeltaSidecar> sidecars = std::move(manifest.sidecars);
    replay->Apply(manifest, snap);
    for (const DeltaSidecar& s : sidecars) {
      if (s.path.find("://") != std::string::npos || s.path.find("..") != std::string::npos) {
        return Status::NotSupported(path + ": sidecar path '" + s.path + "' is not a plain file name in _sidecars/");
      }
      RAP_ASSIGN_OR_RETURN(std::string name, PercentDecode(s.path, path));
      DeltaActions actions;
      RAP_RETURN_NOT_OK(ReadParquetCheckpointActions(store, log_dir + "/_sidecars/" + name, &actions));
      replay->Apply(actions, snap);
    }
    return Status::OK();
  }
  for (const std::string& path : files) {
    DeltaActions actions;
    RAP_RETURN_NOT_OK(ReadParquetCheckpointActions(store, path, &actions));
    replay->Apply(actions, snap);
  }
  return Status::OK();
}

}  // namespace

bool IsSupportedReaderFeature(const std::string& feature) {
  // columnMapping (modes name and id) is handled by the table layer and the Scanner: columns are read
  // by their physical names (mode name) or Parquet field ids (mode id), at the top level and inside
  // structs, arrays and maps. deletionVectors: the Scanner skips the rows a
  // file's deletion vector lists (rap/table/deletion_vector.h).
  // typeWidening: old files keep their narrower types; the Scanner converts them to the table type
  // (only lossless conversions exist; anything else is an error naming the column).
  static const std::set<std::string> kSupported = {"v2Checkpoint", "timestampNtz", "vacuumProtocolCheck",
                                                    "columnMapping", "typeWidening", "typeWidening-preview",
                                                    "deletionVectors"};
  return kSupported.count(feature) > 0;
}

Status CheckReaderSupport(const DeltaProtocol& protocol, const DeltaMetadata& metadata, const std::string& table) {
  if (protocol.min_reader_version > 3) {
    return Status::NotSupported(table + ": Delta protocol minReaderVersion " +
                                std::to_string(protocol.min_reader_version) + " is not supported (rap reads 1 to 3)");
  }
  if (protocol.min_reader_version == 3) {
    for (const std::string& f : protocol.reader_features) {
      if (!IsSupportedReaderFeature(f)) {
        return Status::NotSupported(table + ": Delta reader feature '" + f + "' is not supported");
      }
    }
  }
  auto mode = metadata.configuration.find("delta.columnMapping.mode");
  if (mode != metadata.configuration.end() && mode->second != "none" && mode->second != "name" &&
      mode->second != "id") {
    return Status::NotSupported(table + ": Delta reader feature 'columnMapping' in mode '" + mode->second +
                                "' is not supported (modes 'none', 'name' and 'id')");
  }
  return Status::OK();
}

Result<bool> IsDeltaTable(const io::ObjectStorePtr& store, const std::string& root_in) {
  const std::string root = TrimTrailingSlash(root_in);
  auto listing = DiscoverLog(store, root + "/_delta_log", DeltaLogOptions{}.max_probed_commits, /*first_only=*/true);
  if (!listing.ok()) {
    // A Parquet file on a catch-all server: its "_delta_log/" answers too, but it is no table.
    const bool parquet_name = root.size() > 8 && root.compare(root.size() - 8, 8, ".parquet") == 0;
    if (parquet_name && listing.status().Is(StatusCode::kNotSupported)) return false;
    return listing.status();
  }
  return !listing->commits.empty() || !listing->checkpoints.empty();
}

Result<DeltaLogSnapshot> ReadDeltaLog(const io::ObjectStorePtr& store, const std::string& root_in,
                                      const DeltaLogOptions& options) {
  const std::string root = TrimTrailingSlash(root_in);
  const std::string log_dir = root + "/_delta_log";
  RAP_ASSIGN_OR_RETURN(LogListing listing, DiscoverLog(store, log_dir, options.max_probed_commits, false));
  if (listing.commits.empty() && listing.checkpoints.empty()) {
    return Status::NotFound(log_dir + ": no Delta commits or checkpoints");
  }
  int64_t latest = -1;
  if (!listing.commits.empty()) latest = listing.commits.rbegin()->first;
  if (!listing.checkpoints.empty()) latest = std::max(latest, listing.checkpoints.rbegin()->first);
  int64_t earliest_commit = listing.commits.empty() ? -1 : listing.commits.begin()->first;
  int64_t target = options.version.value_or(latest);
  if (target < 0 || target > latest) {
    return Status::NotFound(root + ": Delta version " + std::to_string(target) + " does not exist (latest is " +
                            std::to_string(latest) + ")");
  }

  // The newest complete checkpoint at or below the target; `_last_checkpoint` is preferred when it
  // names one (it is what writers maintain), the listing is the fallback.
  const CheckpointFiles* chosen = nullptr;
  if (options.use_checkpoints) {
    std::optional<int64_t> hint = ReadLastCheckpoint(store, log_dir);
    auto pick_at = [&](int64_t v) -> const CheckpointFiles* {
      auto it = listing.checkpoints.find(v);
      if (it == listing.checkpoints.end()) return nullptr;
      for (const CheckpointFiles& c : it->second) {
        if (c.complete()) return &c;
      }
      return nullptr;
    };
    if (hint && *hint <= target) chosen = pick_at(*hint);
    for (auto it = listing.checkpoints.rbegin(); it != listing.checkpoints.rend(); ++it) {
      if (it->first > target) continue;
      if (chosen && chosen->version >= it->first) break;
      if (const CheckpointFiles* c = pick_at(it->first)) {
        chosen = c;
        break;
      }
    }
  }

  DeltaLogSnapshot snap;
  snap.version = target;
  Replay replay;
  int64_t next = 0;
  bool full_history = earliest_commit == 0;
  for (int64_t v = 0; full_history && v <= target; ++v) full_history = listing.commits.count(v) > 0;
  if (chosen) {
    Status st = LoadCheckpoint(store, log_dir, *chosen, &snap, &replay);
    if (st.ok()) {
      snap.checkpoint_version = chosen->version;
      next = chosen->version + 1;
    } else if (st.Is(StatusCode::kNotSupported) && full_history) {
      // A checkpoint rap cannot decode is only an optimisation when every commit is still there.
      snap = DeltaLogSnapshot();
      snap.version = target;
      replay = Replay();
      snap.checkpoint_error = st.message();
    } else {
      return st;
    }
  } else if (earliest_commit != 0) {
    return Status::NotFound(root + ": cannot reconstruct Delta version " + std::to_string(target) +
                            ": commit 0 is gone and no checkpoint at or below it exists");
  }
  for (int64_t v = next; v <= target; ++v) {
    auto it = listing.commits.find(v);
    if (it == listing.commits.end()) {
      char name[32];
      std::snprintf(name, sizeof name, "%020lld.json", static_cast<long long>(v));
      return Status::Corrupt(log_dir + ": commit " + name + " is missing (needed to reach version " +
                             std::to_string(target) + ")");
    }
    RAP_ASSIGN_OR_RETURN(std::string text, ReadWhole(store, it->second));
    DeltaActions actions;
    RAP_RETURN_NOT_OK(ParseJsonActions(it->second, text, &actions));
    replay.Apply(actions, &snap);
    ++snap.commits_read;
  }
  if (!replay.have_metadata()) return Status::Corrupt(log_dir + ": no metaData action up to version " + std::to_string(target));
  if (!replay.have_protocol()) return Status::Corrupt(log_dir + ": no protocol action up to version " + std::to_string(target));
  snap.files = replay.TakeFiles();
  return snap;
}

Result<TableSnapshot> OpenDeltaTable(const io::ObjectStorePtr& store, const std::string& root_in,
                                     const DeltaLogOptions& options) {
  const std::string root = TrimTrailingSlash(root_in);
  RAP_ASSIGN_OR_RETURN(DeltaLogSnapshot log, ReadDeltaLog(store, root, options));
  RAP_RETURN_NOT_OK(CheckReaderSupport(log.protocol, log.metadata, root));
  ColumnMappingMode mode = ColumnMappingMode::kNone;
  // The protocol: the mode property counts only on Reader Version 2, or 3 with the columnMapping
  // reader feature.
  const bool mapping_supported =
      log.protocol.min_reader_version == 2 ||
      (log.protocol.min_reader_version == 3 &&
       std::find(log.protocol.reader_features.begin(), log.protocol.reader_features.end(), "columnMapping") !=
           log.protocol.reader_features.end());
  if (auto it = log.metadata.configuration.find("delta.columnMapping.mode");
      mapping_supported && it != log.metadata.configuration.end() && (it->second == "name" || it->second == "id")) {
    mode = it->second == "name" ? ColumnMappingMode::kName : ColumnMappingMode::kId;
  }
  RAP_ASSIGN_OR_RETURN(DeltaSchema schema, ParseDeltaSchema(log.metadata.schema_string, mode));
  TableSnapshot snap;
  snap.kind = TableKind::kDelta;
  snap.format = &DeltaFormat();
  snap.store = store;
  snap.root = root;
  snap.version = log.version;
  snap.schema = schema.schema;
  snap.physical_names = schema.physical_names;
  snap.physical_types = schema.physical_types;
  snap.field_ids = schema.field_ids;
  std::vector<std::string> part_physical;
  for (const std::string& name : log.metadata.partition_columns) {
    int idx = schema.schema->FieldIndex(name);
    if (idx < 0) {
      return Status::Corrupt(root + ": partition column '" + name + "' is not in the table schema");
    }
    snap.partition_columns.push_back(schema.schema->fields[idx]);
    part_physical.push_back(schema.physical_names[idx]);
  }
  for (DeltaAddFile& a : log.files) {
    DataFile f;
    f.deletion_vector = a.dv;
    if (a.path.find("://") != std::string::npos || (!a.path.empty() && a.path[0] == '/') ||
        a.path.rfind("file:", 0) == 0) {
      return Status::NotSupported(root + ": add.path '" + a.path + "' is absolute; only paths relative to the "
                                         "table root are supported");
    }
    RAP_ASSIGN_OR_RETURN(f.relative_path, PercentDecode(a.path, root + ": add.path"));
    f.path = io::JoinPath(root, f.relative_path);
    f.size = a.size < 0 ? 0 : static_cast<uint64_t>(a.size);
    f.modification_time_ms = a.modification_time;
    f.stats_json = std::move(a.stats);
    for (size_t i = 0; i < part_physical.size(); ++i) {
      auto it = a.partition_values.find(part_physical[i]);
      // Without column mapping the physical name is the logical one; with it, only the physical name
      // counts (a logical name can be another column's physical name after renames).
      if (it == a.partition_values.end() && mode == ColumnMappingMode::kNone) {
        it = a.partition_values.find(snap.partition_columns[i].name);
      }
      if (it == a.partition_values.end()) {
        return Status::Corrupt(root + ": add '" + a.path + "' has no partition value for column '" +
                               snap.partition_columns[i].name + "'");
      }
      // The protocol writes an empty string for NULL in some writers; both mean NULL.
      if (it->second && it->second->empty()) f.partition_values.push_back(std::nullopt);
      else f.partition_values.push_back(it->second);
    }
    if (!f.stats_json.empty()) {
      nlohmann::json st = nlohmann::json::parse(f.stats_json, nullptr, false);
      if (!st.is_discarded() && st.is_object() && st.contains("numRecords") && st["numRecords"].is_number_integer()) {
        f.num_records = st["numRecords"].get<int64_t>();
      }
    }
    snap.files.push_back(std::move(f));
  }
  std::sort(snap.files.begin(), snap.files.end(),
            [](const DataFile& a, const DataFile& b) { return a.relative_path < b.relative_path; });
  return snap;
}

}  // namespace rap::table
