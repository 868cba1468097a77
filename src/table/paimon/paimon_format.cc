// Apache Paimon tables through the table-format seam (rap/table/table_format.h, docs/paimon.md):
// detected by their snapshot folder (`snapshot/LATEST` or `snapshot/snapshot-<n>`), opened at a
// snapshot (the latest, or `--snapshot ID`, or the one current at `--as-of`) by reading the snapshot,
// its schema, the base and delta manifest lists and their manifests (paimon_meta.cc): the live data
// files are the ADD entries no DELETE entry removes. An append table is its files. A primary-key
// table is merged on read per bucket (paimon_merge.cc): its files are grouped into sorted runs and
// merged by the primary key and the sequence number, and every row that is not its key's surviving
// version is a deleted row of its file (DeletedRows), so every reader of the seam (scan, cat, the
// Python package, the server, the index) reads the merged table.
#include <algorithm>
#include <cctype>
#include <map>
#include <atomic>
#include <set>
#include <thread>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rap/table/paimon.h"
#include "table/formats.h"
#include "table/paimon/paimon_table.h"
#include "table/path_util.h"
#include "table/small_object.h"

namespace rap::table {

namespace paimon {

namespace {

constexpr uint64_t kMaxMetadataBytes = uint64_t{256} << 20;
constexpr int kMaxSnapshotProbes = 100000;
constexpr size_t kManifestThreads = 8;  // manifests read at once

std::optional<int64_t> ParseId(const std::string& s, std::string_view prefix) {
  if (s.size() <= prefix.size() || s.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  int64_t v = 0;
  for (size_t i = prefix.size(); i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i])) || v > (int64_t{1} << 50)) return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

bool MarksPaimon(const std::vector<std::string>& s) {
  if (s.size() != 2 || s[0] != "snapshot") return false;
  return s[1] == "LATEST" || ParseId(s[1], "snapshot-").has_value();
}

// The ids of `<folder>/<prefix><n>` objects in the listing.
std::vector<int64_t> ListedIds(TableProbe& probe, const char* folder, std::string_view prefix) {
  std::vector<int64_t> out;
  for (const std::string& rel : probe.RelativePaths()) {
    const std::vector<std::string> s = SplitPath(rel);
    if (s.size() != 2 || s[0] != folder) continue;
    if (auto id = ParseId(s[1], prefix)) out.push_back(*id);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  return s;
}

// The latest snapshot id: the LATEST hint, moved forward past any newer snapshot file (the hint may
// lag a commit), else the highest listed; nullopt when the table has no snapshot.
Result<std::optional<int64_t>> LatestSnapshotId(TableProbe& probe) {
  const std::string dir = probe.root() + "/snapshot/";
  auto hint = ReadObject(probe.store(), dir + "LATEST", 64);
  if (hint.ok()) {
    const std::string h = Trimmed(*hint);
    if (auto id = ParseId(h, "")) {
      int64_t n = *id;
      if (probe.store()->Head(dir + "snapshot-" + std::to_string(n)).ok()) {
        for (int i = 0; i < kMaxSnapshotProbes && probe.store()->Head(dir + "snapshot-" + std::to_string(n + 1)).ok();
             ++i) {
          ++n;
        }
        return std::optional<int64_t>(n);
      }
    }
  }
  const std::vector<int64_t> ids = ListedIds(probe, "snapshot", "snapshot-");
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.back());
}

Result<Snapshot> ReadSnapshot(TableProbe& probe, int64_t id) {
  const std::string path = probe.root() + "/snapshot/snapshot-" + std::to_string(id);
  auto text = ReadObject(probe.store(), path, kMaxMetadataBytes);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return Status::NotFound(probe.url() + ": Paimon snapshot " + std::to_string(id) + " does not exist (no " + path +
                              ")");
    }
    return text.status();
  }
  RAP_ASSIGN_OR_RETURN(Snapshot s, ParseSnapshot(*text, path));
  if (s.id != id) {
    return Status::Corrupt(path + ": holds snapshot id " + std::to_string(s.id) + ", not " + std::to_string(id));
  }
  return s;
}

// The snapshot a tag holds: `tag/tag-<name>`, a snapshot's JSON (with the tag's creation time).
Result<Snapshot> ReadTag(TableProbe& probe, const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    return Status::InvalidArgument(probe.url() + ": '" + name + "' is not a Paimon tag name");
  }
  const std::string path = probe.root() + "/tag/tag-" + name;
  auto text = ReadObject(probe.store(), path, kMaxMetadataBytes);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return Status::NotFound(probe.url() + ": Paimon tag '" + name + "' does not exist (no " + path + ")");
    }
    return text.status();
  }
  return ParseSnapshot(*text, path);
}

// The snapshot current at `as_of_ms`: the newest whose commit time is not after it.
Result<Snapshot> SnapshotAsOf(TableProbe& probe, int64_t latest, int64_t as_of_ms) {
  std::vector<int64_t> ids = ListedIds(probe, "snapshot", "snapshot-");
  if (ids.empty()) {
    for (int64_t i = std::max<int64_t>(1, latest - kMaxSnapshotProbes + 1); i <= latest; ++i) ids.push_back(i);
  }
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    auto s = ReadSnapshot(probe, *it);
    if (!s.ok()) {
      if (s.status().code() == StatusCode::kNotFound) break;  // expired
      return s.status();
    }
    if (s->time_ms <= as_of_ms) return std::move(*s);
  }
  return Status::NotFound(probe.url() + ": no Paimon snapshot was committed at or before " + std::to_string(as_of_ms) +
                          " ms since the epoch (of the snapshots still kept)");
}

Result<TableSchema> ReadSchema(TableProbe& probe, int64_t id) {
  const std::string path = probe.root() + "/schema/schema-" + std::to_string(id);
  RAP_ASSIGN_OR_RETURN(std::string text, ReadObject(probe.store(), path, kMaxMetadataBytes));
  RAP_ASSIGN_OR_RETURN(TableSchema s, ParseSchema(text, path));
  if (s.id != id) return Status::Corrupt(path + ": holds schema id " + std::to_string(s.id));
  return s;
}

// Schema evolution: the in-file names of `schema`'s fields in a data file written under `file_schema`,
// matched by field id as Paimon does (a renamed column keeps its id; an added one is "", read as
// NULL; a dropped one is not in `schema`); empty when every name is the same. A column whose type
// changed, and a primary key whose columns are named otherwise in the file, are NotSupported.
Result<std::vector<std::string>> EvolvedNames(const TableSchema& schema, const TableSchema& file_schema,
                                              const std::string& where) {
  std::vector<std::string> names;
  bool same = true;
  for (const SchemaField& f : schema.fields) {
    const SchemaField* old = nullptr;
    for (const SchemaField& g : file_schema.fields) {
      if (g.id == f.id) {
        old = &g;
        break;
      }
    }
    if (old && old->type->ToString() != f.type->ToString()) {
      return Status::NotSupported(fmt::format(
          "{}: column '{}' (field id {}) is {} in schema {} of the file and {} in schema {}; rap does not convert "
          "column types across schema versions",
          where, f.name, f.id, old->type->ToString(), file_schema.id, f.type->ToString(), schema.id));
    }
    names.push_back(old ? old->name : std::string());
    same = same && old && old->name == f.name;
  }
  if (file_schema.primary_keys != schema.primary_keys) {
    return Status::NotSupported(fmt::format("{}: the primary key is ({}) in schema {} of the file and ({}) in schema {}",
                                            where, fmt::join(file_schema.primary_keys, ", "), file_schema.id,
                                            fmt::join(schema.primary_keys, ", "), schema.id));
  }
  if (same) names.clear();
  return names;
}

Result<std::vector<avro::Value>> ReadRecords(TableProbe& probe, const std::string& name) {
  const std::string path = probe.root() + "/manifest/" + name;
  RAP_ASSIGN_OR_RETURN(std::string bytes, ReadObject(probe.store(), path, kMaxMetadataBytes));
  return ReadManifestRecords(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                             path);
}

// Reads and parses the manifests `names`, up to kManifestThreads at once; the results in `names` order
// (the first error in that order wins).
Result<std::vector<std::vector<ManifestEntry>>> ReadManifests(TableProbe& probe, const std::vector<std::string>& names) {
  std::vector<Result<std::vector<ManifestEntry>>> results(names.size(), Status::Internal("not read"));
  const io::ObjectStorePtr store = probe.store();
  const std::string root = probe.root();
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < names.size(); i = next++) {
      const std::string path = root + "/manifest/" + names[i];
      auto bytes = ReadObject(store, path, kMaxMetadataBytes);
      if (!bytes.ok()) {
        results[i] = bytes.status();
        continue;
      }
      auto records = ReadManifestRecords(
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()), path);
      results[i] = records.ok() ? ParseManifest(*records, path) : Result<std::vector<ManifestEntry>>(records.status());
    }
  };
  std::vector<std::thread> threads;
  const size_t n = std::min(names.size(), kManifestThreads);
  for (size_t t = 1; t < n; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  std::vector<std::vector<ManifestEntry>> out;
  for (auto& r : results) {
    if (!r.ok()) return r.status();
    out.push_back(std::move(*r));
  }
  return out;
}

// Hive-style escaping of a partition value in a path (Paimon's PartitionPathUtils.escapePathName).
std::string EscapePathName(const std::string& v) {
  static const std::string kSpecial = "\"#%'*/:=?\\\x7f{[]^";
  std::string out;
  for (unsigned char c : v) {
    if (c < 0x20 || kSpecial.find(static_cast<char>(c)) != std::string::npos) {
      static const char* hex = "0123456789ABCDEF";
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string DatumText(const Datum& d) {
  if (std::holds_alternative<int64_t>(d)) return std::to_string(std::get<int64_t>(d));
  if (std::holds_alternative<std::string>(d)) return std::get<std::string>(d);
  return "";
}

// The folder of a partition ("f1=10/", "" unpartitioned) from its BinaryRow; NotSupported for
// partition types whose directory names rap does not derive (the listing is asked instead).
Result<std::string> PartitionDir(const TableSchema& schema, const std::string& partition, const std::string& what) {
  if (schema.partition_keys.empty()) return std::string();
  std::vector<std::string> types;
  for (const std::string& k : schema.partition_keys) {
    const std::string& t = schema.Field(k)->type_name;
    if (t != "TINYINT" && t != "SMALLINT" && t != "INT" && t != "INTEGER" && t != "BIGINT" && t != "CHAR" &&
        t != "VARCHAR" && t != "STRING") {
      return Status::NotSupported(what + ": partition column " + k + " of type " + t);
    }
    types.push_back(t);
  }
  RAP_ASSIGN_OR_RETURN(std::vector<Datum> values, DecodeBinaryRow(partition, types, what));
  const std::string null_name = schema.Option("partition.default-name", "__DEFAULT_PARTITION__");
  std::string dir;
  for (size_t i = 0; i < values.size(); ++i) {
    const bool null = std::holds_alternative<std::monostate>(values[i]);
    dir += EscapePathName(schema.partition_keys[i]) + "=" + (null ? null_name : EscapePathName(DatumText(values[i]))) +
           "/";
  }
  return dir;
}

struct EntryKey {
  std::string partition;
  int32_t bucket;
  int32_t level;
  std::string file_name;
  bool operator<(const EntryKey& o) const {
    return std::tie(partition, bucket, level, file_name) < std::tie(o.partition, o.bucket, o.level, o.file_name);
  }
};

struct DvKey {
  std::string partition;
  int32_t bucket;
  std::string data_file;
  bool operator<(const DvKey& o) const {
    return std::tie(partition, bucket, data_file) < std::tie(o.partition, o.bucket, o.data_file);
  }
};

// The deletion vectors of the snapshot's index manifest: its live DELETION_VECTORS index files (the
// ADD entries no DELETE entry removes) and, in each, the vector of each data file. An index file is
// `index/<name>` (or, with index-file-in-data-file-dir, `bucket-<n>/<name>` in the listing).
Result<std::map<DvKey, DeletionVectorRef>> ReadDeletionVectorIndex(
    TableProbe& probe, const Snapshot& snap, const std::map<std::string, std::vector<std::string>>& listed,
    const std::set<std::string>& in_index_dir) {
  std::map<DvKey, DeletionVectorRef> out;
  if (snap.index_manifest.empty()) return out;
  const std::string what = probe.root() + "/manifest/" + snap.index_manifest;
  RAP_ASSIGN_OR_RETURN(std::vector<avro::Value> records, ReadRecords(probe, snap.index_manifest));
  RAP_ASSIGN_OR_RETURN(std::vector<IndexManifestEntry> entries, ParseIndexManifest(records, what));
  for (const IndexManifestEntry* e : LiveIndexEntries(entries)) {
    if (e->index_type != "DELETION_VECTORS") continue;  // HASH: dynamic bucket indexes, not needed to read
    if (e->external_path) {
      return Status::NotSupported(what + ": deletion-vector index file " + e->file_name + " has an external path (" +
                                  *e->external_path + "), which rap does not read yet");
    }
    std::string rel = "index/" + e->file_name;
    if (!in_index_dir.count(e->file_name)) {
      auto hit = listed.find("bucket-" + std::to_string(e->bucket) + "/" + e->file_name);
      if (hit != listed.end() && hit->second.size() == 1) rel = hit->second.front();
    }
    const std::string path = probe.root().empty() ? rel : probe.root() + "/" + rel;
    for (const DeletionVectorRange& r : e->deletion_vectors) {
      auto [it, added] = out.emplace(DvKey{e->partition, e->bucket, r.data_file}, DeletionVectorRef{path, r});
      if (!added) {
        return Status::Corrupt(what + ": data file " + r.data_file + " has deletion vectors in two index files (" +
                               it->second.index_path + " and " + path + ")");
      }
    }
  }
  return out;
}

class PaimonTableFormat : public TableFormat {
 public:
  std::string_view name() const override { return "paimon"; }

  Result<bool> Detect(TableProbe& probe) const override {
    for (const std::string& rel : probe.RelativePaths()) {
      if (MarksPaimon(SplitPath(rel))) return true;
    }
    return false;
  }

  Result<TableSnapshot> Open(TableProbe& probe, const OpenTableOptions& options) const override {
    if (options.version) {
      return Status::InvalidArgument(probe.url() + ": a Paimon table is read at a snapshot (--snapshot ID or --as-of "
                                                   "TIME), not a Delta version");
    }
    RAP_ASSIGN_OR_RETURN(std::optional<int64_t> latest, LatestSnapshotId(probe));
    if (!latest) return Status::NotFound(probe.url() + ": a Paimon table without a snapshot (snapshot/ is empty)");
    Snapshot snap;
    if (options.tag) {
      if (options.snapshot_id || options.as_of_ms) {
        return Status::InvalidArgument(probe.url() + ": a Paimon table is read at a tag, a snapshot id or a time, "
                                                     "not at two of them");
      }
      RAP_ASSIGN_OR_RETURN(snap, ReadTag(probe, *options.tag));
    } else if (options.snapshot_id) {
      RAP_ASSIGN_OR_RETURN(snap, ReadSnapshot(probe, *options.snapshot_id));
    } else if (options.as_of_ms) {
      RAP_ASSIGN_OR_RETURN(snap, SnapshotAsOf(probe, *latest, *options.as_of_ms));
    } else {
      RAP_ASSIGN_OR_RETURN(snap, ReadSnapshot(probe, *latest));
    }
    // The latest snapshot reads with the table's latest schema; time travel with the snapshot's own.
    int64_t schema_id = snap.schema_id;
    if (!options.snapshot_id && !options.as_of_ms && !options.tag) {
      const std::vector<int64_t> ids = ListedIds(probe, "schema", "schema-");
      if (!ids.empty() && ids.back() > schema_id) schema_id = ids.back();
    }
    auto state = std::make_shared<PaimonState>();
    RAP_ASSIGN_OR_RETURN(state->schema, ReadSchema(probe, schema_id));
    const TableSchema& schema = state->schema;
    state->snapshot = snap;
    RAP_RETURN_NOT_OK(CheckOptions(probe.url(), schema, state.get()));

    // The live files: every ADD entry of the base and delta manifests that no DELETE entry removes.
    std::vector<ManifestEntry> adds;
    std::set<EntryKey> deleted;
    std::vector<std::string> manifest_names;
    for (const std::string* list : {&snap.base_manifest_list, &snap.delta_manifest_list}) {
      RAP_ASSIGN_OR_RETURN(std::vector<avro::Value> records, ReadRecords(probe, *list));
      RAP_ASSIGN_OR_RETURN(std::vector<ManifestMeta> manifests,
                           ParseManifestList(records, probe.root() + "/manifest/" + *list));
      for (const ManifestMeta& m : manifests) manifest_names.push_back(m.file_name);
    }
    // The manifests are read several at once (their round trips overlap), then taken in list order.
    RAP_ASSIGN_OR_RETURN(std::vector<std::vector<ManifestEntry>> manifests, ReadManifests(probe, manifest_names));
    for (std::vector<ManifestEntry>& parsed : manifests) {
      for (ManifestEntry& e : parsed) {
        if (e.kind == 1) {
          deleted.insert(EntryKey{e.partition, e.bucket, e.file.level, e.file.file_name});
        } else {
          adds.push_back(std::move(e));
        }
      }
    }
    // Where the listing has each data file: "bucket-<n>/<name>" -> relative paths.
    std::map<std::string, std::vector<std::string>> listed;
    std::set<std::string> in_index_dir;  // names under index/
    for (const std::string& rel : probe.RelativePaths()) {
      const std::vector<std::string> s = SplitPath(rel);
      if (s.size() >= 2) listed[s[s.size() - 2] + "/" + s.back()].push_back(rel);
      if (s.size() == 2 && s[0] == "index") in_index_dir.insert(s[1]);
    }
    // Deletion vectors: (partition, bucket, data file name) -> where its vector is.
    RAP_ASSIGN_OR_RETURN(auto dvs, ReadDeletionVectorIndex(probe, snap, listed, in_index_dir));
    TableSnapshot out;
    out.kind = TableKind::kDirectory;
    out.format = this;
    out.store = probe.store();
    out.root = probe.root();
    out.version = snap.id;
    auto arrow_schema = std::make_shared<Schema>();
    for (const SchemaField& f : schema.fields) {
      arrow_schema->fields.push_back(Field{f.name, f.type, f.nullable});
      out.physical_names.push_back(f.name);
    }
    out.schema = arrow_schema;
    std::map<std::pair<std::string, int32_t>, size_t> bucket_index;
    std::map<int64_t, TableSchema> file_schemas;  // schemas of files written under another schema
    for (ManifestEntry& e : adds) {
      if (deleted.count(EntryKey{e.partition, e.bucket, e.file.level, e.file.file_name})) continue;
      // A first-row table's batch scan skips level-0 files (Paimon's batchScanSkipLevel0): its lookup
      // compaction moves a key's first row out of level 0, and what is still there is not visible yet.
      // So does a primary-key table with deletion vectors (unless deletion-vectors.merge-on-read):
      // its compaction marks the older versions of the keys it moves out of level 0 deleted.
      if (state->skip_level0 && e.file.level == 0) continue;
      const std::string where = probe.root() + ": data file " + e.file.file_name;
      if (e.file.partial_columns) {
        return Status::NotSupported(where + " holds some of the columns only (_WRITE_COLS: a data-evolution column "
                                            "update), which rap does not read");
      }
      if (e.bucket == -2) {
        return Status::NotSupported(where + " is in a postpone bucket (bucket = -2), which rap does not read");
      }
      if (e.file.external_path) {
        return Status::NotSupported(where + " has an external path (" + *e.file.external_path +
                                    "), which rap does not read yet");
      }
      const std::string tail = "bucket-" + std::to_string(e.bucket) + "/" + e.file.file_name;
      std::string rel;
      auto dir = PartitionDir(schema, e.partition, where + ": partition");
      if (dir.ok()) rel = *dir + tail;
      auto hit = listed.find(tail);
      if (hit != listed.end() && (rel.empty() || std::find(hit->second.begin(), hit->second.end(), rel) ==
                                                     hit->second.end())) {
        if (hit->second.size() == 1) rel = hit->second.front();
      }
      if (rel.empty()) return dir.status();
      DataFile df;
      df.relative_path = rel;
      df.path = probe.root().empty() ? rel : probe.root() + "/" + rel;
      df.size = static_cast<uint64_t>(e.file.file_size);
      df.num_records = e.file.row_count;
      if (e.file.schema_id != schema.id) {
        auto known = file_schemas.find(e.file.schema_id);
        if (known == file_schemas.end()) {
          RAP_ASSIGN_OR_RETURN(TableSchema fs, ReadSchema(probe, e.file.schema_id));
          known = file_schemas.emplace(e.file.schema_id, std::move(fs)).first;
        }
        RAP_ASSIGN_OR_RETURN(df.physical_names, EvolvedNames(schema, known->second, where));
      }
      const auto key = std::make_pair(e.partition, e.bucket);
      auto [it, added] = bucket_index.emplace(key, state->buckets.size());
      if (added) {
        state->buckets.emplace_back();
        state->buckets.back().partition = e.partition;
        state->buckets.back().bucket = e.bucket;
      }
      BucketFile bf{df.path, e.file, std::nullopt};
      if (auto dv = dvs.find(DvKey{e.partition, e.bucket, e.file.file_name}); dv != dvs.end()) {
        bf.dv = dv->second;
        state->buckets[it->second].has_dv = true;
      }
      state->buckets[it->second].files.push_back(std::move(bf));
      state->bucket_of[df.path] = it->second;
      out.files.push_back(std::move(df));
    }
    for (Bucket& b : state->buckets) b.needs_merge = state->primary_key && NeedsMerge(b, *state);
    for (DataFile& df : out.files) {
      const Bucket& b = state->buckets[state->bucket_of[df.path]];
      df.format_deletes = b.needs_merge || b.has_dv;
    }
    // Columns are found by name in each file, the names of the file's own schema (EvolvedNames).
    std::sort(out.files.begin(), out.files.end(),
              [](const DataFile& a, const DataFile& b) { return a.relative_path < b.relative_path; });
    std::vector<bool> ordered(state->buckets.size(), false);
    for (const DataFile& df : out.files) {
      const size_t b = state->bucket_of[df.path];
      if (!ordered[b]) state->scan_order.push_back(b);
      ordered[b] = true;
    }
    out.format_state = state;
    return out;
  }

  Result<std::vector<uint64_t>> DeletedRows(const TableSnapshot& snapshot, const DataFile& file) const override {
    auto state = std::dynamic_pointer_cast<const PaimonState>(snapshot.format_state);
    if (!state) return Status::Internal(file.path + ": a Paimon snapshot without its state");
    return BucketDeletedRows(snapshot, *state, file.path, MergeAhead::kEveryBucket);
  }

  bool DeletesOnDemand() const override { return true; }
  Result<std::vector<uint64_t>> DeletedRowsOnDemand(const TableSnapshot& snapshot, const DataFile& file) const override {
    auto state = std::dynamic_pointer_cast<const PaimonState>(snapshot.format_state);
    if (!state) return Status::Internal(file.path + ": a Paimon snapshot without its state");
    return BucketDeletedRows(snapshot, *state, file.path, MergeAhead::kFromThisBucket);
  }

 private:
  // The options rap reads, and those it refuses (NotSupported naming them).
  static Status CheckOptions(const std::string& url, const TableSchema& schema, PaimonState* state) {
    state->primary_key = !schema.primary_keys.empty();
    const std::string engine = schema.Option("merge-engine", "deduplicate");
    state->merge_engine = engine;
    if (state->primary_key && engine != "deduplicate" && engine != "first-row") {
      return Status::NotSupported(url + ": a Paimon primary-key table with the '" + engine +
                                  "' merge engine; rap reads the 'deduplicate' and 'first-row' merge engines");
    }
    if (state->primary_key && !schema.Option("sequence.field", "").empty()) {
      return Status::NotSupported(url + ": a Paimon primary-key table with a sequence.field (" +
                                  schema.Option("sequence.field", "") + "), which rap does not merge by");
    }
    state->deletion_vectors = schema.Option("deletion-vectors.enabled", "false") == "true";
    state->skip_level0 = state->primary_key &&
                         (engine == "first-row" ||
                          (state->deletion_vectors && schema.Option("deletion-vectors.merge-on-read", "false") != "true"));
    if (state->primary_key) {
      // The key columns in the data files: the primary key without the partition columns (unless that
      // leaves none), each "_KEY_<name>" (or the value column itself in a thin-mode file).
      std::vector<std::string> trimmed;
      for (const std::string& k : schema.primary_keys) {
        if (std::find(schema.partition_keys.begin(), schema.partition_keys.end(), k) == schema.partition_keys.end()) {
          trimmed.push_back(k);
        }
      }
      if (trimmed.empty()) trimmed = schema.primary_keys;
      const bool thin = schema.Option("data-file.thin-mode", "false") == "true";
      for (const std::string& k : trimmed) {
        state->key_columns.push_back(thin ? k : "_KEY_" + k);
        state->key_types.push_back(schema.Field(k)->type_name);
      }
    }
    auto bucket = schema.Option("bucket", "-1");
    state->bucket_option = static_cast<int32_t>(std::strtol(bucket.c_str(), nullptr, 10));
    return Status::OK();
  }

  // A bucket is merged when its files are more than one sorted run, or may hold -U/-D rows (a
  // first-row bucket, of level >= 1 files only, holds each key once: merged only for -U/-D rows).
  // With deletion vectors, as Paimon reads them: a bucket of level >= 1 files without -U/-D rows (an
  // unknown count is none, as Paimon takes it) is read as it is, its deletion vectors applied (the
  // compaction that wrote the vectors left each key once); otherwise it is merged, the vectors' rows
  // left out of the merge.
  static bool NeedsMerge(const Bucket& b, const PaimonState& state) {
    const std::string& engine = state.merge_engine;
    if (state.deletion_vectors) {
      for (const BucketFile& f : b.files) {
        if (f.meta.level == 0 || (f.meta.delete_row_count && *f.meta.delete_row_count > 0)) return true;
      }
      return false;
    }
    int level0 = 0;
    std::set<int32_t> levels;
    for (const BucketFile& f : b.files) {
      if (f.meta.level == 0) ++level0;
      else levels.insert(f.meta.level);
      if (!f.meta.delete_row_count || *f.meta.delete_row_count > 0) return true;
    }
    return engine != "first-row" && level0 + static_cast<int>(levels.size()) > 1;
  }
};

}  // namespace

Result<std::string> ReadObject(const io::ObjectStorePtr& store, const std::string& path, uint64_t limit) {
  return ReadSmallObject(store, path, limit, "Paimon metadata files");
}

}  // namespace paimon

const TableFormat& PaimonFormat() {
  static const paimon::PaimonTableFormat format;
  return format;
}

bool IsPaimonSystemColumn(std::string_view name) {
  return name == "_SEQUENCE_NUMBER" || name == "_VALUE_KIND" || name.substr(0, 5) == "_KEY_";
}

Status CheckPaimonIndexable(const TableSnapshot& snapshot) {
  if (snapshot.format != &PaimonFormat()) return Status::OK();
  for (const DataFile& f : snapshot.files) {
    if (f.physical_names.empty()) continue;
    for (size_t i = 0; i < f.physical_names.size() && i < snapshot.schema->fields.size(); ++i) {
      if (f.physical_names[i] != snapshot.schema->fields[i].name) {
        return Status::NotSupported(snapshot.root + ": Paimon data file " + f.relative_path + " was written under " +
                                    "an older schema (column '" + snapshot.schema->fields[i].name + "' is " +
                                    (f.physical_names[i].empty() ? std::string("not in it")
                                                                 : "'" + f.physical_names[i] + "' there") +
                                    "); the index reads columns by the table's names and does not index it yet");
      }
    }
  }
  return Status::OK();
}

Result<PaimonTableInfo> PaimonInfo(const TableSnapshot& snapshot) {
  auto state = std::dynamic_pointer_cast<const paimon::PaimonState>(snapshot.format_state);
  if (snapshot.format != &PaimonFormat() || !state) {
    return Status::InvalidArgument(snapshot.root + ": not a Paimon table");
  }
  PaimonTableInfo info;
  info.snapshot_id = state->snapshot.id;
  info.schema_id = state->schema.id;
  info.commit_kind = state->snapshot.commit_kind;
  info.primary_keys = state->schema.primary_keys;
  info.partition_keys = state->schema.partition_keys;
  info.merge_engine = state->primary_key ? state->merge_engine : "";
  info.buckets = state->bucket_option;
  std::lock_guard<std::mutex> lock(state->mu);
  info.merge = state->counters;
  info.merge.buckets = static_cast<int64_t>(state->buckets.size());
  return info;
}

}  // namespace rap::table
