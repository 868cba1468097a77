// The fetch path the two file readers (rap/read/file_reader.h for Parquet, rap/read/orc_file_reader.h
// for ORC) share: the plan options of one file's read, and data ranges served from the scan's
// read-ahead cache where it holds them, the rest fetched in one planned read. Private to src/read.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rap/io/planned_read.h"
#include "rap/read/read_ahead_cache.h"

namespace rap::read {

// `plan` with the cancellation token and expected ETag of `io` where `plan` has none, else
// `file_etag` (when not empty: a file that changes mid-read then fails), tagged with `purpose`.
io::PlanOptions FilePlanOptions(const io::PlanOptions& plan, const io::ReadOptions& io, const std::string& file_etag,
                                const char* purpose);

using FetchFn = std::function<Result<std::vector<Buffer>>(const std::vector<ByteRange>&)>;

// The bytes of `ranges`, in their order: those `cache` holds (when given) taken from it, the others
// from one call of `fetch`. `hits` gets how many the cache served. IOError naming `path` when
// `fetch` returns another number of buffers than it was asked for.
Result<std::vector<Buffer>> TakeOrFetch(ReadAheadCache* cache, const std::vector<ByteRange>& ranges,
                                        const std::string& path, const FetchFn& fetch, int64_t* hits);

}  // namespace rap::read
