#!/usr/bin/env python3
"""bench/python/bench_python.py: rap from Python against pyarrow.dataset, polars and DuckDB on local
files, the Python scan path against the C++ scan (`rap scan`), and the per-call overhead of
Index.lookup from Python over the C++ Index::Lookup (docs/benchmarks/python.md).

The table has bench_prefetch's shape (bench/prefetch.cc): FILES files of ROWS rows, 4 row groups
each, id int64, v double (10 % NULL), s a string of 8 words, payload 16-31 random letters, Snappy,
page index. Queries: the full scan, and columns id,s where v < 100 AND s IN ('kiwi','plum'). Every
engine's result is checked against rap's (row count and sum of id).

  PYTHONPATH=build/release/python .venv/bin/python bench/python/bench_python.py \\
      [--dir /dev/shm/pybench] [--files 8] [--rows 200000] [--repetitions 5] [--csv out.csv] [--rap build/release/tools/rap]

Prints one line per (query, engine): the median of the timed repetitions (after one untimed run).
"""

from __future__ import annotations

import argparse
import csv
import pathlib
import random
import re
import statistics
import subprocess
import sys
import time

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

import rap

WORDS = ["apple", "kiwi", "plum", "pear", "fig", "lime", "date", "grape", "melon", "peach", "berry", "mango"]
FILTER_SQL = "v < 100 AND s IN ('kiwi','plum')"


def make_table(root: pathlib.Path, files: int, rows: int) -> None:
    root.mkdir(parents=True, exist_ok=True)
    if len(list(root.glob("*.parquet"))) == files:
        return
    rnd = random.Random(1)
    for f in range(files):
        ids = pa.array(range(f * rows, (f + 1) * rows), pa.int64())
        v = pa.array([None if rnd.random() < 0.1 else rnd.random() * 10_000 for _ in range(rows)], pa.float64())
        s = pa.array([WORDS[(i * 7 + f) % len(WORDS)] if i % 5 else " ".join(rnd.choices(WORDS, k=8))
                      for i in range(rows)])
        letters = "abcdefghijklmnopqrstuvwxyz"
        payload = pa.array(["".join(rnd.choices(letters, k=rnd.randint(16, 31))) for _ in range(rows)])
        t = pa.table({"id": ids, "v": v, "s": s, "payload": payload})
        pq.write_table(t, root / f"part-{f}.parquet", row_group_size=rows // 4, compression="snappy",
                       write_page_index=True)


def check(name: str, t: pa.Table, want: tuple[int, int]) -> None:
    got = (t.num_rows, pc.sum(t.column("id")).as_py() or 0)
    if got != want:
        sys.exit(f"{name}: rows/sum(id) {got} differ from rap's {want}")


def timed(fn, reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default="/dev/shm/rap-pybench")
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--lookups", type=int, default=2000)
    ap.add_argument("--csv", default="")
    ap.add_argument("--rap", default="build/release/tools/rap", help="the rap CLI of the same build")
    a = ap.parse_args()
    root = pathlib.Path(a.dir) / "table"
    make_table(root, a.files, a.rows)
    url = str(root)
    files = [str(p) for p in sorted(root.glob("*.parquet"))]
    print(f"table {url}: {a.files} files x {a.rows} rows, {sum(pathlib.Path(f).stat().st_size for f in files) / 2**20:.1f} MiB")

    rows = []
    queries = {
        "full": dict(columns=None, where=None),
        "filtered": dict(columns=["id", "s"], where=FILTER_SQL),
    }
    for qname, q in queries.items():
        ref = pa.table(rap.scan(url, columns=q["columns"], where=q["where"]))
        want = (ref.num_rows, pc.sum(ref.column("id")).as_py() or 0)
        cols = q["columns"] or ["id", "v", "s", "payload"]
        dataset = ds.dataset(files, format="parquet")
        flt = None
        if q["where"]:
            flt = (pc.field("v") < 100) & pc.field("s").isin(["kiwi", "plum"])
        engines = {
            "rap.scan -> pyarrow": lambda: pa.table(rap.scan(url, columns=q["columns"], where=q["where"])),
            "pyarrow.dataset": lambda: dataset.to_table(columns=cols, filter=flt),
            "polars scan_parquet": lambda: (pl.scan_parquet(files).filter(
                (pl.col("v") < 100) & pl.col("s").is_in(["kiwi", "plum"])) if q["where"] else pl.scan_parquet(files)
            ).select(cols).collect().to_arrow(),
            "duckdb": lambda: duckdb.sql(
                f"select {', '.join(cols)} from read_parquet({files!r})" + (f" where {q['where']}" if q["where"] else "")
            ).to_arrow_table(),
        }
        for name, fn in engines.items():
            check(f"{qname} {name}", fn(), want)
            m = timed(fn, a.repetitions)
            rows.append((qname, name, m))
            print(f"{qname:9s} {name:22s} {m * 1000:9.1f} ms  ({want[0]} rows)")
        if pathlib.Path(a.rap).exists():
            args = [a.rap, "scan", url, "--format", "none", "--stats"]
            if q["columns"]:
                args += ["--columns", ",".join(q["columns"])]
            if q["where"]:
                args += ["--where", q["where"]]

            def cli() -> float:
                err = subprocess.run(args, check=True, capture_output=True, text=True).stderr
                return float(re.search(r"open_s ([0-9.]+)", err).group(1)) + float(re.search(r"scan_s ([0-9.]+)", err).group(1))

            cli()
            m = statistics.median(cli() for _ in range(a.repetitions))
            rows.append((qname, "C++ rap scan (open_s+scan_s)", m))
            print(f"{qname:9s} {'C++ rap scan':22s} {m * 1000:9.1f} ms  (in-process times of the CLI)")

    # Lookups: the Python call's wall time against the C++ Index::Lookup's own time (stats seconds).
    rap.build_index(url, "id", progress=False)
    idx = rap.Index.open(url)
    rnd = random.Random(3)
    keys = [rnd.randrange(0, a.files * a.rows) for _ in range(a.lookups)]
    for k in keys[:200]:
        idx.lookup([k], columns=["v"])  # warm the page cache
    overhead, wall = [], []
    for k in keys:
        t0 = time.perf_counter()
        reader, _ = idx.lookup([k], columns=["v"])
        dt = time.perf_counter() - t0
        wall.append(dt)
        overhead.append(dt - reader.stats["seconds"])
    print(f"lookup    Python wall median {statistics.median(wall) * 1e6:.1f} us, overhead over Index::Lookup "
          f"median {statistics.median(overhead) * 1e6:.1f} us, p90 {statistics.quantiles(overhead, n=10)[-1] * 1e6:.1f} us")
    rows.append(("lookup", "Python wall", statistics.median(wall)))
    rows.append(("lookup", "Python overhead over Index::Lookup", statistics.median(overhead)))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["query", "engine", "median_s"])
            w.writerows(rows)


if __name__ == "__main__":
    main()
