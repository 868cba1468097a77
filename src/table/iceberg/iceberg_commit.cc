// A `replace` snapshot of an Iceberg table (rap/table/iceberg_commit.h): the manifest of the new
// data files (their partition tuples under the default spec: iceberg_commit_partition.h), the manifest
// list, and the next metadata file (the previous one's JSON with the snapshot, its log entries, the
// `main` ref and the name mapping added), created if absent.
#include "rap/table/iceberg_commit.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>

#include "rap/avro/container_writer.h"
#include "rap/avro/object_container.h"
#include "rap/io/crash_point.h"
#include "rap/table/iceberg_metadata.h"
#include "rap/util/uuid.h"
#include "table/iceberg/iceberg_commit_partition.h"
#include "table/iceberg/iceberg_manifest_schemas.h"
#include "table/iceberg/iceberg_table.h"
#include "table/path_util.h"

namespace rap::table::iceberg {
namespace {

using ojson = nlohmann::ordered_json;

// A random snapshot id (positive, as Iceberg's own writers make them).
int64_t NewSnapshotId() {
  std::random_device rd;
  const uint64_t v = (static_cast<uint64_t>(rd()) << 32) | rd();
  return static_cast<int64_t>(v & 0x7fffffffffffffffULL) | 1;
}


// The name-mapping entries of a struct's fields (the Iceberg schema JSON's `fields`), keeping the
// names `old` (the table's mapping, if any) gave the same ids.
ojson MappingOf(const ojson& fields, const ojson* old);

ojson OldEntry(const ojson* old, int64_t id) {
  if (!old || !old->is_array()) return ojson();
  for (const ojson& e : *old) {
    if (e.is_object() && e.value("field-id", int64_t{-1}) == id) return e;
  }
  return ojson();
}

ojson MappingEntry(int64_t id, const std::string& name, const ojson& type, const ojson* old) {
  ojson entry = {{"field-id", id}, {"names", ojson::array({name})}};
  const ojson prev = OldEntry(old, id);
  if (prev.contains("names") && prev["names"].is_array()) {
    for (const ojson& n : prev["names"]) {
      if (n.is_string() && n.get<std::string>() != name) entry["names"].push_back(n);
    }
  }
  const ojson* prev_fields = prev.contains("fields") ? &prev["fields"] : nullptr;
  if (type.is_object()) {
    const std::string kind = type.value("type", "");
    if (kind == "struct" && type.contains("fields")) {
      entry["fields"] = MappingOf(type["fields"], prev_fields);
    } else if (kind == "list") {
      entry["fields"] = ojson::array(
          {MappingEntry(type.value("element-id", int64_t{0}), "element", type.value("element", ojson()), prev_fields)});
    } else if (kind == "map") {
      entry["fields"] = ojson::array(
          {MappingEntry(type.value("key-id", int64_t{0}), "key", type.value("key", ojson()), prev_fields),
           MappingEntry(type.value("value-id", int64_t{0}), "value", type.value("value", ojson()), prev_fields)});
    }
  }
  return entry;
}

ojson MappingOf(const ojson& fields, const ojson* old) {
  ojson out = ojson::array();
  for (const ojson& f : fields) {
    if (!f.is_object()) continue;
    out.push_back(MappingEntry(f.value("id", int64_t{0}), f.value("name", ""), f.value("type", ojson()), old));
  }
  return out;
}

// The current schema's JSON object in the metadata (v1 metadata may have only the legacy `schema`).
Result<ojson> CurrentSchema(const ojson& meta, const std::string& what) {
  const int64_t id = meta.value("current-schema-id", int64_t{0});
  if (meta.contains("schemas") && meta["schemas"].is_array()) {
    for (const ojson& s : meta["schemas"]) {
      if (s.is_object() && s.value("schema-id", int64_t{0}) == id) return s;
    }
  } else if (meta.contains("schema") && meta["schema"].is_object()) {
    return meta["schema"];
  }
  return Status::Corrupt(what + ": current-schema-id " + std::to_string(id) + " names no schema");
}

// The next metadata file's name after `name`: "v12.metadata.json" -> "v13.metadata.json",
// "00012-<uuid>.metadata.json" -> "00013-<new uuid>.metadata.json".
Result<std::string> NextMetadataName(const std::string& name, int64_t* version) {
  static const std::regex hadoop(R"(v([0-9]{1,18})\.metadata\.json)");
  static const std::regex numbered(R"(([0-9]{1,18})-.*\.metadata\.json)");
  std::smatch m;
  if (std::regex_match(name, m, hadoop)) {
    *version = std::stoll(m[1].str()) + 1;
    return fmt::format("v{}.metadata.json", *version);
  }
  if (std::regex_match(name, m, numbered)) {
    *version = std::stoll(m[1].str()) + 1;
    return fmt::format("{:05d}-{}.metadata.json", *version, RandomUuid());
  }
  return Status::NotSupported(name + ": the metadata file's name carries no version (vN.metadata.json or "
                                     "NNNNN-<uuid>.metadata.json), so rap cannot name the next one");
}

Status PutNew(io::ObjectStore& store, const std::string& path, std::string bytes) {
  return store.PutIfAbsent(path, Buffer::FromString(std::move(bytes)));
}

// A manifest list entry (manifest_file) of format version `version` (v1 has no content and no
// sequence numbers, and names its counts *_data_files_count).
struct ListCounts {
  int64_t added_files = 0, deleted_files = 0, added_rows = 0, deleted_rows = 0;
};
avro::Value ListEntry(int version, const std::string& path, int64_t length, int64_t spec_id, int64_t content,
                      int64_t seq, int64_t min_seq, int64_t id, const ListCounts& n, avro::Value partitions) {
  const bool v1 = version == 1;
  std::vector<std::pair<std::string, avro::Value>> f = {{"manifest_path", avro::Value::String(path)},
                                                        {"manifest_length", avro::Value::Long(length)},
                                                        {"partition_spec_id", avro::Value::Int(spec_id)}};
  if (!v1) {
    f.push_back({"content", avro::Value::Int(content)});
    f.push_back({"sequence_number", avro::Value::Long(seq)});
    f.push_back({"min_sequence_number", avro::Value::Long(min_seq)});
  }
  f.push_back({"added_snapshot_id", avro::Value::Long(id)});
  f.push_back({v1 ? "added_data_files_count" : "added_files_count", avro::Value::Int(n.added_files)});
  f.push_back({v1 ? "existing_data_files_count" : "existing_files_count", avro::Value::Int(0)});
  f.push_back({v1 ? "deleted_data_files_count" : "deleted_files_count", avro::Value::Int(n.deleted_files)});
  f.push_back({"added_rows_count", avro::Value::Long(n.added_rows)});
  f.push_back({"existing_rows_count", avro::Value::Long(0)});
  f.push_back({"deleted_rows_count", avro::Value::Long(n.deleted_rows)});
  f.push_back({"partitions", std::move(partitions)});
  return avro::Value::Record(std::move(f));
}

// A manifest of DELETED entries (written to `name` under metadata/) and its manifest list entry.
struct DeletedManifest {
  std::string name, bytes;
  avro::Value list_entry;
  int64_t files = 0, rows = 0;
};

// Every live entry of the replaced snapshot as a DELETED entry of snapshot `id` (the spec: data and
// file sequence numbers explicit, as they were): one manifest per manifest of that snapshot with
// live entries, in that manifest's own Avro schema and header (its partition spec), so incremental
// readers and snapshot expiry see the files leave the table.
Result<std::vector<DeletedManifest>> DeletedManifests(const TableSnapshot& snapshot, const IcebergState& state,
                                                      const ojson& meta, int version, int64_t id, int64_t seq,
                                                      const std::string& base, const std::string& token) {
  std::string list_path;
  for (const ojson& sn : meta.value("snapshots", ojson::array())) {
    if (sn.is_object() && sn.value("snapshot-id", int64_t{-1}) == snapshot.version) {
      list_path = sn.value("manifest-list", std::string());
    }
  }
  if (list_path.empty()) return std::vector<DeletedManifest>{};
  const LocationMap locations(state.location_map, meta.value("location", std::string()), snapshot.root);
  auto read = [&](const std::string& uri) -> Result<avro::ContainerFile> {
    RAP_ASSIGN_OR_RETURN(std::string path, locations.Resolve(uri));
    RAP_ASSIGN_OR_RETURN(std::string bytes, ReadObject(snapshot.store, path, uint64_t{256} << 20));
    return avro::ReadContainerFile({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, path);
  };
  RAP_ASSIGN_OR_RETURN(avro::ContainerFile list, read(list_path));
  std::vector<DeletedManifest> out;
  for (const avro::Value& m : list.records) {
    const avro::Value* path = m.Find("manifest_path");
    if (!path) return Status::Corrupt(list_path + ": a manifest list entry without manifest_path");
    int64_t manifest_seq = 0, spec_id = 0, content = 0;
    m.GetInt("sequence_number", &manifest_seq);
    m.GetInt("partition_spec_id", &spec_id);
    m.GetInt("content", &content);
    RAP_ASSIGN_OR_RETURN(avro::ContainerFile manifest, read(path->bytes));
    DeletedManifest d;
    std::vector<avro::Value> entries;
    int64_t min_seq = INT64_MAX;
    for (const avro::Value& e : manifest.records) {
      int64_t status = 0;
      if (!e.GetInt("status", &status) || status == 2) continue;
      avro::Value x = e;
      int64_t data_seq = manifest_seq, file_seq = manifest_seq, rows = 0;
      e.GetInt("sequence_number", &data_seq);
      e.GetInt("file_sequence_number", &file_seq);
      if (const avro::Value* df = e.Find("data_file")) df->GetInt("record_count", &rows);
      x.Set("status", avro::Value::Int(2));
      x.Set("snapshot_id", avro::Value::Long(id));
      x.Set("sequence_number", avro::Value::Long(data_seq));
      x.Set("file_sequence_number", avro::Value::Long(file_seq));
      entries.push_back(std::move(x));
      min_seq = std::min(min_seq, data_seq);
      ++d.files;
      d.rows += rows;
    }
    if (entries.empty()) continue;
    std::map<std::string, std::string> header;
    for (const auto& [k, v] : manifest.metadata) {
      if (k.rfind("avro.", 0) != 0) header[k] = v;
    }
    d.name = fmt::format("{}-rap-{}-d{}.avro", RandomUuid(), token, out.size());
    RAP_ASSIGN_OR_RETURN(d.bytes, avro::WriteContainerFile(manifest.schema_json, entries, header, d.name));
    const avro::Value* partitions = m.Find("partitions");
    ListCounts n;
    n.deleted_files = d.files;
    n.deleted_rows = d.rows;
    d.list_entry = ListEntry(version, base + "/metadata/" + d.name, static_cast<int64_t>(d.bytes.size()), spec_id,
                             content, seq, min_seq, id, n, partitions ? *partitions : avro::Value::Null());
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

Status CheckReplace(const TableSnapshot& snapshot, const std::string& table_url) {
  auto state = std::dynamic_pointer_cast<const IcebergState>(snapshot.format_state);
  if (!state) return Status::InvalidArgument(table_url + ": not an Iceberg table");
  RAP_ASSIGN_OR_RETURN(TableMetadata meta, ParseTableMetadata(state->metadata_json, state->metadata_path));
  if (meta.format_version >= 3) {
    return Status::NotSupported(table_url + ": an Iceberg v3 table: a rewrite would have to carry every row's "
                                            "_row_id and _last_updated_sequence_number (row lineage); not built");
  }
  if (!meta.current_snapshot_id || snapshot.version != *meta.current_snapshot_id) {
    return Status::InvalidArgument(table_url + ": --in-place rewrites the table's current snapshot, not snapshot " +
                                   std::to_string(snapshot.version));
  }
  return Status::OK();
}

namespace {

// What a replace commit writes under metadata/ before its metadata file: named objects and bytes.
struct Objects {
  std::vector<std::pair<std::string, std::string>> files;  // name, bytes
};

// Whether an Iceberg primitive type's single-value serialization (its bounds) is the Parquet
// Statistics encoding of a column of `kind` (little-endian ints and floats, the bytes of strings and
// binaries).
bool PlainBounds(const std::string& type, parquet::StatsKind kind) {
  using K = parquet::StatsKind;
  if (type == "boolean") return kind == K::kBool;
  if (type == "int" || type == "date") return kind == K::kInt32;
  if (type == "long" || type == "time" || type.rfind("timestamp", 0) == 0) return kind == K::kInt64;
  if (type == "float") return kind == K::kFloat;
  if (type == "double") return kind == K::kDouble;
  if (type == "string" || type == "binary") return kind == K::kBytesUnsigned;
  return false;  // decimal (minimal big-endian bytes), uuid, fixed: no bounds written
}

// A new file's data_file metrics, keyed by the top-level columns' field ids.
std::vector<std::pair<std::string, avro::Value>> Metrics(const NewDataFile& f, const IcebergSchema& schema) {
  std::vector<avro::Value> sizes, values, nulls, lower, upper;
  auto pair = [](int32_t id, avro::Value v) { return avro::Value::Record({{"key", avro::Value::Int(id)}, {"value", v}}); };
  for (const NewColumnStats& c : f.columns) {
    const int i = schema.schema ? schema.schema->FieldIndex(c.name) : -1;
    if (i < 0 || static_cast<size_t>(i) >= schema.field_ids.size() || !schema.field_ids[i].id) continue;
    const int32_t id = *schema.field_ids[static_cast<size_t>(i)].id;
    sizes.push_back(pair(id, avro::Value::Long(c.size)));
    values.push_back(pair(id, avro::Value::Long(c.values)));
    if (c.nulls) nulls.push_back(pair(id, avro::Value::Long(*c.nulls)));
    auto type = schema.primitive.find(id);
    if (c.min && c.max && type != schema.primitive.end() && PlainBounds(type->second, c.kind)) {
      lower.push_back(pair(id, avro::Value::Bytes(*c.min)));
      upper.push_back(pair(id, avro::Value::Bytes(*c.max)));
    }
  }
  return {{"column_sizes", avro::Value::Array(std::move(sizes))},
          {"value_counts", avro::Value::Array(std::move(values))},
          {"null_value_counts", avro::Value::Array(std::move(nulls))},
          {"lower_bounds", avro::Value::Array(std::move(lower))},
          {"upper_bounds", avro::Value::Array(std::move(upper))}};
}

// The manifest of the new files (ADDED entries, sequence numbers inherited from the list; each file's
// partition tuple under the default spec `spec`) and its manifest list entry (with the tuples'
// summaries).
Result<avro::Value> AddedManifest(int version, const std::vector<NewDataFile>& files, const ojson& schema,
                                  const IcebergSchema& iceberg_schema, const PartitionSpec& spec,
                                  const std::string& base, int64_t id, int64_t seq, const std::string& token,
                                  Objects* objects) {
  std::vector<avro::Value> entries;
  std::vector<std::vector<avro::Value>> tuples;
  int64_t rows = 0;
  const std::string what = base + ": partition spec " + std::to_string(spec.spec_id);
  RAP_ASSIGN_OR_RETURN(const std::string partition_type, PartitionStructSchema(spec, iceberg_schema, what));
  for (const NewDataFile& f : files) {
    std::vector<std::pair<std::string, avro::Value>> data_file = {
        {"file_path", avro::Value::String(base + "/" + f.relative_path)},
        {"file_format", avro::Value::String("PARQUET")},
        {"partition", PartitionRecord(spec, f.partition)},
        {"record_count", avro::Value::Long(f.record_count)},
        {"file_size_in_bytes", avro::Value::Long(f.size)}};
    if (version >= 2) data_file.insert(data_file.begin(), {"content", avro::Value::Int(0)});
    if (version == 1) data_file.push_back({"block_size_in_bytes", avro::Value::Long(int64_t{64} << 20)});
    for (auto& m : Metrics(f, iceberg_schema)) data_file.push_back(std::move(m));
    entries.push_back(avro::Value::Record({{"status", avro::Value::Int(1)},
                                           {"snapshot_id", avro::Value::Long(id)},
                                           {"data_file", avro::Value::Record(std::move(data_file))}}));
    rows += f.record_count;
    tuples.push_back(f.partition);
  }
  const std::string name = fmt::format("{}-rap-{}-m0.avro", RandomUuid(), token);
  std::map<std::string, std::string> header = {{"schema", schema.dump()},
                                               {"schema-id", std::to_string(schema.value("schema-id", 0))},
                                               {"partition-spec", PartitionSpecJson(spec)},
                                               {"partition-spec-id", std::to_string(spec.spec_id)},
                                               {"format-version", std::to_string(version)}};
  if (version >= 2) header["content"] = "data";
  RAP_ASSIGN_OR_RETURN(std::string bytes, avro::WriteContainerFile(ManifestEntrySchema(version, partition_type),
                                                                   entries, header, name));
  RAP_ASSIGN_OR_RETURN(avro::Value summaries, PartitionSummaries(spec, iceberg_schema, tuples, what));
  const int64_t length = static_cast<int64_t>(bytes.size());
  objects->files.push_back({name, std::move(bytes)});
  ListCounts n;
  n.added_files = static_cast<int64_t>(files.size());
  n.added_rows = rows;
  return ListEntry(version, base + "/metadata/" + name, length, spec.spec_id, 0, seq, seq, id, n, std::move(summaries));
}

struct SnapshotFacts {
  int64_t id = 0, parent = 0, seq = 0, now = 0;
  std::string manifest_list;  // its URI
  std::string old_metadata;   // the previous metadata file's URI
};

// `meta` with the replace snapshot added and made current on `main`, its logs extended, and the
// name mapping of the current schema set (merged with an existing mapping's names).
void AddSnapshot(ojson& meta, int version, const ojson& schema, const SnapshotFacts& f,
                 const std::vector<NewDataFile>& files, const TableSnapshot& replaced) {
  int64_t added_rows = 0, added_bytes = 0, removed_rows = 0, removed_bytes = 0;
  for (const NewDataFile& n : files) {
    added_rows += n.record_count;
    added_bytes += n.size;
  }
  for (const DataFile& d : replaced.files) {
    removed_rows += d.num_records.value_or(0);
    removed_bytes += static_cast<int64_t>(d.size);
  }
  ojson snap = {{"snapshot-id", f.id},
                      {"parent-snapshot-id", f.parent},
                      {"sequence-number", f.seq},
                      {"timestamp-ms", f.now},
                      {"manifest-list", f.manifest_list},
                      {"summary",
                       {{"operation", "replace"},
                        {"added-data-files", std::to_string(files.size())},
                        {"deleted-data-files", std::to_string(replaced.files.size())},
                        {"added-records", std::to_string(added_rows)},
                        {"deleted-records", std::to_string(removed_rows)},
                        {"added-files-size", std::to_string(added_bytes)},
                        {"removed-files-size", std::to_string(removed_bytes)},
                        {"total-data-files", std::to_string(files.size())},
                        {"total-delete-files", "0"},
                        {"total-records", std::to_string(added_rows)},
                        {"total-files-size", std::to_string(added_bytes)},
                        {"total-position-deletes", "0"},
                        {"total-equality-deletes", "0"},
                        {"rap-operation", "rewrite --in-place"}}},
                      {"schema-id", schema.value("schema-id", 0)}};
  auto array = [&](const char* key) -> ojson& {
    if (!meta.contains(key) || !meta[key].is_array()) meta[key] = ojson::array();
    return meta[key];
  };
  if (version == 1) snap.erase("sequence-number");  // v1 has no sequence numbers
  const int64_t old_updated = meta.value("last-updated-ms", f.now);
  if (version >= 2) meta["last-sequence-number"] = f.seq;
  meta["last-updated-ms"] = f.now;
  array("snapshots").push_back(snap);
  meta["current-snapshot-id"] = f.id;
  if (!meta.contains("refs") || !meta["refs"].is_object()) meta["refs"] = ojson::object();
  meta["refs"]["main"] = {{"snapshot-id", f.id}, {"type", "branch"}};
  array("snapshot-log").push_back({{"timestamp-ms", f.now}, {"snapshot-id", f.id}});
  array("metadata-log").push_back({{"timestamp-ms", old_updated}, {"metadata-file", f.old_metadata}});
  if (!meta.contains("properties") || !meta["properties"].is_object()) meta["properties"] = ojson::object();
  ojson old_mapping;
  if (auto it = meta["properties"].find("schema.name-mapping.default");
      it != meta["properties"].end() && it->is_string()) {
    old_mapping = ojson::parse(it->get<std::string>(), nullptr, false);
  }
  const ojson fields = schema.contains("fields") ? schema["fields"] : ojson::array();
  meta["properties"]["schema.name-mapping.default"] =
      MappingOf(fields, old_mapping.is_array() ? &old_mapping : nullptr).dump();
}

// Writes `objects` (each created if absent), then the metadata file `next_name` created if absent,
// then the version hint; `objects` are deleted again when the metadata file is not written.
Status Publish(io::ObjectStore& store, const std::string& meta_dir, Objects objects, const std::string& old_name,
               const std::string& next_name, int64_t next_version, const std::string& metadata,
               const std::function<void()>& before_commit, const std::string& table) {
  std::vector<std::string> written;
  auto fail = [&](Status st) {
    for (const std::string& p : written) (void)store.Delete(p);
    return st;
  };
  for (auto& [name, bytes] : objects.files) {
    const std::string p = io::JoinPath(meta_dir, name);
    if (Status st = PutNew(store, p, std::move(bytes)); !st.ok()) return fail(st);
    written.push_back(p);
  }
  if (before_commit) before_commit();
  // The table must still be at the metadata read (a numbered name has no create-if-absent of the
  // version itself: a listing shows whether another file of that version or later exists).
  auto listed = store.List(meta_dir + "/");
  if (!listed.ok()) return fail(listed.status());
  for (const io::ObjectInfo& o : *listed) {
    const std::string n = o.path.substr(o.path.rfind('/') + 1);
    int64_t v = 0;
    if (n != old_name && NextMetadataName(n, &v).ok() && v - 1 >= next_version) {
      return fail(Status::Changed(
          fmt::format("{}: the table moved on while it was rewritten ({} is newer than {})", table, n, old_name)));
    }
  }
  const std::string next_path = io::JoinPath(meta_dir, next_name);
  if (Status st = PutNew(store, next_path, metadata); !st.ok()) {
    if (st.code() == StatusCode::kChanged) {
      return fail(Status::Changed(table + ": another commit created " + next_name + " first; nothing was committed"));
    }
    return fail(st);
  }
  io::CrashPoint("iceberg-commit", next_path);
  // A file-system table's version hint follows (readers take versions past it, Iceberg's rule).
  // (Iceberg's own name is version-hint.text; some writers use version-hint.txt: whichever is there.)
  if (next_name[0] != 'v') return Status::OK();
  for (const char* name : {"version-hint.text", "version-hint.txt"}) {
    const std::string hint = io::JoinPath(meta_dir, name);
    if (!store.Head(hint).ok()) continue;
    if (Status st = store.Put(hint, Buffer::Copy(std::to_string(next_version))); !st.ok()) {
      return st.WithContext(next_path + " is committed, but the version hint " + hint +
                            " could not be updated (write " + std::to_string(next_version) + " into it)");
    }
  }
  return Status::OK();
}

}  // namespace

Result<ReplaceCommit> CommitReplace(const TableSnapshot& snapshot, const std::vector<NewDataFile>& files,
                                    const std::string& token, const std::function<void()>& before_commit) {
  auto state = std::dynamic_pointer_cast<const IcebergState>(snapshot.format_state);
  if (!state) return Status::InvalidArgument(snapshot.root + ": not an Iceberg table");
  const std::string& what = state->metadata_path;
  ojson meta = ojson::parse(state->metadata_json, nullptr, false);
  if (!meta.is_object()) return Status::Corrupt(what + ": not a JSON object");
  RAP_ASSIGN_OR_RETURN(const ojson schema, CurrentSchema(meta, what));
  const std::string location = TrimTrailingSlash(meta.value("location", std::string()));
  const std::string base = location.empty() ? snapshot.root : location;
  SnapshotFacts f;
  f.id = NewSnapshotId();
  f.parent = snapshot.version;
  f.seq = meta.value("last-sequence-number", int64_t{0}) + 1;
  f.now = UnixMillis();
  const size_t slash = what.rfind('/');
  const std::string old_name = slash == std::string::npos ? what : what.substr(slash + 1);
  f.old_metadata = base + "/metadata/" + old_name;
  int64_t next_version = 0;
  RAP_ASSIGN_OR_RETURN(const std::string next_name, NextMetadataName(old_name, &next_version));

  // The manifests: the new files' (ADDED, under the default spec) and the replaced files' (DELETED), in
  // one list.
  Objects objects;
  const int version = meta.value("format-version", 1);
  RAP_ASSIGN_OR_RETURN(const TableMetadata parsed, ParseTableMetadata(state->metadata_json, what));
  PartitionSpec spec{parsed.default_spec_id, {}};
  if (const PartitionSpec* d = parsed.Spec(parsed.default_spec_id)) spec = *d;
  RAP_ASSIGN_OR_RETURN(const avro::Value added, AddedManifest(version, files, schema, state->schema, spec, base, f.id,
                                                              f.seq, token, &objects));
  RAP_ASSIGN_OR_RETURN(std::vector<DeletedManifest> deleted,
                       DeletedManifests(snapshot, *state, meta, version, f.id, f.seq, base, token));
  std::vector<avro::Value> list_entries = {added};
  for (DeletedManifest& d : deleted) {
    list_entries.push_back(d.list_entry);
    objects.files.push_back({d.name, std::move(d.bytes)});
  }
  const std::string list_name = fmt::format("snap-{}-1-{}.avro", f.id, RandomUuid());
  std::map<std::string, std::string> list_header = {{"snapshot-id", std::to_string(f.id)},
                                                    {"parent-snapshot-id", std::to_string(f.parent)},
                                                    {"format-version", std::to_string(version)}};
  if (version >= 2) list_header["sequence-number"] = std::to_string(f.seq);
  RAP_ASSIGN_OR_RETURN(std::string list,
                       avro::WriteContainerFile(ManifestFileSchema(version), list_entries, list_header, list_name));
  objects.files.push_back({list_name, std::move(list)});
  f.manifest_list = base + "/metadata/" + list_name;

  AddSnapshot(meta, version, schema, f, files, snapshot);
  const std::string meta_dir = io::JoinPath(snapshot.root, "metadata");
  RAP_RETURN_NOT_OK(Publish(*snapshot.store, meta_dir, std::move(objects), old_name, next_name, next_version,
                            meta.dump(2), before_commit, snapshot.root));
  ReplaceCommit out;
  out.snapshot_id = f.id;
  out.sequence_number = f.seq;
  out.metadata_path = io::JoinPath(meta_dir, next_name);
  return out;
}

}  // namespace rap::table::iceberg
