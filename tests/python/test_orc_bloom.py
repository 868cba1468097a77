"""ORC bloom filters (issue 31): with a filter of `=` or IN on a column that has BLOOM_FILTER_UTF8 streams,
`rap.scan(where=...)` reads the bloom filters with the row index and drops the row groups whose filter
says the value is absent. The values are shuffled, so the row groups' min/max cannot prune: what is
pruned is pruned by the bloom filters, which only works when rap hashes values exactly as the writers
did (ORC's Murmur3 for strings and binary, Thomas Wang's hash for integers, dates and double bits).
Random equality / IN filters, values present and absent, must give exactly pyarrow's read of the whole
file filtered by pyarrow, over files of pyarrow's ORC writer (Apache ORC C++) and pyorc; the counters
show the pruning (the tests fail with bloom pruning switched off)."""

from __future__ import annotations

import datetime
import pathlib
import random

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as po
import pytest

import rap

N = 20000
STRIDE = 1000
BLOOM_COLUMNS = ["i64", "i32", "i8", "f64", "s_dict", "s_direct", "d", "bin"]


def assert_same(got: pa.Table, want: pa.Table, what: str) -> None:
    assert got.column_names == want.column_names, what
    assert got.num_rows == want.num_rows, what
    for name in want.column_names:
        g, w = got[name].combine_chunks(), want[name].combine_chunks()
        if g.type != w.type:
            g = g.cast(w.type)
        assert g.equals(w), f"{what}: column {name} differs"


def values(seed: int = 7) -> dict[str, list]:
    rng = random.Random(seed)
    perm = list(range(N))
    rng.shuffle(perm)  # no order: the row groups' min/max span (almost) everything

    def nulls(vals, every):
        return [None if i % every == 3 else v for i, v in enumerate(vals)]

    return {
        "i64": [p * 3 - 20000 for p in perm],  # multiples of 3 (others absent), negatives too
        "i32": nulls([(p * 7) % 50000 for p in perm], 17),
        "i8": nulls([(p % 200) - 100 for p in perm], 13),
        "f64": nulls([p * 0.5 - 77.25 for p in perm], 11),
        "s_dict": nulls([f"w{p % 400:04d}" for p in perm], 19),
        "s_direct": [f"id-{p:07d}-" + "z" * (p % 13) for p in perm],
        "d": nulls([datetime.date(1950, 1, 1) + datetime.timedelta(days=p * 2) for p in perm], 23),
        "bin": nulls([p.to_bytes(3, "little") for p in perm], 29),
        "pad": list(range(N)),
    }


def arrow_table() -> pa.Table:
    v = values()
    types = {"i64": pa.int64(), "i32": pa.int32(), "i8": pa.int8(), "f64": pa.float64(), "s_dict": pa.string(),
             "s_direct": pa.string(), "d": pa.date32(), "bin": pa.binary(), "pad": pa.int64()}
    return pa.table({k: pa.array(v[k], types[k]) for k in types})


def literal(col: str, x) -> tuple[str, object]:
    """(SQL text, pyarrow scalar) of value `x` of column `col`."""
    if col in ("s_dict", "s_direct"):
        return f"'{x}'", x
    if col == "d":
        return f"DATE '{x.isoformat()}'", pa.scalar(x, pa.date32())
    if col == "bin":
        return None, x  # binary literals are not in the SQL syntax: not filtered on
    return repr(x), x


def random_value(col: str, rng: random.Random):
    """A value that is in the column about half of the time."""
    p = rng.randrange(N)
    q = rng.randrange(N * 2)
    present = rng.random() < 0.5
    if col == "i64":
        return p * 3 - 20000 if present else q * 3 - 20000 + rng.choice([1, 2])
    if col == "i32":
        return (p * 7) % 50000 if present else 50000 + q
    if col == "i8":
        return rng.randrange(-100, 100) if present else rng.choice([-128, 101, 127])
    if col == "f64":
        return p * 0.5 - 77.25 if present else p * 0.5 - 77.0 + rng.choice([0.125, 0.375])
    if col == "s_dict":
        return f"w{p % 400:04d}" if present else f"w{400 + q % 600:04d}"
    if col == "s_direct":
        return f"id-{p:07d}-" + "z" * (p % 13) if present else f"id-{p:07d}-" + "z" * (p % 13 + 1)
    if col == "d":
        return datetime.date(1950, 1, 1) + datetime.timedelta(days=p * 2 + (0 if present else 1))
    raise AssertionError(col)


def random_filter(rng: random.Random, columns: list[str]) -> tuple[str, pc.Expression]:
    def atom():
        col = rng.choice([c for c in columns if c != "bin"])
        if rng.random() < 0.6:
            x = random_value(col, rng)
            sql, lit = literal(col, x)
            return f"{col} = {sql}", pc.field(col) == lit
        xs = [random_value(col, rng) for _ in range(rng.randrange(1, 5))]
        lits = [literal(col, x) for x in xs]
        expr = pc.field(col) == lits[0][1]
        for _, lit in lits[1:]:
            expr = expr | (pc.field(col) == lit)
        return f"{col} IN ({', '.join(s for s, _ in lits)})", expr

    sql, expr = atom()
    for _ in range(rng.randrange(3)):
        s2, e2 = atom()
        if rng.random() < 0.7:
            sql, expr = f"({sql}) AND ({s2})", expr & e2
        else:
            sql, expr = f"({sql}) OR ({s2})", expr | e2
    return sql, expr


def check_random_filters(path: pathlib.Path, seed: int, count: int, columns: list[str]) -> dict:
    full = po.read_table(str(path))
    rng = random.Random(seed)
    totals = {"row_index_groups": 0, "row_index_groups_pruned": 0, "bloom_filter_groups_pruned": 0}
    for k in range(count):
        sql, expr = random_filter(rng, columns)
        cols = rng.sample(full.column_names, rng.randrange(1, 5))
        want = full.filter(expr).select(cols)
        # Sequential reads (no fetch-ahead): the kept row groups are read on their own.
        reader = rap.scan(str(path), where=sql, columns=cols, prefetch=1, warmup="none")
        got = reader.read_all()
        assert_same(got, want, f"{path.name} filter {k}: {sql} columns {cols}")
        stats = reader.stats
        stats = stats() if callable(stats) else stats
        for key in totals:
            totals[key] += stats[key]
        # With producers and warmup: the same rows.
        got = rap.scan(str(path), where=sql, columns=cols, prefetch=3, warmup=rng.choice(["raw", "decoded"])).read_all()
        assert_same(got, want, f"{path.name} filter {k} (prefetch 3): {sql} columns {cols}")
    return totals


@pytest.mark.parametrize("compression,version", [("zstd", "0.12"), ("zlib", "0.12"), ("uncompressed", "0.12"),
                                                 ("snappy", "0.11")])
def test_pyarrow_writer_bloom_filters(tmp_path: pathlib.Path, compression: str, version: str) -> None:
    path = tmp_path / f"b_{compression}_{version}.orc"
    po.write_table(arrow_table(), str(path), compression=compression, file_version=version, row_index_stride=STRIDE,
                   stripe_size=512 * 1024, bloom_filter_columns=list(range(1, len(BLOOM_COLUMNS) + 1)),
                   bloom_filter_fpp=0.01, dictionary_key_size_threshold=0.5)
    totals = check_random_filters(path, seed=35, count=30, columns=BLOOM_COLUMNS)
    assert totals["bloom_filter_groups_pruned"] > 0, totals
    assert totals["row_index_groups_pruned"] >= totals["bloom_filter_groups_pruned"]


PYORC_SCHEMA = "struct<i64:bigint,i32:int,i8:tinyint,f64:double,s_dict:string,s_direct:string,d:date,bin:binary,pad:bigint>"


@pytest.mark.parametrize("compression", ["NONE", "ZLIB", "ZSTD"])
def test_pyorc_writer_bloom_filters(tmp_path: pathlib.Path, compression: str) -> None:
    pyorc = pytest.importorskip("pyorc")
    path = tmp_path / f"p_{compression}.orc"
    v = values()
    names = ["i64", "i32", "i8", "f64", "s_dict", "s_direct", "d", "bin", "pad"]
    with open(path, "wb") as f:
        with pyorc.Writer(f, PYORC_SCHEMA, compression=getattr(pyorc.CompressionKind, compression),
                          compression_block_size=4096, memory_block_size=1024, row_index_stride=STRIDE,
                          stripe_size=256 * 1024,
                          bloom_filter_columns=BLOOM_COLUMNS, bloom_filter_fpp=0.02) as w:
            for i in range(N):
                w.write(tuple(v[n][i] for n in names))
    totals = check_random_filters(path, seed=135, count=20, columns=BLOOM_COLUMNS)
    assert totals["bloom_filter_groups_pruned"] > 0, totals


def scan_stats(path: pathlib.Path, where: str | None, columns: list[str]):
    reader = rap.scan(str(path), where=where, columns=columns, prefetch=1, warmup="none")
    got = reader.read_all()
    stats = reader.stats
    return got, (stats() if callable(stats) else stats)


def test_bloom_filter_pruning_counters(tmp_path: pathlib.Path) -> None:
    """One stripe of 20 row groups of shuffled values: `s_direct = v` for a present value keeps only
    the group holding it (and false positives, 1 % each), an absent value none; fewer bytes are read
    than for the same columns unfiltered. Statistics alone prune nothing here."""
    path = tmp_path / "one_stripe.orc"
    rng = random.Random(3)
    payload = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(64)) for _ in range(N)]
    t = arrow_table().append_column("payload", pa.array(payload))
    po.write_table(t, str(path), compression="zstd", row_index_stride=STRIDE, stripe_size=64 * 1024 * 1024,
                   bloom_filter_columns=[6, 1], bloom_filter_fpp=0.01, dictionary_key_size_threshold=0.0)
    assert po.ORCFile(str(path)).nstripes == 1
    groups = N // STRIDE
    row = 12345
    key = t["s_direct"][row].as_py()
    got, stats = scan_stats(path, f"s_direct = '{key}'", ["s_direct", "pad", "payload"])
    assert got["pad"].to_pylist() == [row]
    assert stats["row_index_groups"] == groups
    assert stats["bloom_filter_groups_pruned"] >= groups - 3, stats
    assert stats["row_index_groups_pruned"] == stats["bloom_filter_groups_pruned"]
    assert got["payload"].to_pylist() == [payload[row]]
    _, everything = scan_stats(path, None, ["s_direct", "pad", "payload"])
    assert stats["bytes"] * 3 < everything["bytes"], (stats["bytes"], everything["bytes"])
    # IN over integers: two present values keep at most their two groups (+ false positives)
    a, b = t["i64"][100].as_py(), t["i64"][19000].as_py()
    got, stats = scan_stats(path, f"i64 IN ({a}, {b}, 2)", ["pad"])
    assert sorted(got["pad"].to_pylist()) == [100, 19000]
    assert stats["bloom_filter_groups_pruned"] >= groups - 5, stats
    # A column without bloom filters prunes nothing by them.
    got, stats = scan_stats(path, f"i32 = {t['i32'][7].as_py()}", ["pad"])
    assert 7 in got["pad"].to_pylist()
    assert stats["bloom_filter_groups_pruned"] == 0
    # NOT (=) cannot be pruned by a bloom filter: every other row is output.
    got, stats = scan_stats(path, f"NOT (s_direct = '{key}')", ["pad"])
    assert got.num_rows == N - 1
    assert stats["bloom_filter_groups_pruned"] == 0


def test_bad_bloom_filters_of_orc_cpp_1_6_are_ignored(shared: pathlib.Path) -> None:
    """ORC C++ 1.6.x wrote bad bloom filters (the ORC examples bad_bloom_filter_1.6.*.orc): rap must
    not prune by them, so equality filters on every value give the rows pyarrow finds."""
    for name in ["bad_bloom_filter_1.6.0.orc", "bad_bloom_filter_1.6.11.orc"]:
        path = shared / "orc" / "examples" / name
        full = po.read_table(str(path))
        for col in full.column_names:
            typ = full[col].type
            if not (pa.types.is_integer(typ) or pa.types.is_string(typ)):
                continue
            for x in set(full[col].drop_null().to_pylist()[:50]):
                sql = f"'{x}'" if pa.types.is_string(typ) else str(x)
                got, stats = scan_stats(path, f"{col} = {sql}", [col])
                want = full.filter(pc.field(col) == x).select([col])
                assert_same(got, want, f"{name}: {col} = {sql}")
                assert stats["bloom_filter_groups_pruned"] == 0


def test_original_bloom_filters_of_orc_java(shared: pathlib.Path) -> None:
    """over1k_bloom.orc (Hive / ORC Java, writer version 1): BLOOM_FILTER streams of a pre-release layout
    (expected entries, fpp and varint words where the number of hash functions and the fixed64 words
    belong). rap uses no original BLOOM_FILTER streams, so nothing is pruned by them and every equality
    filter on values present and absent (inside the min/max) gives pyarrow's rows."""
    path = shared / "orc" / "examples" / "over1k_bloom.orc"
    full = po.read_table(str(path))
    rng = random.Random(5)
    pruned = 0
    assert po.ORCFile(str(path)).nrows == 2098
    for col in ["_col0", "_col1", "_col2", "_col3", "_col5", "_col7"]:
        present = [x for x in full[col].drop_null().to_pylist()]
        lo, hi = min(present), max(present)
        candidates = rng.sample(present, 10)
        if col == "_col5":
            candidates += [rng.uniform(lo, hi) for _ in range(10)]
        elif col == "_col7":
            candidates += [x + "~" for x in rng.sample(present, 10)]
        else:
            candidates += [rng.randint(lo, hi) for _ in range(10)]
        for x in candidates:
            sql = f"'{x}'" if col == "_col7" else repr(x)
            cols = [col] if col == "_col3" else [col, "_col3"]
            got, stats = scan_stats(path, f"{col} = {sql}", cols)
            want = full.filter(pc.field(col) == x).select(cols)
            assert_same(got, want, f"over1k_bloom: {col} = {sql}")
            pruned += stats["bloom_filter_groups_pruned"]
    assert pruned == 0
