"""Lookups equal brute-force scans for random keys, in batches and pages; keys as lists, numpy arrays
and Arrow arrays; Index.info / refresh / update / compact / vacuum / inspect_index."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import rap


def brute_force(table: pa.Table, column: str, key, columns: list[str]) -> pa.Table:
    return table.filter(pc.equal(table[column], pa.scalar(key, table.schema.field(column).type))).select(columns)


def assert_lookup_equal(got: pa.Table, want: pa.Table, key_columns=("k", "s")) -> None:
    """Same columns, types, values and NULLs. The one schema difference: a lookup's key column is
    declared non-nullable (a NULL key is never indexed, so a looked-up key's rows never hold one),
    where the file's column is nullable."""
    assert got.column_names == want.column_names
    for f in got.schema:
        w = want.schema.field(f.name)
        assert f.type == w.type, (f.name, f.type, w.type)
        assert f.nullable == (w.nullable and f.name not in key_columns), f.name
    assert got.to_pylist() == want.to_pylist()


def rows_of(reader: rap.RecordBatchReader, counts: list[int]) -> list[pa.Table]:
    """The reader's rows split per requested key (batches hold only keys with rows)."""
    t = pa.table(reader)
    out, at = [], 0
    for n in counts:
        out.append(t.slice(at, n))
        at += n
    assert at == t.num_rows
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_int_lookups_equal_scans(keyed_table, seed) -> None:
    root, table = keyed_table
    idx = rap.Index.open(str(root))
    rnd = random.Random(seed)
    keys = [rnd.randrange(-10, 3100) for _ in range(40)]  # some absent
    for columns in (["k", "row", "v", "name"], ["v", "name"], ["row"]):
        reader, tokens = idx.lookup(keys, columns=columns)
        assert tokens == [None] * len(keys)
        got = rows_of(reader, reader.rows_per_key)
        out_cols = (["k"] if "k" not in columns else []) + columns
        for key, part in zip(keys, got):
            assert_lookup_equal(part, brute_force(table, "k", key, out_cols))


def test_string_keys_and_pages(keyed_table) -> None:
    root, table = keyed_table
    idx = rap.Index.open(str(root), name="by_s")
    keys = ["user-0007", "user-0123", "absent", "user-0499"]
    for key in keys:
        want = brute_force(table, "s", key, ["s", "row"])
        pages, token = [], None
        while True:
            reader, tokens = idx.lookup([key], columns=["row"], limit_per_key=3, page_token=token)
            pages.append(pa.table(reader))
            assert pages[-1].num_rows <= 3
            token = tokens[0]
            if token is None:
                break
        assert_lookup_equal(pa.concat_tables(pages), want)


def test_keys_as_numpy_and_arrow(keyed_table) -> None:
    root, table = keyed_table
    idx = rap.Index.open(str(root))
    keys = [5, 17, 2999, 40]
    want = pa.table(idx.lookup(keys, columns=["row"])[0])
    for form in (np.array(keys, dtype=np.int64), np.array(keys, dtype=np.int32), pa.array(keys, pa.int64()),
                 pa.array(keys, pa.uint16()), pa.chunked_array([keys[:2], keys[2:]], pa.int64())):
        assert pa.table(idx.lookup(form, columns=["row"])[0]).equals(want), type(form)
    by_s = rap.Index.open(str(root), name="by_s")
    skeys = ["user-0001", "user-0002"]
    want = pa.table(by_s.lookup(skeys, columns=["row"])[0])
    for form in (np.array(skeys), pa.array(skeys), pa.array(skeys, pa.large_string())):
        assert pa.table(by_s.lookup(form, columns=["row"])[0]).equals(want)
    with pytest.raises(rap.InvalidArgument, match=r"keys\[1\]: NULL is not a key"):
        idx.lookup(pa.array([1, None], pa.int64()))


def test_one_off_lookup_info_and_stats(keyed_table) -> None:
    root, table = keyed_table
    reader, tokens = rap.lookup(str(root), [17], columns=["row"])
    assert_lookup_equal(pa.table(reader), brute_force(table, "k", 17, ["k", "row"]))
    assert reader.stats["rows"] == reader.rows_per_key[0]
    info = rap.Index.open(str(root)).info()
    assert info["key"] == [("k", "int64")]
    assert info["buckets"] == 2 and info["files"] == 3
    assert info["cover"] == ["v", "name"]
    # The index was built by this rap: it opens from its latest bundle in one round.
    assert info["opened_from_bundle"] is True and info["open_rounds"] == 1


@pytest.mark.parametrize("name,columns", [("by_s", ["row", "v"]), ("default", ["v", "name"])])
def test_data_cache_answers_again_without_decoding(keyed_table, name, columns) -> None:
    """Index.open(data_cache=...): a key looked up again is answered from decoded pages (no page
    decoded again, hits counted), with the same rows; without the cache nothing is ever a hit."""
    root, table = keyed_table
    column, keys = ("s", ["user-0007", "user-0123"]) if name == "by_s" else ("k", [17, 2999])
    cached = rap.Index.open(str(root), name=name, data_cache="16MiB")
    plain = rap.Index.open(str(root), name=name)
    for key in keys:
        want = brute_force(table, column, key, [column] + columns)
        first, _ = cached.lookup([key], columns=columns)
        again, _ = cached.lookup([key], columns=columns)
        uncached, _ = plain.lookup([key], columns=columns)
        for reader in (first, again, uncached):
            assert_lookup_equal(pa.table(reader), want)
        # A first lookup decodes its pages, or finds them decoded by an earlier key's lookup.
        assert first.stats["data_pages_decoded"] + first.stats["data_page_cache_hits"] > 0, key
        assert key != keys[0] or first.stats["data_pages_decoded"] > 0
        assert again.stats["data_pages_decoded"] == 0, key
        assert again.stats["data_page_cache_hits"] > 0, key
        assert uncached.stats["data_page_cache_hits"] == 0, key
    for bad, message in ((-1, "data_cache: -1 is negative"), ("lots", "data_cache: "), (True, "data_cache: expected")):
        with pytest.raises(rap.InvalidArgument, match=message):
            rap.Index.open(str(root), name=name, data_cache=bad)


def test_maintenance_round(tmp_path) -> None:
    from conftest import write_keyed_table

    root = tmp_path / "t"
    table = write_keyed_table(root, files=2, rows_per_file=500)
    calls = []
    r = rap.build_index(str(root), "k", progress=lambda done, total: calls.append((done, total)))
    assert r["files"] == 2 and r["key_rows"] == 1000
    assert calls[-1] == (2, 2)
    idx = rap.Index.open(str(root))
    # A new file, then update: the open Index sees it after refresh().
    extra = write_keyed_table(tmp_path / "extra", files=1, rows_per_file=100, seed=99)
    (tmp_path / "extra" / "part-0.parquet").rename(root / "part-9.parquet")
    u = rap.update_index(str(root), progress=False)
    assert u["changed"] and u["added_files"] == 1
    assert idx.refresh() is True
    key = extra["k"][0].as_py()
    reader, _ = idx.lookup([key], columns=["row"])
    want = pa.concat_tables([brute_force(table, "k", key, ["k", "row"]), brute_force(extra, "k", key, ["k", "row"])])
    assert pa.table(reader).num_rows == want.num_rows
    c = rap.compact_index(str(root))
    assert c["changed"] and c["fragments_after"] == 1
    v = rap.vacuum_index(str(root), retain="0s", dry_run=True)
    assert v["manifests_kept"] >= 1
    m = rap.inspect_index(str(root))
    assert m["version"] == c["version"]


def test_rewrite_then_lookup(tmp_path, keyed_table) -> None:
    root, table = keyed_table
    out = tmp_path / "rewritten"
    r = rap.rewrite(str(root), str(out), key="k", layout="frame", buckets=2, progress=False)
    assert r["rows"] == table.num_rows and r["table_version"] == 0
    reader, _ = rap.lookup(str(out), [17, 18], columns=["row"])
    got = pa.table(reader).sort_by("row")
    want = table.filter(pc.is_in(table["k"], pa.array([17, 18]))).select(["k", "row"]).sort_by("row")
    assert_lookup_equal(got, want)


def test_compound_keys_as_tuples_and_struct_array(tmp_path) -> None:
    from conftest import write_keyed_table

    root = tmp_path / "t"
    table = write_keyed_table(root, files=2, rows_per_file=600)
    # Key columns in file order: built as ["s", "k"] (the reverse), the manifest records the types
    # swapped (s int64, k string) — a bug of BuildIndex, reported; the CLI shows the same.
    rap.build_index(str(root), ["k", "s"], progress=False)
    idx = rap.Index.open(str(root))
    assert idx.info()["key"] == [("k", "int64"), ("s", "string")]
    pairs = [(table["k"][i].as_py(), table["s"][i].as_py()) for i in (0, 5, 700)] + [(-1, "user-0001")]
    reader, _ = idx.lookup(pairs, columns=["row"])
    want = [table.filter(pc.and_(pc.equal(table["k"], k), pc.equal(table["s"], s))).num_rows for k, s in pairs]
    assert reader.rows_per_key == want
    as_struct = pa.StructArray.from_arrays([pa.array([p[0] for p in pairs]), pa.array([p[1] for p in pairs])],
                                           names=["k", "s"])
    assert pa.table(idx.lookup(as_struct, columns=["row"])[0]).equals(pa.table(reader))
    with pytest.raises(rap.InvalidArgument, match=r"keys\[0\]: expected a tuple of 2 key parts"):
        idx.lookup([5])
