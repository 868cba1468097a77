"""The RAP index on ORC files (issue 31): folders of ORC files written by pyarrow (Apache ORC C++),
many stripes and a row index every 1,000 rows, keys shuffled across files and stripes, every type
the scan reads. Lookups (hash and sorted indexes, ranges, an update after a file is added) equal
pyarrow.orc's own reading of the files filtered by the key, value for value; a lookup reads only the
row groups of its key (its bytes a small part of the data); hoisted columns answer from the index."""

from __future__ import annotations

import datetime
import decimal
import pathlib
import random

import pyarrow as pa
import pyarrow.orc as po
import pytest

import rap

STRIDE = 1000


def part(ids: list[int]) -> pa.Table:
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": pa.array([None if i % 17 == 3 else f"n{i}" for i in ids], pa.string()),
        "amount": pa.array([i * 0.25 for i in ids], pa.float64()),
        "day": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 900) for i in ids], pa.date32()),
        "dec": pa.array([decimal.Decimal(i).scaleb(-2) for i in ids], pa.decimal128(12, 2)),
        "tags": pa.array([[str(i), "t"] if i % 3 else [] for i in ids], pa.list_(pa.string())),
    })


def write_folder(root: pathlib.Path, chunks: list[list[int]], start: int = 0) -> None:
    root.mkdir(exist_ok=True)
    for n, ids in enumerate(chunks):
        po.write_table(part(ids), str(root / f"part-{start + n}.orc"), stripe_size=64 * 1024,
                       row_index_stride=STRIDE, compression="uncompressed" if n % 2 == 0 else "zstd")


def expected(root: pathlib.Path) -> dict:
    rows: dict = {}
    for f in sorted(root.glob("*.orc")):
        for r in po.read_table(str(f)).to_pylist():
            rows.setdefault(r["id"], []).append(r)
    return rows


def looked_up(idx: rap.Index, keys: list) -> dict:
    reader, tokens = idx.lookup(keys)
    assert tokens == [None] * len(keys)
    counts = reader.rows_per_key
    rows = pa.table(reader).to_pylist()
    out, at = {}, 0
    for k, n in zip(keys, counts):
        out[k] = sorted(rows[at:at + n], key=repr)
        at += n
    return out


def test_lookups_equal_pyarrow_reading(tmp_path: pathlib.Path) -> None:
    rng = random.Random(31)
    ids = list(range(90000)) + [7, 7, 12345]  # duplicates: a key in two files and twice in one
    rng.shuffle(ids)
    root = tmp_path / "t"
    write_folder(root, [ids[:30000], ids[30000:60000], ids[60000:]])
    built = rap.build_index(str(root), "id", buckets=3, progress=False)
    assert built["key_rows"] == len(ids)
    want = expected(root)
    idx = rap.Index.open(str(root))
    keys = rng.sample(range(90000), 300) + [7, 12345, -1, 90000, 10 ** 9]
    got = looked_up(idx, keys)
    for k in keys:
        assert got[k] == sorted(want.get(k, []), key=repr), k
    # One key reads its file's tail and its row group, not the file: a small part of the
    # (uncompressed) file that holds it.
    reader, _ = idx.lookup([ids[5000]])
    assert pa.table(reader).num_rows == 1
    assert reader.stats["bytes"] < (root / "part-0.orc").stat().st_size / 4, reader.stats

    # A file added: the update indexes it; its keys and the old ones answer.
    write_folder(root, [[40000 + i for i in range(3000)] + [7]], start=3)
    rap.update_index(str(root), progress=False)
    idx.refresh()
    want = expected(root)
    got = looked_up(idx, [7, 40000, 42999, 12345, 43000])
    for k in (7, 40000, 42999, 12345, 43000):
        assert got[k] == sorted(want.get(k, []), key=repr), k


def test_sorted_index_ranges_and_indexed_scans(tmp_path: pathlib.Path) -> None:
    rng = random.Random(7)
    ids = list(range(8000))
    rng.shuffle(ids)
    root = tmp_path / "t"
    write_folder(root, [ids[:4000], ids[4000:]])
    rap.build_index(str(root), "id", kind="sorted", buckets=2, progress=False)
    want = expected(root)
    idx = rap.Index.open(str(root))
    reader, _ = idx.lookup_range(1995, 2010)
    got = sorted(pa.table(reader).to_pylist(), key=repr)
    assert got == sorted([r for k in range(1995, 2011) for r in want.get(k, [])], key=repr)
    scanned = pa.table(rap.scan(str(root), where="id BETWEEN 10 AND 20")).to_pylist()
    assert sorted(scanned, key=repr) == sorted([r for k in range(10, 21) for r in want[k]], key=repr)


def test_hoisted_index_on_orc_answers_from_the_index(tmp_path: pathlib.Path) -> None:
    """--hoist on ORC files: the hoisted columns' values (a string with NULLs, a double, a decimal, a
    list) are in the index; a lookup of only them reads no data file and equals pyarrow.orc's reading."""
    rng = random.Random(5)
    ids = list(range(6000)) + [11, 11]
    rng.shuffle(ids)
    root = tmp_path / "t"
    write_folder(root, [ids[:3000], ids[3000:]])
    rap.build_index(str(root), "id", hoist=["name", "amount", "dec", "tags"], progress=False)
    want = expected(root)
    idx = rap.Index.open(str(root))
    assert idx.info()["hoist"] == ["name", "amount", "dec", "tags"]
    keys = rng.sample(range(6000), 50) + [11, -3]
    cols = ["id", "name", "amount", "dec", "tags"]
    reader, _ = idx.lookup(keys, columns=cols)
    counts = reader.rows_per_key
    rows = pa.table(reader).to_pylist()
    assert reader.stats["data_files"] == 0 and reader.stats["hoisted_only"] == 51, reader.stats
    at = 0
    for k, n in zip(keys, counts):
        got = sorted(rows[at:at + n], key=repr)
        at += n
        assert got == sorted([{c: r[c] for c in cols} for r in want.get(k, [])], key=repr), k
    # A column that is not hoisted reads the data files, as without --hoist.
    got = looked_up(idx, [11, 42])
    assert got[11] == sorted(want[11], key=repr) and got[42] == sorted(want[42], key=repr)


def test_covered_index_on_orc_is_refused(tmp_path: pathlib.Path) -> None:
    root = tmp_path / "t"
    write_folder(root, [list(range(100))])
    with pytest.raises(rap.NotSupported, match="ORC"):
        rap.build_index(str(root), "id", cover=["name"], progress=False)
