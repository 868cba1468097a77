"""A filtered scan of one Iceberg table over S3 (rap-netsim, 20 ms per request): `rap scan --where`
against pyiceberg's `table.scan(row_filter=...).to_arrow()` on the same table and rows
(docs/benchmarks/iceberg.md). The table is written by pyiceberg (SqlCatalog on SQLite, warehouse
s3://bench/wh on rap-netsim, which stores PUTs under --dir), so its metadata names s3:// locations
both readers resolve through the same endpoint. Each reader's result is checked against the other's
(row count and the sum of every numeric column); the median wall time of --repeat runs is reported,
with rap-netsim's request count per run.

    python bench/iceberg/bench_iceberg.py --netsim build/dev/tools/rap-netsim --rap build/dev/tools/rap \
        --dir /tmp/rap-bench-iceberg
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # bench/netsim.py
from netsim import Netsim  # noqa: E402

KEY = "bench"


def s3_properties(server: Netsim) -> dict:
    return {"s3.endpoint": server.url, "s3.access-key-id": KEY, "s3.secret-access-key": KEY, "s3.region": "us-east-1",
            "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO"}


def local_write_io():
    """pyiceberg's PyArrowFileIO with s3://bench/... written to the folder rap-netsim serves as bucket
    `bench` (rap-netsim answers PUT but not the multipart upload pyarrow's S3 output streams use), so
    the table names s3:// locations; the benchmark reads it over S3 only."""
    from pyiceberg.io.pyarrow import PyArrowFileIO

    class LocalWriteIO(PyArrowFileIO):
        def _local(self, location: str) -> str:
            root = self.properties["bench.bucket-dir"]
            return root + location[len("s3://bench"):] if location.startswith("s3://bench/") else location

        def new_input(self, location: str):
            return super().new_input(self._local(location))

        def new_output(self, location: str):
            pathlib.Path(self._local(location)).parent.mkdir(parents=True, exist_ok=True)
            return _Renamed(super().new_output(self._local(location)), location)

        def delete(self, location) -> None:
            super().delete(self._local(location if isinstance(location, str) else location.location))

    class _Renamed:
        """An output file that reports its s3:// location (what the metadata records)."""

        def __init__(self, inner, location: str):
            self._inner, self.location = inner, location

        def __getattr__(self, name):
            return getattr(self._inner, name)

        def __len__(self):
            return len(self._inner)

        def to_input_file(self):
            return self._inner.to_input_file()

    return LocalWriteIO


LocalWriteIO = None


def write_table(server: Netsim, workdir: pathlib.Path, rows: int, files: int):
    from pyiceberg.catalog.sql import SqlCatalog
    global LocalWriteIO
    LocalWriteIO = local_write_io()
    props = dict(s3_properties(server), **{"py-io-impl": "__main__.LocalWriteIO",
                                            "bench.bucket-dir": str(workdir / "s3" / "bench")})
    catalog = SqlCatalog("bench", uri=f"sqlite:///{workdir}/catalog.db", warehouse="s3://bench/wh", **props)
    catalog.create_namespace_if_not_exists("db")
    if catalog.table_exists("db.events"):
        return catalog.load_table("db.events")
    per = rows // files
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("user_id", pa.int64(), nullable=False),
                        pa.field("amount", pa.float64(), nullable=False), pa.field("country", pa.string(), nullable=False),
                        pa.field("payload", pa.string(), nullable=False)])
    table = catalog.create_table("db.events", schema=schema)
    for f in range(files):
        ids = pa.array(range(f * per, (f + 1) * per), pa.int64())
        batch = pa.table({"id": ids, "user_id": pc.multiply(pc.bit_wise_and(ids, 1023), 7919),
                          "amount": pc.divide(pc.cast(pc.bit_wise_and(ids, 65535), pa.float64()), 100.0),
                          "country": pa.array([["NL", "SE", "US", "DE"][i % 4] for i in range(f * per, (f + 1) * per)]),
                          "payload": pa.array([f"event-{i:012d}-" + "x" * 40 for i in range(f * per, (f + 1) * per)])},
                         schema=schema)
        table.append(batch)  # one data file per append, ids ascending: column bounds prune by id
    return table


def summary(t: pa.Table) -> tuple:
    sums = tuple(pc.sum(t[c]).as_py() for c in ("id", "user_id"))
    return (t.num_rows, sums, round(pc.sum(t["amount"]).as_py() or 0.0, 2))  # no rows: a sum of None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--netsim", required=True)
    ap.add_argument("--rap", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--latency", default="20ms")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--where", default="id >= 1000000 AND id < 1002000")
    args = ap.parse_args()
    workdir = pathlib.Path(args.dir)
    (workdir / "s3" / "bench").mkdir(parents=True, exist_ok=True)
    server = Netsim(args.netsim, str(workdir / "s3"))
    try:
        table = write_table(server, workdir, args.rows, args.files)
        location = table.metadata_location
        lo, hi = [int(x) for x in args.where.replace("id >=", "").replace("AND id <", "").split()]
        from pyiceberg.expressions import And, GreaterThanOrEqual, LessThan
        from pyiceberg.table import StaticTable
        row_filter = And(GreaterThanOrEqual("id", lo), LessThan("id", hi))
        env = dict(os.environ, AWS_ENDPOINT_URL=server.url, AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=KEY,
                   AWS_REGION="us-east-1")
        server.control(f"config?latency={args.latency}")
        results = {}
        for name in ("pyiceberg", "rap"):
            times, requests = [], []
            for _ in range(args.repeat):
                server.control("reset")
                t0 = time.perf_counter()
                if name == "pyiceberg":
                    # A fresh table object each run: metadata, manifest list and manifests read again.
                    out = StaticTable.from_metadata(location, properties=s3_properties(server)).scan(
                        row_filter=row_filter).to_arrow()
                else:
                    # Timed without writing the rows out (--format none decodes them all the same).
                    subprocess.run([args.rap, "scan", location, "--where", args.where, "--format", "none"],
                                   check=True, env=env)
                times.append(time.perf_counter() - t0)
                requests.append(server.control("stats").get("requests", -1))
                if name == "pyiceberg":
                    results[name] = summary(out)
            if name == "rap":  # the rows, once, through a Parquet file
                with tempfile.TemporaryDirectory() as d:
                    subprocess.run([args.rap, "scan", location, "--where", args.where, "--format", "parquet",
                                    "--output", f"{d}/out.parquet"], check=True, env=env)
                    results[name] = summary(pq.read_table(f"{d}/out.parquet"))
            print(f"{name:10s} median {statistics.median(times) * 1000:8.1f} ms  min {min(times) * 1000:8.1f} ms  "
                  f"requests {statistics.median(requests):.0f}  rows {results[name][0]}", flush=True)
            results[name + "_median"] = statistics.median(times)
        if results["rap"] != results["pyiceberg"]:
            sys.exit(f"different results: rap {results['rap']} pyiceberg {results['pyiceberg']}")
        print(f"speedup (pyiceberg / rap): {results['pyiceberg_median'] / results['rap_median']:.2f}x")
        print(f"load average: {open('/proc/loadavg').read().split()[:3]}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
