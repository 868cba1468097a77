// --cache-dir / --cache-size: the disk tier of remote reads (rap/io/disk_cache.h) for a command.
// They set RAP_CACHE_DIR / RAP_CACHE_SIZE for the process, so every store the command opens uses
// the same directory; the environment variables alone do the same for any command.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

#include "rap/io/disk_cache.h"
#include "rap/io/store_options.h"
#include "rap/util/units.h"

namespace rap::cli {

struct DiskCacheArgs {
  std::string dir;
  std::string size;

  void AddTo(CLI::App* cmd) {
    cmd->add_option("--cache-dir", dir,
                    "Keep ranges read from remote stores in this local directory (index pages, data pages; "
                    "shared by processes, kept across restarts; env RAP_CACHE_DIR)");
    cmd->add_option("--cache-size", size, "Size of --cache-dir, e.g. 10GiB (default 4GiB; env RAP_CACHE_SIZE)");
  }

  // Checks the values and exports them; opens the cache now so that a bad directory fails early.
  Status Apply() const {
    if (!size.empty()) {
      auto b = ParseByteSize(size);
      if (!b.ok()) return b.status().WithContext("--cache-size");
      if (*b == 0) return Status::InvalidArgument("--cache-size: must be more than 0 bytes");
      ::setenv("RAP_CACHE_SIZE", size.c_str(), 1);
    }
    if (!dir.empty()) ::setenv("RAP_CACHE_DIR", dir.c_str(), 1);
    auto cache = io::DiskCacheFor(io::StoreOptions{});
    if (!cache.ok()) return cache.status().WithContext("--cache-dir");
    return Status::OK();
  }
};

// "disk cache DIR: hits …" on stderr, when a disk cache is in use.
inline void PrintDiskCacheStats() {
  auto cache = io::DiskCacheFor(io::StoreOptions{});
  if (!cache.ok() || !*cache) return;
  io::DiskCacheStats s = (*cache)->Stats();
  std::fprintf(stderr, "disk cache %s: hits %llu (%llu bytes), misses %llu, written %llu entries (%llu bytes), %llu entries held\n",
               (*cache)->dir().c_str(), static_cast<unsigned long long>(s.hits),
               static_cast<unsigned long long>(s.hit_bytes), static_cast<unsigned long long>(s.misses),
               static_cast<unsigned long long>(s.entries_written), static_cast<unsigned long long>(s.written_bytes),
               static_cast<unsigned long long>(s.entries));
}

}  // namespace rap::cli
