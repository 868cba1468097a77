// Apache Paimon tables: recognised by their snapshot folder (`snapshot/LATEST` or
// `snapshot/snapshot-<n>`), not read yet (UnreadTableFormat). The Paimon reader goes into this folder.
#include <algorithm>
#include <cctype>

#include "table/formats.h"

namespace rap::table {

namespace {

bool MarksPaimon(const std::vector<std::string>& s) {
  if (s.size() != 2 || s[0] != "snapshot") return false;
  if (s[1] == "LATEST") return true;
  const std::string prefix = "snapshot-";
  return s[1].size() > prefix.size() && s[1].compare(0, prefix.size(), prefix) == 0 &&
         std::all_of(s[1].begin() + static_cast<std::ptrdiff_t>(prefix.size()), s[1].end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

const TableFormat& PaimonFormat() {
  static const UnreadTableFormat format("paimon", "Paimon", &MarksPaimon);
  return format;
}

}  // namespace rap::table
