"""Paimon merge-on-read: rap against pypaimon on one primary-key table (docs/benchmarks/paimon.md).

The table (bench/paimon/pypaimon_side.py write): 8 buckets x 6 sorted runs (6 commits, level-0 files,
compaction off), 5 columns, ROWS_PER_COMMIT rows per commit, keys updated by several runs. Both read
the same snapshot, locally and over S3 served by rap-netsim at LATENCY (tools/rap-netsim, shared
THROUGHPUT); rap with its scan warmup none, raw and decoded. Each cell: one checked, untimed run, then
REPEAT timed runs (median and min reported) of the time to the first merged batch and to the last.
Paimon Java (bench/paimon/PaimonJavaRead.java, compiled here; its pinned jars fetched by the project's
scripts) reads the same snapshot in one JVM: its first row and last row, after an untimed run that
also writes its rows for the check (--no-java leaves it out).
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


JAVA_JARS = ("paimon-spark-3.5-0.9.0", "hadoop-client-api-3.4.1", "hadoop-client-runtime-3.4.1", "slf4j-api-2.0.16",
             "commons-logging-1.2", "zstd-jni-1.5.6-10", "snappy-java-1.1.10.4", "aircompressor-2.0.2",
             "paimon-s3-0.9.0")


def java_classpath(base: pathlib.Path) -> str:
    """Paimon Java's jars (pinned, from Maven Central through the project's fetch scripts) and
    PaimonJavaRead compiled into BASE/java; the class path to run it."""
    jars = []
    for script in ("fetch-jars.sh", "fetch-orc-jars.sh", "fetch-bench-jars.sh"):
        out = subprocess.run([str(REPO / "scripts" / script)], check=True, capture_output=True, text=True, cwd=REPO)
        jars += [str(REPO / line) if not line.startswith("/") else line for line in out.stdout.split()]
    by_name = {pathlib.Path(j).stem: j for j in jars}
    missing = [j for j in JAVA_JARS if j not in by_name]
    if missing:
        sys.exit(f"Paimon Java: jars not fetched: {missing}")
    cp = ":".join(by_name[j] for j in JAVA_JARS)
    classes = base / "java"
    classes.mkdir(exist_ok=True)
    subprocess.run(["javac", "-d", str(classes), "-cp", cp, str(REPO / "bench" / "paimon" / "PaimonJavaRead.java")],
                   check=True)
    return f"{classes}:{cp}"


def java_cell(cp: str, base: pathlib.Path, warehouse: str, endpoint: str, repeat: int,
              want: tuple[int, str]) -> list[dict]:
    """Paimon Java's read (bench/paimon/PaimonJavaRead.java, one JVM: an untimed checked run, then
    REPEAT timed ones); its rows must equal pypaimon's."""
    import numpy as np
    import pyarrow.csv as pcsv

    out = base / "java" / "rows.tsv"
    cmd = ["java", "-cp", cp, "PaimonJavaRead", warehouse, "6", str(repeat), str(out)] + ([endpoint] if endpoint else [])
    res = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    t = pcsv.read_csv(out, read_options=pcsv.ReadOptions(column_names=["id", "name", "x", "n", "note"]),
                      parse_options=pcsv.ParseOptions(delimiter="\t", quote_char=False),
                      convert_options=pcsv.ConvertOptions(
                          null_values=["\\N"], strings_can_be_null=True,
                          column_types={"id": pa.int64(), "name": pa.string(), "x": pa.string(), "n": pa.int64(),
                                        "note": pa.string()}))
    bits = t.column("x").to_pylist()
    x = [None if b is None else float(np.array([int(b, 16)], dtype=np.uint64).view(np.float64)[0]) for b in bits]
    t = t.set_column(2, "x", pa.array(x, pa.float64()))
    got = (t.num_rows, digest(t))
    if got != want:
        sys.exit(f"Paimon Java ({warehouse}) read {got}, pypaimon {want}")
    return res["runs"]


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
    ap.add_argument("--no-java", action="store_true", help="leave Paimon Java (PaimonJavaRead) out")
    a = ap.parse_args()
    base = pathlib.Path(a.dir)
    warehouse = base / "bkt" / "wh"
    if not (warehouse / "db.db" / "t").exists():
        subprocess.run([a.paimon_python, str(SIDE), "write", str(warehouse), str(a.rows_per_commit)], check=True)
    table = warehouse / "db.db" / "t"
    java_cp = None if a.no_java else java_classpath(base)
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
        if java_cp:
            cells.append(("paimon-java", "-", java_cell(java_cp, base, wh_url, server.url if server else "", a.repeat,
                                                        want)))
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
