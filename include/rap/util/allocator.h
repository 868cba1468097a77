// Process-wide allocator settings for scan workloads.
//
// A scan allocates and frees buffers of 100 KiB to a few MiB per column chunk (decompressed pages,
// dictionaries, decoded values, levels). glibc serves blocks above its mmap threshold with fresh
// mmap()s and returns freed heap tops to the kernel, so every row group page-faults its buffers in
// again: 17,500 faults per scan in bench_scan's scattered_sparse query (about 10% of its time).
// TuneAllocatorForScans() keeps such blocks in the heap and keeps freed memory for reuse:
//   M_MMAP_THRESHOLD 32 MiB (glibc's maximum; larger blocks are still mmap()ed),
//   M_TRIM_THRESHOLD 256 MiB (free memory at the heap top the process keeps instead of trimming).
// The cost is memory kept after a peak, up to the trim threshold per arena. It changes process-global
// state, so the library never calls it by itself: the rap executables do, and an application that
// embeds rap may. RAP_MALLOC_TUNING=0 in the environment turns it off.
//
// jemalloc (the rap binary's allocator when libjemalloc-dev is installed, tools/CMakeLists.txt) has
// the same problem in another form: by default it gives threads up to 4 arenas per core, assigned
// as threads start, and a block freed on one thread goes back to the arena that made it. A scan
// starts new producer, fetcher and warmup threads for every file, so each file's buffers came from
// arenas whose freed memory the next file's threads did not use: `rap scan --prefetch 3` of 64 local
// files page-faulted 401,000 times and took 4.4 s against 0.85 s sequentially (2026-12-03). So the
// rap binary runs jemalloc with one arena (`narenas:1`, its `malloc_conf` in tools/main.cc; the
// environment's MALLOC_CONF still overrides it): 21,000 faults, 0.98 s. Threads that want an arena
// of their own — the server's io loops, whose small per-request blocks contend on one arena's lock
// (about a fifth of the lookups per second with every thread on one arena) — call UseOwnMallocArena().
#pragma once

namespace rap {

// Applies the settings above once per process; false when they were not applied (turned off by
// RAP_MALLOC_TUNING=0, or the C library is not glibc).
bool TuneAllocatorForScans();

// Under jemalloc: gives the calling thread an arena of its own (its blocks are made there from now
// on) and returns true; a second call on the same thread changes nothing. The arena is one that an
// ended thread had, or a new one: arenas live as long as the process, so their number is the most
// threads that ever held one at once. Without jemalloc (glibc, sanitizers' allocators) it does
// nothing and returns false.
bool UseOwnMallocArena();

}  // namespace rap
