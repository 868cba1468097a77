"""Writes the Iceberg tables of tests/python/test_iceberg_spark.py with Spark and the Iceberg runtime
(a Hadoop catalog on a local warehouse), in a process of its own (its own JVM, beside the Delta Spark
session of test_spark.py), and each table's rows as Spark reads them, as JSON.

Usage: iceberg_spark_writer.py JAR WAREHOUSE OUT.json
"""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession


# Filters on the partition columns of local.db.rewrite_part (read before and after rap's rewrite).
PARTITION_FILTERS = {
    "day": "ts >= TIMESTAMP '2024-03-03 00:00:00'",
    "bucket": "id IN (4, 77, 150, 299)",
    "truncate": "label = 's1' OR label IS NULL",
}


def rows(spark, sql: str) -> list[dict]:
    return [r.asDict(recursive=True) for r in spark.sql(sql).collect()]


def session(jar: str, warehouse: str, app: str) -> SparkSession:
    """A local Spark session with the Iceberg runtime and a Hadoop catalog `local` on `warehouse`."""
    spark = (
        SparkSession.builder.master("local[2]")
        .appName(app)
        .config("spark.jars", jar)
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.catalog.local", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.local.type", "hadoop")
        .config("spark.sql.catalog.local.warehouse", warehouse)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main() -> None:
    jar, warehouse, out = sys.argv[1:4]
    spark = session(jar, warehouse, "rap-test-iceberg-spark")
    jvm = spark._jvm
    result = {}

    # v3, Parquet: a column added through Iceberg's Java API with an initial default (42), then
    # rows with their own value, an UPDATE (row lineage: _row_id kept, _last_updated_sequence_number).
    spark.sql("CREATE TABLE local.db.defaults (id BIGINT, s STRING) USING iceberg "
              "TBLPROPERTIES ('format-version'='3')")
    spark.sql("INSERT INTO local.db.defaults VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, "local.db.defaults")
    int_type = jvm.org.apache.iceberg.types.Types.IntegerType.get()
    table.updateSchema().addColumn("k", int_type, "added later", jvm.org.apache.iceberg.expressions.Literal.of(42)) \
        .commit()
    spark.sql("REFRESH TABLE local.db.defaults")
    spark.sql("INSERT INTO local.db.defaults VALUES (4, 'd', 7), (5, 'e', NULL)")
    spark.sql("UPDATE local.db.defaults SET s = 'B' WHERE id = 2")
    result["defaults"] = rows(spark, "SELECT * FROM local.db.defaults")
    result["defaults_lineage"] = rows(spark, "SELECT id, _row_id, _last_updated_sequence_number "
                                             "FROM local.db.defaults")

    # v2, ORC data files (Iceberg's field ids in the ORC type attributes), a rename, a struct, and
    # merge-on-read position deletes (in Parquet).
    spark.sql("CREATE TABLE local.db.orc (id BIGINT, s STRING, st STRUCT<a: INT, b: STRING>, d DECIMAL(10, 2)) "
              "USING iceberg TBLPROPERTIES ('format-version'='2', 'write.format.default'='orc', "
              "'write.delete.format.default'='parquet', 'write.delete.mode'='merge-on-read')")
    spark.sql("INSERT INTO local.db.orc SELECT /*+ COALESCE(1) */ id, concat('s', id), "
              "IF(id % 3 = 0, NULL, named_struct('a', CAST(id * 10 AS INT), 'b', IF(id % 2 = 0, NULL, 'x'))), "
              "CAST(id * 1.25 AS DECIMAL(10, 2)) FROM range(0, 40)")
    spark.sql("ALTER TABLE local.db.orc RENAME COLUMN s TO label")
    spark.sql("INSERT INTO local.db.orc VALUES (100, 'late', NULL, 9.99)")
    spark.sql("DELETE FROM local.db.orc WHERE id IN (3, 17)")
    result["orc"] = rows(spark, "SELECT * FROM local.db.orc")
    files = rows(spark, "SELECT file_format, content FROM local.db.orc.files")
    result["orc_files"] = sorted((f["file_format"], f["content"]) for f in files)
    # v2, Parquet, for rap rewrite --in-place (test_rewrite_in_place_read_by_spark): three inserts in
    # random key order, a rename, a struct and a decimal, merge-on-read position deletes.
    spark.sql("CREATE TABLE local.db.rewrite (id BIGINT, s STRING, st STRUCT<a: INT, b: STRING>, d DECIMAL(10, 2)) "
              "USING iceberg TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read', "
              "'write.update.mode'='merge-on-read')")
    for lo in (0, 100, 200):
        spark.sql(f"INSERT INTO local.db.rewrite SELECT /*+ COALESCE(1) */ id, concat('s', id), "
                  f"IF(id % 3 = 0, NULL, named_struct('a', CAST(id * 10 AS INT), 'b', IF(id % 2 = 0, NULL, 'x'))), "
                  f"CAST(id * 1.25 AS DECIMAL(10, 2)) FROM range({lo}, {lo + 100}) ORDER BY rand(7)")
    spark.sql("ALTER TABLE local.db.rewrite RENAME COLUMN s TO label")
    spark.sql("DELETE FROM local.db.rewrite WHERE id % 7 = 0")
    spark.sql("UPDATE local.db.rewrite SET label = 'updated' WHERE id IN (5, 150)")
    result["rewrite"] = rows(spark, "SELECT * FROM local.db.rewrite")
    # v1, Parquet, for the same test: v1's manifest schemas; a copy-on-write delete (v1 has no
    # delete files).
    spark.sql("CREATE TABLE local.db.rewrite_v1 (id BIGINT, s STRING, d DECIMAL(10, 2)) USING iceberg "
              "TBLPROPERTIES ('format-version'='1')")
    for lo in (0, 50):
        spark.sql(f"INSERT INTO local.db.rewrite_v1 SELECT /*+ COALESCE(1) */ id, concat('s', id), "
                  f"CAST(id * 0.5 AS DECIMAL(10, 2)) FROM range({lo}, {lo + 50}) ORDER BY rand(3)")
    spark.sql("DELETE FROM local.db.rewrite_v1 WHERE id % 9 = 0")
    result["rewrite_v1"] = rows(spark, "SELECT * FROM local.db.rewrite_v1")
    # v2, partitioned by days(ts), bucket(4, id) and truncate(2, label), for rap rewrite --in-place of a
    # partitioned table (test_rewrite_in_place_of_a_partitioned_table_read_by_spark): merge-on-read
    # position deletes inside the partitions.
    spark.sql("CREATE TABLE local.db.rewrite_part (id BIGINT, label STRING, ts TIMESTAMP, n INT) USING iceberg "
              "PARTITIONED BY (days(ts), bucket(4, id), truncate(2, label)) "
              "TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')")
    for lo in (0, 150):
        spark.sql(f"INSERT INTO local.db.rewrite_part SELECT id, IF(id % 9 = 0, NULL, concat('s', id % 13)), "
                  f"TIMESTAMP '2024-03-01 00:00:00' + make_interval(0, 0, 0, CAST(id % 4 AS INT), "
                  f"CAST(id % 24 AS INT)), CAST(id % 17 AS INT) FROM range({lo}, {lo + 150}) ORDER BY rand(5)")
    spark.sql("DELETE FROM local.db.rewrite_part WHERE id % 10 = 3")
    result["rewrite_part"] = rows(spark, "SELECT * FROM local.db.rewrite_part")
    for name, where in PARTITION_FILTERS.items():
        result[f"rewrite_part_{name}"] = rows(spark, f"SELECT * FROM local.db.rewrite_part WHERE {where}")
    # The partitions of the live rows (a partition whose every row is deleted has data files, not rows).
    result["rewrite_part_partitions"] = rows(spark, "SELECT DISTINCT _partition AS partition "
                                                    "FROM local.db.rewrite_part")
    spark.stop()
    with open(out, "w") as f:
        json.dump(result, f, default=str)


if __name__ == "__main__":
    main()
