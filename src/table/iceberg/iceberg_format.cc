// Apache Iceberg tables: recognised by their table metadata (`metadata/<...>.metadata.json`), not read
// yet (UnreadTableFormat). The Iceberg reader goes into this folder.
#include "table/formats.h"
#include "table/path_util.h"

namespace rap::table {

namespace {

bool MarksIceberg(const std::vector<std::string>& s) {
  return s.size() == 2 && s[0] == "metadata" && s[1].size() > 14 && EndsWith(s[1], ".metadata.json");
}

}  // namespace

const TableFormat& IcebergFormat() {
  static const UnreadTableFormat format("iceberg", "Iceberg", &MarksIceberg);
  return format;
}

}  // namespace rap::table
