// Disk cache entries (io/disk_cache.h): any bytes in an entry's file — a torn write, a bit flip, a
// file another program put there — read as a miss (and the file is removed) or as a hit whose
// payload passed the key and CRC checks; never a crash or an allocation beyond the file's size.
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "fuzz/fuzz_target.h"
#include "rap/io/disk_cache.h"
#include "rap/io/sigv4.h"

RAP_FUZZ_TARGET(disk_cache_entry) {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/rap-fuzz-disk-cache-XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    return std::string(d != nullptr ? d : "/tmp/rap-fuzz-disk-cache");
  }();
  static auto cache = rap::io::DiskCache::Open(dir, 1ULL << 30);
  if (!cache.ok()) return 0;
  const std::string key = "fuzz-key";
  const std::string h = rap::io::sigv4::Sha256Hex(key);
  ::mkdir((dir + "/" + h.substr(0, 2)).c_str(), 0755);
  {
    std::ofstream f(dir + "/" + h.substr(0, 2) + "/" + h.substr(2) + ".rdc", std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  auto hit = (*cache)->Get(key);
  if (hit && hit->size() > size) std::abort();  // a payload longer than the file: impossible
  return 0;
}
