"""rap.write_parquet: pyarrow -> rap.write_parquet -> rap.scan -> pyarrow is the identity for every
Arrow type rap writes (writer.h's mapping), polars and rap readers as sources, layouts, and errors;
rap.rewrite(source=...)."""

from __future__ import annotations

import datetime
import decimal

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rap


def every_type_table() -> pa.Table:
    t = pa.table(
        {
            "b": pa.array([True, None, False]),
            "i8": pa.array([-128, None, 127], pa.int8()),
            "i16": pa.array([-32768, 5, None], pa.int16()),
            "i32": pa.array([None, -(2**31), 2**31 - 1], pa.int32()),
            "i64": pa.array([-(2**63), None, 2**63 - 1], pa.int64()),
            "u8": pa.array([0, 255, None], pa.uint8()),
            "u16": pa.array([0, 65535, None], pa.uint16()),
            "u32": pa.array([0, 2**32 - 1, None], pa.uint32()),
            "u64": pa.array([0, 2**64 - 1, None], pa.uint64()),
            "f32": pa.array([1.5, None, -0.0], pa.float32()),
            "f64": pa.array([float("inf"), None, 2.25], pa.float64()),
            "s": pa.array(["", None, "h\u00e9llo"]),
            "bin": pa.array([b"\x00\xff", None, b""], pa.binary()),
            "fsb": pa.array([b"abcd", None, b"wxyz"], pa.binary(4)),
            "dec9": pa.array([decimal.Decimal("1.23"), None, decimal.Decimal("-9999999.99")], pa.decimal128(9, 2)),
            "dec18": pa.array([decimal.Decimal("1"), None, decimal.Decimal("-1")], pa.decimal128(18, 0)),
            "dec38": pa.array([decimal.Decimal("12345678901234567890.123456789012345678"), None, decimal.Decimal("0")],
                              pa.decimal128(38, 18)),
            "d": pa.array([datetime.date(1970, 1, 1), None, datetime.date(2262, 4, 11)], pa.date32()),
            "t32": pa.array([0, None, 86_399_999], pa.time32("ms")),
            "t64us": pa.array([0, None, 86_399_999_999], pa.time64("us")),
            "t64ns": pa.array([1, None, 86_399_999_999_999], pa.time64("ns")),
            "ts_ms": pa.array([0, None, 1_700_000_000_000], pa.timestamp("ms")),
            "ts_us_utc": pa.array([0, None, 1_700_000_000_000_000], pa.timestamp("us", tz="UTC")),
            "ts_ns": pa.array([0, None, 1_700_000_000_000_000_000], pa.timestamp("ns")),
            "list": pa.array([[1, None], None, []], pa.list_(pa.int64())),
            "list_str": pa.array([["a"], [], None], pa.list_(pa.string())),
            "struct": pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": None}],
                               pa.struct([("x", pa.int32()), ("y", pa.string())])),
            "map": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int64())),
            "nested": pa.array([[{"a": [1, 2]}], None, [None]], pa.list_(pa.struct([("a", pa.list_(pa.int16()))]))),
            "req": pa.array([1, 2, 3], pa.int64()),
        }
    )
    return t.cast(pa.schema([pa.field(f.name, f.type, nullable=(f.name != "req")) for f in t.schema]))


def assert_same(got: pa.Table, want: pa.Table) -> None:
    assert got.schema.names == want.schema.names
    for g, w in zip(got.schema, want.schema):
        assert g.type == w.type, (g.name, g.type, w.type)
        assert g.nullable == w.nullable, g.name
    for name in want.column_names:
        assert got.column(name).equals(want.column(name)), name


@pytest.mark.parametrize("options", [{}, {"compression": "zstd:3", "page_rows": 2, "data_page_version": 2},
                                     {"dictionary": False, "compression": {"s": "snappy", "": "gzip"}}])
def test_round_trip_every_type(tmp_path, options) -> None:
    t = every_type_table()
    path = str(tmp_path / "t.parquet")
    r = rap.write_parquet(t, path, **options)
    assert r["rows"] == 3
    assert_same(pa.table(rap.scan(path)), t)
    # An independent reader agrees.
    assert_same(pq.read_table(path), t)


def test_sources_polars_rap_reader_and_batches(tmp_path, keyed_table) -> None:
    root, table = keyed_table
    a = str(tmp_path / "from_rap.parquet")
    rap.write_parquet(rap.scan(str(root)), a, row_group_rows=1000, page_break_on=["k"])
    assert_same(pa.table(rap.scan(a)), table)
    assert rap.inspect(a)["num_rows"] == table.num_rows and len(rap.inspect(a)["row_groups"]) == 12
    b = str(tmp_path / "from_polars.parquet")
    df = pl.from_arrow(table.select(["k", "row", "v"]))
    rap.write_parquet(df, b, compression="zstd")
    assert pa.table(rap.scan(b)).equals(df.to_arrow())
    c = str(tmp_path / "from_reader.parquet")
    rap.write_parquet(pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=777)), c)
    assert_same(pa.table(rap.scan(c)), table)


def test_frame_per_key_layout_then_lookup(tmp_path) -> None:
    t = pa.table({"k": pa.array(sorted([i // 3 for i in range(3000)]), pa.int64()),
                  "v": pa.array([f"value-{i}" for i in range(3000)])})
    d = tmp_path / "framed"
    d.mkdir()
    r = rap.write_parquet(t, str(d / "part-0.parquet"), frame_per_key="k", align="4KiB")
    assert r["frames"] > 0
    rap.build_index(str(d), "k", cover="v", progress=False)
    reader, _ = rap.lookup(str(d), [5, 999], columns=["v"])
    assert pa.table(reader).column("v").to_pylist() == [f"value-{i}" for i in (15, 16, 17, 2997, 2998, 2999)]


def test_write_errors(tmp_path) -> None:
    t = pa.table({"a": [1, 2]})
    with pytest.raises(rap.InvalidArgument, match="data: expected an object with __arrow_c_stream__"):
        rap.write_parquet([1, 2], str(tmp_path / "x.parquet"))
    with pytest.raises(rap.InvalidArgument, match="compression: "):
        rap.write_parquet(t, str(tmp_path / "x.parquet"), compression="zip")
    with pytest.raises(rap.NotSupported):
        rap.write_parquet(pa.table({"a": pa.array(["x"], pa.large_string())}), str(tmp_path / "x.parquet"))
    assert not (tmp_path / "x.parquet").exists()


def test_rewrite_from_source(tmp_path, keyed_table) -> None:
    root, table = keyed_table
    out = tmp_path / "rewritten"
    r = rap.rewrite(output=str(out), source=table, key="k", buckets=2, progress=False)
    assert r["rows"] == table.num_rows
    reader, _ = rap.lookup(str(out), [17], columns=["row"])
    got = pa.table(reader).sort_by("row").column("row").to_pylist()
    import pyarrow.compute as pc

    assert got == sorted(table.filter(pc.equal(table["k"], 17)).column("row").to_pylist())
    with pytest.raises(rap.InvalidArgument, match="not both"):
        rap.rewrite(str(root), str(out), source=table, key="k")
