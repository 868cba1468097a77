#!/usr/bin/env python3
"""bench/python/bench_python.py: rap from Python against pyarrow.dataset, polars and DuckDB on local
files and over rap-netsim's S3 API, the Python scan path against the C++ scan (`rap scan`), and the
per-call overhead of Index.lookup from Python over the C++ Index::Lookup (docs/benchmarks/python.md).

The table has bench_prefetch's shape (bench/prefetch.cc): FILES files of ROWS rows, 4 row groups
each, id int64, v double (10 % NULL), s a string of 8 words, payload 16-31 random letters, Snappy,
page index; it lives in DIR/bkt/t, so that rap-netsim serving DIR answers for s3://bkt/t. Queries:
the full scan, and columns id,s where v < 100 AND s IN ('kiwi','plum'). Every engine's result is
checked against rap's local one (row count and sum of id); the program exits on a difference.

With --s3-latency (e.g. 20ms) the same queries also run over S3: rap-netsim (--netsim) serves DIR on
127.0.0.1 with that latency per request and --s3-throughput shared by all responses; rap.scan gets
the endpoint through storage_options, pyarrow.dataset an S3FileSystem with endpoint_override,
polars scan_parquet storage_options, the C++ CLI the AWS_* variables. DuckDB over S3 needs its
httpfs extension; it runs only when that loads without a download (an offline machine has none).

  PYTHONPATH=build/release/python .venv/bin/python bench/python/bench_python.py \\
      [--dir /dev/shm/rap-pybench] [--files 8] [--rows 200000] [--repetitions 5] [--csv out.csv] \\
      [--rap build/release/tools/rap] [--s3-latency 20ms [--s3-throughput 256MiB/s] \\
      [--netsim build/release/tools/rap-netsim]] [--no-local] [--no-lookups]

Prints one line per (profile, query, engine): the median of the timed repetitions (after one
untimed run, which is also the checked one) and, over S3, the requests and bytes of that run as
rap-netsim counted them. The CSV has one row per line: profile,query,engine,median_s,requests,bytes.
"""

from __future__ import annotations

import argparse
import csv
import os
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
import pyarrow.fs as pafs
import pyarrow.parquet as pq

import rap

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # bench/netsim.py
from netsim import Netsim  # noqa: E402

WORDS = ["apple", "kiwi", "plum", "pear", "fig", "lime", "date", "grape", "melon", "peach", "berry", "mango"]
FILTER_SQL = "v < 100 AND s IN ('kiwi','plum')"
QUERIES = {
    "full": dict(columns=None, where=None),
    "filtered": dict(columns=["id", "s"], where=FILTER_SQL),
}
ALL_COLUMNS = ["id", "v", "s", "payload"]
KEY = "bench"  # rap-netsim accepts any signature


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


def fingerprint(t: pa.Table) -> tuple[int, int]:
    return (t.num_rows, pc.sum(t.column("id")).as_py() or 0)


def check(name: str, t: pa.Table, want: tuple[int, int]) -> None:
    got = fingerprint(t)
    if got != want:
        sys.exit(f"{name}: rows/sum(id) {got} differ from rap's {want}")


def timed(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def local_engines(root: pathlib.Path, files: list[str], q: dict) -> dict:
    url = str(root)
    cols = q["columns"] or ALL_COLUMNS
    flt = (pc.field("v") < 100) & pc.field("s").isin(["kiwi", "plum"]) if q["where"] else None
    return {
        "rap.scan -> pyarrow": lambda: pa.table(rap.scan(url, columns=q["columns"], where=q["where"])),
        "pyarrow.dataset": lambda: ds.dataset(files, format="parquet").to_table(columns=cols, filter=flt),
        "polars scan_parquet": lambda: polars_query(pl.scan_parquet(files), q),
        "duckdb": lambda: duckdb.sql(
            f"select {', '.join(cols)} from read_parquet({files!r})" + (f" where {q['where']}" if q["where"] else "")
        ).to_arrow_table(),
    }


def polars_query(lf: pl.LazyFrame, q: dict) -> pa.Table:
    if q["where"]:
        lf = lf.filter((pl.col("v") < 100) & pl.col("s").is_in(["kiwi", "plum"]))
    return lf.select(q["columns"] or ALL_COLUMNS).collect().to_arrow()


def s3_engines(server: Netsim, names: list[str], q: dict, con) -> dict:
    """The same queries on s3://bkt/t through rap-netsim; `names` are the file names in the table, `con`
    a DuckDB connection with httpfs set up for rap-netsim, or None."""
    cols = q["columns"] or ALL_COLUMNS
    flt = (pc.field("v") < 100) & pc.field("s").isin(["kiwi", "plum"]) if q["where"] else None
    rap_options = {"endpoint": server.url, "region": "us-east-1", "access_key_id": KEY, "secret_access_key": KEY}
    polars_options = {"aws_endpoint_url": server.url, "aws_region": "us-east-1", "aws_access_key_id": KEY,
                      "aws_secret_access_key": KEY, "aws_allow_http": "true"}
    s3fs = pafs.S3FileSystem(access_key=KEY, secret_key=KEY, region="us-east-1", scheme="http",
                             endpoint_override=f"127.0.0.1:{server.port}")
    engines = {
        "rap.scan -> pyarrow": lambda: pa.table(rap.scan("s3://bkt/t", columns=q["columns"], where=q["where"],
                                                         storage_options=rap_options)),
        "pyarrow.dataset": lambda: ds.dataset([f"bkt/t/{n}" for n in names], format="parquet",
                                              filesystem=s3fs).to_table(columns=cols, filter=flt),
        "polars scan_parquet": lambda: polars_query(
            pl.scan_parquet([f"s3://bkt/t/{n}" for n in names], storage_options=polars_options), q),
    }
    if con is not None:
        urls = [f"s3://bkt/t/{n}" for n in names]
        engines["duckdb"] = lambda: con.sql(
            f"select {', '.join(cols)} from read_parquet({urls!r})" + (f" where {q['where']}" if q["where"] else "")
        ).to_arrow_table()
    return engines


def duckdb_s3(server: Netsim):
    """A DuckDB connection reading s3:// from rap-netsim, or None when httpfs is not installed (no download)."""
    con = duckdb.connect()
    try:
        con.sql("set autoinstall_known_extensions=false")
        con.sql("load httpfs")
    except duckdb.Error as e:
        print(f"DuckDB over S3 skipped: httpfs does not load offline ({str(e).splitlines()[0]})")
        return None
    con.sql(f"set s3_endpoint='127.0.0.1:{server.port}'; set s3_use_ssl=false; set s3_url_style='path'; "
            f"set s3_region='us-east-1'; set s3_access_key_id='{KEY}'; set s3_secret_access_key='{KEY}'")
    return con


def cli_scan(rap_cli: str, url: str, q: dict, env: dict | None) -> float:
    """The C++ scan's own time (open_s + scan_s from `rap scan --stats`)."""
    args = [rap_cli, "scan", url, "--format", "none", "--stats"]
    if q["columns"]:
        args += ["--columns", ",".join(q["columns"])]
    if q["where"]:
        args += ["--where", q["where"]]
    err = subprocess.run(args, check=True, capture_output=True, text=True, env=env).stderr
    return float(re.search(r"open_s ([0-9.]+)", err).group(1)) + float(re.search(r"scan_s ([0-9.]+)", err).group(1))


def run_profile(profile: str, engines_of, refs: dict, reps: int, rows: list, rap_cli: str, cli_url: str,
                cli_env: dict | None, server: Netsim | None) -> None:
    for qname, q in QUERIES.items():
        want = refs[qname]
        for name, fn in engines_of(q).items():
            if server:
                server.control("reset")
            check(f"{profile} {qname} {name}", fn(), want)  # untimed and checked
            req = byt = ""
            if server:
                st = server.control("stats")
                req, byt = st.get("requests", ""), st.get("payload_bytes", "")
            m = timed(fn, reps)
            rows.append((profile, qname, name, m, req, byt))
            extra = f", {req} requests, {byt / 2**20:.1f} MiB" if server else ""
            print(f"{profile:6s} {qname:9s} {name:22s} {m * 1000:9.1f} ms  ({want[0]} rows{extra})", flush=True)
        if pathlib.Path(rap_cli).exists():
            cli_scan(rap_cli, cli_url, q, cli_env)
            m = statistics.median(cli_scan(rap_cli, cli_url, q, cli_env) for _ in range(reps))
            rows.append((profile, qname, "C++ rap scan (open_s+scan_s)", m, "", ""))
            print(f"{profile:6s} {qname:9s} {'C++ rap scan':22s} {m * 1000:9.1f} ms  (in-process times of the CLI)",
                  flush=True)


def lookups(url: str, n_keys: int, files: int, rows_per_file: int, rows: list) -> None:
    """The Python call's wall time against the C++ Index::Lookup's own time (stats seconds)."""
    rap.build_index(url, "id", progress=False)
    idx = rap.Index.open(url)
    rnd = random.Random(3)
    keys = [rnd.randrange(0, files * rows_per_file) for _ in range(n_keys)]
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
    rows.append(("local", "lookup", "Python wall", statistics.median(wall), "", ""))
    rows.append(("local", "lookup", "Python overhead over Index::Lookup", statistics.median(overhead), "", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default="/dev/shm/rap-pybench")
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--lookups", type=int, default=2000)
    ap.add_argument("--csv", default="")
    ap.add_argument("--rap", default="build/release/tools/rap", help="the rap CLI of the same build")
    ap.add_argument("--s3-latency", default="", help="also run over rap-netsim's S3 with this latency, e.g. 20ms")
    ap.add_argument("--s3-throughput", default="256MiB/s", help="rap-netsim's shared throughput limit")
    ap.add_argument("--netsim", default="build/release/tools/rap-netsim", help="the rap-netsim binary")
    ap.add_argument("--no-local", action="store_true", help="skip the local scans")
    ap.add_argument("--no-lookups", action="store_true", help="skip the lookup overhead measurement")
    a = ap.parse_args()
    base = pathlib.Path(a.dir)
    root = base / "bkt" / "t"
    make_table(root, a.files, a.rows)
    files = [str(p) for p in sorted(root.glob("*.parquet"))]
    print(f"table {root}: {a.files} files x {a.rows} rows, "
          f"{sum(pathlib.Path(f).stat().st_size for f in files) / 2**20:.1f} MiB", flush=True)
    # The reference of every engine and profile: rap's local scan.
    refs = {qn: fingerprint(pa.table(rap.scan(str(root), columns=q["columns"], where=q["where"])))
            for qn, q in QUERIES.items()}

    rows: list = []
    if not a.no_local:
        run_profile("local", lambda q: local_engines(root, files, q), refs, a.repetitions, rows, a.rap, str(root),
                    None, None)
    if a.s3_latency:
        server = Netsim(a.netsim, base, a.s3_latency, a.s3_throughput)
        try:
            print(f"rap-netsim at {server.url}: latency {a.s3_latency}, throughput {a.s3_throughput}", flush=True)
            names = [pathlib.Path(f).name for f in files]
            env = dict(os.environ, AWS_ENDPOINT_URL=server.url, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=KEY,
                       AWS_REGION="us-east-1")
            con = duckdb_s3(server)
            run_profile(f"s3 {a.s3_latency}", lambda q: s3_engines(server, names, q, con), refs, a.repetitions, rows,
                        a.rap, "s3://bkt/t", env, server)
        finally:
            server.stop()
    if not a.no_lookups:
        lookups(str(root), a.lookups, a.files, a.rows, rows)
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["profile", "query", "engine", "median_s", "requests", "bytes"])
            w.writerows(rows)


if __name__ == "__main__":
    main()
