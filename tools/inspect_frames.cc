// ZSTD frames and skippable frames of a page section, for `rap inspect --pages`.
#include "inspect_frames.h"

#include <algorithm>

#include <fmt/format.h>

#include "rap/format/frame_layout.h"

namespace rap::cli {

nlohmann::ordered_json DescribeFrames(std::span<const uint8_t> section, uint64_t offset, bool list) {
  auto frames = parquet::ListFrames(section);
  if (!frames.ok() || frames->size() < 2) return nullptr;
  int64_t zstd = 0, skippable = 0, skippable_bytes = 0, min_frame = INT64_MAX, max_frame = 0, c4 = 0, c16 = 0;
  nlohmann::ordered_json items = nlohmann::ordered_json::array();
  for (const auto& f : *frames) {
    const uint64_t at = offset + static_cast<uint64_t>(f.offset);
    if (f.skippable) {
      ++skippable;
      skippable_bytes += f.size;
    } else {
      ++zstd;
      min_frame = std::min(min_frame, f.size);
      max_frame = std::max(max_frame, f.size);
      const uint64_t last = at + static_cast<uint64_t>(f.size) - 1;
      c4 += f.size <= 4096 && at / 4096 != last / 4096;
      c16 += f.size <= 16384 && at / 16384 != last / 16384;
    }
    if (list) {
      items.push_back({{"offset", at},
                       {"size", f.size},
                       {"kind", f.skippable ? "skippable" : "zstd"},
                       {"content_size", f.content_size}});
    }
  }
  nlohmann::ordered_json out = {{"zstd", zstd},
                                {"skippable", skippable},
                                {"skippable_bytes", skippable_bytes},
                                {"min_frame", zstd ? min_frame : 0},
                                {"max_frame", max_frame},
                                {"crossing_4KiB", c4},
                                {"crossing_16KiB", c16}};
  if (list) out["list"] = std::move(items);
  return out;
}

void PrintFrames(const nlohmann::ordered_json& f, std::FILE* out) {
  fmt::print(out,
             "      {:>12} frames: {} ZSTD ({}..{} bytes), {} skippable ({} bytes); ZSTD frames crossing 4 KiB: {}, "
             "16 KiB: {}\n",
             "", f["zstd"].get<int64_t>(), f["min_frame"].get<int64_t>(), f["max_frame"].get<int64_t>(),
             f["skippable"].get<int64_t>(), f["skippable_bytes"].get<int64_t>(), f["crossing_4KiB"].get<int64_t>(),
             f["crossing_16KiB"].get<int64_t>());
  if (!f.contains("list")) return;
  for (const auto& e : f["list"]) {
    fmt::print(out, "      {:>12} {:>10} {:<9} {}\n", e["offset"].get<uint64_t>(), e["size"].get<int64_t>(),
               e["kind"].get<std::string>(),
               e["content_size"].get<int64_t>() >= 0 ? fmt::format("-> {}", e["content_size"].get<int64_t>()) : "");
  }
}

}  // namespace rap::cli
