#!/usr/bin/env python3
"""bench/peers/peers.py: rap against the strongest peers (issue 36) on the same data in the same run:
pyarrow.dataset, polars, DuckDB and DataFusion on Parquet written with pyarrow's defaults, Lance (with a
BTree scalar index on the key, and `take` by row position) and Vortex; rap on the same Parquet files with
a plain index, on the same data written by pyarrow with its page index (write_page_index=True: a covering
index needs the OffsetIndex) with a plain and a covering index, and on its lookup layouts (`rap rewrite --layout interleaved` and `frame`).
Results and method: docs/benchmarks/peers.md.

The table has bench_lookup's shape (bench/lookup/table.cc): ROWS rows in FILES files, 20 columns (key `k`
int64, then c01..c19 cycling int64, double 10 % NULL, a string of a 1,000-word vocabulary, int32, a random
string 20 % NULL), each key's 10 rows spread over 3 distinct files, rows shuffled inside a file. It is
generated here with numpy (seeded), not by the C++ generator, so the values differ but the shape is the same.

Workloads per profile (local files; with --latencies, S3 served by rap-netsim at each latency):
  lookup1/lookup10/lookup100  point lookups of 1, 10, 100 random keys returning k,c01,c02,c03
                              (--lookups of them per cell: p50, p99, and per lookup the requests and
                              payload bytes rap-netsim counted)
  scan_full                   every column of every row
  scan_filtered               k,c01,c02 where c04 < 1000 (about 1 % of the rows)
Every method's result is checked against pyarrow's reading of the in-memory source (rows sorted on the
returned columns, values equal); a difference stops the program. Each cell is timed after one untimed
run (the checked one); lookups use fresh random keys for every timed run.

  PYTHONPATH=build/dev/python .venv-bench/bin/python bench/peers/peers.py \\
      [--rows 2000000] [--files 16] [--dir /dev/shm/rap-peers] [--lookups 7] [--scans 3] \\
      [--latencies 5ms,30ms] [--no-local] [--s3-throughput 256MiB/s] [--csv OUT] [--quick] \\
      [--methods rap-covered,lance,...] [--netsim build/dev/tools/rap-netsim]

.venv-bench comes from scripts/install-bench-venv.sh (requirements-bench.txt).
"""

from __future__ import annotations

import argparse
import csv
import glob
import os
import pathlib
import shutil
import statistics
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq

import rap

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # bench/netsim.py
from netsim import Netsim  # noqa: E402

KEY = "bench"  # rap-netsim accepts any signature
REGION = "us-east-1"
LOOKUP_COLUMNS = ["k", "c01", "c02", "c03"]
SCAN_COLUMNS = ["k", "c01", "c02"]
FILTER_SQL = "c04 < 1000"
BATCHES = [1, 10, 100]


# ---------------------------------------------------------------------------------------------- data

def random_strings(rng: np.random.Generator, n: int, lo: int, hi: int) -> pa.Array:
    lengths = rng.integers(lo, hi + 1, n)
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(lengths, out=offsets[1:])
    chars = rng.integers(ord("a"), ord("z") + 1, int(offsets[-1]), dtype=np.uint8)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(chars))


def make_table(rows: int, files: int, columns: int = 20, rows_per_key: int = 10, files_per_key: int = 3,
               seed: int = 0x10C0C) -> list[pa.Table]:
    """bench_lookup's shape; one pyarrow Table per file."""
    rng = np.random.default_rng(seed)
    keys = rows // rows_per_key
    # each key on files_per_key distinct files, its rows split as evenly as possible
    chosen = np.argsort(rng.random((keys, files)), axis=1)[:, :files_per_key]
    per = [rows_per_key // files_per_key + (1 if i < rows_per_key % files_per_key else 0) for i in range(files_per_key)]
    file_keys = [[] for _ in range(files)]
    for i, n in enumerate(per):
        for f in range(files):
            ks = np.nonzero(chosen[:, i] == f)[0]
            file_keys[f].append(np.repeat(ks, n))
    vocab = random_strings(rng, 1000, 6, 15)
    out = []
    for f in range(files):
        k = np.concatenate(file_keys[f]).astype(np.int64)
        rng.shuffle(k)
        n = len(k)
        cols = {"k": pa.array(k, pa.int64())}
        for c in range(1, columns):
            name = f"c{c:02d}"
            kind = c % 5
            if kind == 1:
                cols[name] = pa.array(rng.integers(0, 1 << 44, n), pa.int64())
            elif kind == 2:
                v = rng.integers(0, 1_000_000, n) / 100.0
                cols[name] = pa.array(v, pa.float64(), mask=rng.random(n) < 0.1)
            elif kind == 3:
                cols[name] = vocab.take(pa.array(rng.integers(0, 1000, n)))
            elif kind == 4:
                cols[name] = pa.array(rng.integers(0, 100_000, n).astype(np.int32), pa.int32())
            else:
                s = random_strings(rng, n, 8, 24)
                cols[name] = pc.if_else(pa.array(rng.random(n) < 0.2), pa.scalar(None, pa.string()), s)
        out.append(pa.table(cols))
    return out


def du(path: pathlib.Path, exclude: str | None = None) -> int:
    total = 0
    for p in path.rglob("*"):
        if p.is_file() and not (exclude and exclude in p.parts):
            total += p.stat().st_size
    return total


# ------------------------------------------------------------------------------------------- checking

def normalise(t: pa.Table, ref_schema: pa.Schema) -> pa.Table:
    cols = []
    for f in ref_schema:
        c = t.column(f.name)
        if c.type != f.type:
            c = c.cast(f.type)
        cols.append(c)
    t = pa.table(cols, names=ref_schema.names).combine_chunks()
    return t.sort_by([(n, "ascending") for n in ref_schema.names])


def check(what: str, got: pa.Table, want: pa.Table) -> None:
    g = normalise(got, want.schema)
    if g.num_rows != want.num_rows or not g.equals(want):
        sys.exit(f"MISMATCH {what}: {g.num_rows} rows, expected {want.num_rows} (or the values differ)")


# --------------------------------------------------------------------------------------------- netsim

class Ctx:
    """Where the data is for one profile: local paths or s3://bkt/... through rap-netsim."""

    def __init__(self, base: pathlib.Path, names: list[str], server: Netsim | None):
        self.base, self.names, self.server = base, names, server
        self.s3 = server is not None

    def url(self, sub: str) -> str:
        return f"s3://bkt/{sub}" if self.s3 else str(self.base / "bkt" / sub)

    def rap_opts(self):
        if not self.s3:
            return None
        return {"endpoint": self.server.url, "region": REGION, "access_key_id": KEY, "secret_access_key": KEY}

    def parquet_files(self, scheme: bool = True) -> list[str]:
        if self.s3:
            return [f"s3://bkt/parquet/{n}" if scheme else f"bkt/parquet/{n}" for n in self.names]
        return [str(self.base / "bkt" / "parquet" / n) for n in self.names]

    def pafs(self):
        if not self.s3:
            return None
        return pafs.S3FileSystem(access_key=KEY, secret_key=KEY, region=REGION, scheme="http",
                                 endpoint_override=f"127.0.0.1:{self.server.port}")

    def polars_opts(self):
        if not self.s3:
            return None
        return {"aws_endpoint_url": self.server.url, "aws_region": REGION, "aws_access_key_id": KEY,
                "aws_secret_access_key": KEY, "aws_allow_http": "true"}

    def lance_opts(self):
        if not self.s3:
            return None
        return {"aws_endpoint": self.server.url, "aws_region": REGION, "aws_access_key_id": KEY,
                "aws_secret_access_key": KEY, "allow_http": "true"}


def in_list(keys) -> str:
    return ",".join(str(int(k)) for k in keys)


def m_rap(name: str, sub: str, index_name: str):
    def make(ctx: Ctx):
        idx = rap.Index.open(ctx.url(sub), name=index_name, storage_options=ctx.rap_opts())

        def lookup(keys):
            reader, tokens = idx.lookup([int(k) for k in keys], columns=LOOKUP_COLUMNS[1:])
            t = reader.read_all()
            if any(tok is not None for tok in tokens):
                sys.exit(f"{name}: a lookup returned a page token (incomplete result)")
            return t
        return lookup
    return make


def rap_scan(sub: str):
    def make(ctx: Ctx):
        def full():
            return pa.table(rap.scan(ctx.url(sub), storage_options=ctx.rap_opts()))

        def filtered():
            return pa.table(rap.scan(ctx.url(sub), columns=SCAN_COLUMNS, where=FILTER_SQL, storage_options=ctx.rap_opts()))
        return full, filtered
    return make


def pyarrow_make(ctx: Ctx):
    def dataset():
        return ds.dataset(ctx.parquet_files(scheme=False) if ctx.s3 else ctx.parquet_files(), format="parquet",
                          filesystem=ctx.pafs())
    d = dataset()
    return d


def m_pyarrow(ctx: Ctx):
    d = pyarrow_make(ctx)
    return lambda keys: d.to_table(columns=LOOKUP_COLUMNS, filter=pc.field("k").isin(pa.array(keys, pa.int64())))


def s_pyarrow(ctx: Ctx):
    d = pyarrow_make(ctx)
    return (lambda: d.to_table(),
            lambda: d.to_table(columns=SCAN_COLUMNS, filter=pc.field("c04") < 1000))


def m_polars(ctx: Ctx):
    import polars as pl
    files, opts = ctx.parquet_files(), ctx.polars_opts()
    return lambda keys: pl.scan_parquet(files, storage_options=opts).filter(
        pl.col("k").is_in([int(k) for k in keys])).select(LOOKUP_COLUMNS).collect().to_arrow()


def s_polars(ctx: Ctx):
    import polars as pl
    files, opts = ctx.parquet_files(), ctx.polars_opts()
    return (lambda: pl.scan_parquet(files, storage_options=opts).collect().to_arrow(),
            lambda: pl.scan_parquet(files, storage_options=opts).filter(pl.col("c04") < 1000)
            .select(SCAN_COLUMNS).collect().to_arrow())


def duck_con(ctx: Ctx):
    import duckdb
    con = duckdb.connect()
    con.sql("set threads=2")
    # DuckDB >= 1.3 keeps the bytes of remote files it read in memory (the external file cache), so a
    # repeated query would not read the object store again; off, like every other method here
    con.sql("set enable_external_file_cache=false")
    if ctx.s3:
        import duckdb_ext
        ext = glob.glob(os.path.join(list(duckdb_ext.__path__)[0], "**", "httpfs.duckdb_extension"), recursive=True)
        con.sql("set autoinstall_known_extensions=false")
        con.sql(f"load '{ext[0]}'")
        con.sql(f"set s3_endpoint='127.0.0.1:{ctx.server.port}'; set s3_use_ssl=false; set s3_url_style='path'; "
                f"set s3_region='{REGION}'; set s3_access_key_id='{KEY}'; set s3_secret_access_key='{KEY}'")
    return con


def m_duckdb(ctx: Ctx):
    con, files = duck_con(ctx), ctx.parquet_files()
    return lambda keys: con.sql(f"select {', '.join(LOOKUP_COLUMNS)} from read_parquet({files!r}) "
                                f"where k in ({in_list(keys)})").to_arrow_table()


def s_duckdb(ctx: Ctx):
    con, files = duck_con(ctx), ctx.parquet_files()
    return (lambda: con.sql(f"select * from read_parquet({files!r})").to_arrow_table(),
            lambda: con.sql(f"select {', '.join(SCAN_COLUMNS)} from read_parquet({files!r}) where {FILTER_SQL}")
            .to_arrow_table())


def df_ctx(ctx: Ctx):
    import datafusion
    c = datafusion.SessionContext()
    if ctx.s3:
        from datafusion.object_store import AmazonS3
        c.register_object_store("s3://", AmazonS3(bucket_name="bkt", region=REGION, access_key_id=KEY,
                                                     secret_access_key=KEY, endpoint=ctx.server.url, allow_http=True), "bkt")
        c.register_parquet("t", "s3://bkt/parquet/")
    else:
        c.register_parquet("t", str(ctx.base / "bkt" / "parquet") + "/")
    return c


def m_datafusion(ctx: Ctx):
    c = df_ctx(ctx)
    return lambda keys: c.sql(f"select {', '.join(LOOKUP_COLUMNS)} from t where k in ({in_list(keys)})").to_arrow_table()


def s_datafusion(ctx: Ctx):
    c = df_ctx(ctx)
    return (lambda: c.sql("select * from t").to_arrow_table(),
            lambda: c.sql(f"select {', '.join(SCAN_COLUMNS)} from t where {FILTER_SQL}").to_arrow_table())


def lance_ds(ctx: Ctx):
    import lance
    return lance.dataset(ctx.url("lance"), storage_options=ctx.lance_opts())


def m_lance(ctx: Ctx):
    d = lance_ds(ctx)
    return lambda keys: d.to_table(columns=LOOKUP_COLUMNS, filter=f"k IN ({in_list(keys)})")


POSITIONS: dict = {}  # key -> row positions in the Lance dataset (computed once, untimed)


def m_lance_take(ctx: Ctx):
    d = lance_ds(ctx)

    def lookup(keys):
        pos = np.concatenate([POSITIONS["of"](k) for k in keys])
        return d.take(np.sort(pos).tolist(), columns=LOOKUP_COLUMNS)
    return lookup


def s_lance(ctx: Ctx):
    d = lance_ds(ctx)
    return (lambda: d.to_table(),
            lambda: d.to_table(columns=SCAN_COLUMNS, filter=FILTER_SQL))


def vortex_file(ctx: Ctx):
    # without the segment cache: a VortexFile otherwise keeps every segment it read in memory, and later
    # lookups and scans of the same object would not read the file at all
    import vortex as vx
    if not ctx.s3:
        return vx.open(str(ctx.base / "bkt" / "vortex" / "table.vortex"), without_segment_cache=True)
    import vortex.store as vs
    store = vs.S3Store("bkt", endpoint=ctx.server.url, access_key_id=KEY, secret_access_key=KEY, region=REGION,
                       client_options={"allow_http": True})
    return vx.open("vortex/table.vortex", store=store, without_segment_cache=True)


def m_vortex(ctx: Ctx):
    import vortex.expr as ve
    f = vortex_file(ctx)
    return lambda keys: f.scan(LOOKUP_COLUMNS, expr=ve.in_list(ve.column("k"), [int(k) for k in keys])) \
        .read_all().to_arrow_table()


def s_vortex(ctx: Ctx):
    import vortex as vx
    import vortex.expr as ve
    lit = ve.literal(vx.int_(32), 1000)
    f = vortex_file(ctx)
    return (lambda: f.scan().read_all().to_arrow_table(),
            lambda: f.scan(SCAN_COLUMNS, expr=ve.column("c04") < lit).read_all().to_arrow_table())


# name -> (lookup maker or None, scan maker or None)
METHODS = {
    "rap-plain": (m_rap("rap-plain", "parquet", "plain"), rap_scan("parquet")),
    "rap-plain-pi": (m_rap("rap-plain-pi", "parquet_pi", "plain"), None),
    "rap-covered-pi": (m_rap("rap-covered-pi", "parquet_pi", "covered"), None),
    "rap-interleaved": (m_rap("rap-interleaved", "interleaved", "default"), None),
    "rap-frame": (m_rap("rap-frame", "frame", "default"), None),
    "pyarrow": (m_pyarrow, s_pyarrow),
    "polars": (m_polars, s_polars),
    "duckdb": (m_duckdb, s_duckdb),
    "datafusion": (m_datafusion, s_datafusion),
    "lance": (m_lance, s_lance),
    "lance-take": (m_lance_take, None),
    "vortex": (m_vortex, s_vortex),
}


# ---------------------------------------------------------------------------------------------- write

def write_formats(base: pathlib.Path, parts: list[pa.Table], rows: list, load) -> list[str]:
    """Writes every format below base/bkt; records sizes and build times as 'build' rows."""
    import lance
    import vortex as vx
    root = base / "bkt"
    if root.exists():
        shutil.rmtree(root)
    (root / "parquet").mkdir(parents=True)
    names = []

    def record(what, seconds, size, note=""):
        rows.append(dict(profile="local", workload="build", method=what, keys="", n=1, p50_ms=seconds * 1000,
                         p99_ms="", requests="", bytes=size, rows="", load1=load(), note=note))
        print(f"build  {what:22s} {seconds:8.2f} s  {size / 2**20:9.1f} MiB  {note}", flush=True)

    t0 = time.perf_counter()
    for i, t in enumerate(parts):
        n = f"part-{i:02d}.parquet"
        pq.write_table(t, root / "parquet" / n)  # pyarrow's defaults
        names.append(n)
    record("parquet (pyarrow defaults)", time.perf_counter() - t0, du(root / "parquet"))
    src = str(root / "parquet")
    t0 = time.perf_counter()
    r = rap.build_index(src, ["k"], name="plain", cover=[], progress=False)
    record("rap index plain", time.perf_counter() - t0, du(root / "parquet" / "_rap_index" / "plain"),
           f"{r.get('key_rows', '')} key rows")
    # A covering index needs an OffsetIndex (page index), which pyarrow writes only when asked: the same
    # tables again with write_page_index=True (everything else pyarrow's defaults).
    (root / "parquet_pi").mkdir()
    t0 = time.perf_counter()
    for i, t in enumerate(parts):
        pq.write_table(t, root / "parquet_pi" / f"part-{i:02d}.parquet", write_page_index=True)
    record("parquet + page index", time.perf_counter() - t0, du(root / "parquet_pi"))
    src_pi = str(root / "parquet_pi")
    t0 = time.perf_counter()
    rap.build_index(src_pi, ["k"], name="plain", cover=[], progress=False)
    record("rap index plain (pi)", time.perf_counter() - t0, du(root / "parquet_pi" / "_rap_index" / "plain"))
    t0 = time.perf_counter()
    rap.build_index(src_pi, ["k"], name="covered", cover=LOOKUP_COLUMNS[1:], progress=False)
    record("rap index covered (pi)", time.perf_counter() - t0, du(root / "parquet_pi" / "_rap_index" / "covered"),
           "covers c01,c02,c03")
    for layout in ("interleaved", "frame"):
        t0 = time.perf_counter()
        rap.rewrite(src, str(root / layout), key=["k"], layout=layout, progress=False)
        record(f"rap rewrite {layout}", time.perf_counter() - t0, du(root / layout),
               f"index {du(root / layout / '_rap_index') / 2**20:.1f} MiB of it")
    whole = pa.concat_tables(parts)
    t0 = time.perf_counter()
    d = lance.write_dataset(whole, str(root / "lance"))
    record("lance write", time.perf_counter() - t0, du(root / "lance"))
    t0 = time.perf_counter()
    d.create_scalar_index("k", "BTREE")
    record("lance BTree index", time.perf_counter() - t0, du(root / "lance") - rows[-1]["bytes"])
    (root / "vortex").mkdir()
    t0 = time.perf_counter()
    vx.io.write(whole, str(root / "vortex" / "table.vortex"))
    record("vortex write", time.perf_counter() - t0, du(root / "vortex"))
    return names


# ----------------------------------------------------------------------------------------------- run

def load1() -> float:
    return os.getloadavg()[0]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def run_profile(profile: str, ctx: Ctx, whole: pa.Table, a, rows: list) -> None:
    rng = np.random.default_rng(7)
    nkeys = whole.num_rows // 10
    kcol = whole.column("k")
    methods = [m for m in a.methods.split(",") if m]

    def stats_reset():
        if ctx.server:
            ctx.server.control("reset")

    def stats():
        if not ctx.server:
            return None
        s = ctx.server.control("stats")
        return s.get("requests", 0), s.get("payload_bytes", 0)

    def emit(workload, method, keys, times, st, nrows, n_ops):
        req = byt = ""
        if st:
            req, byt = st[0] / n_ops, st[1] / n_ops
        row = dict(profile=profile, workload=workload, method=method, keys=keys, n=len(times),
                   p50_ms=statistics.median(times) * 1000, p99_ms=pct(times, 0.99) * 1000, requests=req, bytes=byt,
                   rows=nrows, load1=round(load1(), 2), note="")
        rows.append(row)
        extra = f" {req:8.1f} req {byt / 1024:10.1f} KiB" if st else ""
        print(f"{profile:6s} {workload:13s} {method:16s} p50 {row['p50_ms']:9.1f} ms  p99 {row['p99_ms']:9.1f} ms"
              f"{extra}  rows {nrows}  load {row['load1']}", flush=True)

    for batch in BATCHES:
        batches = [rng.choice(nkeys, batch, replace=False) for _ in range(a.lookups + 1)]
        wants = [whole.filter(pc.is_in(kcol, pa.array(b, pa.int64()))).select(LOOKUP_COLUMNS) for b in batches]
        wants = [w.sort_by([(n, "ascending") for n in LOOKUP_COLUMNS]) for w in wants]
        for m in methods:
            maker = METHODS[m][0]
            if maker is None:
                continue
            try:
                fn = maker(ctx)
            except Exception as e:  # a method that cannot run in this profile: say why, go on
                print(f"{profile:6s} lookup{batch:<7d} {m:16s} SKIPPED: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
                rows.append(dict(profile=profile, workload=f"lookup{batch}", method=m, keys=batch, n=0,
                                 p50_ms="", p99_ms="", requests="", bytes="", rows="", load1=round(load1(), 2),
                                 note=f"skipped: {type(e).__name__}: {str(e).splitlines()[0][:200]}"))
                continue
            check(f"{profile} lookup{batch} {m}", fn(batches[0]), wants[0])  # untimed, checked
            stats_reset()
            times, nrows = [], 0
            for i in range(1, a.lookups + 1):
                t0 = time.perf_counter()
                got = fn(batches[i])
                times.append(time.perf_counter() - t0)
                check(f"{profile} lookup{batch} {m}", got, wants[i])
                nrows += got.num_rows
            emit(f"lookup{batch}", m, batch, times, stats(), nrows // a.lookups, a.lookups)

    if a.no_scans:
        return
    want_full = whole.sort_by([("k", "ascending"), ("c01", "ascending")])
    want_f = whole.filter(pc.field("c04") < 1000).select(SCAN_COLUMNS)
    want_f = want_f.sort_by([(n, "ascending") for n in SCAN_COLUMNS])
    for m in methods:
        maker = METHODS[m][1]
        if maker is None:
            continue
        try:
            full, filtered = maker(ctx)
        except Exception as e:
            print(f"{profile:6s} scan          {m:16s} SKIPPED: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
            continue
        for workload, fn, want in (("scan_full", full, want_full), ("scan_filtered", filtered, want_f)):
            got = fn()
            if workload == "scan_full":
                g = normalise(got.select(want.schema.names), want.schema) if got.num_rows == want.num_rows else None
                if g is None or not g.equals(normalise(want, want.schema)):
                    sys.exit(f"MISMATCH {profile} {workload} {m}: {got.num_rows} rows, expected {want.num_rows}")
            else:
                check(f"{profile} {workload} {m}", got, want)
            stats_reset()
            times = []
            for _ in range(a.scans):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            emit(workload, m, "", times, stats(), want.num_rows, a.scans)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=2_000_000, help="rows in the table")
    ap.add_argument("--files", type=int, default=16, help="Parquet files the table is written as")
    ap.add_argument("--dir", default="/dev/shm/rap-peers", help="where the formats are written (DIR/bkt/...)")
    ap.add_argument("--lookups", type=int, default=7, help="timed lookups per cell (p50, p99 over them)")
    ap.add_argument("--scans", type=int, default=3, help="timed scans per cell")
    ap.add_argument("--latencies", default="", help="also run over rap-netsim's S3 at these latencies, e.g. 5ms,30ms")
    ap.add_argument("--no-local", action="store_true", help="skip the local-files profile")
    ap.add_argument("--no-scans", action="store_true", help="lookups only")
    ap.add_argument("--s3-throughput", default="256MiB/s", help="rap-netsim's shared throughput limit")
    ap.add_argument("--netsim", default="build/dev/tools/rap-netsim", help="the rap-netsim binary")
    ap.add_argument("--methods", default=",".join(METHODS), help="comma-separated subset of: " + ",".join(METHODS))
    ap.add_argument("--csv", default="", help="write one row per cell here")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 20,000 rows, 5 lookups, 1 scan")
    a = ap.parse_args()
    if a.quick:
        a.rows, a.lookups, a.scans = 20_000, 5, 1
    for m in a.methods.split(","):
        if m and m not in METHODS:
            sys.exit(f"unknown method {m!r}; known: {', '.join(METHODS)}")
    base = pathlib.Path(a.dir)
    rows: list = []
    print(f"peers: {a.rows} rows, {a.files} files, 20 columns; load {load1():.2f}; {os.cpu_count()} cores", flush=True)
    t0 = time.perf_counter()
    parts = make_table(a.rows, a.files)
    whole = pa.concat_tables(parts).combine_chunks()
    print(f"generated in {time.perf_counter() - t0:.1f} s", flush=True)
    names = write_formats(base, parts, rows, lambda: round(load1(), 2))
    lk = pa.concat_tables(parts).column("k").to_numpy()
    order = np.argsort(lk, kind="stable")
    starts = np.searchsorted(lk[order], np.arange(lk.max() + 2))
    POSITIONS["of"] = lambda key: order[starts[key]:starts[key + 1]]
    if not a.no_local:
        run_profile("local", Ctx(base, names, None), whole, a, rows)
    for lat in [x for x in a.latencies.split(",") if x]:
        server = Netsim(a.netsim, base, lat, a.s3_throughput)
        try:
            print(f"rap-netsim at {server.url}: latency {lat}, throughput {a.s3_throughput}", flush=True)
            run_profile(f"s3-{lat}", Ctx(base, names, server), whole, a, rows)
        finally:
            server.stop()
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
        print(f"wrote {a.csv}")


if __name__ == "__main__":
    main()
