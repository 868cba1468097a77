#include "table/delta/delta_actions.h"

#include <nlohmann/json.hpp>

namespace rap::table {

namespace {

using nlohmann::json;

std::string Str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t Int(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::vector<std::string> StrArray(const json& o, const char* key) {
  std::vector<std::string> out;
  auto it = o.find(key);
  if (it == o.end() || !it->is_array()) return out;
  for (const json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::optional<DeletionVectorDescriptor> Dv(const json& o) {
  auto it = o.find("deletionVector");
  if (it == o.end() || !it->is_object()) return std::nullopt;
  DeletionVectorDescriptor dv;
  dv.storage_type = Str(*it, "storageType");
  dv.path_or_inline = Str(*it, "pathOrInlineDv");
  auto off = it->find("offset");
  if (off != it->end() && off->is_number_integer()) dv.offset = off->get<int64_t>();
  dv.size_in_bytes = Int(*it, "sizeInBytes");
  dv.cardinality = Int(*it, "cardinality");
  return dv;
}

std::string DvId(const json& o) {
  auto dv = Dv(o);
  return dv ? dv->UniqueId() : "";
}

}  // namespace

std::string FileActionKey(const std::string& path, const std::string& dv_id) {
  return dv_id.empty() ? path : path + '\n' + dv_id;
}

Status ParseJsonActions(const std::string& name, std::string_view text, DeltaActions* out) {
  size_t line_no = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    size_t line_offset = start;
    start = end + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    auto where = [&] {
      return name + ": line " + std::to_string(line_no) + " (byte offset " + std::to_string(line_offset) + ")";
    };
    if (j.is_discarded() || !j.is_object()) return Status::Corrupt(where() + ": expected one JSON object per line");
    if (auto it = j.find("add"); it != j.end()) {
      if (!it->is_object() || !it->contains("path") || !(*it)["path"].is_string()) {
        return Status::Corrupt(where() + ": add action without a \"path\" string");
      }
      DeltaAddFile a;
      a.path = Str(*it, "path");
      a.size = Int(*it, "size");
      a.modification_time = Int(*it, "modificationTime");
      a.stats = Str(*it, "stats");
      a.dv = Dv(*it);
      a.deletion_vector = a.dv ? a.dv->UniqueId() : "";
      if (auto pv = it->find("partitionValues"); pv != it->end() && pv->is_object()) {
        for (auto kv = pv->begin(); kv != pv->end(); ++kv) {
          if (kv.value().is_string()) {
            a.partition_values[kv.key()] = kv.value().get<std::string>();
          } else if (kv.value().is_null()) {
            a.partition_values[kv.key()] = std::nullopt;
          } else {
            return Status::Corrupt(where() + ": add.partitionValues['" + kv.key() + "'] is not a string or null");
          }
        }
      }
      out->adds.push_back(std::move(a));
    } else if (auto it = j.find("remove"); it != j.end()) {
      if (!it->is_object() || !it->contains("path") || !(*it)["path"].is_string()) {
        return Status::Corrupt(where() + ": remove action without a \"path\" string");
      }
      out->removes.push_back(DeltaRemove{Str(*it, "path"), DvId(*it)});
    } else if (auto it = j.find("metaData"); it != j.end()) {
      if (!it->is_object()) return Status::Corrupt(where() + ": metaData is not an object");
      DeltaMetadata m;
      m.id = Str(*it, "id");
      m.schema_string = Str(*it, "schemaString");
      m.partition_columns = StrArray(*it, "partitionColumns");
      m.created_time = Int(*it, "createdTime");
      if (auto c = it->find("configuration"); c != it->end() && c->is_object()) {
        for (auto kv = c->begin(); kv != c->end(); ++kv) {
          if (kv.value().is_string()) m.configuration[kv.key()] = kv.value().get<std::string>();
        }
      }
      if (m.schema_string.empty()) return Status::Corrupt(where() + ": metaData without a schemaString");
      out->metadata = std::move(m);
    } else if (auto it = j.find("protocol"); it != j.end()) {
      if (!it->is_object()) return Status::Corrupt(where() + ": protocol is not an object");
      DeltaProtocol p;
      p.min_reader_version = static_cast<int32_t>(Int(*it, "minReaderVersion"));
      p.min_writer_version = static_cast<int32_t>(Int(*it, "minWriterVersion"));
      p.reader_features = StrArray(*it, "readerFeatures");
      p.writer_features = StrArray(*it, "writerFeatures");
      if (p.min_reader_version < 1) return Status::Corrupt(where() + ": protocol.minReaderVersion missing or < 1");
      out->protocol = std::move(p);
    } else if (auto it = j.find("sidecar"); it != j.end()) {
      if (!it->is_object() || Str(*it, "path").empty()) {
        return Status::Corrupt(where() + ": sidecar action without a \"path\" string");
      }
      out->sidecars.push_back(DeltaSidecar{Str(*it, "path"), Int(*it, "sizeInBytes")});
    } else if (j.contains("checkpointMetadata")) {
      out->has_checkpoint_metadata = true;
    }
    // commitInfo, txn, domainMetadata, cdc and unknown actions do not change the file list.
  }
  return Status::OK();
}

}  // namespace rap::table
