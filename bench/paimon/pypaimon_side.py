"""The pypaimon side of bench/paimon/bench_paimon.py, run by the Python of .venv-paimon (pypaimon pins a
pyarrow older than the project's).

  python pypaimon_side.py write WAREHOUSE ROWS_PER_COMMIT
      a primary-key table db.t of 8 buckets written in 6 commits (compaction off: pypaimon does not
      compact), each commit updating keys spread over every bucket, so each bucket holds 6 sorted runs
  python pypaimon_side.py read WAREHOUSE SNAPSHOT REPEAT [S3_ENDPOINT]
      pypaimon's read of that snapshot, REPEAT times: prints JSON {"runs": [{"first_batch_s",
      "total_s"}], "rows", "digest"} (digest: of the rows sorted by key, for bench_paimon.py's check)
"""

from __future__ import annotations

import hashlib
import json
import sys
import time

import pyarrow as pa
from pypaimon import CatalogFactory, Schema

SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("x", pa.float64()), ("n", pa.int64()),
                    ("note", pa.string())])


def digest(table: pa.Table) -> str:
    t = table.select([f.name for f in SCHEMA]).sort_by("id")
    h = hashlib.sha256()
    for name in t.column_names:
        h.update(repr(t.column(name).to_pylist()).encode())
    return h.hexdigest()


def write(warehouse: str, rows_per_commit: int) -> None:
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(
        SCHEMA, primary_keys=["id"], options={"bucket": "8", "file.format": "parquet"}), False)
    table = catalog.get_table("db.t")
    keys = rows_per_commit * 2
    for c in range(6):
        # Commit c writes every key k with k % 6 in {c, c+1, c+2} (mod 6) over a window of the key
        # space: every bucket gets a file per commit, and keys are updated by up to 3 runs.
        start = (c * rows_per_commit // 3) % keys
        ids = [(start + i) % keys for i in range(rows_per_commit)]
        batch = pa.table({"id": ids, "name": [f"name-{i % 977}-{c}" for i in ids],
                          "x": [i * 0.5 + c for i in ids], "n": [i * 10 + c for i in ids],
                          "note": [None if (i + c) % 11 == 0 else f"commit {c} of key {i}" for i in ids]},
                         schema=SCHEMA)
        wb = table.new_batch_write_builder()
        w = wb.new_write()
        cm = wb.new_commit()
        w.write_arrow(batch)
        cm.commit(w.prepare_commit())
        w.close()
        cm.close()


def read(warehouse: str, snapshot: int, repeat: int, endpoint: str | None) -> None:
    options = {"warehouse": warehouse}
    if endpoint:
        options.update({"s3.endpoint": endpoint, "s3.access-key": "bench", "s3.secret-key": "bench",
                        "s3.region": "us-east-1", "s3.path-style-access": "true"})
    runs = []
    rows = 0
    dig = ""
    for r in range(repeat + 1):  # the first run is a check, untimed
        t0 = time.perf_counter()
        table = CatalogFactory.create(options).get_table("db.t").copy({"scan.snapshot-id": str(snapshot)})
        rb = table.new_read_builder()
        reader = rb.new_read().to_arrow_batch_reader(rb.new_scan().plan().splits())
        batches = []
        first = None
        for b in reader:
            if first is None:
                first = time.perf_counter() - t0
            batches.append(b)
        total = time.perf_counter() - t0
        if r == 0:
            t = pa.Table.from_batches(batches)
            rows, dig = t.num_rows, digest(t)
        else:
            runs.append({"first_batch_s": first, "total_s": total})
    print(json.dumps({"runs": runs, "rows": rows, "digest": dig}))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], int(sys.argv[3]))
    else:
        read(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)
