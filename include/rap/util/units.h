// Parsing and printing of byte sizes and durations ("1MiB", "64KiB", "20ms").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rap/util/result.h"

namespace rap {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * 1024;
inline constexpr uint64_t kGiB = 1024ULL * 1024 * 1024;

// "123", "64KiB", "1MiB", "2GiB", "1KB" (=1000), "1.5MiB". Case-insensitive units.
Result<uint64_t> ParseByteSize(std::string_view text);
// "20ms", "1.5s", "250us", "100" (= milliseconds). Returns seconds.
Result<double> ParseDuration(std::string_view text);
// "1.50 MiB", "512 B".
std::string FormatBytes(uint64_t bytes);

}  // namespace rap
