"""rap.rewrite(layout="zorder", cluster_by=[...]): the same rows (pyarrow comparison), a box query
equal to pyarrow's filter of the input, fewer pages read than the unsorted input (scan stats), and
the argument checks."""

import random

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import rap


def _rows(t: pa.Table):
    return sorted(
        tuple(repr(v) for v in row) for row in zip(*(t.column(c).to_pylist() for c in t.column_names))
    )


@pytest.fixture()
def table(tmp_path):
    rng = random.Random(17)
    n = 8000
    xs = [None if rng.random() < 0.01 else rng.randint(-5000, 5000) for _ in range(n)]
    ys = [None if rng.random() < 0.01 else (float("nan") if rng.random() < 0.01 else rng.uniform(-3.0, 3.0))
          for _ in range(n)]
    names = [f"n{i}" + "x" * (i % 13) for i in range(n)]
    t = pa.table({"x": pa.array(xs, pa.int32()), "y": pa.array(ys, pa.float64()), "name": names})
    src = tmp_path / "in"
    src.mkdir()
    pq.write_table(t, src / "part-0.parquet", data_page_size=1, row_group_size=4000, write_page_index=True,
                   write_batch_size=100)
    return src, t


def test_zorder_rewrite_same_rows_and_box_prunes(tmp_path, table):
    src, t = table
    out = tmp_path / "z"
    r = rap.rewrite(str(src), str(out), layout="zorder", cluster_by=["x", "y"], page_rows=100, row_group_rows=4000)
    assert r["rows"] == 8000
    assert r["index_url"] == ""
    assert len(r["files"]) == 1
    got = rap.scan(str(out)).read_all()
    assert got.schema.names == ["x", "y", "name"]
    assert _rows(got) == _rows(t)

    where = "x BETWEEN -1000 AND 500 AND y BETWEEN 0.5 AND 1.25"
    expected = t.filter(pc.and_(pc.and_(pc.greater_equal(t["x"], -1000), pc.less_equal(t["x"], 500)),
                                pc.and_(pc.greater_equal(t["y"], 0.5), pc.less_equal(t["y"], 1.25))))
    assert expected.num_rows > 0
    z = rap.scan(str(out), where=where)
    z_rows = z.read_all()
    base = rap.scan(str(src), where=where)
    base_rows = base.read_all()
    assert _rows(z_rows) == _rows(expected)
    assert _rows(base_rows) == _rows(expected)
    assert z.stats["pages_read"] * 3 < base.stats["pages_read"], (z.stats["pages_read"], base.stats["pages_read"])


def test_zorder_argument_checks(tmp_path, table):
    src, _ = table
    with pytest.raises(rap.InvalidArgument, match="needs --cluster-by"):
        rap.rewrite(str(src), str(tmp_path / "a"), layout="zorder")
    with pytest.raises(rap.InvalidArgument, match="give no --key"):
        rap.rewrite(str(src), str(tmp_path / "b"), layout="zorder", key="x", cluster_by="x,y")
    with pytest.raises(rap.InvalidArgument, match="key: one or two key columns"):
        rap.rewrite(str(src), str(tmp_path / "c"), layout="sorted")
    with pytest.raises(rap.NotSupported, match="Z-order clusters"):
        rap.rewrite(output=str(tmp_path / "d"), layout="zorder", cluster_by=["x", "y"],
                    source=pa.table({"x": [[1]], "y": [1.0]}))
