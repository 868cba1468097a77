"""Writes Paimon tables with pypaimon and what pypaimon reads from them (tests/python/test_paimon.py).

Run by the Python of the Paimon virtual environment (scripts/install-paimon-venv.sh: pypaimon pins a
pyarrow older than the project's), not imported by pytest: ``python paimon_writer.py OUT``. Writes
the tables under OUT/warehouse and, for each table and snapshot checked, pypaimon's own reading as a
Parquet file under OUT/expected; OUT/cases.json lists them: [{"table", "path", "snapshot",
"expected", "keys"}] (snapshot null: the latest; keys: the columns that order the rows).

``python paimon_writer.py read WAREHOUSE TABLE EXPECTED`` writes pypaimon's reading of db.TABLE to EXPECTED
and prints its data file names (rap compact's test).

``python paimon_writer.py commit WAREHOUSE TABLE ROWS_JSON EXPECTED`` commits the rows of ROWS_JSON
({"schema": [[name, arrow type]], "rows": [...]}) to db.TABLE and writes pypaimon's reading to EXPECTED (the RAP
index's update test commits between an index build and its update).
"""

from __future__ import annotations

import datetime
import decimal
import json
import pathlib
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from pypaimon import CatalogFactory, Schema
from pypaimon.schema.data_types import AtomicType
from pypaimon.schema.schema_change import SchemaChange


def commit(table, rows, schema):
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    c = wb.new_commit()
    w.write_arrow(pa.Table.from_pylist(rows, schema=schema))
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def read(table, snapshot=None):
    if snapshot is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot)})
    rb = table.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def main(out: pathlib.Path) -> None:
    warehouse = out / "warehouse"
    expected = out / "expected"
    expected.mkdir(parents=True, exist_ok=True)
    catalog = CatalogFactory.create({"warehouse": str(warehouse)})
    catalog.create_database("db", True)
    cases = []

    def record(name, table, keys, snapshots):
        path = warehouse / "db.db" / name
        for s in snapshots:
            file = expected / f"{name}@{s if s is not None else 'latest'}.parquet"
            pq.write_table(read(table, s), file)
            cases.append({"table": name, "path": str(path), "snapshot": s, "expected": str(file), "keys": keys})

    # A partitioned, bucketed primary-key table: five commits (five level-0 sorted runs per bucket),
    # updates and deletes of the same keys across runs, a key deleted and inserted again.
    s = pa.schema([("k", pa.int64()), ("p", pa.string()), ("v", pa.string()), ("d", pa.float64()), ("op", pa.string())])
    catalog.create_table("db.pk_multi", Schema.from_pyarrow_schema(
        s, partition_keys=["p"], primary_keys=["k", "p"],
        options={"bucket": "2", "rowkind.field": "op", "file.format": "parquet"}), False)
    t = catalog.get_table("db.pk_multi")

    def part(i):
        return "a" if i % 2 else "b"

    commit(t, [{"k": i, "p": part(i), "v": f"v{i}", "d": i * 1.5, "op": "+I"} for i in range(40)], s)
    commit(t, [{"k": i, "p": part(i), "v": f"u{i}", "d": i * 2.5, "op": "+U"} for i in range(0, 40, 3)], s)
    commit(t, [{"k": i, "p": part(i), "v": None, "d": None, "op": "-D"} for i in range(0, 40, 4)], s)
    commit(t, [{"k": i, "p": part(i), "v": f"w{i}", "d": -1.0 * i, "op": "+I"} for i in range(0, 48, 8)], s)
    commit(t, [{"k": i, "p": part(i), "v": None, "d": None, "op": "-D"} for i in range(1, 40, 10)] +
           [{"k": i, "p": part(i), "v": f"x{i}", "d": 0.25 * i, "op": "+U"} for i in range(5, 40, 10)], s)
    record("pk_multi", t, ["k"], [None, 1, 2, 3, 4])
    # A tag of snapshot 3 (tag/tag-before_last), read by name.
    catalog.create_tag("db.pk_multi", "before_last", snapshot_id=3)
    file = expected / "pk_multi@tag-before_last.parquet"
    pq.write_table(read(t.copy({"scan.tag-name": "before_last"})), file)
    cases.append({"table": "pk_multi", "path": str(warehouse / "db.db" / "pk_multi"), "snapshot": None,
                  "tag": "before_last", "expected": str(file), "keys": ["k"]})

    # first-row: the first version of a key stays, later ones are ignored.
    s = pa.schema([("id", pa.int32()), ("name", pa.string()), ("n", pa.int64())])
    catalog.create_table("db.pk_first_row", Schema.from_pyarrow_schema(
        s, primary_keys=["id"], options={"bucket": "1", "merge-engine": "first-row", "file.format": "parquet"}), False)
    t = catalog.get_table("db.pk_first_row")
    commit(t, [{"id": i, "name": f"first{i}", "n": i} for i in range(0, 30, 2)], s)
    commit(t, [{"id": i, "name": f"second{i}", "n": 100 + i} for i in range(0, 30)], s)
    commit(t, [{"id": i, "name": f"third{i}", "n": 200 + i} for i in range(10, 40)], s)
    record("pk_first_row", t, ["id"], [None, 2])

    # A composite primary key of many types (three key columns), three buckets, updates across runs.
    s = pa.schema([("s", pa.string()), ("i", pa.int32()), ("b", pa.int8()),
                   ("flag", pa.bool_()), ("small", pa.int16()), ("big", pa.int64()), ("f", pa.float32()),
                   ("dec", pa.decimal128(10, 2)), ("day", pa.date32()), ("ts", pa.timestamp("us")),
                   ("bin", pa.binary())])
    catalog.create_table("db.pk_types", Schema.from_pyarrow_schema(
        s, primary_keys=["s", "i", "b"], options={"bucket": "3", "file.format": "parquet"}), False)
    t = catalog.get_table("db.pk_types")

    def typed(i, gen):
        return {"s": f"key{i % 7}", "i": i, "b": i % 3, "flag": (i + gen) % 2 == 0, "small": i * gen,
                "big": (1 << 40) + i * gen, "f": float(i) / 4 + gen, "dec": decimal.Decimal(f"{i}.{gen:02d}"),
                "day": datetime.date(2024, 1, 1) + datetime.timedelta(days=i + gen),
                "ts": datetime.datetime(2024, 5, 6, 7, 8, 9) + datetime.timedelta(microseconds=i * 1001 + gen),
                "bin": bytes([i % 256, gen]) if i % 5 else None}

    commit(t, [typed(i, 0) for i in range(60)], s)
    commit(t, [typed(i, 1) for i in range(0, 60, 2)], s)
    commit(t, [typed(i, 2) for i in range(0, 60, 5)], s)
    record("pk_types", t, ["s", "i", "b"], [None])

    # Append tables: partitioned without buckets, and bucketed by a key.
    s = pa.schema([("id", pa.int64()), ("region", pa.string()), ("amount", pa.float64()), ("note", pa.string())])
    catalog.create_table("db.append_parts", Schema.from_pyarrow_schema(
        s, partition_keys=["region"], options={"file.format": "parquet"}), False)
    t = catalog.get_table("db.append_parts")
    for c in range(3):
        commit(t, [{"id": i, "region": ["eu", "us", "ap"][i % 3], "amount": i * 0.5 + c,
                    "note": None if i % 4 == 0 else f"c{c}"} for i in range(c * 10, c * 10 + 25)], s)
    record("append_parts", t, ["id", "amount"], [None, 1])

    catalog.create_table("db.append_bucketed", Schema.from_pyarrow_schema(
        s, options={"bucket": "4", "bucket-key": "id", "file.format": "parquet"}), False)
    t = catalog.get_table("db.append_bucketed")
    commit(t, [{"id": i, "region": "x", "amount": float(i), "note": "one"} for i in range(50)], s)
    commit(t, [{"id": i, "region": "y", "amount": float(-i), "note": "two"} for i in range(25, 75)], s)
    record("append_bucketed", t, ["id", "amount"], [None, 1])

    # ORC data files (append and primary key).
    catalog.create_table("db.append_orc", Schema.from_pyarrow_schema(
        s, options={"bucket": "2", "bucket-key": "id", "file.format": "orc"}), False)
    t = catalog.get_table("db.append_orc")
    commit(t, [{"id": i, "region": "o", "amount": i / 8, "note": None if i % 3 else "n"} for i in range(30)], s)
    commit(t, [{"id": i, "region": "q", "amount": i / 16, "note": "m"} for i in range(10, 20)], s)
    record("append_orc", t, ["id", "amount"], [None])

    # ORC primary-key table merged on read: partitioned, two buckets, a two-column key (string and
    # int), four commits with updates and deletes of the same keys across runs.
    s = pa.schema([("id", pa.int64()), ("name", pa.string()), ("p", pa.string()), ("v", pa.string()),
                   ("d", pa.float64()), ("day", pa.date32()), ("op", pa.string())])
    catalog.create_table("db.pk_orc", Schema.from_pyarrow_schema(
        s, partition_keys=["p"], primary_keys=["name", "id", "p"],
        options={"bucket": "2", "rowkind.field": "op", "file.format": "orc"}), False)
    t = catalog.get_table("db.pk_orc")

    def orc_row(i, v, op):
        return {"id": i, "name": f"n{i % 5}", "p": "a" if i % 3 else "b", "v": v,
                "d": None if v is None else i / 4, "day": datetime.date(2025, 3, 1) + datetime.timedelta(days=i),
                "op": op}

    commit(t, [orc_row(i, f"a{i}", "+I") for i in range(40)], s)
    commit(t, [orc_row(i, f"b{i}", "+U") for i in range(0, 40, 3)], s)
    commit(t, [orc_row(i, None, "-D") for i in range(0, 40, 4)], s)
    commit(t, [orc_row(i, f"c{i}", "+I") for i in range(0, 48, 8)] + [orc_row(i, None, "-D") for i in (1, 13)], s)
    record("pk_orc", t, ["name", "id"], [None, 1, 2, 3])

    # Schema evolution (columns matched by field id through each file's schema): a column renamed,
    # one dropped, one added, and one dropped and added again under its old name (a new field id:
    # NULL in the older files), with commits under each schema. A primary-key table of Parquet files
    # merged across the schemas, and an append table of ORC files.
    for name, pk, fmt in (("evolve_pk", ["id"], "parquet"), ("evolve_append_orc", [], "orc")):
        s0 = pa.schema([("id", pa.int64()), ("a", pa.string()), ("b", pa.int32()), ("c", pa.float64())])
        catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(
            s0, primary_keys=pk, options={"bucket": "2", "file.format": fmt} if pk else
            {"bucket": "2", "bucket-key": "id", "file.format": fmt}), False)
        t = catalog.get_table(f"db.{name}")
        commit(t, [{"id": i, "a": f"a{i}", "b": i, "c": i / 2} for i in range(20)], s0)
        catalog.alter_table(f"db.{name}", [SchemaChange.rename_column("a", "a2"),
                                           SchemaChange.add_column("e", AtomicType("STRING"))])
        t = catalog.get_table(f"db.{name}")
        s1 = pa.schema([("id", pa.int64()), ("a2", pa.string()), ("b", pa.int32()), ("c", pa.float64()),
                        ("e", pa.string())])
        commit(t, [{"id": i, "a2": f"r{i}", "b": -i, "c": i * 3.0, "e": f"e{i}"} for i in range(10, 30, 2)], s1)
        catalog.alter_table(f"db.{name}", [SchemaChange.drop_column("b"), SchemaChange.drop_column("c")])
        catalog.alter_table(f"db.{name}", [SchemaChange.add_column("c", AtomicType("STRING"))])
        t = catalog.get_table(f"db.{name}")
        s2 = pa.schema([("id", pa.int64()), ("a2", pa.string()), ("e", pa.string()), ("c", pa.string())])
        commit(t, [{"id": i, "a2": f"z{i}", "e": None, "c": f"c{i}"} for i in range(25, 35)], s2)
        record(name, t, ["id", "a2"], [None, 1, 2])

    # Deletion vectors written by pypaimon: a data-evolution append table (row tracking) whose deletes
    # by predicate and by row id are deletion-vector index files, at every snapshot; primary-key
    # tables with deletion vectors (pypaimon does not compact, so their files stay in level 0: a batch
    # read skips level 0 and reads nothing, unless deletion-vectors.merge-on-read merges them).
    s = pa.schema([("id", pa.int64()), ("v", pa.string()), ("x", pa.float64())])
    catalog.create_table("db.dv_append", Schema.from_pyarrow_schema(s, options={
        "data-evolution.enabled": "true", "row-tracking.enabled": "true", "deletion-vectors.enabled": "true",
        "file.format": "parquet"}), False)
    t = catalog.get_table("db.dv_append")
    commit(t, [{"id": i, "v": f"a{i}", "x": i / 3} for i in range(40)], s)
    commit(t, [{"id": i, "v": f"b{i}", "x": None} for i in range(40, 70)], s)
    t = catalog.get_table("db.dv_append")

    def update(messages):
        c = t.new_batch_write_builder().new_commit()
        c.commit(messages)
        c.close()

    pb = t.new_read_builder().new_predicate_builder()
    update(t.new_batch_write_builder().new_update().delete_by_predicate(pb.less_than("id", 6)))
    update(t.new_batch_write_builder().new_update().delete_by_row_id([11, 45, 46, 69]))
    commit(t, [{"id": i, "v": f"c{i}", "x": -i} for i in range(70, 80)], s)
    update(t.new_batch_write_builder().new_update().delete_by_predicate(pb.equal("v", "c75")))
    record("dv_append", t, ["id"], [None, 1, 2, 3, 4, 5])

    s = pa.schema([("id", pa.int64()), ("v", pa.string())])
    for name, extra in (("pk_dv_level0", {}), ("pk_dv_merge_on_read", {"deletion-vectors.merge-on-read": "true"})):
        catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(s, primary_keys=["id"], options={
            "bucket": "2", "deletion-vectors.enabled": "true", "file.format": "parquet", **extra}), False)
        t = catalog.get_table(f"db.{name}")
        commit(t, [{"id": i, "v": f"a{i}"} for i in range(20)], s)
        commit(t, [{"id": i, "v": f"b{i}"} for i in range(10, 30)], s)
        record(name, t, ["id"], [None, 1])

    # The RAP index on a primary-key table (test_paimon.py: lookups against the merged scan, then
    # updates after more commits): a partitioned table of two buckets, updates and deletes across runs.
    s = pa.schema([("id", pa.int64()), ("p", pa.string()), ("v", pa.string()), ("op", pa.string())])
    catalog.create_table("db.pk_index", Schema.from_pyarrow_schema(
        s, partition_keys=["p"], primary_keys=["id", "p"],
        options={"bucket": "2", "rowkind.field": "op", "file.format": "parquet"}), False)
    t = catalog.get_table("db.pk_index")
    commit(t, [{"id": i, "p": "a" if i % 3 else "b", "v": f"v{i}", "op": "+I"} for i in range(60)], s)
    commit(t, [{"id": i, "p": "a" if i % 3 else "b", "v": f"u{i}", "op": "+U"} for i in range(0, 60, 4)] +
           [{"id": i, "p": "a" if i % 3 else "b", "v": None, "op": "-D"} for i in range(1, 60, 9)], s)
    record("pk_index", t, ["id"], [None])

    # A column whose type changed (INT to BIGINT): rap refuses it (it does not convert types).
    s0 = pa.schema([("id", pa.int64()), ("b", pa.int32())])
    catalog.create_table("db.evolve_type", Schema.from_pyarrow_schema(s0, options={"file.format": "parquet"}), False)
    t = catalog.get_table("db.evolve_type")
    commit(t, [{"id": i, "b": i} for i in range(5)], s0)
    catalog.alter_table("db.evolve_type", [SchemaChange.update_column_type("b", AtomicType("BIGINT"))])
    cases.append({"table": "evolve_type", "path": str(warehouse / "db.db" / "evolve_type"), "snapshot": None,
                  "expected": None, "keys": ["id"]})

    # Append tables of many small files for rap compact (test_compact_*): bucketed by a key (six
    # commits), and partitioned without buckets (bucket -1, four commits over three partitions, one
    # of them NULL), a renamed column between commits (files of two schemas), nested and typed columns.
    s = pa.schema([("id", pa.int64()), ("name", pa.string()), ("amount", pa.float64()),
                   ("tags", pa.list_(pa.string())), ("day", pa.date32())])

    def small(lo, hi):
        return [{"id": i, "name": f"n{i}" if i % 5 else None, "amount": i * 0.5, "tags": [str(i), "t"] if i % 3 else [],
                 "day": datetime.date(2026, 1, 1 + i % 28)} for i in range(lo, hi)]

    catalog.create_table("db.compact_bucketed", Schema.from_pyarrow_schema(
        s, options={"bucket": "2", "bucket-key": "id", "file.format": "parquet"}), False)
    t = catalog.get_table("db.compact_bucketed")
    for k in range(6):
        commit(t, small(k * 25, k * 25 + 25), s)
    record("compact_bucketed", t, ["id"], [None])
    sp = pa.schema([("id", pa.int64()), ("p", pa.string()), ("v", pa.string())])
    catalog.create_table("db.compact_parts", Schema.from_pyarrow_schema(
        sp, partition_keys=["p"], options={"file.format": "parquet"}), False)
    t = catalog.get_table("db.compact_parts")
    for k in range(4):
        commit(t, [{"id": i, "p": [None, "a", "b"][i % 3], "v": f"v{i}"} for i in range(k * 10, k * 10 + 10)], sp)
    catalog.alter_table("db.compact_parts", [SchemaChange.rename_column("v", "w")])
    t = catalog.get_table("db.compact_parts")
    sw = pa.schema([("id", pa.int64()), ("p", pa.string()), ("w", pa.string())])
    commit(t, [{"id": i, "p": [None, "a", "b"][i % 3], "w": f"w{i}"} for i in range(40, 50)], sw)
    record("compact_parts", t, ["id"], [None])
    # Two files of 120,000 rows each (about 1.6 MB: ranges cut at 1 MiB) in one bucket, for the
    # seed's three-batch rule in compaction (tests/table/paimon_compact_test.cc).
    sl = pa.schema([("id", pa.int64()), ("text", pa.string())])
    catalog.create_table("db.compact_large", Schema.from_pyarrow_schema(
        sl, options={"bucket": "1", "bucket-key": "id", "file.format": "parquet", "file.compression": "none"}), False)
    t = catalog.get_table("db.compact_large")
    for k in range(2):
        commit(t, [{"id": i, "text": f"row {i:07d} " + "x" * (i % 13)} for i in range(k * 120000, k * 120000 + 120000)],
               sl)

    (out / "cases.json").write_text(json.dumps(cases, indent=1))


def read_table(warehouse: str, name: str, expected: str) -> None:
    """Writes pypaimon's reading of db.NAME's latest snapshot to EXPECTED (Parquet) and prints the
    snapshot's data file names and commit kind as JSON (rap compact's test)."""
    catalog = CatalogFactory.create({"warehouse": warehouse})
    table = catalog.get_table(f"db.{name}")
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    pq.write_table(rb.new_read().to_arrow(splits), expected)
    files = sorted(f.file_name for split in splits for f in split.files)
    print(json.dumps({"files": files}))


def commit_rows(warehouse: str, name: str, rows_json: str, expected: str) -> None:
    """Commits {"schema": [[name, arrow type name], ...], "rows": [...]} to db.NAME; writes pypaimon's
    reading of the new snapshot to EXPECTED (Parquet)."""
    doc = json.loads(pathlib.Path(rows_json).read_text())
    schema = pa.schema([(n, pa.type_for_alias(t)) for n, t in doc["schema"]])
    catalog = CatalogFactory.create({"warehouse": warehouse})
    commit(catalog.get_table(f"db.{name}"), doc["rows"], schema)
    pq.write_table(read(catalog.get_table(f"db.{name}")), expected)


if __name__ == "__main__":
    if sys.argv[1] == "commit":
        commit_rows(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif sys.argv[1] == "read":
        read_table(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        main(pathlib.Path(sys.argv[1]))
