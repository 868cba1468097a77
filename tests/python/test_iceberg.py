"""Iceberg tables written by pyiceberg (a SqlCatalog on SQLite with a local warehouse) read by
rap.scan, every value compared with pyiceberg's own `table.scan().to_arrow()` (docs/iceberg.md):
appends, a partitioned table (identity and day), schema evolution (rename, add, promote int to long,
drop), a copy-on-write delete and an overwrite."""

from __future__ import annotations

import datetime
import pathlib

import pyarrow as pa
import pytest

import rap

pyiceberg = pytest.importorskip("pyiceberg")
from pyiceberg.catalog.sql import SqlCatalog  # noqa: E402
from pyiceberg.expressions import EqualTo  # noqa: E402
from pyiceberg.partitioning import PartitionField, PartitionSpec  # noqa: E402
from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.transforms import DayTransform, IdentityTransform  # noqa: E402
from pyiceberg.types import IntegerType, LongType, NestedField, StringType, TimestamptzType  # noqa: E402


def catalog(tmp_path: pathlib.Path) -> SqlCatalog:
    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    c = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=f"file://{warehouse}")
    c.create_namespace("db")
    return c


def location(table) -> str:
    return table.location().removeprefix("file://")


def same_rows(table) -> None:
    expected = table.scan().to_arrow()
    got = pa.table(rap.scan(location(table)))
    assert got.column_names == expected.column_names
    keys = [(name, "ascending") for name in expected.column_names]
    # Types equal, but for pyiceberg's large_string where rap gives string.
    for e, g in zip(expected.schema, got.schema):
        assert g.type == (pa.string() if e.type == pa.large_string() else e.type), (e, g)
    got = got.cast(expected.schema)
    assert got.sort_by(keys).to_pylist() == expected.sort_by(keys).to_pylist()


def test_appends_and_schema_evolution(tmp_path: pathlib.Path) -> None:
    c = catalog(tmp_path)
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "name", StringType(), required=False),
        NestedField(3, "n", IntegerType(), required=False),
    )
    t = c.create_table("db.evolve", schema=schema)
    t.append(pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", "b", None],
                       "n": pa.array([10, None, 30], pa.int32())}))
    same_rows(t)
    with t.update_schema() as u:
        u.rename_column("name", "label")
        u.add_column("extra", StringType())
        u.update_column("n", LongType())
    t.append(pa.table({"id": pa.array([4], pa.int64()), "label": ["d"], "n": pa.array([1 << 40], pa.int64()),
                       "extra": ["x"]}))
    same_rows(t)
    with t.update_schema() as u:
        u.delete_column("extra")
    same_rows(t)


def test_partitioned_delete_and_overwrite(tmp_path: pathlib.Path) -> None:
    c = catalog(tmp_path)
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "kind", StringType(), required=False),
        NestedField(3, "ts", TimestamptzType(), required=False),
    )
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "kind"),
                         PartitionField(3, 1001, DayTransform(), "ts_day"))
    t = c.create_table("db.events", schema=schema, partition_spec=spec)
    utc = datetime.timezone.utc
    rows = pa.table({
        "id": pa.array(range(20), pa.int64()),
        "kind": ["click" if i % 3 else "view" for i in range(20)],
        "ts": pa.array([datetime.datetime(2024, 1, 1 + i % 4, i % 24, tzinfo=utc) for i in range(20)],
                       pa.timestamp("us", tz="UTC")),
    })
    t.append(rows)
    same_rows(t)
    t.delete(EqualTo("id", 7))
    same_rows(t)
    t.overwrite(rows.slice(0, 5))
    same_rows(t)
    assert pa.table(rap.scan(location(t), where="kind = 'view'")).num_rows == 2


def test_shared_tables_time_travel_and_location_map(shared: pathlib.Path) -> None:
    root = shared / "iceberg-tables"
    pos = str(root / "impala_v2_pos_deletes_parquet")
    assert sorted(pa.table(rap.scan(pos)).to_pylist(), key=lambda r: (r["i"], r["s"])) == [
        {"i": 1, "s": "a"}, {"i": 2, "s": "b"}, {"i": 3, "s": "c"}, {"i": 4, "s": "d"}, {"i": 5, "s": "X"},
        {"i": 6, "s": "f"}]
    assert pa.table(rap.scan(pos, snapshot_id=7490459762454857930)).num_rows == 10
    dv = str(root / "impala_v3_deletion_vectors")
    assert pa.table(rap.scan(dv)).column("i").to_pylist() == [1, 3, 5]
    assert sorted(pa.table(rap.scan(dv, as_of=1770903464282)).column("i").to_pylist()) == [1, 2, 3, 4, 5]
    assert sorted(pa.table(rap.scan(dv, as_of="2026-02-12 13:37:44.282")).column("i").to_pylist()) == [1, 2, 3, 4, 5]
    mapped = rap.scan(dv, location_map={"hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors": dv})
    assert pa.table(mapped).column("i").to_pylist() == [1, 3, 5]
    with pytest.raises(rap.InvalidArgument):
        rap.scan(dv, as_of="not a time")
