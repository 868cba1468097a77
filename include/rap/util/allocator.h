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
#pragma once

namespace rap {

// Applies the settings above once per process; false when they were not applied (turned off by
// RAP_MALLOC_TUNING=0, or the C library is not glibc).
bool TuneAllocatorForScans();

}  // namespace rap
