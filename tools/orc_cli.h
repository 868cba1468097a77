// ORC files in `rap cat` and `rap inspect` (src/orc): recognising them, reading them whole through
// the object store, and their inspect report.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rap/io/object_store.h"
#include "rap/orc/reader.h"
#include "rap/read/row_selection.h"

#include "output_format.h"

namespace rap::cli {

// ".orc" at the end of the path (any case).
bool HasOrcExtension(const std::string& path);
// Whether the object starts with the ORC magic "ORC" (reads its first 3 bytes).
Result<bool> StartsWithOrcMagic(io::ObjectStore& store, const std::string& path);
// Reads the whole object and parses its tail.
Result<std::unique_ptr<orc::OrcReader>> OpenOrc(io::ObjectStore& store, const std::string& path,
                                                const std::string& name);

// `rap cat` on an ORC file: the top-level `columns` (empty = all) of the selected rows, written to `out`
// in stripe-aligned batches.
Status CatOrc(const orc::OrcReader& reader, const std::vector<std::string>& columns, const read::RowSelection& rows,
              const OutputFlags& output);

// `rap inspect` on an ORC file: postscript, footer (schema tree, user metadata, file statistics) and
// stripes (with --pages: each stripe's streams and column encodings).
// The report has "format": "orc" (PrintOrcText renders it).
Result<nlohmann::ordered_json> InspectOrc(const orc::OrcReader& reader, bool streams);
// OpenOrc + InspectOrc.
Result<nlohmann::ordered_json> InspectOrcObject(io::ObjectStore& store, const std::string& path,
                                                const std::string& name, bool streams);
void PrintOrcText(const nlohmann::ordered_json& j, std::FILE* out);

}  // namespace rap::cli
