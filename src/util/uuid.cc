#include "rap/util/uuid.h"

#include <fmt/format.h>

#include <chrono>
#include <random>

namespace rap {

std::string RandomUuid() {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  const uint64_t a = rng(), b = rng();
  const uint64_t hi = (a & ~0xf000ull) | 0x4000ull, lo = (b & ~(3ull << 62)) | (2ull << 62);
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xffff, hi & 0xffff, lo >> 48,
                     lo & 0xffffffffffffull);
}

int64_t UnixMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace rap
