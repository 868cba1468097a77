"""rap on Spark, measured (docs/benchmarks/spark.md): index build rate (key rows/s) of the
single-process build against rap.spark.build_index at local[1] and local[2], and lookup_join
throughput (keys/s) against Spark's own join of the same keys with the table.

    PYTHONPATH=build/dev/python .venv/bin/python bench/spark/bench_spark.py --rows 10000000 --out /tmp/rap-bench-spark

Every figure is printed with the 1-minute load average read just before and after it (the machine
may be shared). Writes <out>/results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import rap
import rap.spark


def load() -> float:
    return os.getloadavg()[0]


def generate(root: str, rows: int, files: int, page_bytes: int, seed: int = 1) -> None:
    """`files` Parquet files: k int64 (uniform in [0, rows), so about one row per key), v float64,
    name string (~12 bytes), row int64; data pages of about `page_bytes` (a covered lookup decodes
    the whole page of each key: pyarrow's default 1 MiB pages make a batch of 10,000 random keys hold
    gigabytes)."""
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(seed)
    per = rows // files
    for f in range(files):
        k = rng.integers(0, rows, per, dtype=np.int64)
        row = np.arange(f * per, (f + 1) * per, dtype=np.int64)
        t = pa.table({"k": k, "v": rng.random(per), "name": pa.array([f"n{x:010d}" for x in row % 10_000_019]),
                      "row": row})
        pq.write_table(t, f"{root}/part-{f:04d}.parquet", row_group_size=1 << 20, compression="zstd",
                       write_page_index=True, data_page_size=page_bytes)


def measure(label: str, fn, results: list, **extra):
    l0, t0 = load(), time.monotonic()
    out = fn()
    secs = time.monotonic() - t0
    rec = dict(label=label, seconds=round(secs, 2), load_before=round(l0, 2), load_after=round(load(), 2), **extra)
    results.append(rec)
    print(json.dumps(rec), flush=True)
    return out, secs


def session(master: str):
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    s = (SparkSession.builder.master(master).appName("rap-bench-spark")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.driver.memory", "2g").config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.shuffle.partitions", master[6:7]).getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    return s


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--files", type=int, default=16)
    ap.add_argument("--buckets", type=int, default=16)
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--out", default="/tmp/rap-bench-spark")
    ap.add_argument("--page-bytes", type=int, default=16 << 10)
    ap.add_argument("--only-join", action="store_true", help="skip the build figures")
    ap.add_argument("--rewrite", action="store_true",
                    help="instead: rap.rewrite (threads 1, 2) against rap.spark.rewrite at local[1], local[2] (layout frame)")
    a = ap.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    table = f"{a.out}/table"
    results: list = []
    print(f"cpus={os.cpu_count()} rows={a.rows} files={a.files} buckets={a.buckets}", flush=True)
    measure("generate", lambda: generate(table, a.rows, a.files, a.page_bytes), results)
    rows = a.rows // a.files * a.files
    if a.rewrite:
        for threads in (1, 2):
            _, s = measure(f"rap.rewrite (single process), threads={threads}",
                           lambda: rap.rewrite(table, f"{a.out}/rw-single-{threads}", key="k", layout="frame",
                                               buckets=a.buckets, threads=threads, progress=False), results, rows=rows)
            results[-1]["rows_per_s"] = round(rows / s)
        for master in ("local[1]", "local[2]"):
            spark = session(master)
            spark.range(4).count()
            _, s = measure(f"rap.spark.rewrite, {master}",
                           lambda: rap.spark.rewrite(spark, table, f"{a.out}/rw-spark-{master[6]}", "k", layout="frame",
                                                     buckets=a.buckets, threads=1), results, rows=rows)
            results[-1]["rows_per_s"] = round(rows / s)
            spark.stop()
        with open(f"{a.out}/results.json", "w") as f:
            json.dump(results, f, indent=1)
        return

    # Index builds: the key only (no cover), as rap index build.
    for threads in (() if a.only_join else (1, 2)):
        idx = f"{a.out}/single-t{threads}"
        _, s = measure(f"single-process build, threads={threads}",
                       lambda: rap.build_index(table, "k", index=idx, buckets=a.buckets, threads=threads,
                                               progress=False), results, rows=rows)
        results[-1]["key_rows_per_s"] = round(rows / s)
        print("  ->", results[-1]["key_rows_per_s"], "key rows/s", flush=True)
    for master in (("local[2]",) if a.only_join else ("local[1]", "local[2]")):
        spark = session(master)
        spark.range(4).count()  # the JVM and a first job, outside the figure
        idx = f"{a.out}/spark-{master[6]}"
        if not a.only_join:
            _, s = measure(f"rap.spark.build_index, {master}",
                           lambda: rap.spark.build_index(spark, table, "k", index=idx, buckets=a.buckets), results,
                           rows=rows)
            results[-1]["key_rows_per_s"] = round(rows / s)
            print("  ->", results[-1]["key_rows_per_s"], "key rows/s", flush=True)
        if master == "local[2]":
            # lookup_join against Spark's join: the same keys (uniform in the key range), the same table.
            measure("covered single-process build (v, name), threads=2",
                    lambda: rap.build_index(table, "k", buckets=a.buckets, cover=["v", "name"], threads=2,
                                            progress=False), results)
            rng = np.random.default_rng(7)
            keys = pa.table({"k": rng.integers(0, a.rows, a.keys, dtype=np.int64)})
            kdir = f"{a.out}/keys"
            os.makedirs(kdir)
            pq.write_table(keys, f"{kdir}/keys.parquet")
            kdf = spark.read.parquet(kdir).repartition(2).cache()
            kdf.count()
            joined = rap.spark.lookup_join(kdf, table, "k", ["v", "name"])
            (_, s) = measure("rap.spark.lookup_join, local[2]",
                             lambda: joined.write.format("noop").mode("overwrite").save(), results, keys=a.keys)
            results[-1]["keys_per_s"] = round(a.keys / s)
            n_rap = joined.count()  # (runs the lookup join again; outside the figure)
            sj = kdf.join(spark.read.parquet(table).select("k", "v", "name"), "k")
            (_, s) = measure("Spark join (its plan), local[2]", lambda: sj.write.format("noop").mode("overwrite").save(),
                             results, keys=a.keys, plan=sj._jdf.queryExecution().executedPlan().toString()[:300])
            results[-1]["keys_per_s"] = round(a.keys / s)
            n_spark = sj.count()
            results.append(dict(label="join rows", rap=n_rap, spark=n_spark))
            print(results[-1], flush=True)
        spark.stop()
    with open(f"{a.out}/results.json", "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
