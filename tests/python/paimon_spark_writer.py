"""Writes Paimon tables with Java Paimon (Spark and Paimon's Spark connector, a pinned jar from Maven
Central: scripts/fetch-jars.sh) and what Paimon reads from them (tests/python/test_paimon_spark.py).

Run in a process of its own: ``python paimon_spark_writer.py JAR WAREHOUSE EXPECTED_JSON``. The
tables have deletion vectors (``deletion-vectors.enabled``), which Java Paimon's writer makes when it
compacts (pypaimon does not compact): a partitioned, bucketed primary-key table of Parquet files with
updates and deletes of the same keys across commits, a primary-key table of ORC files, and an append
table with rows deleted; and an append table of many small files for rap compact. EXPECTED_JSON holds, for each table, Paimon's reading of every snapshot
("snapshots": {id: rows}) and of every tag ("tags": {name: rows}).
"""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession


def session(jar: str, warehouse: str) -> SparkSession:
    """A local Spark session with Paimon's Spark connector and a catalog `paimon` on `warehouse`."""
    spark = (SparkSession.builder.master("local[1]")
             .config("spark.jars", jar)
             .config("spark.sql.catalog.paimon", "org.apache.paimon.spark.SparkCatalog")
             .config("spark.sql.catalog.paimon.warehouse", "file:" + warehouse)
             .config("spark.sql.extensions", "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main(jar: str, warehouse: str, expected_path: str) -> None:
    spark = session(jar, warehouse)
    sql = spark.sql
    sql("CREATE DATABASE IF NOT EXISTS paimon.db")

    def latest(table: str) -> int:
        return sql(f"SELECT max(snapshot_id) AS s FROM paimon.db.`{table}$snapshots`").collect()[0]["s"]

    def tag(table: str, name: str) -> None:
        sql(f"CALL paimon.sys.create_tag(table => 'db.{table}', tag => '{name}', snapshot => {latest(table)})")

    # A partitioned primary-key table of two buckets, Parquet files; updates and deletes of the same
    # keys across commits; every commit compacts level 0 (deletion-vector mode) and marks the older
    # versions of the keys it moves in the deletion vectors.
    sql("CREATE TABLE paimon.db.pk_dv (id BIGINT, p STRING, v STRING, d DOUBLE) PARTITIONED BY (p) "
        "TBLPROPERTIES ('primary-key' = 'id,p', 'bucket' = '2', 'deletion-vectors.enabled' = 'true', "
        "'file.format' = 'parquet')")
    part = "IF(id % 2 = 0, 'a', 'b')"
    sql(f"INSERT INTO paimon.db.pk_dv SELECT id, {part}, concat('v', id), id * 1.5 FROM range(40)")
    tag("pk_dv", "first")
    sql(f"INSERT INTO paimon.db.pk_dv SELECT id, {part}, concat('u', id), id * 2.5 FROM range(0, 40, 3)")
    tag("pk_dv", "updated")
    sql("DELETE FROM paimon.db.pk_dv WHERE id % 5 = 0")
    sql(f"INSERT INTO paimon.db.pk_dv SELECT id, {part}, concat('w', id), -1.0 * id FROM range(0, 48, 8)")
    sql(f"INSERT INTO paimon.db.pk_dv SELECT id, {part}, concat('x', id), 0.25 * id FROM range(7, 40, 10)")

    # A primary-key table of ORC files, one bucket, a string key.
    sql("CREATE TABLE paimon.db.pk_dv_orc (k STRING, n INT, s STRING) TBLPROPERTIES ('primary-key' = 'k', "
        "'bucket' = '1', 'deletion-vectors.enabled' = 'true', 'file.format' = 'orc')")
    sql("INSERT INTO paimon.db.pk_dv_orc SELECT concat('k', id), CAST(id AS INT), 'one' FROM range(30)")
    sql("INSERT INTO paimon.db.pk_dv_orc SELECT concat('k', id), CAST(id * 10 AS INT), 'two' FROM range(0, 30, 4)")
    sql("DELETE FROM paimon.db.pk_dv_orc WHERE n = 9 OR n = 13")
    sql("INSERT INTO paimon.db.pk_dv_orc SELECT concat('k', id), CAST(-id AS INT), 'three' FROM range(25, 35)")

    # An append table: DELETE marks rows in deletion vectors.
    sql("CREATE TABLE paimon.db.append_dv (id BIGINT, s STRING) TBLPROPERTIES ("
        "'deletion-vectors.enabled' = 'true', 'file.format' = 'parquet')")
    sql("INSERT INTO paimon.db.append_dv SELECT id, concat('s', id) FROM range(50)")
    sql("INSERT INTO paimon.db.append_dv SELECT id, concat('t', id) FROM range(50, 80)")
    sql("DELETE FROM paimon.db.append_dv WHERE id % 7 = 3")
    tag("append_dv", "deleted_once")
    sql("DELETE FROM paimon.db.append_dv WHERE id > 70 OR id < 5")

    # An append table of many small files (write-only: Spark's writer does not compact it), for
    # rap compact (test_compact_read_by_java_paimon): two buckets, five commits, typed columns.
    sql("CREATE TABLE paimon.db.append_small (id BIGINT, s STRING, d DECIMAL(10, 2), ts TIMESTAMP, "
        "arr ARRAY<INT>) TBLPROPERTIES ('bucket' = '2', 'bucket-key' = 'id', 'file.format' = 'parquet', "
        "'write-only' = 'true')")
    for k in range(5):
        sql(f"INSERT INTO paimon.db.append_small SELECT id, IF(id % 4 = 0, NULL, concat('s', id)), "
            f"CAST(id * 1.25 AS DECIMAL(10, 2)), TIMESTAMP '2026-01-02 03:04:05' + make_interval(0, 0, 0, 0, 0, 0, id), "
            f"array(CAST(id AS INT), 7) FROM range({k * 20}, {k * 20 + 20})")

    expected = {}
    for table in ("pk_dv", "pk_dv_orc", "append_dv", "append_small"):
        ids = [r["snapshot_id"] for r in sql(f"SELECT snapshot_id FROM paimon.db.`{table}$snapshots`").collect()]
        tags = [r["tag_name"] for r in sql(f"SELECT tag_name FROM paimon.db.`{table}$tags`").collect()]
        kinds = {r["snapshot_id"]: r["commit_kind"]
                 for r in sql(f"SELECT snapshot_id, commit_kind FROM paimon.db.`{table}$snapshots`").collect()}
        expected[table] = {
            "snapshots": {str(i): [r.asDict() for r in sql(f"SELECT * FROM paimon.db.{table} VERSION AS OF {i}").collect()]
                          for i in ids},
            "tags": {t: [r.asDict() for r in sql(f"SELECT * FROM paimon.db.{table} VERSION AS OF '{t}'").collect()]
                     for t in tags},
            "commit_kinds": {str(k): v for k, v in kinds.items()},
        }
    with open(expected_path, "w") as f:
        json.dump(expected, f, indent=1, default=str)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
