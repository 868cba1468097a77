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


def plain(t: pa.DataType) -> pa.DataType:
    """`t` with pyiceberg's large_string and large_list as rap gives them (string, list)."""
    if t == pa.large_string():
        return pa.string()
    if pa.types.is_large_list(t) or pa.types.is_list(t):
        return pa.list_(pa.field(t.value_field.name, plain(t.value_type), t.value_field.nullable))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, plain(f.type), f.nullable) for f in t])
    if pa.types.is_map(t):
        return pa.map_(plain(t.key_type), pa.field(t.item_field.name, plain(t.item_type), t.item_field.nullable))
    return t


def same_rows(table) -> None:
    expected = table.scan().to_arrow()
    got = pa.table(rap.scan(location(table)))
    assert got.column_names == expected.column_names
    # Types equal, but for pyiceberg's large_string (and large_list) where rap gives string (list).
    for e, g in zip(expected.schema, got.schema):
        assert plain(g.type) == plain(e.type), (e, g)
    key = lambda r: repr(list(r.values()))  # noqa: E731
    assert sorted(got.to_pylist(), key=key) == sorted(expected.to_pylist(), key=key)


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


def index_rows(idx, keys: list, columns: list[str]) -> dict:
    """The lookup's rows per key, as sorted lists of row dicts."""
    reader, tokens = idx.lookup(keys, columns=columns)
    assert tokens == [None] * len(keys)
    counts = reader.rows_per_key
    rows = pa.table(reader).to_pylist()
    out, at = {}, 0
    for key, n in zip(keys, counts):
        out[key] = sorted(rows[at:at + n], key=lambda r: tuple(str(v) for v in r.values()))
        at += n
    assert at == len(rows)
    return out


def assert_index_equals_scan(table, idx, keys: list) -> None:
    """Every key's lookup rows equal pyiceberg's own reading of the table, filtered by the key."""
    expected = table.scan().to_arrow()
    columns = expected.column_names
    assert idx.info()["table_version"] == table.current_snapshot().snapshot_id
    got = index_rows(idx, keys, columns)
    for key in keys:
        want = [r for r in expected.to_pylist() if r["id"] == key]
        assert got[key] == sorted(want, key=lambda r: tuple(str(v) for v in r.values())), key


def test_index_build_and_update_follow_pyiceberg_commits(tmp_path: pathlib.Path) -> None:
    """rap.build_index on a pyiceberg table records its snapshot id; after each append, delete and
    overwrite by pyiceberg, rap.update_index follows the new snapshot (files added and removed) and
    every lookup equals pyiceberg's scan (docs/iceberg.md, "The RAP index")."""
    c = catalog(tmp_path)
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "name", StringType(), required=False),
        NestedField(3, "n", IntegerType(), required=False),
    )
    t = c.create_table("db.indexed", schema=schema)

    def rows(lo: int, hi: int) -> pa.Table:
        return pa.table({"id": pa.array([i % 17 for i in range(lo, hi)], pa.int64()),
                         "name": [f"r{i}" for i in range(lo, hi)],
                         "n": pa.array([None if i % 5 == 0 else i for i in range(lo, hi)], pa.int32())})

    t.append(rows(0, 60))
    root = location(t)
    keys = list(range(-1, 19))
    built = rap.build_index(root, "id", buckets=2, progress=False)
    assert built["table_version"] == t.current_snapshot().snapshot_id
    idx = rap.Index.open(root)
    assert_index_equals_scan(t, idx, keys)
    steps = [lambda: t.append(rows(60, 100)),
             lambda: t.delete(EqualTo("id", 3)),
             lambda: t.append(rows(100, 120)),
             lambda: t.overwrite(rows(200, 230))]
    for step in steps:
        step()
        t = c.load_table("db.indexed")
        r = rap.update_index(root, progress=False)
        assert r["table_version"] == t.current_snapshot().snapshot_id
        idx.refresh()
        assert_index_equals_scan(t, idx, keys)


def test_partition_pruning_by_transforms(tmp_path: pathlib.Path) -> None:
    """A table partitioned by bucket[4](id), truncate[2](name) and month(ts): a filtered rap.scan lists
    only the files whose partition values can match (bucket by the spec's murmur3 hash) and returns
    exactly pyiceberg's filtered rows (docs/iceberg.md, "Pruning")."""
    from pyiceberg.transforms import BucketTransform, MonthTransform, TruncateTransform

    c = catalog(tmp_path)
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "name", StringType(), required=False),
        NestedField(3, "ts", TimestamptzType(), required=False),
    )
    spec = PartitionSpec(PartitionField(1, 1000, BucketTransform(4), "id_bucket"),
                         PartitionField(2, 1001, TruncateTransform(2), "name_trunc"),
                         PartitionField(3, 1002, MonthTransform(), "ts_month"))
    t = c.create_table("db.pruned", schema=schema, partition_spec=spec)
    utc = datetime.timezone.utc
    words = ["apple", "apricot", "banana", "blueberry", "cherry", None]
    for part in range(3):
        ids = range(part * 40, part * 40 + 40)
        t.append(pa.table({
            "id": pa.array(ids, pa.int64()),
            "name": [words[i % len(words)] for i in ids],
            "ts": pa.array([datetime.datetime(2023 + i % 2, 1 + i % 12, 1 + i % 28, tzinfo=utc) for i in ids],
                           pa.timestamp("us", tz="UTC")),
        }))
    root = location(t)
    full = rap.scan(root)
    full.read_all()
    total = full.stats["files"]
    assert total > 12
    expected = t.scan().to_arrow()
    for where, pyfilter in [
        ("id = 5", lambda r: r["id"] == 5),
        ("id IN (1, 77, 118)", lambda r: r["id"] in (1, 77, 118)),
        ("name = 'banana'", lambda r: r["name"] == "banana"),
        ("name < 'b'", lambda r: r["name"] is not None and r["name"] < "b"),
        ("ts >= '2024-11-01 00:00:00Z'", lambda r: r["ts"] >= datetime.datetime(2024, 11, 1, tzinfo=utc)),
        ("ts < '2023-02-01 00:00:00Z' AND id > 30", lambda r: r["ts"] < datetime.datetime(2023, 2, 1, tzinfo=utc)
         and r["id"] > 30),
        ("name IS NULL", lambda r: r["name"] is None),
    ]:
        reader = rap.scan(root, where=where)
        got = pa.table(reader)
        want = [r for r in expected.to_pylist() if pyfilter(r)]
        key = lambda r: r["id"]  # noqa: E731
        assert sorted(got.to_pylist(), key=key) == sorted(want, key=key), where
        assert reader.stats["files"] < total, where


def test_add_files_without_field_ids_by_name_mapping_and_decimal_promotion(tmp_path: pathlib.Path) -> None:
    """Parquet files written by pyarrow without field ids, added by pyiceberg's add_files (which sets
    `schema.name-mapping.default`), next to files pyiceberg wrote with ids: rap finds their columns
    (nested struct, list of struct and map fields too) through the name mapping, also after a rename
    (the mapping keeps both names) and a decimal(20,2) -> decimal(38,2) promotion (above precision
    18: pyiceberg 0.9.1's statistics refuse the FIXED_LEN_BYTE_ARRAY its own writer gives smaller
    decimals), every value equal to pyiceberg's reading; a filter prunes the added files by the
    bounds pyiceberg took from their footers."""
    import decimal

    import pyarrow.parquet as pq
    from pyiceberg.types import DecimalType, ListType, MapType, StructType

    c = catalog(tmp_path)
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "name", StringType(), required=False),
        NestedField(3, "s", StructType(NestedField(4, "a", IntegerType(), required=False),
                                       NestedField(5, "b", StringType(), required=False)), required=False),
        NestedField(6, "d", DecimalType(20, 2), required=False),
        NestedField(7, "tags", ListType(8, StructType(NestedField(9, "k", StringType(), required=False)),
                                        element_required=False), required=False),
        NestedField(10, "m", MapType(11, StringType(), 12, LongType(), value_required=False), required=False),
    )
    t = c.create_table("db.added", schema=schema)
    # Plain pyarrow types: no field ids in the files.
    s_type = pa.struct([("a", pa.int32()), ("b", pa.string())])
    tags_type = pa.list_(pa.struct([("k", pa.string())]))
    m_type = pa.map_(pa.string(), pa.int64())

    def rows(lo: int, hi: int) -> pa.Table:
        ids = list(range(lo, hi))
        return pa.table({
            "id": pa.array(ids, pa.int64()),
            "name": [None if i % 4 == 0 else f"n{i}" for i in ids],
            "s": pa.array([None if i % 5 == 0 else {"a": i * 10, "b": f"b{i}"} for i in ids], s_type),
            "d": pa.array([None if i % 6 == 0 else decimal.Decimal(i * 125) / 100 for i in ids], pa.decimal128(20, 2)),
            "tags": pa.array([[{"k": f"t{i}"}, {"k": None}] for i in ids], tags_type),
            "m": pa.array([None if i % 3 == 0 else [(f"k{i}", i), ("z", None)] for i in ids], m_type),
        })

    paths = []
    for n, (lo, hi) in enumerate([(0, 30), (30, 50)]):
        path = tmp_path / f"added{n}.parquet"
        pq.write_table(rows(lo, hi), path)
        assert all(b"field_id" not in str(f.metadata).encode() for f in pq.read_schema(path))
        paths.append(str(path))
    t.add_files(paths)
    assert "schema.name-mapping.default" in t.properties
    same_rows(t)
    t.append(rows(50, 60).cast(t.schema().as_arrow()))  # written by pyiceberg, with field ids
    same_rows(t)
    with t.update_schema() as u:
        u.rename_column("name", "label")
        u.rename_column(("s", "a"), "alpha")
        u.update_column("d", DecimalType(38, 2))
    t = c.load_table("db.added")
    same_rows(t)
    # A file added after the renames, under the new names (the mapping keeps both).
    later = rows(60, 70).rename_columns(["id", "label", "s", "d", "tags", "m"])
    later = later.set_column(2, "s", pa.array(later.column("s").to_pylist(), pa.struct([("alpha", pa.int32()),
                                                                                       ("b", pa.string())])))
    later = later.set_column(3, "d", later.column("d").cast(pa.decimal128(38, 2)))
    path = tmp_path / "added2.parquet"
    pq.write_table(later, path)
    t.add_files([str(path)])
    same_rows(t)
    root = location(t)
    reader = rap.scan(root, where="id >= 40 AND id < 45")
    got = pa.table(reader)
    assert sorted(got.column("id").to_pylist()) == [40, 41, 42, 43, 44]
    assert got.schema.field("d").type == pa.decimal128(38, 2)
    assert reader.stats["files"] == 4 and reader.stats["files_pruned_by_stats"] == 3


def test_bucket_pruning_of_decimal_and_timestamp_columns(tmp_path: pathlib.Path) -> None:
    """bucket[8] of a decimal and of a timestamptz column, written by pyiceberg (its own murmur3):
    `col = v` and `col IN (...)` filters list fewer files and return exactly pyiceberg's rows, so rap's
    hash of the literal (decimal: minimal big-endian unscaled bytes; timestamp: µs as a long) is the
    writer's (docs/iceberg.md, "Pruning by partitions"). The amounts are not negative: pyiceberg
    0.9.1 buckets with pyiceberg_core 0.4.0, whose decimal hash of negative values is not the spec's
    (it hashes all 16 bytes of -1; apache/iceberg-rust#1981), so it files them where Java would not
    and misses them in its own filtered scans; tests/table/iceberg_partition_test.cc checks rap's
    negative encodings against the spec's minimal two's complement."""
    import decimal

    from pyiceberg.transforms import BucketTransform
    from pyiceberg.types import DecimalType

    c = catalog(tmp_path)
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "amount", DecimalType(20, 2), required=False),
        NestedField(3, "ts", TimestamptzType(), required=False),
    )
    spec = PartitionSpec(PartitionField(2, 1000, BucketTransform(8), "amount_bucket"),
                         PartitionField(3, 1001, BucketTransform(8), "ts_bucket"))
    t = c.create_table("db.buckets", schema=schema, partition_spec=spec)
    utc = datetime.timezone.utc
    ids = range(64)
    t.append(pa.table({
        "id": pa.array(ids, pa.int64()),
        "amount": pa.array([decimal.Decimal(i * 137 + 5) / 100 for i in ids], pa.decimal128(20, 2)),
        "ts": pa.array([datetime.datetime(2024, 1, 1, tzinfo=utc) + datetime.timedelta(minutes=97 * i) for i in ids],
                       pa.timestamp("us", tz="UTC")),
    }))
    root = location(t)
    full = rap.scan(root)
    full.read_all()
    total = full.stats["files"]
    assert total > 8
    expected = t.scan().to_arrow().to_pylist()
    ts5 = datetime.datetime(2024, 1, 1, tzinfo=utc) + datetime.timedelta(minutes=97 * 5)
    for where, want_ids in [
        ("amount = 0.05", [0]),
        ("amount = 1.42", [1]),
        ("amount IN (46.63, 86.36, 2.00)", [34, 63]),  # 2.00 is in no row
        ("amount = 46.630", [34]),
        (f"ts = '{ts5.isoformat()}'", [5]),
        (f"ts = '{ts5.strftime('%Y-%m-%d %H:%M:%S')}Z' AND id >= 0", [5]),
    ]:
        reader = rap.scan(root, where=where)
        got = pa.table(reader).to_pylist()
        assert sorted(r["id"] for r in got) == want_ids, where
        want = sorted((r for r in expected if r["id"] in want_ids), key=lambda r: r["id"])
        assert sorted(got, key=lambda r: r["id"]) == want, where
        assert reader.stats["files"] < total, where


def test_index_at_a_snapshot_and_through_a_location_map(tmp_path: pathlib.Path) -> None:
    """rap.build_index / update_index with snapshot_id, as_of and location_map (the CLI's --snapshot,
    --as-of, --location-map): the index records the snapshot it was asked for, and its lookups equal
    pyiceberg's scan of that snapshot — also for a table moved away from where its metadata says."""
    import shutil

    c = catalog(tmp_path)
    schema = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "name", StringType(), required=False))
    t = c.create_table("db.pinned", schema=schema)

    def rows(lo: int, hi: int) -> pa.Table:
        return pa.table({"id": pa.array([i % 13 for i in range(lo, hi)], pa.int64()),
                         "name": [f"r{i}" for i in range(lo, hi)]})

    t.append(rows(0, 40))
    first = c.load_table("db.pinned").current_snapshot()
    t.append(rows(40, 90))
    t = c.load_table("db.pinned")
    second = t.current_snapshot()
    root = location(t)
    keys = list(range(-1, 14))

    # pyiceberg's reading of each snapshot (before the table moves away from its metadata's paths).
    scans = {s.snapshot_id: t.scan(snapshot_id=s.snapshot_id).to_arrow().to_pylist() for s in (first, second)}

    def check(idx, snapshot_id: int) -> None:
        assert idx.info()["table_version"] == snapshot_id
        expected = scans[snapshot_id]
        got = index_rows(idx, keys, ["id", "name"])
        for key in keys:
            want = sorted((r for r in expected if r["id"] == key), key=lambda r: tuple(str(v) for v in r.values()))
            assert got[key] == want, (snapshot_id, key)

    built = rap.build_index(root, "id", snapshot_id=first.snapshot_id, progress=False)
    assert built["table_version"] == first.snapshot_id
    idx = rap.Index.open(root)
    check(idx, first.snapshot_id)
    assert rap.update_index(root, progress=False)["table_version"] == second.snapshot_id
    idx.refresh()
    check(idx, second.snapshot_id)
    assert rap.update_index(root, snapshot_id=first.snapshot_id, progress=False)["table_version"] == first.snapshot_id
    idx.refresh()
    check(idx, first.snapshot_id)
    by_time = rap.build_index(root, "id", name="by_time", as_of=first.timestamp_ms, progress=False)
    assert by_time["table_version"] == first.snapshot_id
    check(rap.Index.open(root, name="by_time"), first.snapshot_id)

    # The table moved: its metadata still names the old folder, which rap maps to the folder opened
    # by itself; a location map reads the data files from elsewhere inside the table folder.
    moved = tmp_path / "moved"
    shutil.move(root, moved)
    shutil.move(moved / "data", moved / "data_moved")
    mapping = {t.location() + "/data": str(moved / "data_moved")}
    built = rap.build_index(str(moved), "id", name="moved", location_map=mapping, progress=False)
    assert built["table_version"] == second.snapshot_id
    check(rap.Index.open(str(moved), name="moved"), second.snapshot_id)
    assert rap.update_index(str(moved) + "/_rap_index/moved", location_map=mapping,
                            progress=False)["table_version"] == second.snapshot_id
    with pytest.raises(rap.NotFound):  # without the map: the data files are not where it says
        rap.build_index(str(moved), "id", name="unmapped", progress=False)
    # Data mapped outside the table folder: scanned, but not indexed (the index names files
    # relative to the table root; docs/iceberg.md "The RAP index").
    shutil.move(moved / "data_moved", tmp_path / "data_outside")
    outside = {t.location() + "/data": str(tmp_path / "data_outside")}
    assert pa.table(rap.scan(str(moved), location_map=outside)).num_rows == 90
    with pytest.raises(rap.NotSupported, match="lies outside the table root"):
        rap.build_index(str(moved), "id", name="outside", location_map=outside, progress=False)

    for kwargs, message in (({"snapshot_id": first.snapshot_id, "as_of": first.timestamp_ms}, "not both"),
                            ({"as_of": "yesterday"}, "as_of: "),
                            ({"location_map": ["a=b"]}, "location_map: expected a dict"),
                            ({"location_map": {"": "x"}}, "location_map: an empty OLD prefix")):
        with pytest.raises(rap.InvalidArgument, match=message):
            rap.build_index(str(moved), "id", name="bad", progress=False, **kwargs)


def test_rewrite_in_place_commits_a_replace_snapshot(tmp_path: pathlib.Path) -> None:
    """rap.rewrite(in_place=True) of a pyiceberg table (deletes, nested columns): a replace snapshot in
    the next metadata file that pyiceberg reads (StaticTable: the SQL catalog's pointer is the
    catalog's) with the same rows, from rap's files only; the new index's lookups equal that reading.
    A v1 table commits the same way in v1's manifest schemas; a table whose files are under two
    partition specs is refused, nothing committed."""
    from pyiceberg.table import StaticTable
    from pyiceberg.types import ListType, MapType

    c = catalog(tmp_path)
    schema = Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "name", StringType(), required=False),
        NestedField(3, "tags", ListType(4, StringType(), element_required=False), required=False),
        NestedField(5, "m", MapType(6, StringType(), 7, IntegerType(), value_required=False), required=False),
    )
    t = c.create_table("db.rewritten", schema=schema)
    for lo in (0, 100, 200):
        ids = [lo + (i * 37) % 100 for i in range(100)]
        t.append(pa.table({"id": pa.array(ids, pa.int64()), "name": [f"n{i}" for i in ids],
                           "tags": [[str(i), None] if i % 4 else None for i in ids],
                           "m": pa.array([[("a", i)] if i % 3 else [] for i in ids],
                                         pa.map_(pa.string(), pa.int32()))}))
    t.delete(EqualTo("name", "n7"))
    t = c.load_table("db.rewritten")
    expected = t.scan().to_arrow()
    root = location(t)
    metadata = pathlib.Path(root) / "metadata"
    before = sorted(metadata.glob("*.metadata.json"))

    res = rap.rewrite(root, key="id", in_place=True, buckets=3, index_kind="sorted")
    assert res["table_format"] == "iceberg"
    after = sorted(metadata.glob("*.metadata.json"))
    assert len(after) == len(before) + 1
    newest = after[-1]
    assert newest.name.startswith(f"{int(before[-1].name[:5]) + 1:05d}-")
    static = StaticTable.from_metadata(f"file://{newest}")
    snap = static.current_snapshot()
    assert snap.snapshot_id == res["table_version"]
    assert snap.parent_snapshot_id == t.current_snapshot().snapshot_id
    assert snap.summary.operation.value == "replace"
    assert all("-rap-" in task.file.file_path for task in static.scan().plan_files())
    # The replaced files are DELETED entries of the new snapshot (3 appends, 1 copy-on-write delete
    # rewrote one of them: 3 live data files before).
    entries = static.inspect.entries().to_pylist()
    assert sorted(e["status"] for e in entries) == [1, 1, 1, 2, 2, 2]
    assert all(e["sequence_number"] is not None for e in entries if e["status"] == 2)
    # rap's files carry their metrics: sizes, counts and bounds by field id, which pyiceberg's
    # planning uses (a key past every file's upper bound plans no file).
    # (Top-level primitive columns only: id 1 and name 2; the list and the map have none.)
    for e in (e for e in entries if e["status"] == 1):
        f = {k: dict(v) if isinstance(v, list) and v and isinstance(v[0], tuple) else v
             for k, v in e["data_file"].items()}
        assert set(f["column_sizes"]) == {1, 2} and f["value_counts"][1] == f["record_count"]
        assert f["null_value_counts"][1] == 0
        assert set(f["lower_bounds"]) == {1, 2} and set(f["upper_bounds"]) == {1, 2}
    assert len(list(static.scan(row_filter=EqualTo("id", 37)).plan_files())) == 3
    assert list(static.scan(row_filter=EqualTo("id", 1000)).plan_files()) == []
    got = static.scan().to_arrow()
    key = lambda r: r["id"]  # noqa: E731
    assert sorted(got.to_pylist(), key=key) == sorted(expected.to_pylist(), key=key)
    assert sorted(pa.table(rap.scan(root)).to_pylist(), key=key) == sorted(expected.to_pylist(), key=key)
    idx = rap.Index.open(root)
    assert idx.info()["table_version"] == res["table_version"]
    keys = [0, 7, 37, 150, 299, 300]
    got_rows = index_rows(idx, keys, expected.column_names)
    for k in keys:
        assert got_rows[k] == [r for r in expected.to_pylist() if r["id"] == k], k

    # A v1 table (v1 manifest schemas: no sequence numbers, block_size_in_bytes, *_data_files_count).
    one_row = pa.table({"id": pa.array([1], pa.int64()), "name": ["a"], "tags": pa.array([None], pa.list_(pa.string())),
                        "m": pa.array([[]], pa.map_(pa.string(), pa.int32()))})
    v1 = c.create_table("db.v1", schema=schema, properties={"format-version": "1"})
    for k in range(3):
        v1.append(pa.table({"id": pa.array([k * 10 + i for i in range(10)], pa.int64()),
                            "name": [f"v{i}" for i in range(10)],
                            "tags": pa.array([[str(i)] for i in range(10)], pa.list_(pa.string())),
                            "m": pa.array([[("k", i)] for i in range(10)], pa.map_(pa.string(), pa.int32()))}))
    v1 = c.load_table("db.v1")
    want = sorted(v1.scan().to_arrow().to_pylist(), key=key)
    res = rap.rewrite(location(v1), key="id", in_place=True, buckets=2)
    newest = sorted((pathlib.Path(location(v1)) / "metadata").glob("*.metadata.json"))[-1]
    static = StaticTable.from_metadata(f"file://{newest}")
    assert static.format_version == 1 and static.current_snapshot().snapshot_id == res["table_version"]
    assert sorted(static.scan().to_arrow().to_pylist(), key=key) == want
    assert sorted(e["status"] for e in static.inspect.entries().to_pylist()) == [1, 1, 2, 2, 2]

    # Refused: a partitioned table whose files are under two specs (partition evolution: the older
    # files' rows would need the new spec's transforms); nothing is written.
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="name"))
    part = c.create_table("db.part", schema=schema, partition_spec=spec)
    part.append(one_row)
    with part.update_spec() as u:
        u.add_identity("id")
    part = c.load_table("db.part")
    part.append(one_row)
    metadata_files = sorted((pathlib.Path(location(part)) / "metadata").glob("*.metadata.json"))
    with pytest.raises(rap.NotSupported, match=r"under partition spec 0, not the default spec 1.*partition evolution"):
        rap.rewrite(location(part), key="id", in_place=True)
    assert sorted((pathlib.Path(location(part)) / "metadata").glob("*.metadata.json")) == metadata_files
    assert not list((pathlib.Path(location(part)) / "data").rglob("*-rap-*"))


def test_index_lookups_after_a_rename_say_why_and_work_after_an_in_place_rewrite(tmp_path: pathlib.Path) -> None:
    """An index over files written before a column was renamed: lookups of the key and of columns
    every file has under their current names equal pyiceberg's reading; a lookup of the renamed
    column is NotFound saying why (index lookups read data files by name) and what to do; after
    `rap.rewrite(in_place=True)` every file has the current names and every column looks up."""
    c = catalog(tmp_path)
    t = c.create_table("db.renamed", schema=Schema(NestedField(1, "id", LongType(), required=False),
                                                    NestedField(2, "name", StringType(), required=False),
                                                    NestedField(3, "n", LongType(), required=False)))
    t.append(pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", "b", "c"],
                       "n": pa.array([10, 20, 30], pa.int64())}))
    with t.update_schema() as u:
        u.rename_column("name", "label")
    t = c.load_table("db.renamed")
    t.append(pa.table({"id": pa.array([4, 5], pa.int64()), "label": ["d", "e"], "n": pa.array([40, 50], pa.int64())}))
    t = c.load_table("db.renamed")
    root = location(t)
    want = {r["id"]: r for r in t.scan().to_arrow().to_pylist()}
    rap.build_index(root, "id", progress=False)
    idx = rap.Index.open(root)
    got = index_rows(idx, [1, 4], ["id", "n"])
    assert got[1] == [{"id": 1, "n": 10}] and got[4] == [{"id": 4, "n": 40}]
    with pytest.raises(rap.NotFound, match=r"earlier schema of the iceberg table.*rap rewrite --in-place"):
        idx.lookup([1], columns=["id", "label"])[0].read_all()
    rap.rewrite(root, key="id", in_place=True)
    idx = rap.Index.open(root)
    got = index_rows(idx, [1, 2, 4, 5], ["id", "label", "n"])
    for k in (1, 2, 4, 5):
        assert got[k] == [want[k]], k


def partitioned_rows(lo: int, hi: int) -> pa.Table:
    """Rows for the partitioned in-place rewrites: a unique id, a key k with repeats, and a column of
    each kind the transforms take (NULLs in name and n)."""
    import decimal

    utc = datetime.timezone.utc
    words = ["apple", "apricot", "banana", "blueberry", "cherry", None]
    ids = list(range(lo, hi))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "k": pa.array([(i * 7) % 23 for i in ids], pa.int64()),
        "name": [words[i % len(words)] for i in ids],
        "n": pa.array([None if i % 11 == 0 else i * 7 - 500 for i in ids], pa.int32()),
        "ts": pa.array([datetime.datetime(2023 + i % 2, 1 + i % 12, 1 + i % 3, i % 4, tzinfo=utc) for i in ids],
                       pa.timestamp("us", tz="UTC")),
        "d": pa.array([datetime.date(2020 + i % 3, 1 + i % 5, 1 + i % 2) for i in ids], pa.date32()),
        "amount": pa.array([decimal.Decimal(i % 5) / 4 - 1 for i in ids], pa.decimal128(20, 2)),
    })


def partitioned_cases():
    from pyiceberg.transforms import (BucketTransform, HourTransform, MonthTransform, TruncateTransform,
                                      YearTransform)

    utc = datetime.timezone.utc
    from pyiceberg.expressions import And, GreaterThanOrEqual, In, IsNull, LessThan

    # (spec fields as (source name, transform, partition name), format version, partition filters)
    return {
        "identity": ([("name", IdentityTransform(), "name")], 2,
                     [EqualTo("name", "banana"), IsNull("name"), LessThan("name", "b")]),
        "bucket": ([("n", BucketTransform(4), "n_bucket")], 2,
                   [EqualTo("n", 207), In("n", [-493, 200, 1200]), IsNull("n")]),
        "truncate": ([("name", TruncateTransform(3), "name_trunc"), ("n", TruncateTransform(100), "n_trunc")], 2,
                     [EqualTo("name", "apricot"), GreaterThanOrEqual("n", 1000), LessThan("n", -300)]),
        "day": ([("ts", DayTransform(), "ts_day")], 2,
                [GreaterThanOrEqual("ts", datetime.datetime(2024, 11, 2, tzinfo=utc).isoformat()),
                 LessThan("ts", datetime.datetime(2023, 3, 1, tzinfo=utc).isoformat())]),
        "year_hour_bucket_decimal": ([("d", YearTransform(), "d_year"), ("ts", HourTransform(), "ts_hour"),
                                      ("id", BucketTransform(3), "id_bucket"),
                                      ("amount", IdentityTransform(), "amount")], 2,
                                     [EqualTo("id", 17), LessThan("d", "2021-01-01"),
                                      And(EqualTo("amount", "-0.50"),
                                          GreaterThanOrEqual("ts", "2024-06-01T00:00:00+00:00"))]),
        "v1_month_identity": ([("ts", MonthTransform(), "ts_month"), ("name", IdentityTransform(), "name")], 1,
                              [EqualTo("name", "cherry"), LessThan("ts", "2023-06-01T00:00:00+00:00")]),
    }


@pytest.mark.parametrize("case", ["identity", "bucket", "truncate", "day", "year_hour_bucket_decimal",
                                  "v1_month_identity"])
def test_rewrite_in_place_of_a_partitioned_table(tmp_path: pathlib.Path, case: str) -> None:
    """rap.rewrite(in_place=True) of a pyiceberg table partitioned by identity, bucket[N], truncate[W],
    year/month/day/hour (decimal, string, int, long, date and timestamptz sources; v1 and v2; a
    copy-on-write delete): pyiceberg reads the replace snapshot with exactly the rows it read before;
    every new file holds the rows of one partition and its manifest entry carries that partition's
    tuple (checked against pyiceberg's own transforms of each row); pyiceberg's scans with partition
    filters plan fewer files and return the rows they returned before; the new index's lookups equal a
    brute-force filter (docs/iceberg.md, "rap rewrite --in-place")."""
    import pyarrow.parquet as pq
    from pyiceberg.expressions import AlwaysTrue
    from pyiceberg.table import StaticTable
    from pyiceberg.types import DateType, DecimalType

    fields, version, filters = partitioned_cases()[case]
    c = catalog(tmp_path)
    schema = Schema(
        NestedField(1, "id", LongType(), required=False), NestedField(2, "k", LongType(), required=False),
        NestedField(3, "name", StringType(), required=False), NestedField(4, "n", IntegerType(), required=False),
        NestedField(5, "ts", TimestamptzType(), required=False), NestedField(6, "d", DateType(), required=False),
        NestedField(7, "amount", DecimalType(20, 2), required=False))
    spec = PartitionSpec(*[PartitionField(schema.find_field(src).field_id, 1000 + i, tr, name)
                           for i, (src, tr, name) in enumerate(fields)])
    t = c.create_table(f"db.{case}", schema=schema, partition_spec=spec,
                       properties={"format-version": str(version)})
    for lo in (0, 120, 240):
        t.append(partitioned_rows(lo, lo + 120))
    t.delete(EqualTo("name", "blueberry"))
    t = c.load_table(f"db.{case}")
    key = lambda r: r["id"]  # noqa: E731
    before = sorted(t.scan().to_arrow().to_pylist(), key=key)
    assert len(before) == 300
    before_filtered = [sorted(t.scan(row_filter=f).to_arrow().to_pylist(), key=key) for f in filters]
    before_tuples = {tuple(task.file.partition) for task in t.scan().plan_files()}
    root = location(t)

    res = rap.rewrite(root, key="k", in_place=True, buckets=3)
    assert res["table_format"] == "iceberg" and res["rows"] == 300
    newest = sorted((pathlib.Path(root) / "metadata").glob("*.metadata.json"))[-1]
    static = StaticTable.from_metadata(f"file://{newest}")
    assert static.format_version == version
    snap = static.current_snapshot()
    assert snap.snapshot_id == res["table_version"] and snap.summary.operation.value == "replace"
    assert sorted(static.scan().to_arrow().to_pylist(), key=key) == before

    # Every new file: one partition's rows, bucketed by k and sorted by it, under the default spec, its
    # tuple that of each of its rows by pyiceberg's transforms; the partitions are the ones before.
    tasks = list(static.scan().plan_files())
    assert tasks and all("-rap-" in task.file.file_path for task in tasks)
    assert {tuple(task.file.partition) for task in tasks} == before_tuples
    spec_fields = static.spec().fields
    for task in tasks:
        assert task.file.spec_id == static.spec().spec_id
        rows = pq.read_table(task.file.file_path.removeprefix("file://")).to_pylist()
        assert len(rows) == task.file.record_count and rows
        assert [r["k"] for r in rows] == sorted(r["k"] for r in rows)
        for pos, pf in enumerate(spec_fields):
            source = schema.find_field(pf.source_id)
            values = pq.read_table(task.file.file_path.removeprefix("file://"), columns=[source.name])[0]
            want = set(pf.transform.pyarrow_transform(source.field_type)(values).to_pylist())
            assert want == {task.file.partition[pos]}, (task.file.file_path, pf)

    # Partition filters: fewer files planned (by the manifest list's summaries and the tuples), the
    # same rows as before the rewrite.
    for f, want in zip(filters, before_filtered):
        planned = list(static.scan(row_filter=f).plan_files())
        assert len(planned) < len(tasks), f
        assert sorted(static.scan(row_filter=f).to_arrow().to_pylist(), key=key) == want, f
    assert len(list(static.scan(row_filter=AlwaysTrue()).plan_files())) == len(tasks)

    # rap reads the same rows; the index the rewrite published looks up every key as a filter does.
    assert sorted(pa.table(rap.scan(root)).to_pylist(), key=key) == before
    idx = rap.Index.open(root)
    assert idx.info()["table_version"] == res["table_version"]
    keys = list(range(-1, 25))
    got = index_rows(idx, keys, list(before[0]))
    for k in keys:
        assert got[k] == sorted([r for r in before if r["k"] == k], key=lambda r: tuple(str(v) for v in r.values())), k
