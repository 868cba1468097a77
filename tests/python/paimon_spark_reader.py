"""Reads a Paimon table with Java Paimon (Spark and Paimon's Spark connector) after rap committed to
it (tests/python/test_paimon_spark.py), in a process of its own: its rows, its data files and its
latest snapshot's commit kind, as JSON.

Usage: paimon_spark_reader.py JAR WAREHOUSE OUT_JSON TABLE
"""

from __future__ import annotations

import json
import sys

from paimon_spark_writer import session  # the same session set-up (tests/python is sys.path[0])


def main(jar: str, warehouse: str, out: str, table: str) -> None:
    spark = session(jar, warehouse)
    sql = spark.sql
    result = {
        "rows": [r.asDict() for r in sql(f"SELECT * FROM paimon.db.{table}").collect()],
        "files": sorted(r["file_path"] for r in sql(f"SELECT file_path FROM paimon.db.`{table}$files`").collect()),
        "commit_kind": sql(f"SELECT commit_kind FROM paimon.db.`{table}$snapshots` ORDER BY snapshot_id DESC "
                           "LIMIT 1").collect()[0]["commit_kind"],
    }
    with open(out, "w") as f:
        json.dump(result, f, indent=1, default=str)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4])
