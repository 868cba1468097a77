// HTTP(S) object store: range GETs against a plain web server or a public bucket URL. Read-only.
// Listing is not part of plain HTTP: List understands nginx's `autoindex_format json` directory
// pages (walked recursively) and returns NotSupported for anything else. OpenUrl() creates these
// for http:// and https:// URLs; tests and tools can build one with explicit options.
#pragma once

#include <string>

#include "rap/io/http_options.h"
#include "rap/io/object_store.h"

namespace rap::io {

// `base_url`: "http://host[:port]" or "https://host[:port]" (no path). Paths given to the store's
// methods are URL paths starting with '/', already percent-encoded as they appear in a URL.
Result<ObjectStorePtr> MakeHttpStore(const std::string& base_url, const HttpOptions& options = HttpOptions());

// Connections the store's transport has opened so far (HTTP/S3 stores), or -1 for other stores.
// Lets tests and benchmarks check connection reuse.
long ConnectionsOpened(const ObjectStore& store);

}  // namespace rap::io
