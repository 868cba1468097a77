// `rap inspect --pages`: what a ZSTD page section is made of (docs/layouts.md): its ZSTD frames
// (one per key with --frame-per-key), skippable frames (alignment padding, interleaving bridges)
// and how many frames cross a 4 KiB or 16 KiB boundary of the file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>

#include <nlohmann/json.hpp>

namespace rap::cli {

// A summary of the section at file offset `offset` ({"zstd": n, "skippable": n, "skippable_bytes":
// n, "min_frame": n, "max_frame": n, "crossing_4KiB": n, "crossing_16KiB": n}, plus "list": every
// frame when `list`), or null when it is a single frame (an ordinary page) or not ZSTD at all.
nlohmann::ordered_json DescribeFrames(std::span<const uint8_t> section, uint64_t offset, bool list);

// The text form: one summary line, and one line per frame when the summary has a list.
void PrintFrames(const nlohmann::ordered_json& frames, std::FILE* out);

}  // namespace rap::cli
