"""Paimon tables written by Java Paimon (Spark with Paimon's Spark connector, a pinned jar from Maven
Central: scripts/fetch-jars.sh) read by rap.scan, every value compared with Paimon's own reading of
the same snapshot (docs/paimon.md): deletion vectors, which Java Paimon's writer makes when it
compacts — a partitioned, bucketed primary-key table of Parquet files (read without a merge, as
Paimon reads it, the vectors applied), a primary-key table of ORC files, an append table with deleted
rows — at every snapshot. Spark runs once, in a process of its own (paimon_spark_writer.py)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pyarrow as pa
import pytest

import rap

from conftest import ROOT, fetched_jar

pytest.importorskip("pyspark")

KEYS = {"pk_dv": ["id", "p"], "pk_dv_orc": ["k"], "append_dv": ["id", "s"]}


@pytest.fixture(scope="module")
def spark_tables(tmp_path_factory) -> tuple[pathlib.Path, dict]:
    jar = fetched_jar("paimon-spark")
    tmp = tmp_path_factory.mktemp("paimon_spark")
    warehouse = tmp / "warehouse"
    expected = tmp / "expected.json"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    subprocess.run([sys.executable, str(pathlib.Path(__file__).with_name("paimon_spark_writer.py")), jar,
                    str(warehouse), str(expected)], check=True, env=env, timeout=600)
    return warehouse / "db.db", json.loads(expected.read_text())


def ordered(rows: list[dict], keys: list[str]) -> list[dict]:
    return sorted(rows, key=lambda r: tuple(r[k] for k in keys))


def stats(path: pathlib.Path, *args: str) -> dict:
    cli = ROOT / "build" / "dev" / "tools" / "rap"
    for candidate in (os.environ.get("RAP_CLI"), pathlib.Path(rap.__file__).parents[2] / "tools" / "rap", cli):
        if candidate and pathlib.Path(candidate).exists():
            cli = pathlib.Path(candidate)
            break
    res = subprocess.run([str(cli), "scan", str(path), "--format", "none", "--stats", *args], capture_output=True,
                         text=True, check=True)
    out = {}
    for line in res.stderr.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].startswith("paimon_"):
            out[parts[0]] = int(parts[1])
    return out


def test_every_snapshot_reads_as_java_paimon_reads_it(spark_tables) -> None:
    db, expected = spark_tables
    for table, keys in KEYS.items():
        for snapshot, want in expected[table]["snapshots"].items():
            got = pa.table(rap.scan(str(db / table), snapshot_id=int(snapshot)))
            what = f"{table} snapshot {snapshot} ({expected[table]['commit_kinds'][snapshot]})"
            if want:
                assert got.column_names == list(want[0].keys()), what
            assert ordered(got.to_pylist(), keys) == ordered(want, keys), what
        latest = max(expected[table]["snapshots"], key=int)
        assert ordered(pa.table(rap.scan(str(db / table))).to_pylist(), keys) == \
            ordered(expected[table]["snapshots"][latest], keys), table


def test_deletion_vectors_are_applied_without_a_merge(spark_tables) -> None:
    db, expected = spark_tables
    # pk_dv_orc's last compaction rewrote its one bucket whole (no vector left): its snapshot 6 has one.
    for table, args in (("pk_dv", ()), ("pk_dv_orc", ("--snapshot", "6")), ("append_dv", ())):
        s = stats(db / table, *args)
        assert s["paimon_deletion_vectors"] > 0, (table, s)
        assert s["paimon_rows_dv_deleted"] > 0, (table, s)
        assert s["paimon_buckets_merged"] == 0, (table, s)  # Paimon reads them raw, the vectors applied
    # The files hold more rows than the table: the vectors hide the superseded and deleted ones.
    got = pa.table(rap.scan(str(db / "pk_dv")))
    assert len(got) == 34
    values = {(r["id"], r["p"]): r["v"] for r in got.to_pylist()}
    assert len(values) == len(got)  # one row per key
    assert values[(0, "a")] == "w0" and values[(3, "b")] == "u3" and values[(17, "b")] == "x17"
    assert (5, "b") not in values and (10, "a") not in values


def test_filters_on_a_table_with_deletion_vectors(spark_tables) -> None:
    db, expected = spark_tables
    latest = max(expected["append_dv"]["snapshots"], key=int)
    want = sorted(r["id"] for r in expected["append_dv"]["snapshots"][latest] if 20 <= r["id"] < 40)
    got = pa.table(rap.scan(str(db / "append_dv"), columns=["id"], where="id >= 20 AND id < 40"))
    assert sorted(got.column("id").to_pylist()) == want
    assert 24 not in want and 31 not in want  # id % 7 = 3: deleted


def test_merge_on_read_with_deletion_vectors(spark_tables, tmp_path) -> None:
    # With deletion-vectors.merge-on-read (an option of pypaimon's reader), level-0 files are read too
    # and merged with the levels above, the vectors' rows left out of the merge. The table copied with
    # the option set: its APPEND snapshot n (new level-0 files) reads as Java Paimon reads the COMPACT
    # snapshot n + 1, whose compaction merged exactly those files.
    db, expected = spark_tables
    import shutil
    copy = tmp_path / "pk_dv"
    shutil.copytree(db / "pk_dv", copy)
    for schema in (copy / "schema").iterdir():
        doc = json.loads(schema.read_text())
        doc["options"]["deletion-vectors.merge-on-read"] = "true"
        schema.write_text(json.dumps(doc))
    kinds = expected["pk_dv"]["commit_kinds"]
    checked = 0
    for snapshot, kind in kinds.items():
        n = int(snapshot)
        if kind != "APPEND" or kinds.get(str(n + 1)) != "COMPACT":
            continue
        got = pa.table(rap.scan(str(copy), snapshot_id=n)).to_pylist()
        assert ordered(got, KEYS["pk_dv"]) == ordered(expected["pk_dv"]["snapshots"][str(n + 1)], KEYS["pk_dv"]), n
        checked += 1
    assert checked >= 4
    s = stats(copy, "--snapshot", "7")
    assert s["paimon_buckets_merged"] > 0 and s["paimon_deletion_vectors"] > 0, s


def test_time_travel_by_tag(spark_tables) -> None:
    db, expected = spark_tables
    checked = 0
    for table, keys in KEYS.items():
        for tag, want in expected[table]["tags"].items():
            got = pa.table(rap.scan(str(db / table), tag=tag)).to_pylist()
            assert ordered(got, keys) == ordered(want, keys), (table, tag)
            checked += 1
    assert checked == 3


def test_index_on_a_table_with_deletion_vectors(spark_tables, tmp_path) -> None:
    # The RAP index keyed by the primary key of the Java-written table: lookups of every key give the
    # scan's row (the vectors' rows are the index's deleted rows too).
    db, expected = spark_tables
    import shutil
    copy = tmp_path / "pk_dv"
    shutil.copytree(db / "pk_dv", copy)
    rap.build_index(str(copy), "id", progress=False)
    reader, _ = rap.lookup(str(copy), list(range(-1, 50)))
    got = pa.table(reader).to_pylist()
    latest = max(expected["pk_dv"]["snapshots"], key=int)
    assert ordered(got, KEYS["pk_dv"]) == ordered(expected["pk_dv"]["snapshots"][latest], KEYS["pk_dv"])


def plain_rows(rows: list[dict]) -> list[dict]:
    """Rows as JSON text gives them (decimals and times as text; an aware time as its UTC wall time),
    sorted by id: Spark's JSON and rap's Arrow values compared on one footing."""
    import datetime

    def value(v):
        if isinstance(v, datetime.datetime):
            if v.tzinfo is not None:
                v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
            return str(v)
        return v

    out = [{k: value(v) for k, v in r.items()} for r in rows]
    return sorted(json.loads(json.dumps(out, default=str)), key=lambda r: r["id"])


def test_compact_read_by_java_paimon(spark_tables, tmp_path) -> None:
    """rap.compact of an append table written by Java Paimon (Spark, write-only: five commits of small
    files in two buckets; decimal, timestamp, array columns): Java Paimon reads the COMPACT snapshot
    with the rows it read before, from rap's files only."""
    import shutil

    db, expected = spark_tables
    warehouse = tmp_path / "warehouse"
    path = warehouse / "db.db" / "append_small"
    shutil.copytree(db / "append_small", path)
    want = expected["append_small"]["snapshots"][max(expected["append_small"]["snapshots"], key=int)]
    assert len(want) == 100
    r = rap.compact(str(path))
    assert r["files_read"] >= 10 and r["files_written"] == 2 and r["rows"] == 100
    assert plain_rows(pa.table(rap.scan(str(path))).to_pylist()) == plain_rows(want)
    jar = fetched_jar("paimon-spark")
    read = tmp_path / "read.json"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    subprocess.run([sys.executable, str(pathlib.Path(__file__).with_name("paimon_spark_reader.py")), jar,
                    str(warehouse), str(read), "append_small"], check=True, env=env, timeout=600)
    java = json.loads(read.read_text())
    assert java["commit_kind"] == "COMPACT"
    assert len(java["files"]) == 2
    assert plain_rows(java["rows"]) == plain_rows(want)


def test_compact_deletion_vector_table_read_by_java_paimon(spark_tables, tmp_path) -> None:
    """rap.compact of Spark's append table with deletion vectors (two inserts, two DELETEs): the
    files with vectors are rewritten without their deleted rows, the COMPACT snapshot lists no
    deletion-vector index file any more, and Java Paimon reads it with the rows it read before, from
    rap's file only; rap.scan agrees."""
    import shutil

    db, expected = spark_tables
    warehouse = tmp_path / "warehouse"
    path = warehouse / "db.db" / "append_dv"
    shutil.copytree(db / "append_dv", path)
    want = expected["append_dv"]["snapshots"][max(expected["append_dv"]["snapshots"], key=int)]
    latest = (path / "snapshot" / "LATEST").read_text().strip()
    assert json.loads((path / "snapshot" / f"snapshot-{latest}").read_text()).get("indexManifest")
    r = rap.compact(str(path))
    assert r["snapshot_id"] == r["base_snapshot_id"] + 1
    assert r["files_written"] == 1 and r["rows"] == len(want) and r["index_files_dropped"] >= 1
    snapshot = json.loads((path / "snapshot" / f"snapshot-{r['snapshot_id']}").read_text())
    assert "indexManifest" not in snapshot
    assert plain_rows(pa.table(rap.scan(str(path))).to_pylist()) == plain_rows(want)
    read = tmp_path / "read.json"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    subprocess.run([sys.executable, str(pathlib.Path(__file__).with_name("paimon_spark_reader.py")),
                    fetched_jar("paimon-spark"), str(warehouse), str(read), "append_dv"], check=True, env=env,
                   timeout=600)
    java = json.loads(read.read_text())
    assert java["commit_kind"] == "COMPACT"
    assert len(java["files"]) == 1
    assert plain_rows(java["rows"]) == plain_rows(want)
