#include "rap/util/allocator.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

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

namespace {

// Arenas made by UseOwnMallocArena whose thread has ended, for the next caller: jemalloc cannot
// destroy an arena a thread may still have blocks in, so they are reused, and a process that starts
// servers again and again holds no more arenas than it ever had threads at once. (Never destroyed:
// a thread may end after static destruction began.)
std::mutex& FreeArenasMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
std::vector<unsigned>& FreeArenas() {
  static auto* arenas = new std::vector<unsigned>;
  return *arenas;
}

void GiveBackArena(unsigned arena) {
  std::lock_guard<std::mutex> lock(FreeArenasMutex());
  FreeArenas().push_back(arena);
}

// An ended thread's arena, if there is one.
bool TakeFreeArena(unsigned* arena) {
  std::lock_guard<std::mutex> lock(FreeArenasMutex());
  if (FreeArenas().empty()) return false;
  *arena = FreeArenas().back();
  FreeArenas().pop_back();
  return true;
}

// The calling thread's arena from UseOwnMallocArena, handed back when the thread ends.
struct ArenaLease {
  unsigned arena = 0;
  bool held = false;
  ~ArenaLease() {
    if (held) GiveBackArena(arena);
  }
};
thread_local ArenaLease t_arena;

}  // namespace

bool UseOwnMallocArena() {
  if (mallctl == nullptr) return false;
  if (t_arena.held) return true;
  unsigned arena = 0;
  size_t size = sizeof(arena);
  if (!TakeFreeArena(&arena) && mallctl("arenas.create", &arena, &size, nullptr, 0) != 0) return false;
  if (mallctl("thread.arena", nullptr, nullptr, &arena, sizeof(arena)) != 0) {
    GiveBackArena(arena);
    return false;
  }
  t_arena.arena = arena;
  t_arena.held = true;
  return true;
}

}  // namespace rap
