"""rap on Apache Spark (rap.spark, docs/spark.md) in local mode, one SparkSession for the module.

- build_index on Spark equals a single-process build (the same lookups, the same file table) and a
  brute-force filter; rap's update / compact / vacuum / inspect work on it;
- a task attempt that fails after writing its fragments leaves nothing a manifest references, and
  vacuum reclaims its orphans;
- lookup_join equals a join computed with pyarrow (inner and left, NULL and absent keys);
- a Delta table written by delta-spark (partitioned, decimals, timestamps, nested, a DELETE with
  deletion vectors) reads the same through rap.scan as through Spark, and its index answers as
  Spark's WHERE key = ...;
- rewrite on Spark equals a single-process rap.rewrite in every layout (rows per bucket, lookups,
  delta-spark aggregates), and a failed first task attempt leaves nothing referenced;
- delta-spark tables with column mapping (name, id) and checkpoints read by rap.scan equal Spark.

The jars delta-spark needs come from scripts/fetch-jars.sh (cached in $RAP_JARS_DIR, default
build/jars); pyspark, delta-spark and pandas from requirements-test.txt; Java 17 from the machine.
"""

from __future__ import annotations

import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import rap
import rap.spark

from conftest import ROOT, write_keyed_table, fetched_jars


def delta_jars() -> list[str]:
    return [p for p in fetched_jars() if "/delta-" in p]


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # The workers run this interpreter (the venv with pyarrow and rap on PYTHONPATH, inherited).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    # SparkContext installs a SIGINT handler that cancels its jobs and fails once the context is
    # stopped; the modules after this one (test_threads.py's Ctrl-C tests) need Python's own back.
    sigint = signal.getsignal(signal.SIGINT)
    session = (
        SparkSession.builder.master("local[2,2]")  # 2 threads; a failed task is retried once
        .appName("rap-test-spark")
        .config("spark.jars", ",".join(delta_jars()))
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.databricks.delta.snapshotPartitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.databricks.delta.properties.defaults.enableDeletionVectors", "true")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "1g")
        # Small data: interpreted plans start faster than generated code, and 2-way parallelism suffices.
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.sources.parallelPartitionDiscovery.parallelism", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    signal.signal(signal.SIGINT, sigint)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A folder of 5 Parquet files with its default index (single-process build, key k)."""
    root = tmp_path_factory.mktemp("spark") / "table"
    t = write_keyed_table(root, files=5, rows_per_file=3000, seed=11)
    rap.build_index(str(root), "k", buckets=2, progress=False)
    return root, t


def rows_per_key(reader: rap.RecordBatchReader) -> list[pa.Table]:
    t = pa.table(reader)
    out, at = [], 0
    for n in reader.rows_per_key:
        out.append(t.slice(at, n))
        at += n
    assert at == t.num_rows
    return out


def assert_same_lookups(url_a: str, url_b: str, table: pa.Table, keys: list[int], columns: list[str]) -> None:
    a = rows_per_key(rap.Index.open(url_a).lookup(keys, columns=columns)[0])
    b = rows_per_key(rap.Index.open(url_b).lookup(keys, columns=columns)[0])
    assert len(a) == len(keys) == len(b)
    assert sum(len(r) for r in a) > 0
    for key, ra, rb in zip(keys, a, b):
        assert ra.to_pylist() == rb.to_pylist(), key
        want = table.filter(pc.equal(table["k"], key)).select(["k"] + columns)
        assert ra.select(["k"] + columns).to_pylist() == want.to_pylist(), key


def test_build_index_equals_single_process(spark, tmp_path) -> None:
    root = tmp_path / "table"
    t = write_keyed_table(root, files=5, rows_per_file=3000, seed=11)
    single = str(tmp_path / "single")
    rap.build_index(str(root), "k", index=single, buckets=4, cover=["v", "name"], progress=False)
    r = rap.spark.build_index(spark, str(root), "k", buckets=4, cover=["v", "name"], parts=3)
    assert r["version"] == 1 and r["files"] == 5 and r["parts"] == 3
    assert r["key_rows"] == t.num_rows
    dist = str(root / "_rap_index" / "default")
    m_single, m_dist = rap.inspect_index(single), rap.inspect_index(dist)
    strip = lambda files: [{k: f[k] for k in ("ordinal", "path", "size", "etag", "rows", "removed")} for f in files]
    assert strip(m_dist["files"]) == strip(m_single["files"])
    assert m_dist["key"] == m_single["key"] and m_dist["cover"] == m_single["cover"]
    assert m_dist["table"]["root"] == "../.."
    assert sum(f["entries"] for f in m_dist["fragments"]) == sum(f["entries"] for f in m_single["fragments"])
    # One fragment per (part, bucket with entries): more than the single build's one per bucket.
    assert len(m_dist["fragments"]) > len(m_single["fragments"])
    rnd = random.Random(5)
    keys = [rnd.randrange(-5, 3050) for _ in range(60)]
    assert_same_lookups(dist, single, t, keys, ["row", "v", "name"])
    assert rap.Index.open(str(root)).info()["manifest_version"] == 1

    # rap's maintenance works on it: update indexes a new file, compact merges the parts' fragments.
    extra = write_keyed_table(tmp_path / "extra", files=1, rows_per_file=500, seed=99)
    os.replace(tmp_path / "extra" / "part-0.parquet", root / "part-9.parquet")
    u = rap.update_index(dist, progress=False)
    assert u["changed"] and u["added_files"] == 1
    t2 = pa.concat_tables([t, extra])
    c = rap.compact_index(dist)
    assert rap.inspect_index(dist)["version"] == 3
    assert len(rap.inspect_index(dist)["fragments"]) == 4
    rap.build_index(str(root), "k", index=single, buckets=4, cover=["v", "name"], progress=False)
    assert_same_lookups(dist, single, t2, keys, ["row", "v", "name"])
    v = rap.vacuum_index(dist, retain="0s")
    assert v["deleted"], c  # the parts' fragments, merged by compact
    assert_same_lookups(dist, single, t2, keys, ["row", "v", "name"])


def test_failed_first_attempt_leaves_nothing_referenced(spark, tmp_path) -> None:
    root = tmp_path / "table"
    t = write_keyed_table(root, files=4, rows_per_file=2000, seed=3)

    def fail_first_attempt(part: int, attempt: int, part_json: str) -> None:
        if part == 0 and attempt == 0:
            raise RuntimeError("injected failure of part 0's first attempt (after its fragments were written)")

    r = rap.spark.build_index(spark, str(root), "k", buckets=2, parts=2, _task_hook=fail_first_attempt)
    assert r["version"] == 1
    idx = root / "_rap_index" / "default"
    m = rap.inspect_index(str(idx))
    referenced = {f["path"] for f in m["fragments"]}
    on_disk = {f"fragments/{p.name}" for p in (idx / "fragments").iterdir()}
    orphans = on_disk - referenced
    # The failed attempt wrote part 0's fragments under its own names; the retry wrote others.
    assert orphans and all("_p00000_" in o for o in orphans)
    assert any("_p00000_" in p for p in referenced) and any("_p00001_" in p for p in referenced)
    assert referenced <= on_disk
    attempts = {p.split("_t")[1].split("-")[0] for p in referenced if "_p00000_" in p}
    failed = {p.split("_t")[1].split("-")[0] for p in orphans}
    assert len(attempts) == 1 and not (attempts & failed)
    single = str(tmp_path / "single")
    rap.build_index(str(root), "k", index=single, buckets=2, progress=False)
    keys = list(range(0, 3000, 37))
    assert_same_lookups(str(idx), single, t, keys, ["row", "name"])
    v = rap.vacuum_index(str(idx), retain="0s")
    assert sorted(pathlib.Path(p).name for p in v["deleted"]) == sorted(pathlib.Path(o).name for o in orphans)
    assert_same_lookups(str(idx), single, t, keys, ["row", "name"])


def expected_join(keys: list, table: pa.Table, columns: list[str], how: str) -> list[tuple]:
    out = []
    for i, k in enumerate(keys):
        match = [] if k is None else table.filter(pc.equal(table["k"], k)).select(columns).to_pylist()
        if not match and how == "left":
            match = [{c: None for c in columns}]
        out += [(i, k, *[m[c] for c in columns]) for m in match]
    return sorted(out, key=repr)


@pytest.mark.parametrize("how", ["inner", "left"])
def test_lookup_join_equals_a_join(spark, table, how) -> None:
    root, t = table
    rnd = random.Random(8)
    keys = [rnd.randrange(-20, 3050) for _ in range(400)] + [None, None, 17, 17]
    df = spark.createDataFrame([(i, k) for i, k in enumerate(keys)], "i long, k long").repartition(2)
    columns = ["row", "v", "name"]
    # Small Arrow batches: several lookups per task.
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "64")
    joined = rap.spark.lookup_join(df, str(root), "k", columns, how=how)
    assert joined.columns == ["i", "k"] + columns
    got = sorted((tuple(r) for r in joined.collect()), key=repr)
    assert got == expected_join(keys, t, columns, how)
    assert len(got) > len(keys) // 2


def test_lookup_join_rejects_bad_arguments(spark, table) -> None:
    root, _ = table
    df = spark.createDataFrame([(1, 2)], "k long, row long")
    with pytest.raises(rap.InvalidArgument, match="named like columns"):
        rap.spark.lookup_join(df, str(root), "k", ["row"])
    with pytest.raises(rap.InvalidArgument, match="not a column"):
        rap.spark.lookup_join(df, str(root), "key", ["v"])
    with pytest.raises(rap.InvalidArgument, match="how"):
        rap.spark.lookup_join(df, str(root), "k", ["v"], how="outer")


# (name, Spark SQL type, value from `id`); NULL in every 13th row except for id, part, i8, i16.
DELTA_COLUMNS = [
    ("id", "BIGINT", "id"),
    ("part", "STRING", "concat('p', id % 3)"),
    ("d1", "DECIMAL(5,2)", "id / 7"),
    ("d2", "DECIMAL(18,6)", "id * 1234.567891"),
    ("d3", "DECIMAL(38,10)", "id * -98765432.1234567891"),
    ("ts", "TIMESTAMP", "timestamp_micros(1700000000000000 + id * 3600000123)"),
    ("tsntz", "TIMESTAMP_NTZ", "timestamp_micros(1600000000000000 + id * 77)"),
    ("dt", "DATE", "date_add(DATE '2024-01-01', CAST(id AS INT))"),
    ("s", "STRUCT<a: INT, b: STRING>", "named_struct('a', CAST(id AS INT), 'b', IF(id % 4 = 0, NULL, CAST(id AS STRING)))"),
    ("arr", "ARRAY<INT>", "IF(id % 5 = 0, array(), array(CAST(id AS INT), NULL, CAST(id + 1 AS INT)))"),
    ("m", "MAP<STRING, BIGINT>", "map('x', id, 'y', IF(id % 2 = 0, NULL, -id))"),
    ("f", "DOUBLE", "id * 0.5"),
    ("flag", "BOOLEAN", "id % 2 = 0"),
    ("bin", "BINARY", "unhex(hex(id * 31))"),
    ("i8", "TINYINT", "id % 100"),
    ("i16", "SMALLINT", "id * 3"),
    ("fl", "FLOAT", "id / 3"),
]


def delta_rows_sql(lo: int, hi: int) -> str:
    cols = []
    for name, typ, expr in DELTA_COLUMNS:
        if name not in ("id", "part", "i8", "i16"):
            expr = f"IF(id % 13 = 5, NULL, {expr})"
        cols.append(f"CAST({expr} AS {typ}) AS {name}")
    return f"SELECT {', '.join(cols)} FROM range({lo}, {hi}) DISTRIBUTE BY id % 2"


@pytest.fixture(scope="module")
def delta_table(spark, tmp_path_factory) -> str:
    """Written by delta-spark in one commit (partitioned by `part`, deletion vectors on), then a DELETE."""
    path = str(tmp_path_factory.mktemp("delta") / "events")
    spark.sql(delta_rows_sql(0, 700)).write.format("delta").partitionBy("part").save(path)
    spark.sql(f"DELETE FROM delta.`{path}` WHERE id % 10 = 3")
    log = "".join(p.read_text() for p in sorted(pathlib.Path(path, "_delta_log").glob("*.json")))
    assert '"deletionVector":{' in log  # the DELETE wrote deletion vectors (not rewritten files)
    return path


def spark_arrow(df) -> pa.Table:
    """Spark's own rows as Arrow (timestamps in the session's time zone, UTC)."""
    return pa.Table.from_batches(df._collect_as_arrow())


def test_rap_scan_equals_spark_on_a_delta_spark_table(spark, delta_table) -> None:
    want = spark_arrow(spark.read.format("delta").load(delta_table).orderBy("id"))
    got = pa.table(rap.scan(delta_table))
    got = got.take(pc.sort_indices(got["id"])).select(want.column_names)
    assert got.num_rows == want.num_rows == 700 - 70
    for name in want.column_names:
        g, w = got[name], want[name]
        assert g.type == w.type, (name, g.type, w.type)
        assert g.to_pylist() == w.to_pylist(), name


def test_index_on_a_delta_spark_table_equals_spark_where(spark, delta_table) -> None:
    r = rap.spark.build_index(spark, delta_table, "id", buckets=3, cover=["d2", "ts"], parts=2)
    assert r["files"] >= 3
    assert r["key_rows"] == 700  # rows hidden by deletion vectors are indexed and filtered at lookup
    keys = list(range(0, 720, 7)) + [3, 13, 703]
    reader, _ = rap.Index.open(delta_table).lookup(keys, columns=["d2", "ts", "s", "f"])
    got = pa.table(reader)
    got = got.take(pc.sort_indices(got["id"]))
    key_list = ",".join(map(str, keys))
    want = spark_arrow(spark.sql(f"SELECT id, d2, ts, s, f FROM delta.`{delta_table}` WHERE id IN ({key_list}) ORDER BY id"))
    assert got.column_names == want.column_names
    for name in ("id", "d2", "ts", "s", "f"):
        assert got[name].type == want[name].type, name
        assert got[name].to_pylist() == want[name].to_pylist(), name
    # Spark writes TIMESTAMP as INT96 (its default), which a Parquet reader alone decodes as
    # timestamp[ns]; the lookup returns the Delta schema's timestamp[us, UTC], as rap.scan does (the
    # build records the table's schema in the index's schema files) — also when not covered.
    assert got["ts"].type == pa.timestamp("us", tz="UTC")
    uncovered = pa.table(rap.Index.open(delta_table).lookup(keys, columns=["ts", "tsntz", "dt"])[0])
    assert uncovered["ts"].type == pa.timestamp("us", tz="UTC") and uncovered["tsntz"].type == pa.timestamp("us")
    assert sorted(uncovered["ts"].to_pylist(), key=repr) == sorted(want["ts"].to_pylist(), key=repr)


def test_update_index_on_spark_equals_rap_index_update(spark, delta_table, tmp_path) -> None:
    """After delta-spark appends to the table and deletes from it (deletion vectors, and files of a
    whole partition removed), rap.spark.update_index publishes what a single-process `rap index
    update` does (file table, counts) and its lookups equal the single-process index's and a brute
    force filter; a task attempt that fails after writing its fragments leaves nothing referenced."""
    path = str(tmp_path / "events")
    shutil.copytree(delta_table, path, ignore=shutil.ignore_patterns("_rap_index"))
    single = str(tmp_path / "single")
    rap.build_index(path, "id", index=single, buckets=2, cover=["d2"], progress=False)
    rap.build_index(path, "id", buckets=2, cover=["d2"], progress=False)
    idx = pathlib.Path(path, "_rap_index", "default")
    assert rap.spark.update_index(spark, path)["changed"] is False  # nothing new: no version, no tasks
    spark.sql(delta_rows_sql(700, 760)).write.format("delta").mode("append").save(path)
    spark.sql(f"DELETE FROM delta.`{path}` WHERE part = 'p2' OR id % 10 = 7")

    def fail_first_attempt(part: int, attempt: int, part_json: str) -> None:
        if part == 0 and attempt == 0:
            raise RuntimeError("injected failure of part 0's first attempt (after its fragments were written)")

    r = rap.spark.update_index(spark, path, parts=2, _task_hook=fail_first_attempt)
    s = rap.update_index(single)
    assert r["changed"] and s["changed"] and r["version"] == s["version"] == 2
    for k in ("table_version", "added_files", "removed_files", "deletion_vectors_changed", "key_rows"):
        assert r[k] == s[k], k
    assert r["added_files"] >= 2 and r["removed_files"] >= 1 and r["deletion_vectors_changed"] >= 1
    m_dist, m_single = rap.inspect_index(str(idx)), rap.inspect_index(single)
    strip = lambda files: [{k: f.get(k) for k in ("ordinal", "path", "size", "rows", "removed", "deletion_vector")}
                           for f in files]
    assert strip(m_dist["files"]) == strip(m_single["files"])
    referenced = {f["path"] for f in m_dist["fragments"]}
    on_disk = {f"fragments/{p.name}" for p in (idx / "fragments").iterdir()}
    orphans = on_disk - referenced
    assert orphans and all("_p00000_" in o for o in orphans) and referenced <= on_disk
    keys = sorted(set(range(0, 770, 3)) | {7, 701, 757})
    scan = pa.table(rap.scan(path))
    for url in (str(idx), single):
        got = pa.table(rap.Index.open(url).lookup(keys, columns=["d2", "f"])[0])
        want = scan.filter(pc.is_in(scan["id"], pa.array(keys, pa.int64()))).select(["id", "d2", "f"])
        assert sorted(got.to_pylist(), key=repr) == sorted(want.to_pylist(), key=repr), url
        assert got.num_rows > 100


def test_plan_part_commit_update_without_spark(tmp_path) -> None:
    """The binding's steps of a distributed update, called directly: every added file exactly once,
    a plan that changes nothing publishes nothing, and a second commit of a plan loses (Changed)."""
    root = tmp_path / "table"
    write_keyed_table(root, files=3, rows_per_file=1000, seed=2)
    rap.build_index(str(root), "k", buckets=2, cover=["v"], progress=False)
    noop = rap._rap.plan_update(str(root))
    assert noop["changed"] is False and noop["added"] == []
    assert rap._rap.commit_update(noop, [])["version"] == 1
    write_keyed_table(tmp_path / "more", files=2, rows_per_file=500, seed=5)
    for f in (tmp_path / "more").glob("*.parquet"):
        f.rename(root / f"x{f.name}")
    (root / "part-1.parquet").unlink()
    plan = rap._rap.plan_update(str(root))
    assert plan["added"] == [3, 4] and plan["removed_files"] == 1 and plan["table_url"] == str(root)
    args = (plan["key"], plan["buckets"], plan["cover"], plan["hoist"])
    a = rap._rap.build_part(plan["table_url"], plan["build"], [3], "a1", *args)
    b = rap._rap.build_part(plan["table_url"], plan["build"], [4], "b1", *args)
    with pytest.raises(rap.InvalidArgument, match="no part indexed file xpart-1.parquet"):
        rap._rap.commit_update(plan, [(a, [3])])
    with pytest.raises(rap.InvalidArgument, match="not an added file"):
        rap._rap.commit_update(plan, [(a, [3]), (b, [4]), (b, [1])])
    r = rap._rap.commit_update(plan, [(a, [3]), (b, [4])])
    assert r["version"] == 2 and r["added_files"] == 2 and r["removed_files"] == 1 and r["key_rows"] == 1000
    with pytest.raises(rap.Changed, match="published after the update was planned"):
        rap._rap.commit_update(plan, [(a, [3]), (b, [4])])
    scan = pa.table(rap.scan(str(root)))
    keys = list(range(0, 3000, 7))
    got = pa.table(rap.Index.open(str(root)).lookup(keys, columns=["row"])[0])
    assert sorted(got["row"].to_pylist()) == sorted(scan.filter(pc.is_in(scan["k"], pa.array(keys)))["row"].to_pylist())


def aggregates(spark, df) -> list:
    return [tuple(r) for r in df.selectExpr(
        "count(*)", "count(k)", "sum(k)", "sum(row)", "sum(v)", "count(name)", "min(name)", "max(name)",
        "sum(hash(k, row, v, name))").collect()]


def test_spark_reads_what_rap_writes(spark, table, tmp_path) -> None:
    root, t = table
    want = aggregates(spark, spark.read.parquet(*[str(p) for p in sorted(root.glob("part-*.parquet"))]))
    assert want[0][0] == t.num_rows
    # rap convert's layouts (write_parquet): plain, a page per key, a ZSTD frame per key (interleaved too).
    sorted_t = t.take(pc.sort_indices(t, sort_keys=[("k", "ascending"), ("row", "ascending")]))
    layouts = {
        "plain": dict(),
        "page": dict(page_break_on=["k"], compression="zstd"),
        "frame": dict(frame_per_key=["k"], compression="zstd", data_page_version=2),
        # The key `k` is column 0 and an ordinary chunk: Spark read 0 rows of this layout while that
        # chunk came after the interleaved region (docs/spark.md).
        "interleaved": dict(frame_per_key=["k"], interleave=True, compression="zstd", data_page_version=2),
    }
    got = {}
    for name, opts in layouts.items():
        out = tmp_path / f"convert-{name}.parquet"
        rap.write_parquet(sorted_t, str(out), **opts)
        got[f"convert-{name}"] = aggregates(spark, spark.read.parquet(str(out)))
        assert pq.read_table(str(out)).sort_by([("k", "ascending"), ("row", "ascending")]).equals(sorted_t), name
    # rap rewrite's layouts, as Delta tables read by delta-spark.
    for layout in ("sorted", "page", "frame", "interleaved"):
        out = tmp_path / f"rewrite-{layout}"
        rap.rewrite(str(root), str(out), key="k", layout=layout, buckets=2, progress=False)
        got[f"rewrite-{layout}"] = aggregates(spark, spark.read.format("delta").load(str(out)))
    wrong = {name: agg for name, agg in got.items() if agg != want}
    assert not wrong, (want, wrong)


def spark_sql_index(spark, table_dir: pathlib.Path, key: str, buckets: int, name: str) -> None:
    """The Spark SQL recipe of docs/index-format.md ("Building an index with SQL"): Spark computes and
    writes the fragments (no rap on the executors); the driver writes the manifest from their
    aggregates with plain Python."""
    import json
    import time

    index_dir = table_dir / "_rap_index" / name
    files = sorted(p.name for p in table_dir.glob("*.parquet"))  # rap's ordinals: sorted paths
    spark.createDataFrame(list(enumerate(files)), "ordinal int, name string").createOrReplaceTempView("rap_files")
    spark.sql(f"""
      WITH rows AS (
        SELECT t.{key} AS k, f.ordinal AS file, t._metadata.row_index AS r
        FROM parquet.`{table_dir}` t JOIN rap_files f ON t._metadata.file_name = f.name
        WHERE t.{key} IS NOT NULL),
      runs AS (SELECT k, file, r, r - row_number() OVER (PARTITION BY k, file ORDER BY r) AS g FROM rows)
      SELECT /*+ REPARTITION({buckets}, bucket) */
             pmod(CAST(conv(substr(md5(CAST(k AS STRING)), 1, 15), 16, 10) AS BIGINT), {buckets}) AS bucket,
             k AS key0, file, min(r) AS first_row, count(*) AS num_rows
      FROM runs GROUP BY k, file, g
      SORT BY bucket, key0, file, first_row
    """).write.option("parquet.page.row.count.limit", "256").partitionBy("bucket").parquet(str(index_dir / "fragments"))
    frags = spark.sql(f"""
      SELECT _metadata.file_path AS path, bucket, count(*) AS entries, sum(num_rows) AS rows,
             min(key0) AS min_key, max(key0) AS max_key
      FROM parquet.`{index_dir / "fragments"}` GROUP BY 1, 2""").collect()
    rows = dict(spark.sql(f"SELECT _metadata.file_name, count(*) FROM parquet.`{table_dir}` GROUP BY 1").collect())
    manifest = {
        "format": "rap-index", "format_version": 1, "version": 1, "name": name,
        "created_ms": int(time.time() * 1000),
        "table": {"root": "../..", "kind": "directory", "version": -1},
        "key": [{"name": key, "type": "int64"}],
        "bucket": {"function": "md5_60_mod", "count": buckets},
        "cover": [], "hoist": [], "schemas": [], "next_run": 2,
        "files": [{"ordinal": i, "path": f, "size": (table_dir / f).stat().st_size, "etag": "", "rows": rows[f],
                   "removed": False} for i, f in enumerate(files)],
        "fragments": [],
    }
    for fr in frags:
        local = pathlib.Path(fr["path"].removeprefix("file:"))
        manifest["fragments"].append({
            "path": str(local.relative_to(index_dir)), "bucket": fr["bucket"], "run": 1, "entries": fr["entries"],
            "rows": fr["rows"], "size": local.stat().st_size, "etag": "", "min_key": [fr["min_key"]],
            "max_key": [fr["max_key"]], "files": [[0, len(files)]]})
    (index_dir / "_manifest").mkdir()
    (index_dir / "_manifest" / "00000000000000000001.json").write_text(json.dumps(manifest))
    (index_dir / "_manifest" / "_last_version.json").write_text('{"version": 1}')


def test_a_spark_sql_index_is_a_rap_index(spark, tmp_path) -> None:
    root = tmp_path / "table"
    t = write_keyed_table(root, files=3, rows_per_file=3000, seed=21)
    spark_sql_index(spark, root, "k", 3, "sql")
    single = str(tmp_path / "single")
    rap.build_index(str(root), "k", index=single, buckets=3, progress=False)
    sql_index = str(root / "_rap_index" / "sql")
    assert rap.inspect_index(sql_index)["version"] == 1
    rnd = random.Random(4)
    keys = [rnd.randrange(-5, 3050) for _ in range(80)]
    assert_same_lookups(sql_index, single, t, keys, ["row", "v", "name"])


def test_plan_part_commit_without_spark(tmp_path) -> None:
    """The binding's steps of a distributed build, called directly: a commit needs every file exactly
    once, and a second commit of the same plan loses the race (Changed) and publishes nothing."""
    root = tmp_path / "table"
    t = write_keyed_table(root, files=3, rows_per_file=1000, seed=2)
    plan = rap._rap.plan_build(str(root), ["k"])
    assert plan["base_version"] == 0 and plan["run"] == 1 and plan["paths"] == [f"part-{i}.parquet" for i in range(3)]
    a = rap._rap.build_part(str(root), plan, [0, 2], "a1", ["k"], 2)
    b = rap._rap.build_part(str(root), plan, [1], "b1", ["k"], 2)
    with pytest.raises(rap.InvalidArgument, match="no part indexed file part-1.parquet"):
        rap._rap.commit_build(plan, [(a, [0, 2])])
    with pytest.raises(rap.InvalidArgument, match="indexed twice"):
        rap._rap.commit_build(plan, [(a, [0, 2]), (b, [1]), (b, [1])])
    with pytest.raises(rap.InvalidArgument, match="token"):
        rap._rap.build_part(str(root), plan, [1], "../x", ["k"], 2)
    r = rap._rap.commit_build(plan, [(a, [0, 2]), (b, [1])])
    assert r["version"] == 1 and r["key_rows"] == t.num_rows and r["fragments"] == 4
    with pytest.raises(rap.Changed):
        rap._rap.commit_build(plan, [(a, [0, 2]), (b, [1])])
    assert rap.inspect_index(str(root / "_rap_index" / "default"))["version"] == 1
    single = str(tmp_path / "single")
    rap.build_index(str(root), "k", index=single, buckets=2, progress=False)
    assert_same_lookups(str(root / "_rap_index" / "default"), single, t, list(range(0, 3000, 29)), ["row", "v"])
    # A file replaced after planning: the part refuses it.
    (root / "part-1.parquet").write_bytes((root / "part-0.parquet").read_bytes() + b"")
    plan2 = dict(plan, sizes=[s + 1 for s in plan["sizes"]])
    with pytest.raises(rap.Changed, match="no longer the file"):
        rap._rap.build_part(str(root), plan2, [1], "c1", ["k"], 2)


def bucket_rows(output: str) -> dict:
    """The rows of each bucket's file of a rewrite (file part-<bucket>...), sorted (ties in a key's rows
    may come in another order)."""
    out = {}
    for p in sorted(pathlib.Path(output).glob("part-*.parquet")):
        out[int(p.name[5:10])] = sorted(pq.read_table(str(p)).to_pylist(), key=repr)
    return out


def delta_adds(output: str) -> set:
    import json

    log = pathlib.Path(output, "_delta_log", "00000000000000000000.json").read_text().splitlines()
    return {json.loads(line)["add"]["path"] for line in log if '"add"' in line}


def test_rewrite_on_spark_equals_rap_rewrite(spark, table, tmp_path) -> None:
    """rap.spark.rewrite in every lookup layout: the same rows in each bucket's file and the same
    lookups as a single-process rap.rewrite (and a brute-force filter of the input), the Delta output
    read by delta-spark with the input's aggregates; a task attempt that fails after writing its
    files leaves files and fragments that neither the Delta log nor the index references."""
    root, t = table
    want_agg = aggregates(spark, spark.read.parquet(*[str(p) for p in sorted(root.glob("part-*.parquet"))]))
    rnd = random.Random(8)
    keys = sorted({rnd.randrange(-5, 3050) for _ in range(70)})
    want_rows = t.filter(pc.is_in(t["k"], pa.array(keys, pa.int64())))

    def fail_first_attempt(part: int, attempt: int, part_json: str) -> None:
        if part == 0 and attempt == 0:
            raise RuntimeError("injected failure of part 0's first attempt (after its files were written)")

    for layout in ("sorted", "page", "frame", "interleaved", "blob"):
        dist, single = str(tmp_path / f"spark-{layout}"), str(tmp_path / f"single-{layout}")
        hook = fail_first_attempt if layout == "frame" else None
        r = rap.spark.rewrite(spark, str(root), dist, "k", layout=layout, buckets=3, parts=2, _task_hook=hook)
        s = rap.rewrite(str(root), single, key="k", layout=layout, buckets=3, progress=False)
        assert r["rows"] == s["rows"] == t.num_rows and r["entries"] == s["entries"], layout
        assert r["table_version"] == 0 and r["index_version"] == 1 and len(r["files"]) == len(s["files"]) == 3
        got, want = bucket_rows(dist), bucket_rows(single)
        assert got.keys() == want.keys() == {0, 1, 2}
        for b in want:
            assert got[b] == want[b], (layout, b)
        # The index: one fragment per bucket, the same lookups as the single-process one and the input.
        m = rap.inspect_index(r["index_url"])
        assert [f["path"] for f in m["files"]] == r["files"] and len(m["fragments"]) == 3
        for url in (dist, single):
            found = pa.table(rap.Index.open(url).lookup(keys, columns=["row", "v", "name"])[0])
            assert sorted(found.select(["k", "row", "v", "name"]).to_pylist(), key=repr) == \
                sorted(want_rows.select(["k", "row", "v", "name"]).to_pylist(), key=repr), (layout, url)
        # What the Delta log and the index reference: exactly the winners' files.
        on_disk = {p.name for p in pathlib.Path(dist).glob("part-*.parquet")}
        assert delta_adds(dist) == set(r["files"]) <= on_disk
        frags = {f"fragments/{p.name}" for p in (pathlib.Path(r["index_url"]) / "fragments").iterdir()}
        referenced = {f["path"] for f in m["fragments"]}
        assert referenced <= frags
        if hook is not None:
            assert on_disk - set(r["files"]) and all("_p00000_" in n for n in on_disk - set(r["files"]))
            assert frags - referenced and all("_p00000_" in f for f in frags - referenced)
        else:
            assert on_disk == set(r["files"]) and frags == referenced
        assert not pathlib.Path(dist, "_rap_pending_write").exists()
        if layout != "blob":  # blob folds the value columns into one JSON column
            assert aggregates(spark, spark.read.format("delta").load(dist)) == want_agg, layout
        else:
            assert spark.read.format("delta").load(dist).count() == t.num_rows


def test_rewrite_steps_without_spark(tmp_path) -> None:
    """The binding's steps of a distributed rewrite, called directly: counts per bucket, rows with
    rap's bucket ids, a task refusing wrong bucket ids and buckets counted empty, a commit needing
    every file once, and an output that is not empty refused."""
    root = tmp_path / "table"
    t = write_keyed_table(root, files=2, rows_per_file=800, seed=4)
    opts = {"key": ["k"], "layout": "page", "buckets": 4, "cover": None, "cogroup": False, "align": None,
            "compression": "zstd", "row_group_rows": None, "page_rows": None, "memory": 1 << 20, "temp_dir": None,
            "threads": 1}
    out = str(tmp_path / "out")
    job = rap._rap.plan_rewrite(str(root), out, opts)
    assert job["paths"] == ["part-0.parquet", "part-1.parquet"]
    assert pathlib.Path(out, "_rap_pending_write").exists()
    with pytest.raises(rap.InvalidArgument, match="already holds objects|not an empty folder"):
        rap._rap.plan_rewrite(str(root), out, opts)
    counts = dict(rap._rap.count_rewrite_buckets(job, opts, [0]))
    for b, n in rap._rap.count_rewrite_buckets(job, opts, [1]):
        counts[b] = counts.get(b, 0) + n
    rows = pa.table(rap.RecordBatchReader(rap._rap.read_rewrite_rows(job, opts, [0, 1])))
    assert rows.num_rows == t.num_rows and rows.column_names[-1] == "__rap_bucket"
    assert {b: rows.filter(pc.equal(rows["__rap_bucket"], b)).num_rows for b in counts} == counts
    assert sum(counts.values()) == t.num_rows and len(counts) == 4
    ordinals = [0, 1, 2, 3]
    wrong = rows.set_column(rows.num_columns - 1, "__rap_bucket",
                            pc.cast(pc.add(rows["__rap_bucket"], 1), pa.int32()))
    with pytest.raises(rap.InvalidArgument, match="bucket id"):
        rap._rap.write_rewrite_part(job, opts, ordinals, "w1", wrong)
    with pytest.raises(rap.Changed, match="counted empty"):
        rap._rap.write_rewrite_part(job, opts, [0, 1, -1, 2], "w2", rows)
    lo = rows.filter(pc.less(rows["__rap_bucket"], 2))
    hi = rows.filter(pc.greater_equal(rows["__rap_bucket"], 2))
    a = rap._rap.write_rewrite_part(job, opts, ordinals, "a1", lo)
    b = rap._rap.write_rewrite_part(job, opts, ordinals, "b1", hi)
    assert [f["bucket"] for f in a["files"]] == [0, 1] and [f["bucket"] for f in b["files"]] == [2, 3]
    with pytest.raises(rap.InvalidArgument, match="no task wrote file ordinal"):
        rap._rap.commit_rewrite(job, opts, [b])
    with pytest.raises(rap.InvalidArgument, match="written twice"):
        rap._rap.commit_rewrite(job, opts, [a, b, a])
    r = rap._rap.commit_rewrite(job, opts, [a, b])
    assert r["rows"] == t.num_rows and r["table_version"] == 0 and r["index_version"] == 1
    assert not pathlib.Path(out, "_rap_pending_write").exists()
    scan = pa.table(rap.scan(out))
    assert sorted(scan.to_pylist(), key=repr) == sorted(t.to_pylist(), key=repr)
    keys = list(range(0, 3000, 41))
    got = pa.table(rap.Index.open(out).lookup(keys, columns=["row"])[0])
    assert sorted(got["row"].to_pylist()) == sorted(t.filter(pc.is_in(t["k"], pa.array(keys)))["row"].to_pylist())


@pytest.mark.parametrize("mode", ["none", "name", "id"])
def test_rap_reads_column_mapping_and_checkpoints(spark, tmp_path, mode) -> None:
    """A delta-spark table with column mapping (name, id; and none) and checkpoints (every 2 commits,
    5 or 6 commits: checkpoints at versions 2 and 4), a renamed column (mapping modes), a DELETE and a
    partition: rap.scan equals Spark's own reading value for value; an index on it answers as Spark's
    WHERE — with mapping, one built before the rename and brought up to date after it (lookups take
    and return the new logical name), through rap.build_index (rap.spark's distributed build refuses
    column mapping, clearly)."""
    path = str(tmp_path / f"cm-{mode}")
    props = "'delta.checkpointInterval' = '2'"
    if mode != "none":
        props += f", 'delta.columnMapping.mode' = '{mode}', 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5'"
    spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, part STRING, amount DECIMAL(12, 2), note STRING, "
              f"tags ARRAY<STRING>, pos STRUCT<x: INT, y: DOUBLE>) USING delta PARTITIONED BY (part) "
              f"TBLPROPERTIES ({props})")
    for c in range(3):
        spark.sql(f"INSERT INTO delta.`{path}` SELECT id, CONCAT('p', CAST(id % 2 AS STRING)), "
                  f"CAST(id * 1.25 AS DECIMAL(12, 2)), IF(id % 7 = 0, NULL, CONCAT('n', CAST(id AS STRING))), "
                  f"ARRAY(CAST(id AS STRING), 'x'), NAMED_STRUCT('x', CAST(id AS INT), 'y', id / 3.0) "
                  f"FROM range({c * 50}, {c * 50 + 50})")
    if mode != "none":
        # Indexed before the rename, covering the column about to be renamed (the struct `pos`, whose
        # fields carry physical names too, is read from the data files).
        rap.build_index(path, "id", buckets=2, cover=["amount", "note"], progress=False)
        spark.sql(f"ALTER TABLE delta.`{path}` RENAME COLUMN note TO remark")
    spark.sql(f"DELETE FROM delta.`{path}` WHERE id % 10 = 3")
    log = pathlib.Path(path, "_delta_log")
    assert list(log.glob("*.checkpoint.parquet")), sorted(p.name for p in log.iterdir())
    want = spark_arrow(spark.read.format("delta").load(path).orderBy("id"))
    assert want.num_rows == 150 - 15
    got = pa.table(rap.scan(path))
    got = got.take(pc.sort_indices(got["id"]))
    assert sorted(got.column_names) == sorted(want.column_names)
    got = got.select(want.column_names)
    for name in want.column_names:
        assert got[name].type == want[name].type, (name, got[name].type, want[name].type)
        assert got[name].to_pylist() == want[name].to_pylist(), name
    keys = list(range(0, 160, 7)) + [3, 13]
    key_list = ",".join(map(str, keys))
    value = "note" if mode == "none" else "remark"
    if mode != "none":
        with pytest.raises(rap.NotSupported, match="column mapping"):
            rap.spark.build_index(spark, path, "id", buckets=2, parts=2)
        rap.update_index(f"{path}/_rap_index/default", progress=False)
        info = rap.Index.open(path).info()
        assert info["cover"] == ["amount", "remark"], info
    else:
        rap.spark.build_index(spark, path, "id", buckets=2, cover=["amount"], parts=2)
    columns = ["amount", value, "pos", "tags"]
    found = pa.table(rap.Index.open(path).lookup(keys, columns=columns)[0])
    found = found.take(pc.sort_indices(found["id"]))
    assert found.column_names == ["id"] + columns
    where = spark_arrow(spark.sql(f"SELECT id, {', '.join(columns)} FROM delta.`{path}` WHERE id IN ({key_list}) "
                                  f"ORDER BY id"))
    for name in where.column_names:
        assert found[name].to_pylist() == where[name].to_pylist(), name
    if mode != "none":
        with pytest.raises(rap.NotFound, match="'note' is not a column"):
            rap.Index.open(path).lookup(keys, columns=["note"])
