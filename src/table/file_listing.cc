#include "rap/table/file_listing.h"

#include <algorithm>

#include "table/path_util.h"

namespace rap::table {

bool IsHiddenName(const std::string& segment) {
  return !segment.empty() && (segment[0] == '.' || segment[0] == '_');
}

Result<std::vector<std::pair<std::string, std::optional<std::string>>>> ParseHivePartitions(
    const std::string& relative_path) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  std::vector<std::string> segments = SplitPath(relative_path);
  if (!segments.empty()) segments.pop_back();  // the file name
  for (const std::string& seg : segments) {
    size_t eq = seg.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    RAP_ASSIGN_OR_RETURN(std::string key, PercentDecode(seg.substr(0, eq), relative_path));
    RAP_ASSIGN_OR_RETURN(std::string value, PercentDecode(seg.substr(eq + 1), relative_path));
    for (const auto& kv : out) {
      if (kv.first == key) {
        return Status::Corrupt(relative_path + ": partition key '" + key + "' appears in two directories");
      }
    }
    if (value == kHiveDefaultPartition) {
      out.emplace_back(std::move(key), std::nullopt);
    } else {
      out.emplace_back(std::move(key), std::move(value));
    }
  }
  return out;
}

Result<TableSnapshot> ListDirectoryTable(const io::ObjectStorePtr& store, const std::string& root) {
  TableProbe probe(root, store, root);
  return ListDirectoryTable(probe);
}

Result<TableSnapshot> ListDirectoryTable(TableProbe& probe) {
  TableSnapshot snap;
  snap.kind = TableKind::kDirectory;
  snap.store = probe.store();
  snap.root = probe.root();
  RAP_ASSIGN_OR_RETURN(const std::vector<io::ObjectInfo>* infos, probe.Listing());
  if (probe.single_file()) {
    const io::ObjectInfo& head = infos->front();
    DataFile f;
    f.path = snap.root;
    size_t slash = snap.root.rfind('/');
    f.relative_path = slash == std::string::npos ? snap.root : snap.root.substr(slash + 1);
    f.size = head.size;
    f.modification_time_ms = head.mtime_ms;
    snap.files.push_back(std::move(f));
    return snap;
  }
  std::vector<std::string> keys;
  bool first = true;
  std::string first_path;
  for (const io::ObjectInfo& info : *infos) {
    std::string rel = RelativeTo(snap.root, info.path);
    if (rel.empty()) continue;
    std::vector<std::string> segments = SplitPath(rel);
    if (segments.empty()) continue;
    if (std::any_of(segments.begin(), segments.end(), IsHiddenName)) continue;
    if (!EndsWith(segments.back(), ".parquet") && !EndsWith(segments.back(), ".orc")) continue;  // ORC: issue 31
    RAP_ASSIGN_OR_RETURN(auto parts, ParseHivePartitions(rel));
    std::vector<std::string> these;
    for (const auto& kv : parts) these.push_back(kv.first);
    if (first) {
      keys = these;
      first_path = rel;
      first = false;
    } else if (these != keys) {
      return Status::InvalidArgument(snap.root + ": file '" + rel +
                                     "' has different partition directories than '" + first_path +
                                     "' (every file of a directory table needs the same key=value levels)");
    }
    DataFile f;
    f.path = info.path;
    f.relative_path = rel;
    f.size = info.size;
    f.modification_time_ms = info.mtime_ms;
    for (auto& kv : parts) f.partition_values.push_back(std::move(kv.second));
    snap.files.push_back(std::move(f));
  }
  for (const std::string& k : keys) snap.partition_columns.push_back(Field{k, MakeType(TypeId::kString), true});
  std::sort(snap.files.begin(), snap.files.end(),
            [](const DataFile& a, const DataFile& b) { return a.relative_path < b.relative_path; });
  return snap;
}

}  // namespace rap::table
