#include "table/iceberg/iceberg_manifest.h"

#include <bit>

#include "rap/avro/object_container.h"

namespace rap::table::iceberg {

namespace {

using avro::Kind;
using avro::Value;

Result<std::string> String(const Value& rec, const char* name, const std::string& where) {
  const Value* v = rec.Find(name);
  if (!v || v->kind != Kind::kString) return Status::Corrupt(where + ": '" + name + "' is missing or not a string");
  return v->bytes;
}

Result<int64_t> Int(const Value& rec, const char* name, const std::string& where) {
  int64_t x = 0;
  if (!rec.GetInt(name, &x)) return Status::Corrupt(where + ": '" + name + "' is missing or not an integer");
  return x;
}

// An Iceberg map<int, T>: an Avro array of {key, value} records (or an Avro map with decimal keys).
template <typename F>
Status ForEachIntMap(const Value* v, const std::string& where, F&& f) {
  if (!v || v->is_null()) return Status::OK();
  if (v->kind == Kind::kArray) {
    for (const Value& kv : v->items) {
      int64_t key = 0;
      const Value* value = kv.Find("value");
      if (!kv.GetInt("key", &key) || !value) return Status::Corrupt(where + ": a map entry without key/value");
      f(static_cast<int32_t>(key), *value);
    }
    return Status::OK();
  }
  if (v->kind == Kind::kMap) {
    for (size_t i = 0; i < v->items.size(); ++i) {
      char* end = nullptr;
      const long key = std::strtol(v->names[i].c_str(), &end, 10);
      if (end == v->names[i].c_str() || *end) return Status::Corrupt(where + ": map key '" + v->names[i] + "'");
      f(static_cast<int32_t>(key), v->items[i]);
    }
    return Status::OK();
  }
  return Status::Corrupt(where + ": expected a map");
}

// A partition tuple as text: one "<kind>:<value>;" per field, "n;" for null (reals by their bits:
// distinct values, distinct keys).
std::string PartitionKey(const Value* partition) {
  std::string key;
  if (!partition || partition->kind != Kind::kRecord) return key;
  for (const Value& v : partition->items) {
    switch (v.kind) {
      case Kind::kNull: key += "n;"; break;
      case Kind::kBoolean: key += v.boolean ? "b:1;" : "b:0;"; break;
      case Kind::kInt: case Kind::kLong: key += "i:" + std::to_string(v.integer) + ";"; break;
      case Kind::kFloat: case Kind::kDouble:
        key += "d:" + std::to_string(std::bit_cast<uint64_t>(v.real)) + ";";
        break;
      default: key += "s:" + std::to_string(v.bytes.size()) + ":" + v.bytes + ";"; break;
    }
  }
  return key;
}

}  // namespace

Result<std::vector<ManifestFile>> ParseManifestList(std::span<const uint8_t> bytes, const std::string& what) {
  RAP_ASSIGN_OR_RETURN(avro::ContainerFile file, avro::ReadContainerFile(bytes, what));
  std::vector<ManifestFile> out;
  for (size_t i = 0; i < file.records.size(); ++i) {
    const Value& r = file.records[i];
    const std::string where = what + ": manifest " + std::to_string(i);
    ManifestFile m;
    RAP_ASSIGN_OR_RETURN(m.path, String(r, "manifest_path", where));
    int64_t x = 0;
    m.spec_id = r.GetInt("partition_spec_id", &x) ? static_cast<int32_t>(x) : 0;
    m.content = r.GetInt("content", &x) ? static_cast<int>(x) : 0;
    if (m.content != 0 && m.content != 1) return Status::Corrupt(where + ": content " + std::to_string(m.content));
    m.sequence_number = r.GetInt("sequence_number", &x) ? x : 0;
    m.added_snapshot_id = r.GetInt("added_snapshot_id", &x) ? x : 0;
    if (const Value* parts = r.Find("partitions"); parts && parts->kind == Kind::kArray) {
      for (const Value& p : parts->items) {
        FieldSummary s;
        if (const Value* n = p.Find("contains_null"); n && n->kind == Kind::kBoolean) s.contains_null = n->boolean;
        if (const Value* lo = p.Find("lower_bound"); lo && lo->kind == Kind::kBytes) s.lower = lo->bytes;
        if (const Value* hi = p.Find("upper_bound"); hi && hi->kind == Kind::kBytes) s.upper = hi->bytes;
        m.partitions.push_back(std::move(s));
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::vector<ContentFile>> ParseManifest(std::span<const uint8_t> bytes, const ManifestFile& manifest,
                                               const std::string& what) {
  RAP_ASSIGN_OR_RETURN(avro::ContainerFile file, avro::ReadContainerFile(bytes, what));
  int32_t spec_id = manifest.spec_id;
  if (auto it = file.metadata.find("partition-spec-id"); it != file.metadata.end()) {
    spec_id = static_cast<int32_t>(std::strtol(it->second.c_str(), nullptr, 10));
  }
  std::vector<ContentFile> out;
  for (size_t i = 0; i < file.records.size(); ++i) {
    const Value& e = file.records[i];
    const std::string where = what + ": entry " + std::to_string(i);
    ContentFile f;
    RAP_ASSIGN_OR_RETURN(int64_t status, Int(e, "status", where));
    if (status < 0 || status > 2) return Status::Corrupt(where + ": status " + std::to_string(status));
    f.status = static_cast<int>(status);
    int64_t seq = 0;
    // Null sequence numbers are inherited from the manifest (ADDED entries; v1 has none: 0).
    f.data_sequence_number = e.GetInt("sequence_number", &seq) ? seq : manifest.sequence_number;
    const Value* df = e.Find("data_file");
    if (!df || df->kind != Kind::kRecord) return Status::Corrupt(where + ": no data_file record");
    int64_t x = 0;
    f.content = df->GetInt("content", &x) ? static_cast<int>(x) : 0;
    if (f.content < 0 || f.content > 2) return Status::Corrupt(where + ": content " + std::to_string(f.content));
    f.spec_id = spec_id;
    RAP_ASSIGN_OR_RETURN(f.file_path, String(*df, "file_path", where));
    RAP_ASSIGN_OR_RETURN(f.file_format, String(*df, "file_format", where));
    for (char& c : f.file_format) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    RAP_ASSIGN_OR_RETURN(f.record_count, Int(*df, "record_count", where));
    RAP_ASSIGN_OR_RETURN(f.file_size, Int(*df, "file_size_in_bytes", where));
    if (f.record_count < 0 || f.file_size < 0) return Status::Corrupt(where + ": negative record count or size");
    f.partition_key = PartitionKey(df->Find("partition"));
    if (const Value* p = df->Find("partition"); p && p->kind == Kind::kRecord) f.partition = p->items;
    auto bytes_of = [](const Value& v) { return v.bytes; };
    RAP_RETURN_NOT_OK(ForEachIntMap(df->Find("lower_bounds"), where + ": lower_bounds",
                                    [&](int32_t k, const Value& v) { f.lower_bounds[k] = bytes_of(v); }));
    RAP_RETURN_NOT_OK(ForEachIntMap(df->Find("upper_bounds"), where + ": upper_bounds",
                                    [&](int32_t k, const Value& v) { f.upper_bounds[k] = bytes_of(v); }));
    RAP_RETURN_NOT_OK(ForEachIntMap(df->Find("null_value_counts"), where + ": null_value_counts",
                                    [&](int32_t k, const Value& v) { f.null_counts[k] = v.integer; }));
    if (const Value* ids = df->Find("equality_ids"); ids && ids->kind == Kind::kArray) {
      for (const Value& id : ids->items) f.equality_ids.push_back(static_cast<int32_t>(id.integer));
    }
    if (const Value* r = df->Find("referenced_data_file"); r && r->kind == Kind::kString) f.referenced_data_file = r->bytes;
    if (df->GetInt("content_offset", &x)) f.content_offset = x;
    if (df->GetInt("content_size_in_bytes", &x)) f.content_size = x;
    if (f.content == 2 && f.equality_ids.empty()) return Status::Corrupt(where + ": equality delete without equality_ids");
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace rap::table::iceberg
