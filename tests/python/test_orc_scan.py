"""rap.scan on ORC files (issue 31) from real writers, every value compared strictly with pyarrow.orc's
own reading of the same file: pyarrow's ORC writer (Apache ORC C++) for each type x compression x
nulls, nested types, dictionary and direct strings; pyorc (the ORC C++ library through its own
bindings; its 0.12 cannot write the 0.11 format, whose RLE v1 files the shared examples cover in the
C++ tests) with dictionary and direct strings; folders of ORC files with Hive
partitions; tables mixing ORC and Parquet files, with the same rows and order for every prefetch and
warmup setting; malformed files give clear errors."""

from __future__ import annotations

import datetime
import decimal
import pathlib

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as po
import pyarrow.parquet as pq
import pytest

import rap
from conftest import build_cli, cli_env

COMPRESSIONS = ["uncompressed", "zlib", "snappy", "lz4", "zstd"]


def typed_table(n: int = 3000, nulls: bool = True) -> pa.Table:
    def col(values, typ):
        if nulls:
            values = [None if i % 7 == 3 else v for i, v in enumerate(values)]
        return pa.array(values, type=typ)

    r = range(n)
    return pa.table(
        {
            "b": col([i % 3 == 0 for i in r], pa.bool_()),
            "i8": col([(i * 37) % 256 - 128 for i in r], pa.int8()),
            "i16": col([(i * 1009) % 65536 - 32768 for i in r], pa.int16()),
            "i32": col([i * 100003 - 2**30 for i in r], pa.int32()),
            "i64": col([(i * 7919) ** 3 % 2**62 - 2**61 for i in r], pa.int64()),
            "f32": col([i / 3.0 for i in r], pa.float32()),
            "f64": col([i * 1.5e-3 - 2.0 for i in r], pa.float64()),
            # dictionary-friendly (few distinct) and direct (all distinct, some long) strings
            "sdict": col([f"v{i % 5}" for i in r], pa.string()),
            "sdirect": col([f"row-{i}-" + "x" * (i % 300) for i in r], pa.string()),
            "bin": col([bytes([i % 256]) * (i % 9) for i in r], pa.binary()),
            "dec": col([decimal.Decimal(i * 12345 - 10**6).scaleb(-3) for i in r], pa.decimal128(12, 3)),
            "d": col([datetime.date(1900, 1, 1) + datetime.timedelta(days=i * 17) for i in r], pa.date32()),
            "ts": col([i * 1_000_000_123 - 10**15 for i in r], pa.timestamp("ns")),
            "lst": col([list(range(i % 4)) for i in r], pa.list_(pa.int32())),
            "st": col([{"x": i, "y": f"s{i % 11}"} for i in r], pa.struct([("x", pa.int64()), ("y", pa.string())])),
            "mp": col([[("k", i), ("j", -i)] if i % 2 else [] for i in r], pa.map_(pa.string(), pa.int64())),
        }
    )


def rap_table(url, **kw) -> pa.Table:
    return rap.scan(str(url), **kw).read_all()


def assert_same(got: pa.Table, want: pa.Table) -> None:
    assert got.column_names == want.column_names
    assert got.num_rows == want.num_rows
    for name in want.column_names:
        g, w = got[name].combine_chunks(), want[name].combine_chunks()
        if g.type != w.type:
            g = g.cast(w.type)
        assert g.equals(w), f"column {name} differs"


@pytest.mark.parametrize("compression", COMPRESSIONS)
@pytest.mark.parametrize("nulls", [False, True])
def test_pyarrow_writer_types(tmp_path: pathlib.Path, compression: str, nulls: bool) -> None:
    t = typed_table(nulls=nulls)
    path = tmp_path / f"t_{compression}.orc"
    # small stripes: several ranges per file
    po.write_table(t, str(path), compression=compression, stripe_size=64 * 1024, dictionary_key_size_threshold=0.5)
    want = po.read_table(str(path))
    assert_same(rap_table(path), want)
    assert_same(rap_table(path, prefetch=1, warmup="none"), want)


def test_projection_filter_limit(tmp_path: pathlib.Path) -> None:
    t = typed_table()
    path = tmp_path / "t.orc"
    po.write_table(t, str(path), compression="zstd", stripe_size=64 * 1024)
    want = po.read_table(str(path), columns=["i32", "sdict"])
    assert_same(rap_table(path, columns=["sdict", "i32"]).select(["i32", "sdict"]), want)
    full = po.read_table(str(path))
    got = rap_table(path, where="i32 >= 0 AND sdict = 'v2'", columns=["i64", "sdict"])
    mask = pc.and_(pc.greater_equal(full["i32"], 0), pc.equal(full["sdict"], "v2"))
    assert_same(got, full.filter(mask).select(["i64", "sdict"]))
    assert rap_table(path, limit=17).num_rows == 17
    assert_same(rap_table(path, columns=["st.y"]).rename_columns(["y"]),
                pa.table({"y": pc.struct_field(full["st"], "y")}))


@pytest.mark.parametrize("dictionary", [0.0, 1.0])
@pytest.mark.parametrize("compression", ["NONE", "ZLIB", "SNAPPY", "LZ4", "ZSTD"])
def test_pyorc_writer(tmp_path: pathlib.Path, dictionary: float, compression: str) -> None:
    pyorc = pytest.importorskip("pyorc")
    path = tmp_path / "p.orc"
    schema = "struct<a:bigint,s:string,d:double,b:boolean,l:array<int>>"
    rows = [
        (None if i % 11 == 0 else i * (-1) ** i * 1_000_003, None if i % 13 == 0 else f"k{i % 40}", i / 7, i % 2 == 0,
         None if i % 17 == 0 else list(range(i % 5)))
        for i in range(20000)
    ]
    with open(path, "wb") as f:
        with pyorc.Writer(f, schema, compression=getattr(pyorc.CompressionKind, compression),
                          dict_key_size_threshold=dictionary, stripe_size=128 * 1024,
                          batch_size=1000) as w:
            for r in rows:
                w.write(r)
    want = po.read_table(str(path))
    assert want.num_rows == len(rows)
    assert_same(rap_table(path), want)


def write_orc_folder(root: pathlib.Path, files: int = 8, rows: int = 5000, parquet_every: int = 0) -> pa.Table:
    parts = []
    for i in range(files):
        t = pa.table({
            "id": pa.array(range(i * rows, (i + 1) * rows), pa.int64()),
            "name": pa.array([f"n{j % 97}" for j in range(rows)]),
            "val": pa.array([None if j % 5 == 0 else j * 0.25 for j in range(rows)], pa.float64()),
        })
        d = root / f"part={i % 2}"
        d.mkdir(parents=True, exist_ok=True)
        if parquet_every and i % parquet_every == 1:
            pq.write_table(t, str(d / f"f{i:02d}.parquet"), row_group_size=1000)
        else:
            po.write_table(t, str(d / f"f{i:02d}.orc"), compression="zstd", stripe_size=32 * 1024)
        parts.append(t)
    return pa.concat_tables(parts)


@pytest.mark.parametrize("parquet_every", [0, 2])
def test_folder_prefetch_warmup_same_rows(tmp_path: pathlib.Path, parquet_every: int) -> None:
    write_orc_folder(tmp_path, parquet_every=parquet_every)
    base = rap_table(tmp_path, prefetch=1, warmup="none")
    assert base.num_rows == 8 * 5000
    assert set(base.column_names) == {"id", "name", "val", "part"}
    # every row once; ids of a file in order
    assert sorted(base["id"].to_pylist()) == list(range(8 * 5000))
    for prefetch in (1, 3):
        for warmup in ("none", "raw", "decoded"):
            assert_same(rap_table(tmp_path, prefetch=prefetch, warmup=warmup), base)
    # filters over data and partition columns
    f = rap_table(tmp_path, where="part = '1' AND val > 100", columns=["id", "val"], prefetch=3, warmup="decoded")
    want = base.filter(pc.and_(pc.equal(base["part"], "1"), pc.greater(base["val"], 100))).select(["id", "val"])
    assert_same(f, want)


def test_stripe_statistics_prune(tmp_path: pathlib.Path) -> None:
    t = pa.table({"id": pa.array(range(100000), pa.int64()),
                  "pad": pa.array([f"{(i * 2654435761) % 10**12:012d}" for i in range(100000)])})
    path = tmp_path / "s.orc"
    po.write_table(t, str(path), stripe_size=64 * 1024, compression="zlib")
    reader = rap.scan(str(path), where="id >= 99990", columns=["id"])
    got = reader.read_all()
    assert got["id"].to_pylist() == list(range(99990, 100000))
    stats = reader.stats
    stats = stats() if callable(stats) else stats
    assert stats["row_groups"] > 1
    assert stats["row_groups_pruned"] == stats["row_groups"] - 1


def test_malformed(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.orc"
    po.write_table(typed_table(500), str(path))
    data = path.read_bytes()
    bad = tmp_path / "cut.orc"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(rap.Error, match="cut.orc"):
        rap_table(bad)
    garbage = tmp_path / "g.orc"
    garbage.write_bytes(b"ORC" + b"\xff" * 200 + b"\x10")
    with pytest.raises(rap.Error, match="g.orc"):
        rap_table(garbage)


@pytest.mark.parametrize("compression", ["zlib", "zstd"])
def test_convert_orc_to_parquet(tmp_path: pathlib.Path, compression: str) -> None:
    import subprocess

    cli = build_cli()
    if not cli.exists():
        pytest.skip("no CLI beside the extension (scripts/test.sh: build/release/tools/rap)")
    src = tmp_path / "in.orc"
    po.write_table(typed_table(), str(src), compression=compression, stripe_size=64 * 1024)
    out = tmp_path / "out.parquet"
    subprocess.run([str(cli), "convert", str(src), str(out), "--batch-rows", "1000"], check=True, capture_output=True,
                   env=cli_env())
    assert_same(pq.read_table(str(out)), po.read_table(str(src)))
