// The report of `rap inspect FILE` as JSON (the --json output; the text form is rendered from it):
// schema tree, key-value metadata, row groups, per column chunk the codec, encodings, sizes,
// statistics and page index, and with `pages` every page header (with `frames`, every frame). Shared
// by the CLI (tools/cmd_inspect.cc) and the Python package (rap.inspect, python/).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "rap/util/result.h"

namespace rap::cli {

struct InspectOptions {
  std::string file;  // a path or URL
  bool pages = false;
  bool frames = false;
  bool json = false;  // the CLI's output choice (not used by the report)
};

// Builds the report. Errors met while walking pages are recorded in *late_error and returned after
// the report is complete, so the caller can still print what was read.
Result<nlohmann::ordered_json> InspectReport(const InspectOptions& args, Status* late_error);

}  // namespace rap::cli
