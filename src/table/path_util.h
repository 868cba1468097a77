// Path helpers shared by the table sources: %-decoding (Hive directories, Delta add.path URIs) and
// relative-path handling against a table root.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rap/util/result.h"

namespace rap::table {

// Decodes %XX escapes. `what` names the object for the error message.
Result<std::string> PercentDecode(const std::string& s, const std::string& what);

// `path` relative to `root` (which has no trailing '/'); empty when `path` is not under `root`.
std::string RelativeTo(const std::string& root, const std::string& path);

// Removes trailing '/' (but keeps a lone "/").
std::string TrimTrailingSlash(std::string s);

// "a/b/c" -> ["a", "b", "c"] (empty segments dropped).
std::vector<std::string> SplitPath(const std::string& path);

bool EndsWith(const std::string& s, std::string_view suffix);

}  // namespace rap::table
