// Apache Hudi tables: recognised by their `.hoodie/` folder, not read yet (UnreadTableFormat). The
// Hudi reader goes into this folder.
#include "table/formats.h"

namespace rap::table {

namespace {

bool MarksHudi(const std::vector<std::string>& s) { return s.size() >= 2 && s[0] == ".hoodie"; }

}  // namespace

const TableFormat& HudiFormat() {
  static const UnreadTableFormat format("hudi", "Hudi", &MarksHudi);
  return format;
}

}  // namespace rap::table
