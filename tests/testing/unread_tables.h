// Tables of the formats rap recognises but does not read yet (rap/table/table_format.h): a Hudi
// table made in a scratch folder (`.hoodie/hoodie.properties` beside a Parquet file). Each, scanned as a plain folder, would give rows a reader of the format
// does not (deleted and superseded ones), so rap refuses them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "testing/paths.h"

namespace rap::testing {

struct UnreadTable {
  std::string format;  // as NotSupported names it: "Iceberg", "Paimon", "Hudi"
  std::string folder;  // the table's folder name
};

// An Iceberg v2 table with position deletes (6 live rows; its Parquet files hold 14): read since
// src/table/iceberg, no longer refused.
inline std::string IcebergTableDir() { return SharedDir() + "/iceberg-tables/impala_v2_pos_deletes_parquet"; }
// A Paimon primary-key merge-on-read table (11 live rows; its Parquet files hold 19): read since
// src/table/paimon (docs/paimon.md), no longer refused.
inline std::string PaimonTableDir() { return SharedDir() + "/paimon-tables/pk_mor_parquet"; }

// A Hudi table: `.hoodie/hoodie.properties` and one Parquet file, in `dir`.
inline void MakeHudiTable(const std::string& dir) {
  std::filesystem::create_directories(dir + "/.hoodie");
  WriteStringToFile(dir + "/.hoodie/hoodie.properties", "hoodie.table.name=t\nhoodie.table.type=COPY_ON_WRITE\n");
  std::filesystem::copy_file(ParquetTestingData() + "/alltypes_plain.parquet", dir + "/part-0.parquet");
}

// The tables under `parent` (made there, so nothing is ever written into the shared data):
// parent/hudi. (Iceberg and Paimon tables are read: docs/iceberg.md, docs/paimon.md.)
inline std::vector<UnreadTable> MakeUnreadTables(const std::string& parent) {
  std::filesystem::create_directories(parent);
  MakeHudiTable(parent + "/hudi");
  return {{"Hudi", "hudi"}};
}

}  // namespace rap::testing
