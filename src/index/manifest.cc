// Manifest JSON (de)serialisation, versioned publishing and newest-version discovery.
#include "rap/index/manifest.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>

#include <nlohmann/json.hpp>

#include "rap/index/latest_bundle.h"
#include "rap/util/hex.h"

namespace rap::index {

using nlohmann::json;

const char* IndexKindName(IndexKind kind) { return kind == IndexKind::kSorted ? "sorted" : "hash"; }

Result<IndexKind> ParseIndexKind(std::string_view name) {
  if (name == "hash") return IndexKind::kHash;
  if (name == "sorted") return IndexKind::kSorted;
  return Status::InvalidArgument("unknown index kind '" + std::string(name) + "' (expected hash or sorted)");
}

int32_t Manifest::BucketOfKey(const Key& k) const {
  if (kind == IndexKind::kHash) return BucketOf(key, k, buckets);
  // Partition p holds [boundaries[p-1], boundaries[p]): the number of boundaries <= k.
  const auto it = std::upper_bound(boundaries.begin(), boundaries.end(), k,
                                   [&](const Key& a, const Key& b) { return CompareKeys(key, a, b) < 0; });
  return static_cast<int32_t>(it - boundaries.begin());
}

int32_t Manifest::LiveOrdinal(const std::string& path) const {
  for (size_t i = files.size(); i-- > 0;) {
    if (!files[i].removed && files[i].path == path) return files[i].ordinal;
  }
  return -1;
}

std::string ManifestPath(const std::string& index_dir, int64_t version) {
  char name[40];
  std::snprintf(name, sizeof(name), "%020lld.json", static_cast<long long>(version));
  return io::JoinPath(index_dir, std::string("_manifest/") + name);
}

std::string LastVersionHintPath(const std::string& index_dir) {
  return io::JoinPath(index_dir, "_manifest/_last_version.json");
}

namespace {

json KeyToJson(const std::vector<KeyColumn>& cols, const Key& k) {
  json a = json::array();
  for (size_t i = 0; i < cols.size() && i < k.parts.size(); ++i) {
    if (IsIntegerKey(cols[i].type)) {
      a.push_back(k.parts[i].i);
    } else {
      a.push_back(LowerHex(k.parts[i].s));
    }
  }
  return a;
}

// Errors of the structure, with the JSON pointer of the bad value.
struct Reader {
  const std::string& what;
  Status Bad(const std::string& where, const std::string& expected) const {
    return Status::Corrupt("index manifest " + what + ": " + where + ": expected " + expected);
  }
  Result<const json*> Get(const json& obj, const std::string& where, const char* name, bool required = true) const {
    if (!obj.is_object()) return Bad(where, "an object");
    auto it = obj.find(name);
    if (it == obj.end() || it->is_null()) {
      if (required) return Bad(where + "/" + name, "a value (missing)");
      return static_cast<const json*>(nullptr);
    }
    return &*it;
  }
  Result<int64_t> Int(const json& obj, const std::string& where, const char* name, std::optional<int64_t> dflt = {}) const {
    RAP_ASSIGN_OR_RETURN(const json* v, Get(obj, where, name, !dflt.has_value()));
    if (!v) return *dflt;
    if (!v->is_number_integer()) return Bad(where + "/" + name, "an integer");
    return v->get<int64_t>();
  }
  Result<std::string> Str(const json& obj, const std::string& where, const char* name,
                          std::optional<std::string> dflt = {}) const {
    RAP_ASSIGN_OR_RETURN(const json* v, Get(obj, where, name, !dflt.has_value()));
    if (!v) return *dflt;
    if (!v->is_string()) return Bad(where + "/" + name, "a string");
    return v->get<std::string>();
  }
  Result<std::vector<std::string>> Strings(const json& obj, const std::string& where, const char* name) const {
    RAP_ASSIGN_OR_RETURN(const json* v, Get(obj, where, name, false));
    std::vector<std::string> out;
    if (!v) return out;
    if (!v->is_array()) return Bad(where + "/" + name, "an array of strings");
    for (const json& s : *v) {
      if (!s.is_string()) return Bad(where + "/" + name, "an array of strings");
      out.push_back(s.get<std::string>());
    }
    return out;
  }
  Result<Key> KeyOf(const std::vector<KeyColumn>& cols, const json& v, const std::string& where) const {
    if (!v.is_array() || v.size() != cols.size()) return Bad(where, "an array of one value per key column");
    Key k;
    for (size_t i = 0; i < cols.size(); ++i) {
      KeyPart p;
      if (IsIntegerKey(cols[i].type)) {
        if (!v[i].is_number_integer()) return Bad(where, "an integer for key column " + cols[i].name);
        p.i = v[i].get<int64_t>();
      } else {
        if (!v[i].is_string()) return Bad(where, "hex text for key column " + cols[i].name);
        auto parsed = ParseKey({{cols[i].name, KeyType::kBinary}}, {v[i].get<std::string>()});
        if (!parsed.ok()) return Bad(where, "hex text for key column " + cols[i].name);
        p.s = std::move(parsed->parts[0].s);
      }
      k.parts.push_back(std::move(p));
    }
    return k;
  }
};

}  // namespace

std::string ManifestToJson(const Manifest& m) {
  json j;
  j["format"] = "rap-index";
  j["format_version"] = kIndexFormatVersion;  // what this writer writes, whatever the base manifest was
  j["version"] = m.version;
  j["name"] = m.name;
  j["created_ms"] = m.created_ms;
  j["table"] = {{"root", m.table_root}, {"kind", m.table_kind}, {"version", m.table_version}};
  if (!m.etag_source.empty()) j["table"]["etag_source"] = m.etag_source;
  json key = json::array();
  for (const KeyColumn& c : m.key) key.push_back({{"name", c.name}, {"type", KeyTypeName(c.type)}});
  j["key"] = key;
  j["kind"] = IndexKindName(m.kind);
  j["bucket"] = {{"function", m.bucket_function}, {"count", m.buckets}};
  if (m.kind == IndexKind::kSorted) {
    json bounds = json::array();
    for (const Key& b : m.boundaries) bounds.push_back(KeyToJson(m.key, b));
    j["boundaries"] = bounds;
  }
  j["cover"] = m.cover;
  j["hoist"] = m.hoist;
  if (!m.logical_names.empty()) j["logical_names"] = m.logical_names;
  j["schemas"] = m.schemas;
  j["next_run"] = m.next_run;
  json files = json::array();
  for (const FileEntry& f : m.files) {
    json fe = {{"ordinal", f.ordinal}, {"path", f.path}, {"size", f.size}, {"etag", f.etag},
               {"rows", f.num_rows},   {"removed", f.removed}};
    if (f.schema >= 0) fe["schema"] = f.schema;
    if (f.deletion_vector) {
      const auto& dv = *f.deletion_vector;
      json d = {{"storageType", dv.storage_type},
                {"pathOrInlineDv", dv.path_or_inline},
                {"sizeInBytes", dv.size_in_bytes},
                {"cardinality", dv.cardinality}};
      if (dv.offset) d["offset"] = *dv.offset;
      fe["deletion_vector"] = d;
    }
    files.push_back(fe);
  }
  j["files"] = files;
  json frags = json::array();
  for (const FragmentEntry& f : m.fragments) {
    json fr = {{"path", f.path}, {"bucket", f.bucket}, {"run", f.run},   {"entries", f.entries},
               {"rows", f.rows}, {"size", f.size},     {"etag", f.etag}};
    if (f.meta_bytes > 0) fr["meta_bytes"] = f.meta_bytes;
    if (f.entries > 0) {
      fr["min_key"] = KeyToJson(m.key, f.min_key);
      fr["max_key"] = KeyToJson(m.key, f.max_key);
    }
    json ranges = json::array();
    for (const OrdinalRange& r : f.files) ranges.push_back(json::array({r.begin, r.end}));
    fr["files"] = ranges;
    frags.push_back(fr);
  }
  j["fragments"] = frags;
  return j.dump(1);
}

namespace {

// The manifest's header: format, version, name, table, key, bucket function, cover/hoist columns,
// schema files and the next run number.
Status HeaderFromJson(const json& j, Reader& r, const std::string& what, Manifest* m) {
  RAP_ASSIGN_OR_RETURN(std::string format, r.Str(j, "", "format"));
  if (format != "rap-index") return r.Bad("/format", "\"rap-index\"");
  RAP_ASSIGN_OR_RETURN(int64_t fv, r.Int(j, "", "format_version"));
  if (fv < kIndexFormatVersionMin || fv > kIndexFormatVersion) {
    return Status::NotSupported("index manifest " + what + ": format_version " + std::to_string(fv) +
                                " (this rap reads versions " + std::to_string(kIndexFormatVersionMin) + " to " +
                                std::to_string(kIndexFormatVersion) + ")");
  }
  m->format_version = static_cast<int>(fv);
  RAP_ASSIGN_OR_RETURN(m->version, r.Int(j, "", "version"));
  RAP_ASSIGN_OR_RETURN(m->name, r.Str(j, "", "name", std::string(kDefaultIndexName)));
  RAP_ASSIGN_OR_RETURN(m->created_ms, r.Int(j, "", "created_ms", 0));
  RAP_ASSIGN_OR_RETURN(const json* table, r.Get(j, "", "table"));
  RAP_ASSIGN_OR_RETURN(m->table_root, r.Str(*table, "/table", "root"));
  RAP_ASSIGN_OR_RETURN(m->table_kind, r.Str(*table, "/table", "kind", std::string("directory")));
  RAP_ASSIGN_OR_RETURN(m->table_version, r.Int(*table, "/table", "version", -1));
  RAP_ASSIGN_OR_RETURN(m->etag_source, r.Str(*table, "/table", "etag_source", std::string()));
  RAP_ASSIGN_OR_RETURN(const json* key, r.Get(j, "", "key"));
  if (!key->is_array() || key->empty() || key->size() > 2) return r.Bad("/key", "an array of one or two key columns");
  for (size_t i = 0; i < key->size(); ++i) {
    const std::string where = "/key/" + std::to_string(i);
    KeyColumn c;
    RAP_ASSIGN_OR_RETURN(c.name, r.Str((*key)[i], where, "name"));
    RAP_ASSIGN_OR_RETURN(std::string type, r.Str((*key)[i], where, "type"));
    auto kt = ParseKeyTypeName(type);
    if (!kt.ok()) return Status::NotSupported("index manifest " + what + ": " + where + "/type: " + kt.status().message());
    c.type = *kt;
    m->key.push_back(std::move(c));
  }
  // Manifests written before the sorted kind have no "kind": they are hash indexes.
  RAP_ASSIGN_OR_RETURN(std::string kind, r.Str(j, "", "kind", std::string("hash")));
  auto parsed_kind = ParseIndexKind(kind);
  if (!parsed_kind.ok()) return Status::NotSupported("index manifest " + what + ": /kind: " + parsed_kind.status().message());
  m->kind = *parsed_kind;
  RAP_ASSIGN_OR_RETURN(const json* bucket, r.Get(j, "", "bucket"));
  RAP_ASSIGN_OR_RETURN(m->bucket_function, r.Str(*bucket, "/bucket", "function"));
  const char* expected_function = m->kind == IndexKind::kSorted ? kRangeFunction : kBucketFunction;
  if (m->bucket_function != expected_function) {
    return Status::NotSupported("index manifest " + what + ": bucket function '" + m->bucket_function + "' (a " +
                                kind + " index has " + expected_function + ")");
  }
  RAP_ASSIGN_OR_RETURN(int64_t count, r.Int(*bucket, "/bucket", "count"));
  if (count < 1 || count > (1 << 20)) return r.Bad("/bucket/count", "1 to 1048576");
  m->buckets = static_cast<int32_t>(count);
  if (m->kind == IndexKind::kSorted) {
    RAP_ASSIGN_OR_RETURN(const json* bounds, r.Get(j, "", "boundaries"));
    if (!bounds->is_array() || static_cast<int64_t>(bounds->size()) != count - 1) {
      return r.Bad("/boundaries", "an array of bucket/count - 1 = " + std::to_string(count - 1) + " keys");
    }
    for (size_t i = 0; i < bounds->size(); ++i) {
      const std::string where = "/boundaries/" + std::to_string(i);
      RAP_ASSIGN_OR_RETURN(Key b, r.KeyOf(m->key, (*bounds)[i], where));
      if (!m->boundaries.empty() && CompareKeys(m->key, m->boundaries.back(), b) >= 0) {
        return r.Bad(where, "a key above the previous boundary (boundaries increase strictly)");
      }
      m->boundaries.push_back(std::move(b));
    }
  }
  RAP_ASSIGN_OR_RETURN(m->cover, r.Strings(j, "", "cover"));
  RAP_ASSIGN_OR_RETURN(m->hoist, r.Strings(j, "", "hoist"));
  RAP_ASSIGN_OR_RETURN(const json* names, r.Get(j, "", "logical_names", false));
  if (names) {
    if (!names->is_object()) return r.Bad("/logical_names", "an object of physical name: logical name");
    for (const auto& [physical, logical] : names->items()) {
      if (!logical.is_string() || physical.empty() || logical.get_ref<const std::string&>().empty()) {
        return r.Bad("/logical_names/" + physical, "a non-empty logical name for a non-empty physical name");
      }
      m->logical_names.emplace(physical, logical.get<std::string>());
    }
  }
  RAP_ASSIGN_OR_RETURN(m->schemas, r.Strings(j, "", "schemas"));
  RAP_ASSIGN_OR_RETURN(m->next_run, r.Int(j, "", "next_run", 1));
  return Status::OK();
}

// A file's Delta deletion vector descriptor (`dv` at `dw`).
Result<table::DeletionVectorDescriptor> DeletionVectorFromJson(const json& dv, Reader& r, const std::string& dw) {
  table::DeletionVectorDescriptor d;
  RAP_ASSIGN_OR_RETURN(d.storage_type, r.Str(dv, dw, "storageType"));
  RAP_ASSIGN_OR_RETURN(d.path_or_inline, r.Str(dv, dw, "pathOrInlineDv"));
  RAP_ASSIGN_OR_RETURN(d.size_in_bytes, r.Int(dv, dw, "sizeInBytes"));
  RAP_ASSIGN_OR_RETURN(d.cardinality, r.Int(dv, dw, "cardinality"));
  RAP_ASSIGN_OR_RETURN(const json* off, r.Get(dv, dw, "offset", false));
  if (off) {
    if (!off->is_number_integer()) return r.Bad(dw + "/offset", "an integer");
    d.offset = off->get<int64_t>();
  }
  return d;
}

// File `i` of the file table.
Result<FileEntry> FileFromJson(const json& fj, Reader& r, size_t i, const Manifest& m) {
  const std::string where = "/files/" + std::to_string(i);
  FileEntry f;
  RAP_ASSIGN_OR_RETURN(int64_t ord, r.Int(fj, where, "ordinal"));
  if (ord != static_cast<int64_t>(i)) return r.Bad(where + "/ordinal", std::to_string(i) + " (files are listed by ordinal)");
  f.ordinal = static_cast<int32_t>(ord);
  RAP_ASSIGN_OR_RETURN(f.path, r.Str(fj, where, "path"));
  RAP_ASSIGN_OR_RETURN(int64_t size, r.Int(fj, where, "size"));
  if (size < 0) return r.Bad(where + "/size", "a size >= 0");
  f.size = static_cast<uint64_t>(size);
  RAP_ASSIGN_OR_RETURN(f.etag, r.Str(fj, where, "etag", std::string()));
  RAP_ASSIGN_OR_RETURN(f.num_rows, r.Int(fj, where, "rows"));
  RAP_ASSIGN_OR_RETURN(const json* removed, r.Get(fj, where, "removed", false));
  if (removed) {
    if (!removed->is_boolean()) return r.Bad(where + "/removed", "true or false");
    f.removed = removed->get<bool>();
  }
  RAP_ASSIGN_OR_RETURN(int64_t schema, r.Int(fj, where, "schema", -1));
  if (schema < -1 || schema >= static_cast<int64_t>(m.schemas.size())) {
    return r.Bad(where + "/schema", "an index into /schemas");
  }
  f.schema = static_cast<int32_t>(schema);
  RAP_ASSIGN_OR_RETURN(const json* dv, r.Get(fj, where, "deletion_vector", false));
  if (dv) {
    RAP_ASSIGN_OR_RETURN(f.deletion_vector, DeletionVectorFromJson(*dv, r, where + "/deletion_vector"));
  }
  return f;
}

// Fragment `i` of the fragment list.
Result<FragmentEntry> FragmentFromJson(const json& fj, Reader& r, size_t i, const Manifest& m) {
  const std::string where = "/fragments/" + std::to_string(i);
  FragmentEntry f;
  RAP_ASSIGN_OR_RETURN(f.path, r.Str(fj, where, "path"));
  RAP_ASSIGN_OR_RETURN(int64_t b, r.Int(fj, where, "bucket"));
  if (b < 0 || b >= m.buckets) return r.Bad(where + "/bucket", "a bucket in [0, bucket/count)");
  f.bucket = static_cast<int32_t>(b);
  RAP_ASSIGN_OR_RETURN(f.run, r.Int(fj, where, "run", 0));
  RAP_ASSIGN_OR_RETURN(f.entries, r.Int(fj, where, "entries"));
  RAP_ASSIGN_OR_RETURN(f.rows, r.Int(fj, where, "rows", 0));
  RAP_ASSIGN_OR_RETURN(int64_t size, r.Int(fj, where, "size"));
  if (size < 0) return r.Bad(where + "/size", "a size >= 0");
  f.size = static_cast<uint64_t>(size);
  RAP_ASSIGN_OR_RETURN(f.etag, r.Str(fj, where, "etag", std::string()));
  RAP_ASSIGN_OR_RETURN(int64_t meta, r.Int(fj, where, "meta_bytes", 0));
  if (meta < 0 || static_cast<uint64_t>(meta) > f.size) return r.Bad(where + "/meta_bytes", "0 to the fragment's size");
  f.meta_bytes = static_cast<uint64_t>(meta);
  if (f.entries > 0) {
    RAP_ASSIGN_OR_RETURN(const json* mn, r.Get(fj, where, "min_key"));
    RAP_ASSIGN_OR_RETURN(f.min_key, r.KeyOf(m.key, *mn, where + "/min_key"));
    RAP_ASSIGN_OR_RETURN(const json* mx, r.Get(fj, where, "max_key"));
    RAP_ASSIGN_OR_RETURN(f.max_key, r.KeyOf(m.key, *mx, where + "/max_key"));
  }
  RAP_ASSIGN_OR_RETURN(const json* ranges, r.Get(fj, where, "files", false));
  if (ranges) {
    if (!ranges->is_array()) return r.Bad(where + "/files", "an array of [begin, end) ordinal pairs");
    for (const json& pr : *ranges) {
      if (!pr.is_array() || pr.size() != 2 || !pr[0].is_number_integer() || !pr[1].is_number_integer()) {
        return r.Bad(where + "/files", "an array of [begin, end) ordinal pairs");
      }
      f.files.push_back({pr[0].get<int32_t>(), pr[1].get<int32_t>()});
    }
  }
  return f;
}

}  // namespace

Result<Manifest> ManifestFromJson(std::string_view text, const std::string& what) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return Status::Corrupt("index manifest " + what + ": not valid JSON at byte " + std::to_string(e.byte) + " of " +
                           std::to_string(text.size()));
  } catch (const json::exception& e) {  // e.g. out_of_range: a number that overflows a double (1e400)
    return Status::Corrupt("index manifest " + what + ": not valid JSON: " + e.what());
  }
  Reader r{what};
  Manifest m;
  RAP_RETURN_NOT_OK(HeaderFromJson(j, r, what, &m));
  RAP_ASSIGN_OR_RETURN(const json* files, r.Get(j, "", "files"));
  if (!files->is_array()) return r.Bad("/files", "an array");
  for (size_t i = 0; i < files->size(); ++i) {
    RAP_ASSIGN_OR_RETURN(FileEntry f, FileFromJson((*files)[i], r, i, m));
    m.files.push_back(std::move(f));
  }
  RAP_ASSIGN_OR_RETURN(const json* frags, r.Get(j, "", "fragments"));
  if (!frags->is_array()) return r.Bad("/fragments", "an array");
  for (size_t i = 0; i < frags->size(); ++i) {
    RAP_ASSIGN_OR_RETURN(FragmentEntry f, FragmentFromJson((*frags)[i], r, i, m));
    m.fragments.push_back(std::move(f));
  }
  return m;
}

Result<int64_t> ReadVersionHint(io::ObjectStore& store, const std::string& index_dir) {
  auto hint = store.ReadTail(LastVersionHintPath(index_dir), 4096, io::ReadOptions{}, nullptr);
  if (!hint.ok()) {
    if (hint.status().code() == StatusCode::kNotFound) return int64_t{0};
    return hint.status();
  }
  try {
    json j = json::parse(hint->first.view());
    if (j.is_object() && j.contains("version") && j["version"].is_number_integer()) return j["version"].get<int64_t>();
  } catch (const json::exception&) {
  }
  return int64_t{0};
}

Result<int64_t> FindLatestVersion(io::ObjectStore& store, const std::string& index_dir) {
  RAP_ASSIGN_OR_RETURN(int64_t v, ReadVersionHint(store, index_dir));
  if (v > 0) {
    auto h = store.Head(ManifestPath(index_dir, v));
    if (!h.ok()) {
      if (h.status().code() != StatusCode::kNotFound) return h.status();
      v = 0;  // the hint names a version that is not there (vacuumed index rebuilt): probe from the start
    }
  }
  // Probe forward: a hint written by a slower publisher may lag behind.
  bool listed = false;
  while (true) {
    auto h = store.Head(ManifestPath(index_dir, v + 1));
    if (h.ok()) {
      ++v;
      continue;
    }
    if (h.status().code() != StatusCode::kNotFound) return h.status();
    if (v > 0 || listed) break;
    // Version 1 is gone and the hint names no existing version: a vacuumed index whose hint was
    // lost (a writer killed between its manifest and the hint). The listing finds the newest.
    listed = true;
    auto listing = store.List(io::JoinPath(index_dir, "_manifest/"));
    if (!listing.ok()) return listing.status();
    for (const io::ObjectInfo& info : *listing) {
      const std::string name = info.path.substr(info.path.rfind('/') + 1);
      if (name.size() != 25 || name.compare(20, 5, ".json") != 0) continue;
      if (name.find_first_not_of("0123456789") != 20) continue;
      v = std::max(v, static_cast<int64_t>(std::stoll(name.substr(0, 20))));
    }
  }
  if (v == 0) return Status::NotFound("no index at " + index_dir + " (no " + ManifestPath(index_dir, 1) + ")");
  return v;
}

Result<Manifest> ReadManifest(io::ObjectStore& store, const std::string& index_dir, int64_t version) {
  const std::string path = ManifestPath(index_dir, version);
  // Manifests are small; a generous tail read returns the whole object and its size.
  RAP_ASSIGN_OR_RETURN(auto tail, store.ReadTail(path, 64ull << 20, io::ReadOptions{}, nullptr));
  if (tail.second.size > tail.first.size()) {
    return Status::ResourceExhausted("index manifest " + path + " is " + std::to_string(tail.second.size) +
                                     " bytes (limit 64 MiB)");
  }
  RAP_ASSIGN_OR_RETURN(Manifest m, ManifestFromJson(tail.first.view(), path));
  if (m.version != version) {
    return Status::Corrupt("index manifest " + path + ": /version is " + std::to_string(m.version) + ", expected " +
                           std::to_string(version));
  }
  return m;
}

Result<Manifest> ReadLatestManifest(io::ObjectStore& store, const std::string& index_dir) {
  RAP_ASSIGN_OR_RETURN(const int64_t v, ReadVersionHint(store, index_dir));
  return ReadLatestManifest(store, index_dir, v);
}

Result<Manifest> ReadLatestManifest(io::ObjectStore& store, const std::string& index_dir, int64_t v) {
  if (v > 0) {
    // One round: the hinted manifest and the probe of the next version.
    auto next = std::async(std::launch::async, [&] { return store.Head(ManifestPath(index_dir, v + 1)); });
    auto m = ReadManifest(store, index_dir, v);
    auto h = next.get();
    if (m.ok() && !h.ok() && h.status().code() == StatusCode::kNotFound) return m;
    if (!h.ok() && h.status().code() != StatusCode::kNotFound) return h.status();
    if (!m.ok() && m.status().code() != StatusCode::kNotFound) return m.status();
  }
  RAP_ASSIGN_OR_RETURN(const int64_t latest, FindLatestVersion(store, index_dir));
  return ReadManifest(store, index_dir, latest);
}

Status PublishManifest(io::ObjectStore& store, const std::string& index_dir, const Manifest& m) {
  const std::string path = ManifestPath(index_dir, m.version);
  Status st = store.PutIfAbsent(path, Buffer::FromString(ManifestToJson(m)));
  if (!st.ok()) {
    if (st.code() == StatusCode::kChanged) {
      return Status::Changed("index " + index_dir + ": manifest version " + std::to_string(m.version) +
                             " was published by another writer first; nothing was changed (reopen and retry)");
    }
    return st;
  }
  json hint = {{"version", m.version}};
  RAP_RETURN_NOT_OK(store.Put(LastVersionHintPath(index_dir), Buffer::FromString(hint.dump())));
  // Then the bundle, for readers that open in one round; a writer stopped before it leaves an older
  // bundle, which readers detect by probing its next version.
  return WriteLatestBundle(store, index_dir, m);
}

std::string ResolveUrl(const std::string& base, const std::string& relative) {
  if (relative.empty()) return base;
  if (relative.find("://") != std::string::npos || relative[0] == '/') return relative;
  std::string out = base;
  while (!out.empty() && out.back() == '/') out.pop_back();
  std::string rest = relative;
  while (true) {
    if (rest == ".." || rest.rfind("../", 0) == 0) {
      const size_t slash = out.rfind('/');
      const size_t scheme = out.find("://");
      if (slash != std::string::npos && (scheme == std::string::npos || slash > scheme + 2)) {
        out.resize(slash);
      } else {
        out = scheme == std::string::npos ? "." : out;
      }
      rest = rest.size() > 3 ? rest.substr(3) : "";
    } else if (rest == "." || rest.rfind("./", 0) == 0) {
      rest = rest.size() > 2 ? rest.substr(2) : "";
    } else {
      break;
    }
  }
  if (rest.empty()) return out;
  return out + "/" + rest;
}

}  // namespace rap::index
