// Points a copied Iceberg file-system table (vN.metadata.json) at one of its metadata versions for
// tests that walk a table's history: the version hint names it, and the later metadata files are
// set aside in metadata-later/ (readers, as Iceberg's own, take the versions past the hint), and
// brought back when a later version is pointed at. Header-only.
#pragma once

#include <filesystem>
#include <string>

#include "testing/paths.h"

namespace rap::testing {

inline void PointIcebergAt(const std::string& table, int version) {
  namespace fs = std::filesystem;
  const std::string meta = table + "/metadata", later = table + "/metadata-later";
  fs::create_directories(later);
  auto version_of = [](const std::string& n) {
    return n.size() > 15 && n[0] == 'v' && n.ends_with(".metadata.json") ? std::stoi(n.substr(1)) : -1;
  };
  for (const auto& e : fs::directory_iterator(meta)) {
    const std::string n = e.path().filename().string();
    if (version_of(n) > version) fs::rename(e.path(), later + "/" + n);
  }
  for (const auto& e : fs::directory_iterator(later)) {
    const std::string n = e.path().filename().string();
    if (version_of(n) >= 0 && version_of(n) <= version) fs::rename(e.path(), meta + "/" + n);
  }
  fs::remove(meta + "/version-hint.txt");
  WriteStringToFile(meta + "/version-hint.text", std::to_string(version));
}

}  // namespace rap::testing
