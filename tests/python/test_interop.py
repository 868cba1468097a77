"""The same reader consumed by pyarrow, polars and DuckDB gives the same rows; batches, stats,
projection, filters and limits."""

from __future__ import annotations

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import rap
from conftest import build_cli, cli_env


def test_pyarrow_polars_duckdb_same_rows(keyed_table) -> None:
    root, table = keyed_table
    url = str(root)
    via_pyarrow = pa.table(rap.scan(url))
    via_polars = pl.DataFrame(rap.scan(url)).to_arrow()
    r = rap.scan(url)
    via_duckdb = duckdb.sql("select * from r").to_arrow_table()
    assert via_pyarrow.equals(table)
    assert via_polars.cast(table.schema).equals(table)
    assert via_duckdb.equals(table)
    # to_polars() reads through pyarrow.
    assert pl.DataFrame(rap.scan(url)).equals(rap.scan(url).to_polars())


def test_duckdb_sql_over_reader(keyed_table) -> None:
    root, table = keyed_table
    r = rap.scan(str(root), columns=["k", "v"])
    got = duckdb.sql("select count(*) as n, sum(v) as sv from r where k < 100").fetchall()
    mask = pc.less(table["k"], 100)
    want_n = pc.sum(mask.cast(pa.int64())).as_py()
    want_sv = pc.sum(table.filter(mask)["v"]).as_py()
    assert got[0][0] == want_n
    assert got[0][1] == pytest.approx(want_sv)


def test_iteration_batches_and_read_all(keyed_table) -> None:
    root, table = keyed_table
    with rap.scan(str(root), batch_size=1000) as r:
        assert r.column_names == table.column_names
        batches = [pa.record_batch(b) for b in r]
    assert all(b.num_rows <= 1000 for b in batches)
    assert pa.Table.from_batches(batches).equals(table)
    assert rap.scan(str(root)).read_all().equals(table)
    assert pa.schema(rap.scan(str(root))) == table.schema


def test_projection_filter_limit_and_stats(keyed_table) -> None:
    root, table = keyed_table
    r = rap.scan(str(root), columns="row,k", where="k >= 10 AND k < 20")
    got = pa.table(r)
    want = table.filter(pc.and_(pc.greater_equal(table["k"], 10), pc.less(table["k"], 20))).select(["row", "k"])
    assert got.equals(want)
    s = r.stats
    assert s["rows_output"] == want.num_rows
    assert s["files"] == 3 and s["bytes"] > 0
    assert pa.table(rap.scan(str(root), limit=5)).num_rows == 5


def test_consumed_reader_yields_no_more(keyed_table) -> None:
    root, _ = keyed_table
    r = rap.scan(str(root))
    pa.table(r)
    with pytest.raises(rap.InvalidArgument, match="already handed to an Arrow consumer"):
        r.__arrow_c_stream__()


def test_one_file_and_types_round_trip_through_pyarrow(tmp_path) -> None:
    t = pa.table(
        {
            "i8": pa.array([1, None, -3], pa.int8()),
            "u32": pa.array([1, 2, None], pa.uint32()),
            "f32": pa.array([1.5, None, 3.0], pa.float32()),
            "b": pa.array([True, None, False]),
            "s": pa.array(["a", None, "ccc"]),
            "bin": pa.array([b"\x00", b"", None], pa.binary()),
            "d": pa.array([1, None, 3], pa.date32()),
            "ts": pa.array([1, 2, None], pa.timestamp("us", tz="UTC")),
            "dec": pa.array([1, None, 3], pa.decimal128(10, 2)),
            "l": pa.array([[1, 2], None, []], pa.list_(pa.int64())),
            "st": pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": None}],
                           pa.struct([("x", pa.int32()), ("y", pa.string())])),
        }
    )
    pq.write_table(t, tmp_path / "t.parquet")
    assert pa.table(rap.scan(str(tmp_path / "t.parquet"))).equals(pq.read_table(tmp_path / "t.parquet"))


def test_inspect_is_the_cli_report(keyed_table) -> None:
    import json
    import pathlib
    import subprocess

    root, table = keyed_table
    path = str(root / "part-0.parquet")
    report = rap.inspect(path, pages=True)
    assert report["num_rows"] == 4000
    assert len(report["row_groups"]) == 3 and "pages" in report["row_groups"][0]["columns"][0]
    # The same report as the CLI of the same build (scripts/test.sh: build/release/tools/rap).
    cli = build_cli()
    if cli.exists():
        out = subprocess.run([str(cli), "inspect", "--json", "--pages", path], check=True, capture_output=True, text=True,
                             env=cli_env())
        assert json.loads(out.stdout) == report
    with pytest.raises(rap.NotFound):
        rap.inspect(str(root / "absent.parquet"))
