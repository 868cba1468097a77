#include "rap/util/allocator.h"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// jemalloc's control interface. A weak reference: it is null unless the executable links jemalloc
// (rap itself never requires it).
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen) __attribute__((weak));

namespace rap {

bool TuneAllocatorForScans() {
  static const bool applied = [] {
    const char* env = std::getenv("RAP_MALLOC_TUNING");
    if (env != nullptr && std::strcmp(env, "0") == 0) return false;
#if defined(__GLIBC__)
    // Setting either value also turns off glibc's dynamic threshold adjustment.
    const bool mmap_ok = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1;
    const bool trim_ok = mallopt(M_TRIM_THRESHOLD, 256 << 20) == 1;
    return mmap_ok && trim_ok;
#else
    return false;
#endif
  }();
  return applied;
}

bool UseOwnMallocArena() {
  if (mallctl == nullptr) return false;
  unsigned arena = 0;
  size_t size = sizeof(arena);
  if (mallctl("arenas.create", &arena, &size, nullptr, 0) != 0) return false;
  return mallctl("thread.arena", nullptr, nullptr, &arena, sizeof(arena)) == 0;
}

}  // namespace rap
