"""ORC row-index pruning (issue 31): `rap.scan(where=...)` on ORC files reads the row index of the
stripes the stripe statistics keep, drops the row groups (rowIndexStride rows) whose statistics rule
the filter out and reads only the kept groups' parts of the streams (from the row-index positions:
chunk offset + offset in the decompressed chunk + values of the run to step over). The rows must be
exactly those of the unpruned read: pyarrow.orc's own reading of the whole file filtered by
pyarrow.compute, for random filters over files of pyarrow's ORC writer (Apache ORC C++) and of pyorc,
each compression, small compression blocks (positions inside chunks), nulls, dictionary and direct
strings, nested columns. The counters show the pruning (a test fails if it is switched off)."""

from __future__ import annotations

import datetime
import decimal
import pathlib
import random

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as po
import pytest

import rap

N = 12000
STRIDE = 1000


def assert_same(got: pa.Table, want: pa.Table, what: str) -> None:
    assert got.column_names == want.column_names, what
    assert got.num_rows == want.num_rows, what
    for name in want.column_names:
        g, w = got[name].combine_chunks(), want[name].combine_chunks()
        if g.type != w.type:
            g = g.cast(w.type)
        assert g.equals(w), f"{what}: column {name} differs"


def table(n: int = N) -> pa.Table:
    r = range(n)

    def col(values, typ, every=0):
        if every:
            values = [None if i % every == 5 else v for i, v in enumerate(values)]
        return pa.array(values, type=typ)

    return pa.table({
        "id": col(list(r), pa.int64()),
        "grp": col([i // 1500 for i in r], pa.int32(), every=13),
        "i16": col([(i // 97) - 60 for i in r], pa.int16(), every=29),
        "i8": col([(i * 37) % 256 - 128 for i in r], pa.int8(), every=11),
        "b": col([i % 3 == 0 for i in r], pa.bool_(), every=7),
        "f64": col([i * 0.5 - 1000.0 for i in r], pa.float64(), every=17),
        "f32": col([i / 4.0 for i in r], pa.float32()),
        "name": col([f"n{i // 700:05d}" for i in r], pa.string(), every=19),
        "direct": col([f"k{i:06d}-" + "x" * (i % 37) for i in r], pa.string(), every=23),
        "bin": col([bytes([i % 256]) * (i % 5) for i in r], pa.binary(), every=31),
        "d": col([datetime.date(2000, 1, 1) + datetime.timedelta(days=i // 50) for i in r], pa.date32(), every=41),
        "ts": col([i * 1_000_000_123 for i in r], pa.timestamp("ns"), every=43),
        "dec": col([decimal.Decimal(i * 7 - 5000).scaleb(-2) for i in r], pa.decimal128(10, 2), every=47),
        "lst": col([list(range(i % 5)) for i in r], pa.list_(pa.int32()), every=9),
        "st": col([{"x": i, "y": f"s{i % 11}"} for i in r], pa.struct([("x", pa.int64()), ("y", pa.string())]),
                  every=21),
        "mp": col([[("k", i), ("j", -i)] if i % 2 else [] for i in r], pa.map_(pa.string(), pa.int64()), every=25),
    })


# (SQL, pyarrow expression) pairs over columns with row-group statistics.
def random_filter(rng: random.Random) -> tuple[str, pc.Expression]:
    def atom() -> tuple[str, pc.Expression]:
        kind = rng.choice(["id", "id_range", "grp", "i16", "f64", "name", "d", "direct"])
        if kind == "id":
            v = rng.randrange(N)
            op = rng.choice(["<", "<=", ">", ">=", "="])
            return f"id {op} {v}", _cmp(pc.field("id"), op, v)
        if kind == "id_range":
            a = rng.randrange(N)
            b = a + rng.choice([0, 1, 5, 999, 1000, 1001, 2500])
            return f"id BETWEEN {a} AND {b}", (pc.field("id") >= a) & (pc.field("id") <= b)
        if kind == "grp":
            v = rng.randrange(9)
            op = rng.choice(["=", "<", ">="])
            return f"grp {op} {v}", _cmp(pc.field("grp"), op, v)
        if kind == "i16":
            v = rng.randrange(-70, 70)
            op = rng.choice(["<", ">", "="])
            return f"i16 {op} {v}", _cmp(pc.field("i16"), op, v)
        if kind == "f64":
            v = rng.randrange(-1000, 5000) + 0.25
            op = rng.choice(["<", ">"])
            return f"f64 {op} {v}", _cmp(pc.field("f64"), op, v)
        if kind == "name":
            v = f"n{rng.randrange(18):05d}"
            op = rng.choice(["=", "<", ">="])
            return f"name {op} '{v}'", _cmp(pc.field("name"), op, v)
        if kind == "d":
            v = datetime.date(2000, 1, 1) + datetime.timedelta(days=rng.randrange(250))
            op = rng.choice(["<", ">="])
            return f"d {op} DATE '{v.isoformat()}'", _cmp(pc.field("d"), op, pa.scalar(v, pa.date32()))
        v = f"k{rng.randrange(N):06d}"
        op = rng.choice(["<", ">="])
        return f"direct {op} '{v}'", _cmp(pc.field("direct"), op, v)

    sql, expr = atom()
    for _ in range(rng.randrange(3)):
        s2, e2 = atom()
        if rng.random() < 0.6:
            sql, expr = f"({sql}) AND ({s2})", expr & e2
        else:
            sql, expr = f"({sql}) OR ({s2})", expr | e2
    return sql, expr


def _cmp(f: pc.Expression, op: str, v) -> pc.Expression:
    return {"<": f < v, "<=": f <= v, ">": f > v, ">=": f >= v, "=": f == v}[op]


def check_random_filters(path: pathlib.Path, seed: int, count: int) -> dict:
    full = po.read_table(str(path))
    rng = random.Random(seed)
    totals = {"row_index_groups": 0, "row_index_groups_pruned": 0}
    for k in range(count):
        sql, expr = random_filter(rng)
        cols = rng.sample(full.column_names, rng.randrange(1, 6))
        want = full.filter(expr).select(cols)
        reader = rap.scan(str(path), where=sql, columns=cols, prefetch=rng.choice([1, 3]),
                          warmup=rng.choice(["none", "raw"]))
        got = reader.read_all()
        assert_same(got, want, f"{path.name} filter {k}: {sql} columns {cols}")
        stats = reader.stats
        stats = stats() if callable(stats) else stats
        for key in totals:
            totals[key] += stats[key]
    return totals


@pytest.mark.parametrize("compression,version", [("uncompressed", "0.12"), ("zlib", "0.12"), ("snappy", "0.12"),
                                                 ("lz4", "0.12"), ("zstd", "0.12"), ("uncompressed", "0.11"),
                                                 ("zlib", "0.11")])
def test_pyarrow_writer_random_filters(tmp_path: pathlib.Path, compression: str, version: str) -> None:
    path = tmp_path / f"t_{compression}_{version}.orc"
    # the smallest compression block pyarrow takes (64 KiB): row-group positions fall inside chunks; the
    # 0.11 format writes integer RLE v1
    po.write_table(table(), str(path), compression=compression, compression_block_size=64 * 1024, file_version=version,
                   row_index_stride=STRIDE, stripe_size=256 * 1024, dictionary_key_size_threshold=0.5)
    totals = check_random_filters(path, seed=31, count=25)
    assert totals["row_index_groups_pruned"] > 0


PYORC_SCHEMA = ("struct<id:bigint,grp:int,i16:smallint,b:boolean,f64:double,name:string,direct:string,"
                "d:date,lst:array<int>,st:struct<x:bigint,y:string>>")


def pyorc_rows(n: int = N):
    for i in range(n):
        yield (
            i,
            None if i % 13 == 5 else i // 1500,
            None if i % 29 == 5 else i // 97 - 60,
            None if i % 7 == 5 else i % 3 == 0,
            None if i % 17 == 5 else i * 0.5 - 1000.0,
            None if i % 19 == 5 else f"n{i // 700:05d}",
            None if i % 23 == 5 else f"k{i:06d}-" + "x" * (i % 37),
            None if i % 41 == 5 else datetime.date(2000, 1, 1) + datetime.timedelta(days=i // 50),
            None if i % 9 == 5 else list(range(i % 5)),
            None if i % 21 == 5 else (i, f"s{i % 11}"),
        )


@pytest.mark.parametrize("dictionary", [0.0, 1.0])
@pytest.mark.parametrize("compression", ["NONE", "ZLIB", "ZSTD", "SNAPPY"])
def test_pyorc_writer_random_filters(tmp_path: pathlib.Path, compression: str, dictionary: float) -> None:
    pyorc = pytest.importorskip("pyorc")
    path = tmp_path / f"p_{compression}_{dictionary}.orc"
    with open(path, "wb") as f:
        with pyorc.Writer(f, PYORC_SCHEMA, compression=getattr(pyorc.CompressionKind, compression),
                          compression_block_size=2048, memory_block_size=1024, row_index_stride=STRIDE, stripe_size=128 * 1024,
                          dict_key_size_threshold=dictionary) as w:
            for row in pyorc_rows():
                w.write(row)
    totals = check_random_filters(path, seed=131, count=15)
    assert totals["row_index_groups_pruned"] > 0


def test_row_index_pruning_counters(tmp_path: pathlib.Path) -> None:
    """One stripe of 100,000 rows in 10 row groups: a filter on the sorted id keeps one group, so
    nine are pruned and far fewer bytes are read than for the same columns unfiltered."""
    n = 100_000
    t = pa.table({"id": pa.array(range(n), pa.int64()),
                  "payload": pa.array([f"p{(i * 2654435761) % 10**9:09d}" for i in range(n)])})
    path = tmp_path / "one_stripe.orc"
    po.write_table(t, str(path), compression="zstd", row_index_stride=10_000, stripe_size=64 * 1024 * 1024,
                   dictionary_key_size_threshold=0.0)
    assert po.ORCFile(str(path)).nstripes == 1

    def scan(where):
        reader = rap.scan(str(path), where=where, columns=["id", "payload"], prefetch=1, warmup="none")
        got = reader.read_all()
        stats = reader.stats
        return got, (stats() if callable(stats) else stats)

    got, stats = scan("id BETWEEN 45000 AND 45010")
    assert got["id"].to_pylist() == list(range(45000, 45011))
    assert got["payload"].to_pylist() == t["payload"].to_pylist()[45000:45011]
    assert stats["row_index_groups"] == 10
    assert stats["row_index_groups_pruned"] == 9
    assert stats["rows_in_row_groups"] == 10_000
    _, everything = scan(None)
    assert stats["bytes"] * 3 < everything["bytes"], (stats["bytes"], everything["bytes"])
    # a filter no group can match reads the row index only
    got, none = scan("id > 200000")
    assert got.num_rows == 0
    # (the stripe statistics already prune it)
    assert none["row_groups_pruned"] == 1
