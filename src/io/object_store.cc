// The store-independent parts of ObjectStore: read statistics, path joining and the default
// "store" multi-range read (merge nearby ranges, then slice).
#include "rap/io/object_store.h"

#include <algorithm>
#include <numeric>

#include "rap/util/units.h"

namespace rap::io {

void FinalizeReadStats(ReadStats* stats) {
  stats->payload_bytes = 0;
  stats->payload_wall_s = 0;
  stats->wall_s = 0;
  stats->retries = 0;
  if (stats->requests.empty()) return;
  std::vector<std::pair<double, double>> spans;
  double first_start = stats->requests.front().start_s;
  double last_end = stats->requests.front().end_s;
  for (const RequestTiming& t : stats->requests) {
    stats->payload_bytes += t.bytes;
    stats->retries += std::max(0, t.attempts - 1);
    first_start = std::min(first_start, t.start_s);
    last_end = std::max(last_end, t.end_s);
    if (t.end_s > t.first_byte_s) spans.emplace_back(t.first_byte_s, t.end_s);
  }
  // Length of the union of the payload intervals.
  std::sort(spans.begin(), spans.end());
  double cur_begin = 0, cur_end = 0;
  bool open = false;
  for (const auto& [b, e] : spans) {
    if (!open || b > cur_end) {
      if (open) stats->payload_wall_s += cur_end - cur_begin;
      cur_begin = b;
      cur_end = e;
      open = true;
    } else {
      cur_end = std::max(cur_end, e);
    }
  }
  if (open) stats->payload_wall_s += cur_end - cur_begin;
  stats->wall_s = std::max(0.0, last_end - first_start);
}

std::string JoinPath(const std::string& base, const std::string& child) {
  if (base.empty()) return child;
  if (child.empty()) return base;
  size_t b = base.size();
  while (b > 0 && base[b - 1] == '/') --b;
  size_t c = 0;
  while (c < child.size() && child[c] == '/') ++c;
  if (b == 0 && base[0] == '/') return "/" + child.substr(c);
  return base.substr(0, b) + "/" + child.substr(c);
}

Status ObjectStore::PutIfAbsent(const std::string& path, const Buffer&) {
  return Status::NotSupported(path + ": this store (" + endpoint() + ") has no conditional create");
}

Status ObjectStore::Delete(const std::string& path) {
  return Status::NotSupported(path + ": this store (" + endpoint() + ") cannot delete objects");
}

Result<std::vector<Buffer>> ObjectStore::ReadRangesNative(const std::string& path, std::span<const ByteRange> ranges,
                                                          const ReadOptions& options, ReadStats* stats) {
  // Like common object-store clients (e.g. Arrow's ReadRangeCache hole-size limit): sort the
  // ranges, merge those separated by at most 1 MiB, read the merged ranges, and hand back slices.
  constexpr uint64_t kMaxGap = 1 * kMiB;
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ranges[a].offset != ranges[b].offset ? ranges[a].offset < ranges[b].offset
                                                : ranges[a].length < ranges[b].length;
  });
  std::vector<ByteRange> merged;
  std::vector<size_t> merged_of(ranges.size());
  for (size_t i : order) {
    const ByteRange& r = ranges[i];
    if (!merged.empty() && r.offset <= merged.back().end() + kMaxGap) {
      ByteRange& m = merged.back();
      m.length = std::max(m.end(), r.end()) - m.offset;
    } else {
      merged.push_back(r);
    }
    merged_of[i] = merged.size() - 1;
  }
  RAP_ASSIGN_OR_RETURN(std::vector<Buffer> bufs, ReadRanges(path, merged, options, stats));
  if (bufs.size() != merged.size()) {
    return Status::Internal(path + ": store returned " + std::to_string(bufs.size()) + " buffers for " +
                            std::to_string(merged.size()) + " ranges");
  }
  std::vector<Buffer> out;
  out.reserve(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const ByteRange& m = merged[merged_of[i]];
    out.push_back(bufs[merged_of[i]].Slice(ranges[i].offset - m.offset, ranges[i].length));
  }
  return out;
}

}  // namespace rap::io
