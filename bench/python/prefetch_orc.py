"""bench_prefetch --format orc's Python side (pyarrow, requirements-test.txt's version):

  prefetch_orc.py convert DIR STRIPES   rewrites every DIR/*.parquet as DIR/*.orc with pyarrow's ORC
                                        writer (Apache ORC C++; SNAPPY like the Parquet files; about
                                        STRIPES stripes per file) and deletes the Parquet file; prints
                                        {"stripes": [...], "bytes": N}
  prefetch_orc.py scan SPEC_JSON        the peer: pyarrow.dataset(format="orc") over the local files,
                                        to_table(use_threads=False) (one decode thread) for SPEC's
                                        query, `reps` timed runs after one untimed one; prints
                                        {"times_s": [...], "rows": N}
"""

from __future__ import annotations

import json
import pathlib
import sys
import time

import pyarrow.dataset as ds
import pyarrow.orc as po
import pyarrow.parquet as pq


def convert(directory: str, stripes: int) -> None:
    out = {"stripes": [], "bytes": 0}
    for path in sorted(pathlib.Path(directory).glob("*.parquet")):
        table = pq.read_table(path)
        # pyarrow's stripe_size counts the writer's buffered (encoded) bytes: half the Arrow size per stripe
        target = max(64 * 1024, table.nbytes // (2 * stripes))
        orc_path = path.with_suffix(".orc")
        po.write_table(table, str(orc_path), compression="snappy", stripe_size=target)
        path.unlink()
        out["stripes"].append(po.ORCFile(str(orc_path)).nstripes)
        out["bytes"] += orc_path.stat().st_size
    print(json.dumps(out))


def scan(spec: dict) -> None:
    dataset = ds.dataset(spec["dir"], format="orc")
    columns = spec.get("columns") or None
    expr = None
    if spec.get("query") == "filtered":
        # v < 100 AND s IN ('kiwi', 'plum')
        expr = (ds.field("v") < 100) & ds.field("s").isin(["kiwi", "plum"])
    times, rows = [], 0
    for i in range(spec["reps"] + 1):
        t0 = time.perf_counter()
        table = dataset.to_table(columns=columns, filter=expr, use_threads=False)
        elapsed = time.perf_counter() - t0
        rows = table.num_rows
        if i > 0:
            times.append(elapsed)
    print(json.dumps({"times_s": times, "rows": rows}))


if __name__ == "__main__":
    if sys.argv[1] == "convert":
        convert(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "scan":
        scan(json.loads(sys.argv[2]))
    else:
        sys.exit(f"unknown command {sys.argv[1]}")
