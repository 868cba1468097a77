"""Range and prefix lookups (Index.lookup_range) through sorted indexes equal pyarrow filters of the
table sorted by key (then file and row), for random bounds, prefixes, leading-column tuples and
pages; a hash index answers ranges too."""

from __future__ import annotations

import random

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import rap
from conftest import write_keyed_table


@pytest.fixture(scope="module")
def sorted_table(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("ranges") / "table"
    table = write_keyed_table(root, files=3, rows_per_file=1500, seed=3)
    r = rap.build_index(str(root), "k", name="by_k", kind="sorted", buckets=4, cover=["v"], progress=False)
    assert r["kind"] == "sorted"
    rap.build_index(str(root), "s", name="by_s", kind="sorted", buckets=3, progress=False)
    rap.build_index(str(root), ["s", "k"], name="by_sk", kind="sorted", buckets=3, progress=False)
    rap.build_index(str(root), "k", name="hash_k", buckets=2, progress=False)
    return root, table


def expected(table: pa.Table, mask, key_columns: list[str], columns: list[str]) -> list[dict]:
    t = table.filter(mask).sort_by([(c, "ascending") for c in key_columns] + [("row", "ascending")])
    return t.select(columns).to_pylist()


def in_range(col, lo, hi, lo_inc, hi_inc):
    mask = pa.array([True] * len(col))
    if lo is not None:
        mask = pc.and_(mask, pc.greater_equal(col, lo) if lo_inc else pc.greater(col, lo))
    if hi is not None:
        mask = pc.and_(mask, pc.less_equal(col, hi) if hi_inc else pc.less(col, hi))
    return mask


@pytest.mark.parametrize("name", ["by_k", "hash_k"])
def test_int_ranges_equal_filters(sorted_table, name) -> None:
    root, table = sorted_table
    idx = rap.Index.open(str(root), name=name)
    assert idx.info()["kind"] == ("sorted" if name == "by_k" else "hash")
    rnd = random.Random(5)
    for _ in range(25):
        lo = rnd.choice([None, rnd.randrange(-50, 3050)])
        hi = rnd.choice([None, rnd.randrange(-50, 3050)])
        lo_inc, hi_inc = rnd.random() < 0.7, rnd.random() < 0.7
        reader, token = idx.lookup_range(lo, hi, lo_inclusive=lo_inc, hi_inclusive=hi_inc, columns=["k", "row", "v"])
        assert token is None
        want = expected(table, in_range(table["k"], lo, hi, lo_inc, hi_inc), ["k"], ["k", "row", "v"])
        assert pa.table(reader).to_pylist() == want, (lo, hi, lo_inc, hi_inc)


def test_string_prefixes_tuples_and_pages(sorted_table) -> None:
    root, table = sorted_table
    idx = rap.Index.open(str(root), name="by_s")
    for prefix in ["user-01", "user-", "user-049", "x", ""]:
        reader, _ = idx.lookup_range(prefix=prefix, columns=["s", "row"])
        want = expected(table, pc.starts_with(table["s"], prefix), ["s"], ["s", "row"])
        assert pa.table(reader).to_pylist() == want, prefix
    # Pages of 97 rows of a string range, concatenated.
    got, token, pages = [], None, 0
    while True:
        reader, token = idx.lookup_range("user-0100", "user-0200", hi_inclusive=False, columns=["s", "row"],
                                         limit=97, page_token=token)
        rows = pa.table(reader).to_pylist()
        assert len(rows) <= 97
        got += rows
        pages += 1
        if token is None:
            break
    want = expected(table, in_range(table["s"], "user-0100", "user-0200", True, False), ["s"], ["s", "row"])
    assert got == want
    assert pages == (len(want) + 96) // 97
    # A compound (s, k) key bound on its leading column, and on both.
    sk = rap.Index.open(str(root), name="by_sk")
    reader, _ = sk.lookup_range(("user-0007",), ("user-0007",), columns=["s", "k", "row"])
    want = expected(table, pc.equal(table["s"], "user-0007"), ["s", "k"], ["s", "k", "row"])
    assert pa.table(reader).to_pylist() == want
    assert len(want) > 0
    reader, _ = sk.lookup_range(prefix=("user-0007", 7), columns=["s", "k", "row"])
    want = expected(table, pc.and_(pc.equal(table["s"], "user-0007"), pc.equal(table["k"], 7)), ["s", "k"],
                    ["s", "k", "row"])
    assert pa.table(reader).to_pylist() == want
    with pytest.raises(rap.errors.InvalidArgument):
        sk.lookup_range(("a", 1, 2))
    with pytest.raises(rap.errors.InvalidArgument):
        idx.lookup_range("a", prefix="b")


def test_scan_where_through_an_index(sorted_table) -> None:
    """rap.scan(where=...) answers through an index when one covers the filter, with the same rows in
    the same order as without (no_index=True), and says which index in stats."""
    root, _ = sorted_table
    rnd = random.Random(9)
    filters = ["k = 7", "k IN (1, 2, 2999)", "k BETWEEN 100 AND 140 AND v > 10", "s LIKE 'user-012%'",
               "s = 'user-0042' AND k > 1000", "(k < 20 OR k > 2990) AND name IS NOT NULL"]
    filters += [f"k >= {rnd.randrange(3000)} AND k < {rnd.randrange(3000)}" for _ in range(4)]
    for where in filters:
        indexed = rap.scan(str(root), where=where)
        got = pa.table(indexed).to_pylist()
        full = rap.scan(str(root), where=where, no_index=True)
        assert got == pa.table(full).to_pylist(), where
        assert indexed.stats["index_used"] != "", (where, indexed.stats["index_reason"])
        assert full.stats["index_used"] == "" and full.stats["index_reason"] == "--no-index"
    r = rap.scan(str(root), where="k = 7", index="hash_k")
    pa.table(r)
    assert r.stats["index_used"] == "hash_k" and r.stats["index_kind"] == "hash"
    r = rap.scan(str(root), where="v > 3")
    pa.table(r)
    assert r.stats["index_used"] == "" and "does not bound" in r.stats["index_reason"]
    with pytest.raises(rap.InvalidArgument):
        rap.scan(str(root), where="k > 5", index="hash_k")


def test_rewrite_with_a_sorted_index_serves_scans(sorted_table, tmp_path) -> None:
    """rap.rewrite(index_kind="sorted"): the rewritten table's index is sorted, and scan(where=range)
    goes through it with the rows of a scan without it."""
    root, _ = sorted_table
    out = tmp_path / "rewritten"
    r = rap.rewrite(str(root), str(out), key="k", layout="sorted", index_kind="sorted", buckets=2, progress=False)
    assert r["entries"] > 0
    assert rap.Index.open(str(out)).info()["kind"] == "sorted"
    where = "k BETWEEN 500 AND 620 AND v > 100"
    indexed = rap.scan(str(out), where=where)
    got = pa.table(indexed).to_pylist()
    assert got and got == pa.table(rap.scan(str(out), where=where, no_index=True)).to_pylist()
    assert indexed.stats["index_used"] == "default" and indexed.stats["index_kind"] == "sorted"
    with pytest.raises(rap.InvalidArgument):
        rap.rewrite(str(root), str(tmp_path / "x"), key="k", index_kind="zorder", progress=False)


def test_awkward_keys_come_back_in_key_then_file_then_row_order(tmp_path) -> None:
    """The build's sorts (a radix sort per file, the files' runs merged per bucket): string keys that
    are empty, prefixes of each other, beyond ASCII (bytes >= 0x80) and repeated apart in a file and
    across files, and int keys of both signs at the extremes, come back from a full range of a sorted
    index in (key bytes, file, row) order, and each key's lookup equals a filter."""
    import pyarrow.parquet as pq

    rng = random.Random(11)
    words = ["", "a", "ab", "abc", "a\u00e9", "\u00ff", "\u00e9t\u00e9", "z", "zz", "\U0001f600", "b" * 40, "B"]
    ints = [-(2 ** 63), -(2 ** 40), -1, 0, 1, 2 ** 31, 2 ** 63 - 1]
    root = tmp_path / "t"
    root.mkdir()
    parts = []
    for f in range(3):
        n = 700
        t = pa.table({"s": [rng.choice(words) for _ in range(n)],
                      "i": pa.array([rng.choice(ints) for _ in range(n)], pa.int64()),
                      "file": [f] * n, "row": list(range(n))})
        pq.write_table(t, root / f"part-{f}.parquet", row_group_size=256)
        parts.append(t)
    table = pa.concat_tables(parts)
    for key in ("s", "i"):
        rap.build_index(str(root), key, name=f"sorted_{key}", kind="sorted", buckets=1, progress=False)
        rap.build_index(str(root), key, name=f"hash_{key}", buckets=3, progress=False)
        reader, token = rap.Index.open(str(root), name=f"sorted_{key}").lookup_range(columns=[key, "file", "row"])
        assert token is None
        got = pa.table(reader).to_pylist()
        want = table.sort_by([(key, "ascending"), ("file", "ascending"), ("row", "ascending")])
        assert got == want.select([key, "file", "row"]).to_pylist()
        if key == "s":  # bytes order, as the sort above (pyarrow compares UTF-8 bytes)
            assert [r["s"].encode() for r in got] == sorted(r["s"].encode() for r in got)
        idx = rap.Index.open(str(root), name=f"hash_{key}")
        values = words if key == "s" else ints
        lk, _ = idx.lookup(values, columns=[key, "file", "row"])
        rows = pa.table(lk).to_pylist()
        at = 0
        for v, n in zip(values, lk.rows_per_key):
            want_rows = [r for r in want.select([key, "file", "row"]).to_pylist() if r[key] == v]
            assert sorted(rows[at:at + n], key=lambda r: (r["file"], r["row"])) == want_rows, v
            at += n
