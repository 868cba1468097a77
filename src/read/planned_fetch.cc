#include "read/planned_fetch.h"

#include <fmt/format.h>

#include <optional>

namespace rap::read {

io::PlanOptions FilePlanOptions(const io::PlanOptions& plan, const io::ReadOptions& io, const std::string& file_etag,
                                const char* purpose) {
  io::PlanOptions po = plan;
  if (!po.cancel) po.cancel = io.cancel;
  if (po.expected_etag.empty()) po.expected_etag = io.expected_etag;
  if (po.expected_etag.empty()) po.expected_etag = file_etag;
  po.purpose = purpose;
  return po;
}

Result<std::vector<Buffer>> TakeOrFetch(ReadAheadCache* cache, const std::vector<ByteRange>& ranges,
                                        const std::string& path, const FetchFn& fetch, int64_t* hits) {
  *hits = 0;
  std::vector<std::optional<Buffer>> cached(ranges.size());
  if (cache && !ranges.empty()) cached = cache->Take(ranges);
  std::vector<ByteRange> missing;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (!cached[i]) missing.push_back(ranges[i]);
  }
  if (missing.size() == ranges.size()) return fetch(ranges);
  std::vector<Buffer> fetched;
  if (!missing.empty()) {
    RAP_ASSIGN_OR_RETURN(fetched, fetch(missing));
    if (fetched.size() != missing.size()) {
      return Status::IOError(
          fmt::format("{}: the store returned {} buffers for {} ranges", path, fetched.size(), missing.size()));
    }
  }
  *hits = static_cast<int64_t>(ranges.size() - missing.size());
  std::vector<Buffer> out;
  out.reserve(ranges.size());
  size_t m = 0;
  for (size_t i = 0; i < ranges.size(); ++i) out.push_back(cached[i] ? std::move(*cached[i]) : std::move(fetched[m++]));
  return out;
}

}  // namespace rap::read
