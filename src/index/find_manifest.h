// Index::Open's first step: the newest manifest of an index URL or of a table URL's default index,
// in as few dependent rounds as the index allows (docs/index-format.md "Publishing and finding the
// newest version").
#pragma once

#include <map>
#include <string>

#include "rap/index/manifest.h"
#include "rap/io/object_store.h"
#include "rap/util/buffer.h"
#include "rap/util/status.h"

namespace rap::index {

struct FoundManifest {
  Manifest manifest;
  std::map<std::string, Buffer> schema_files;  // from the latest bundle (manifest path -> bytes)
  bool from_bundle = false;  // then the version after manifest.version is still to be probed
  int rounds = 0;            // dependent rounds of requests taken (a lower bound when it probed)
  std::string url;           // the index URL that answered
  io::ResolvedUrl where;     // its store and directory
};

// `url` (trailing '/' removed) opened as `r`. Round 1 reads the URL's version hint and latest bundle
// — for a URL that is not an index directory (no "/_rap_index/"), also the hint and bundle of its
// default index — all in parallel. A bundle at least as new as its hint answers at once; otherwise
// the hinted manifest is read with the probe of the next version, and without a hint the versions
// are probed. NotFound names both places when neither holds an index.
Result<FoundManifest> FindManifest(const std::string& url, const io::ResolvedUrl& r);

}  // namespace rap::index
