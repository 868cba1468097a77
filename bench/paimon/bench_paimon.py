"""Paimon merge-on-read: rap against pypaimon on one primary-key table (docs/benchmarks/paimon.md).

The table (bench/paimon/pypaimon_side.py write): 8 buckets x 6 sorted runs (6 commits, level-0 files,
compaction off), 5 columns, ROWS_PER_COMMIT rows per commit, keys updated by several runs. Both read
the same snapshot, locally and over S3 served by rap-netsim at LATENCY (tools/rap-netsim, shared
THROUGHPUT); rap with its scan warmup none, raw and decoded. Each cell: one checked, untimed run, then
REPEAT timed runs (median and min reported) of the time to the first merged batch and to the last.
Every rap result is compared with pypaimon's reading (row count and a digest of the rows sorted by
key); a difference exits. The load average is printed before and after each profile (shared machine).

  python bench/paimon/bench_paimon.py --dir /tmp/paimon-bench [--rows-per-commit 100000] [--repeat 5]
      [--latency 20ms] [--throughput 256MiB/s] [--netsim build/dev/tools/rap-netsim] [--csv out.csv]
Run with the project's Python (rap on PYTHONPATH); pypaimon runs in .venv-paimon.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import pyarrow as pa

import rap

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # bench/netsim.py
from netsim import Netsim  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
SIDE = REPO / "bench" / "paimon" / "pypaimon_side.py"
KEY = "bench"
COLUMNS = ["id", "name", "x", "n", "note"]


def digest(table: pa.Table) -> str:
    t = table.select(COLUMNS).sort_by("id")
    h = hashlib.sha256()
    for name in t.column_names:
        h.update(repr(t.column(name).to_pylist()).encode())
    return h.hexdigest()


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def rap_cell(url: str, opts, warmup: str, repeat: int, want: tuple[int, str]) -> list[dict]:
    runs = []
    for r in range(repeat + 1):
        t0 = time.perf_counter()
        reader = rap.scan(url, warmup=warmup, storage_options=opts)
        batches = []
        first = None
        for b in reader:
            if first is None:
                first = time.perf_counter() - t0
            batches.append(pa.record_batch(b))
        total = time.perf_counter() - t0
        if r == 0:
            t = pa.Table.from_batches(batches)
            got = (t.num_rows, digest(t))
            if got != want:
                sys.exit(f"rap ({url}, warmup {warmup}) read {got}, pypaimon {want}")
        else:
            runs.append({"first_batch_s": first, "total_s": total})
    return runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--rows-per-commit", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--latency", default="20ms")
    ap.add_argument("--throughput", default="256MiB/s")
    ap.add_argument("--netsim", default=str(REPO / "build" / "dev" / "tools" / "rap-netsim"))
    ap.add_argument("--paimon-python", default=str(REPO / ".venv-paimon" / "bin" / "python"))
    ap.add_argument("--csv", default="")
    a = ap.parse_args()
    base = pathlib.Path(a.dir)
    warehouse = base / "bkt" / "wh"
    if not (warehouse / "db.db" / "t").exists():
        subprocess.run([a.paimon_python, str(SIDE), "write", str(warehouse), str(a.rows_per_commit)], check=True)
    table = warehouse / "db.db" / "t"
    rows = []
    for profile in ("local", "s3"):
        server = Netsim(a.netsim, base, a.latency, a.throughput) if profile == "s3" else None
        print(f"[{profile}] load average before: {load()}", flush=True)
        wh_url = "s3://bkt/wh" if server else str(warehouse)
        url = "s3://bkt/wh/db.db/t" if server else str(table)
        opts = ({"endpoint": server.url, "region": "us-east-1", "access_key_id": KEY, "secret_access_key": KEY}
                if server else None)
        side = [a.paimon_python, str(SIDE), "read", wh_url, "6", str(a.repeat)] + ([server.url] if server else [])
        peer = json.loads(subprocess.run(side, check=True, capture_output=True, text=True).stdout)
        want = (peer["rows"], peer["digest"])
        cells = [("pypaimon", "-", peer["runs"])]
        for warmup in ("none", "raw", "decoded"):
            cells.append(("rap", warmup, rap_cell(url, opts, warmup, a.repeat, want)))
        for method, warmup, runs in cells:
            first = [r["first_batch_s"] for r in runs]
            total = [r["total_s"] for r in runs]
            row = {"profile": profile if not server else f"s3 {a.latency}", "method": method, "warmup": warmup,
                   "rows": want[0], "first_batch_median_s": round(statistics.median(first), 4),
                   "first_batch_min_s": round(min(first), 4), "total_median_s": round(statistics.median(total), 4),
                   "total_min_s": round(min(total), 4), "load": load()}
            rows.append(row)
            print(json.dumps(row), flush=True)
        print(f"[{profile}] load average after: {load()}", flush=True)
        if server:
            server.stop()
    stats = subprocess.run([str(pathlib.Path(a.netsim).with_name("rap")), "scan", str(table), "--format", "none",
                            "--stats"], check=True, capture_output=True, text=True).stderr
    print("rap scan --stats (local): " + " ".join(l for l in stats.splitlines() if l.startswith("paimon_")), flush=True)
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
