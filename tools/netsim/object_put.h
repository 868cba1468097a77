// S3 PutObject for rap-netsim: the body of a PUT stored under the served root, atomically — written
// to a temporary sibling (".netsim-put-*", never listed) and renamed over the key only once the
// whole body arrived, so a failed or faulted upload never leaves a partial object visible. With
// If-None-Match: * (a conditional write) the key is created only when absent (link(2), atomic).
// DeleteObject removes a key (S3 DeleteObject).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "rap/util/result.h"

namespace rap::netsim {

inline constexpr const char* kPutTempPrefix = ".netsim-put-";

// Stores `body` at the URL path under `root` (parent directories created). InvalidArgument /
// AccessDenied for a path outside the root; Changed when `if_none_match` and the key exists (a 412).
Status PutObject(const std::filesystem::path& root, std::string_view url_path, const std::string& body,
                 bool if_none_match);

// S3 DeleteObject: removes the file at the URL path under `root`; a missing key is not an error (as
// in S3). AccessDenied / InvalidArgument for a path outside the root.
Status DeleteObject(const std::filesystem::path& root, std::string_view url_path);

}  // namespace rap::netsim
