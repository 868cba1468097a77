"""Cold one-key lookups with and without the disk tier (`rap lookup --cache-dir`, docs/server.md
"Disk cache"): each lookup is a fresh `rap lookup` process (a serverless function per request) over
S3 on rap-netsim with a per-request latency, for a plain and a covering index. With the cache, the
first process fills it and the later ones read the index and data pages from disk; the table is
written by pyarrow (6 files, small pages), the indexes built over the same S3 endpoint (so the
manifest's ETags are the store's and every versioned read is cacheable). Every run's rows are
checked equal to pyarrow's filter of the files. Prints medians and writes CSV
(docs/benchmarks/disk_cache.md).

    python bench/disk_cache/bench_disk_cache.py --rap build/release/tools/rap \
        --netsim build/release/tools/rap-netsim --latency 30ms --repeat 5 --csv /tmp/disk_cache.csv
"""

import argparse
import csv
import io
import os
import pathlib
import random
import statistics
import subprocess
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # bench/netsim.py
from netsim import Netsim  # noqa: E402

COLUMNS = ["k", "s", "v", "row"]


def write_table(root: pathlib.Path, files: int, rows: int) -> pa.Table:
    rnd = random.Random(7)
    root.mkdir(parents=True)
    parts = []
    for f in range(files):
        k = [rnd.randrange(0, 10000) for _ in range(rows)]
        t = pa.table({"k": pa.array(k, pa.int64()), "s": pa.array([f"user-{x % 997:04d}" for x in k]),
                      "v": pa.array([i * 1.5 for i in range(rows)]), "row": pa.array(range(f * rows, (f + 1) * rows))})
        pq.write_table(t, root / f"part-{f}.parquet", row_group_size=rows, data_page_size=8192, write_page_index=True)
        parts.append(t)
    return pa.concat_tables(parts)


def run_lookup(rap: str, env: dict, url: str, key: int, cache: str) -> str:
    cmd = [rap, "lookup", url, "--key", str(key), "-c", ",".join(COLUMNS), "--format", "csv"]
    if cache:
        cmd += ["--cache-dir", cache]
    return subprocess.run(cmd, check=True, env=env, capture_output=True, text=True).stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rap", required=True)
    ap.add_argument("--netsim", required=True)
    ap.add_argument("--latency", default="30ms")
    ap.add_argument("--files", type=int, default=6)
    ap.add_argument("--rows", type=int, default=20000, help="rows per file")
    ap.add_argument("--repeat", type=int, default=5, help="lookups (fresh processes) per cell after the first")
    ap.add_argument("--csv", default="")
    ap.add_argument("--no-bundle", action="store_true",
                    help="delete the indexes' latest bundles (_manifest/_latest.json) after the builds: indexes as "
                         "written before the bundle, opened through the hint and the manifest")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rap-bench-disk-cache-") as tmp:
        tmp = pathlib.Path(tmp)
        table = write_table(tmp / "s3" / "bkt" / "t", a.files, a.rows)
        ns = Netsim(a.netsim, tmp / "s3")
        env = dict(os.environ, AWS_ENDPOINT_URL=ns.url, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench",
                   AWS_REGION="us-east-1")
        subprocess.run([a.rap, "index", "build", "s3://bkt/t", "--key", "k", "--buckets", "8", "-q"], check=True, env=env)
        subprocess.run([a.rap, "index", "build", "s3://bkt/t", "--key", "k", "--name", "covered", "--cover", "s,v,row",
                        "--buckets", "8", "-q"], check=True, env=env)
        if a.no_bundle:
            for bundle in (tmp / "s3" / "bkt" / "t" / "_rap_index").glob("*/_manifest/_latest.json"):
                bundle.unlink()
        ns.control(f"config?latency={a.latency}")
        out = []
        print(f"{'index':8} {'cache':12} {'p50 ms':>8} {'requests':>9} {'bytes':>10}")
        for index, url in (("plain", "s3://bkt/t"), ("covered", "s3://bkt/t/_rap_index/covered")):
            for mode in ("off", "first", "warm"):
                cache = str(tmp / f"cache-{index}") if mode != "off" else ""
                walls, reqs, nbytes = [], [], []
                keys = [random.Random(i).randrange(0, 10000) for i in range(a.repeat)]
                for key in keys:
                    if mode == "warm":
                        run_lookup(a.rap, env, url, key, cache)  # fill the cache for this key first
                    elif mode == "first":
                        cache = str(tmp / f"cache-{index}-{key}")  # an empty cache per lookup
                    ns.control("reset")
                    t0 = time.monotonic()
                    got = run_lookup(a.rap, env, url, key, cache)
                    walls.append(time.monotonic() - t0)
                    st = ns.control("stats")
                    reqs.append(st["requests"])
                    nbytes.append(st["payload_bytes"])
                    want = table.filter(pc.equal(table["k"], key)).select(COLUMNS).sort_by("row")
                    have = pacsv.read_csv(io.BytesIO(got.encode())).select(COLUMNS).sort_by("row") if got.strip() else None
                    if have is None or have.num_rows != want.num_rows or have.column("row") != want.column("row").cast(have.column("row").type) \
                            or have.column("s").to_pylist() != want.column("s").to_pylist():
                        sys.exit(f"rows differ for key {key} ({index}, cache {mode})")
                row = {"latency": a.latency, "index": index, "cache": mode, "p50_ms": statistics.median(walls) * 1000,
                       "requests": statistics.median(reqs), "bytes": statistics.median(nbytes), "lookups": len(walls),
                       "bundle": "off" if a.no_bundle else "on"}
                out.append(row)
                print(f"{index:8} {mode:12} {row['p50_ms']:8.1f} {row['requests']:9.0f} {row['bytes']:10.0f}")
        ns.stop()
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(out[0]))
            w.writeheader()
            w.writerows(out)


if __name__ == "__main__":
    main()
