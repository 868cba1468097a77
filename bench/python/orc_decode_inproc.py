"""Local ORC decode, in one process: rap.scan(prefetch=1, warmup="none") against pyarrow's ORC reader
(pyarrow.dataset(format="orc").to_table(use_threads=False), pyarrow's CPU and I/O pools at 1 thread)
on the same files, for bench_prefetch's two queries; median of N after one untimed run each. Both
produce a pyarrow Table (rap through the Arrow C data interface); bench_prefetch's own local times
include its fingerprint of every value, this does not.

  PYTHONPATH=build/dev/python python bench/python/orc_decode_inproc.py DIR [N]
"""

from __future__ import annotations

import statistics
import sys
import time

import pyarrow as pa
import pyarrow.dataset as ds

import rap


def timed(fn, n: int):
    fn()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    directory = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    dataset = ds.dataset(directory, format="orc")
    queries = [
        ("full", None, None, None),
        ("filtered", ["id", "s"], "v < 100 AND s IN ('kiwi', 'plum')",
         (ds.field("v") < 100) & ds.field("s").isin(["kiwi", "plum"])),
    ]
    for name, columns, where, expr in queries:
        tp, want = timed(lambda: dataset.to_table(columns=columns, filter=expr, use_threads=False), n)
        tr, got = timed(lambda: rap.scan(directory, columns=columns, where=where, prefetch=1,
                                         warmup="none").read_all(), n)
        assert got.num_rows == want.num_rows, (got.num_rows, want.num_rows)
        print(f"{name}: pyarrow {tp * 1e3:.1f} ms, rap {tr * 1e3:.1f} ms ({got.num_rows} rows): "
              f"rap {tp / tr:.2f}x pyarrow's speed")


if __name__ == "__main__":
    main()
