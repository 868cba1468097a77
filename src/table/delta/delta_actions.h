// Delta log actions as the replay sees them, and their parsing from JSON lines (commits and V2
// checkpoint manifests). Parquet checkpoints produce the same structs (delta_checkpoint.cc).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rap/table/delta_log.h"

namespace rap::table {

struct DeltaRemove {
  std::string path;
  std::string deletion_vector;
};

struct DeltaSidecar {
  std::string path;  // relative to _delta_log/_sidecars/
  int64_t size = 0;
};

// The actions of one commit or checkpoint file that the replay uses.
struct DeltaActions {
  std::vector<DeltaAddFile> adds;
  std::vector<DeltaRemove> removes;
  std::optional<DeltaProtocol> protocol;
  std::optional<DeltaMetadata> metadata;
  std::vector<DeltaSidecar> sidecars;
  bool has_checkpoint_metadata = false;
};

// Parses newline-delimited JSON actions. `name` names the file in errors; line numbers are 1-based.
Status ParseJsonActions(const std::string& name, std::string_view text, DeltaActions* out);

// The id that makes an add/remove unique: path plus deletion vector id.
std::string FileActionKey(const std::string& path, const std::string& dv_id);

}  // namespace rap::table
