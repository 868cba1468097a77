"""Reads Iceberg tables of a Hadoop-catalog warehouse with Spark and the Iceberg runtime, in a
process of its own, after rap committed to them (tests/python/test_iceberg_spark.py): each table's
rows and its newest snapshot's operation, as JSON.

Usage: iceberg_spark_reader.py JAR WAREHOUSE OUT.json TABLE... [--query NAME SQL]...
(each query's rows are written under "queries", NAME)
"""

from __future__ import annotations

import json
import sys

from iceberg_spark_writer import session  # the same session set-up (tests/python is sys.path[0])


def main() -> None:
    jar, warehouse, out, *args = sys.argv[1:]
    tables, queries = [], {}
    while args:
        if args[0] == "--query":
            queries[args[1]] = args[2]
            args = args[3:]
        else:
            tables.append(args.pop(0))
    spark = session(jar, warehouse, "rap-test-iceberg-spark-read")
    result = {"queries": {name: [r.asDict(recursive=True) for r in spark.sql(sql).collect()]
                          for name, sql in queries.items()}}
    for t in tables:
        result[t] = {
            "rows": [r.asDict(recursive=True) for r in spark.sql(f"SELECT * FROM local.db.{t}").collect()],
            "snapshot": spark.sql(f"SELECT snapshot_id, operation FROM local.db.{t}.snapshots "
                                  "ORDER BY committed_at DESC LIMIT 1").collect()[0].asDict(),
            "files": [r.file_path for r in spark.sql(f"SELECT file_path FROM local.db.{t}.files").collect()],
            # The current snapshot's manifest entries: (status, content) — 2 = DELETED.
            "entries": [[r.status, r.content] for r in spark.sql(
                f"SELECT status, data_file.content AS content FROM local.db.{t}.entries").collect()],
        }
    spark.stop()
    with open(out, "w") as f:
        json.dump(result, f, default=str)


if __name__ == "__main__":
    main()
