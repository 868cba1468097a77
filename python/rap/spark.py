"""rap on Apache Spark: distributed index builds and lookup joins (docs/spark.md).

Spark schedules the work; rap's C++ core does it inside the tasks (the executors need the ``rap``
package, pyarrow and — for :func:`lookup_join` — pandas, as any ``mapInArrow`` does)::

    from pyspark.sql import SparkSession
    import rap.spark

    spark = SparkSession.builder.getOrCreate()
    rap.spark.build_index(spark, "s3://bucket/events", key="user_id", buckets=64)
    enriched = rap.spark.lookup_join(keys_df, "s3://bucket/events", "user_id", ["kind", "ts"])

* :func:`build_index`: the driver lists the table's live files at one version (through rap), the
  files are split over Spark tasks, each task indexes its files with rap's indexer and writes its
  fragments straight to the index's store, and the driver publishes **one** manifest version naming
  the fragments of the winning task attempts (create-if-absent, as ``rap index build`` does).
* :func:`update_index`: the distributed ``rap index update``: the driver plans the files added and
  removed since the index's version, tasks index the added files, and the driver publishes one new
  manifest version (create-if-absent) keeping the old fragments.
* :func:`rewrite`: the distributed ``rap rewrite``: tasks read the input through rap with each row's
  bucket id, Spark shuffles the rows by bucket, each task sorts and writes its buckets' files in the
  layout with their index fragments, and the driver commits the Delta log and then the index.
* :func:`lookup_join`: enriches a DataFrame of keys with the indexed rows through ``mapInArrow``;
  each task opens the index once and looks each Arrow batch's keys up in one call.

pyspark is imported only by the functions that need it.
"""

from __future__ import annotations

import os
import secrets
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import StorageOptions, _columns, _rap
from . import Index, RecordBatchReader
from .errors import InvalidArgument

__all__ = ["build_index", "update_index", "rewrite", "lookup_join"]

# (part number, attempt number, the part's manifest JSON): called in the task after the part's
# fragments are written and before the task returns; what it raises fails the task attempt. For
# tests (tests/python/test_spark.py injects a failure of a first attempt).
TaskHook = Callable[[int, int, str], None]


def _absolute(url: str) -> str:
    """A local path as an absolute one (executors need not share the driver's working directory)."""
    if "://" in url:
        return url
    return os.path.abspath(url)


def _split(sizes: Sequence[int], parts: int) -> List[List[int]]:
    """Ordinals 0..n-1 split into at most `parts` groups of about equal bytes (largest file first
    into the lightest group); each group ascending, empty groups dropped."""
    groups: List[List[int]] = [[] for _ in range(max(1, min(parts, len(sizes))))]
    load = [0] * len(groups)
    for o in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
        g = min(range(len(groups)), key=lambda j: (load[j], j))
        groups[g].append(o)
        load[g] += max(1, sizes[o])
    return [sorted(g) for g in groups if g]


def build_index(
    spark: Any,
    table_url: str,
    key: Union[str, Sequence[str]],
    buckets: Optional[int] = None,
    cover: Optional[Union[str, Sequence[str]]] = None,
    hoist: Optional[Union[str, Sequence[str]]] = None,
    name: str = "default",
    *,
    index: Optional[str] = None,
    parts: Optional[int] = None,
    threads: int = 1,
    page_rows: int = 256,
    storage_options: StorageOptions = None,
    _task_hook: Optional[TaskHook] = None,
) -> Dict[str, Any]:
    """Indexes every live file of a table on Spark: one new index version, as ``rap.build_index``.

    spark: a SparkSession. key: the key column, or two. buckets: the bucket count (None: 1, as
    ``rap index build``). cover / hoist: as ``rap.build_index``. index: the index URL (default
    ``<table>/_rap_index/<name>``). parts: the number of tasks (default: twice the default
    parallelism, at most one per file); files are split by size. threads: files indexed at once in
    each task. Returns the commit's counts (``version``, ``files``, ``key_rows``, ``entries``,
    ``fragments``, ``bytes``) plus ``parts`` and ``seconds``.

    Each task attempt names its fragments with the build's random id, its part and its Spark task
    attempt id, so a failed, retried or speculative attempt never overwrites another's fragments;
    only the fragments of the attempts whose results reached the driver are committed, and the
    others are orphans that ``rap index vacuum`` deletes. The manifest is published only if its
    version is still free (``Changed`` otherwise), so a driver that dies first leaves the old version
    current.
    """
    t0 = time.monotonic()
    table_url = _absolute(table_url)
    if index is not None:
        index = _absolute(index)
    keys = _columns(key, "key") or []
    cover_l = _columns(cover, "cover") or []
    hoist_l = _columns(hoist, "hoist") or []
    nbuckets = 1 if buckets is None else int(buckets)
    if parts is not None and parts < 1:
        raise InvalidArgument(f"parts: {parts} is not >= 1")
    plan = _rap.plan_build(table_url, keys, index, name, storage_options)
    sc = spark.sparkContext
    groups = _split(plan["sizes"], parts if parts is not None else 2 * sc.defaultParallelism)
    results = _run_parts(spark, table_url, plan, groups, keys, nbuckets, cover_l, hoist_l, threads, page_rows,
                         storage_options, _task_hook)
    out = _rap.commit_build(plan, results, storage_options)
    out["parts"] = len(groups)
    out["table_version"] = plan["table_version"]
    out["seconds"] = time.monotonic() - t0
    return out


def _run_parts(spark: Any, table_url: str, build_plan: Dict[str, Any], groups: List[List[int]], keys: List[str],
               buckets: int, cover: List[str], hoist: List[str], threads: int, page_rows: int,
               storage_options: StorageOptions, task_hook: Optional[TaskHook]) -> List[Tuple[str, List[int]]]:
    """One Spark task per group of file ordinals: each indexes its files into fragments named by the
    run's random id, its part and its task attempt; returns (part JSON, ordinals) in part order."""
    sc = spark.sparkContext
    build_id = secrets.token_hex(4)

    def task(items: Any) -> Any:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        attempt = ctx.attemptNumber() if ctx is not None else 0
        attempt_id = ctx.taskAttemptId() if ctx is not None else 0
        for part, ordinals in items:
            token = f"{build_id}_p{part:05d}_t{attempt_id}"
            part_json = _rap.build_part(table_url, build_plan, ordinals, token, keys, buckets, cover, hoist, threads,
                                        page_rows, storage_options)
            if task_hook is not None:
                task_hook(part, attempt, part_json)
            yield part, part_json, ordinals

    work = list(enumerate(groups))
    results = sc.parallelize(work, len(work)).mapPartitions(task).collect()
    results.sort(key=lambda r: r[0])
    if [r[0] for r in results] != list(range(len(work))):
        raise InvalidArgument("rap.spark: Spark returned the parts " + repr([r[0] for r in results]))
    return [(r[1], list(r[2])) for r in results]


def update_index(
    spark: Any,
    index_url: str,
    *,
    name: str = "default",
    parts: Optional[int] = None,
    threads: int = 1,
    page_rows: int = 256,
    storage_options: StorageOptions = None,
    _task_hook: Optional[TaskHook] = None,
) -> Dict[str, Any]:
    """Brings an index up to its table's current version on Spark, as ``rap.update_index``.

    index_url: the index (or its table, for the default index ``name``). The driver compares the
    index's newest version with the table (``rap._rap.plan_update``): files added since (new, or
    rewritten under the same name) are split over ``parts`` Spark tasks (default: twice the default
    parallelism, at most one per file) that index them into new fragments, exactly as
    :func:`build_index`'s tasks do; files that left the table are marked removed and changed deletion
    vectors recorded. The driver then publishes **one** new manifest version — the old fragments, the
    tasks' new ones — atomically and only if that version is still free (``Changed`` otherwise, e.g.
    when another update won the race), after checking that neither the index nor the planned table
    version changed meanwhile. Fragments of failed or retried attempts are orphans for ``vacuum``.
    Returns ``changed`` (False: the index already matched the table; no version is published),
    ``version``, ``table_version``, ``added_files``, ``removed_files``, ``deletion_vectors_changed``,
    ``key_rows``, ``parts`` and ``seconds``.
    """
    t0 = time.monotonic()
    if parts is not None and parts < 1:
        raise InvalidArgument(f"parts: {parts} is not >= 1")
    plan = _rap.plan_update(_absolute(index_url), name, storage_options)
    build = plan["build"]
    added = list(plan["added"])
    results: List[Tuple[str, List[int]]] = []
    groups: List[List[int]] = []
    if plan["changed"] and added:
        sizes = [build["sizes"][o] for o in added]
        sc = spark.sparkContext
        groups = [[added[i] for i in g] for g in _split(sizes, parts if parts is not None else 2 * sc.defaultParallelism)]
        table_url = plan["table_url"]
        results = _run_parts(spark, table_url, build, groups, list(plan["key"]), int(plan["buckets"]),
                             list(plan["cover"]), list(plan["hoist"]), threads, page_rows, storage_options, _task_hook)
    out = _rap.commit_update(plan, results, storage_options)
    out["parts"] = len(groups)
    out["seconds"] = time.monotonic() - t0
    return out



def rewrite(
    spark: Any,
    table_url: str,
    output: str,
    key: Union[str, Sequence[str]],
    layout: str = "frame",
    buckets: int = 1,
    *,
    cover: Optional[Union[str, Sequence[str]]] = None,
    cogroup: bool = False,
    align: Optional[int] = None,
    compression: str = "zstd",
    row_group_rows: Optional[int] = None,
    page_rows: Optional[int] = None,
    memory: int = 512 << 20,
    temp_dir: Optional[str] = None,
    threads: int = 2,
    parts: Optional[int] = None,
    storage_options: StorageOptions = None,
    _task_hook: Optional[TaskHook] = None,
) -> Dict[str, Any]:
    """``rap rewrite`` on Spark: a new Delta table at ``output`` holding every live row of the table,
    one file per non-empty bucket of the key's hash (rap's bucket function), sorted by the key and
    written in ``layout`` ("sorted", "page", "frame", "interleaved", "blob"), with its index at
    ``<output>/_rap_index/default`` built from the writer's own page and frame locations.

    1. The driver plans it (``_rap.plan_rewrite``): the input's live files at one version; the output
       must be empty and gets a pending-write marker.
    2. Tasks count each bucket's rows over groups of files (the key columns only), so that the driver
       can give every non-empty bucket its file ordinal (bucket order, as ``rap rewrite``).
    3. Tasks read the rows of groups of files through rap (``_rap.read_rewrite_rows``: deletion
       vectors applied, partition values as columns) with the int32 column ``__rap_bucket`` computed
       by rap; Spark shuffles them by it (``repartition``) into ``parts`` partitions (default: twice
       the default parallelism, at most the non-empty buckets); each task sorts its buckets with
       rap's sorter (bounded by ``memory``, spilling to ``temp_dir``) and writes each bucket's file
       and index fragment, named with its task attempt (``_rap.write_rewrite_part``).
    4. The driver writes the Delta commit (version 0) of the winning attempts' files, then publishes
       the index (version 1) naming their fragments, then removes the marker
       (``_rap.commit_rewrite``). Files of failed or speculative attempts are never referenced.

    Returns ``rap.rewrite``'s counts (``rows``, ``files``, ``entries``, ``bytes``, ``frames``,
    ``table_version``, ``index_version``, ``fragments``) plus ``parts`` and ``seconds``.
    """
    t0 = time.monotonic()
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    table_url = _absolute(table_url)
    output = _absolute(output)
    if parts is not None and parts < 1:
        raise InvalidArgument(f"parts: {parts} is not >= 1")
    opts = {
        "key": _columns(key, "key") or [], "layout": layout, "buckets": int(buckets), "cover": _columns(cover, "cover"),
        "cogroup": bool(cogroup), "align": align, "compression": compression, "row_group_rows": row_group_rows,
        "page_rows": page_rows, "memory": int(memory), "temp_dir": temp_dir, "threads": int(threads),
    }
    job = _rap.plan_rewrite(table_url, output, opts, storage_options)
    sc = spark.sparkContext
    groups = _split(job["sizes"], 2 * sc.defaultParallelism)

    # 2. Rows per bucket (key columns only) -> the file ordinal of each non-empty bucket.
    def count_task(items: Any) -> Any:
        for g in items:
            yield _rap.count_rewrite_buckets(job, opts, g, storage_options)

    counts = [0] * opts["buckets"]
    for pairs in sc.parallelize(groups, len(groups)).mapPartitions(count_task).collect():
        for b, n in pairs:
            counts[b] += n
    ordinal_of_bucket, nfiles = [], 0
    for n in counts:
        ordinal_of_bucket.append(nfiles if n > 0 else -1)
        nfiles += 1 if n > 0 else 0
    if nfiles == 0:
        raise InvalidArgument(f"{table_url}: the table has no live rows to rewrite")

    # 3. The rows with their buckets (read through rap), shuffled by bucket, written per bucket.
    probe = _rap.read_rewrite_rows(job, opts, [], storage_options)
    arrow_schema = __import__("pyarrow").schema(RecordBatchReader(probe).schema)
    probe.close()
    spark_schema = from_arrow_schema(arrow_schema)
    spark_arrow = to_arrow_schema(spark_schema)
    bucket_col = arrow_schema.names[-1]

    def read_task(batches: Any) -> Any:
        import pyarrow as pa

        for b in batches:
            for g in b.column(0).to_pylist():
                rows = pa.RecordBatchReader.from_stream(
                    RecordBatchReader(_rap.read_rewrite_rows(job, opts, groups[g], storage_options)))
                for rb in rows:
                    yield rb.cast(spark_arrow)

    run_id = secrets.token_hex(4)

    def write_task(batches: Any) -> Any:
        import pyarrow as pa
        from pyspark import TaskContext

        ctx = TaskContext.get()
        attempt = ctx.attemptNumber() if ctx is not None else 0
        attempt_id = ctx.taskAttemptId() if ctx is not None else 0
        part = ctx.partitionId() if ctx is not None else 0
        token = f"{run_id}_p{part:05d}_t{attempt_id}"
        rows = pa.RecordBatchReader.from_batches(arrow_schema, (b.cast(arrow_schema) for b in batches))
        r = _rap.write_rewrite_part(job, opts, ordinal_of_bucket, token, rows, storage_options)
        if not r["files"]:
            return
        import json

        if task_hook is not None:
            task_hook(part, attempt, r["part"])
        yield pa.RecordBatch.from_pydict({"result": [json.dumps(r)]})

    task_hook = _task_hook
    nparts = max(1, min(nfiles, parts if parts is not None else 2 * sc.defaultParallelism))
    from pyspark.sql.types import StringType, StructField, StructType

    rows_df = spark.range(len(groups), numPartitions=len(groups)).mapInArrow(read_task, spark_schema)
    written = (rows_df.repartition(nparts, bucket_col)
               .mapInArrow(write_task, StructType([StructField("result", StringType())])).collect())
    import json

    tasks = [json.loads(r["result"]) for r in written]
    got = [0] * opts["buckets"]
    for t in tasks:
        for f in t["files"]:
            got[f["bucket"]] += f["rows"]
    if got != counts:
        bad = [b for b in range(len(counts)) if got[b] != counts[b]][:5]
        raise InvalidArgument(f"rap.spark.rewrite: the written rows per bucket differ from the counted ones "
                              f"(buckets {bad}); nothing was committed")
    out = _rap.commit_rewrite(job, opts, tasks, storage_options)
    out["parts"] = nparts
    out["seconds"] = time.monotonic() - t0
    return out


def _join_batch(batch: Any, index: Index, key_col: str, columns: Optional[List[str]], how: str, out_schema: Any) -> Any:
    """One input Arrow batch joined with the index rows of its keys (one lookup for the batch)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    keys = batch.column(batch.schema.get_field_index(key_col))
    unique = pc.unique(pc.drop_null(keys))
    if len(unique) > 0:
        reader, _ = index.lookup(unique, columns=columns)
        found = reader.read_all()
        counts = np.asarray(reader.rows_per_key, dtype=np.int64)
    else:
        found = None
        counts = np.zeros(0, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]) if len(counts) else counts
    # Per input row: its key's position in `unique` (-1: a NULL key).
    pos = pc.fill_null(pc.index_in(keys, value_set=unique), -1).to_numpy(zero_copy_only=False).astype(np.int64)
    n_match = np.where(pos >= 0, counts[np.maximum(pos, 0)] if len(counts) else 0, 0)
    if how == "left":
        n_out = np.maximum(n_match, 1)
    else:
        n_out = n_match
    left_idx = np.repeat(np.arange(batch.num_rows, dtype=np.int64), n_out)
    # Per output row: its offset within its input row's matches.
    total = int(n_out.sum())
    first_out = np.concatenate([[0], np.cumsum(n_out)[:-1]]) if len(n_out) else n_out
    within = np.arange(total, dtype=np.int64) - np.repeat(first_out, n_out)
    row_start = np.where(pos >= 0, starts[np.maximum(pos, 0)] if len(starts) else 0, 0)
    right = np.repeat(row_start, n_out) + within
    right_valid = within < np.repeat(n_match, n_out)
    right_idx = pa.array(right, mask=~right_valid, type=pa.int64())
    left = batch.take(pa.array(left_idx, type=pa.int64()))
    arrays = list(left.columns)
    names = list(left.schema.names)
    n_left = len(names)
    for field in list(out_schema)[n_left:]:
        if found is not None and field.name in found.schema.names:
            col = found.column(field.name).combine_chunks()
            arrays.append(col.take(right_idx))
        else:
            arrays.append(pa.nulls(total, type=field.type))
        names.append(field.name)
    joined = pa.RecordBatch.from_arrays(arrays, names=names)
    return joined.cast(out_schema)


def lookup_join(
    df: Any,
    index_url: str,
    key_col: str,
    columns: Optional[Union[str, Sequence[str]]] = None,
    *,
    how: str = "inner",
    name: str = "default",
    storage_options: StorageOptions = None,
) -> Any:
    """Enriches the DataFrame ``df`` with the indexed rows of its keys: ``df`` joined with the
    table on ``df[key_col] = <the index key>``, one output row per (input row, table row).

    index_url: the index (or its table, for the default index ``name``). columns: the table's
    columns to add (None: every column of the index's schema except the key). how: ``"inner"``
    (input rows without table rows are dropped) or ``"left"`` (kept once, with NULLs). Runs as
    ``df.mapInArrow``: each task opens the index once and looks each Arrow batch's distinct keys up
    in one call (one round of data reads per batch; ``spark.sql.execution.arrow.maxRecordsPerBatch``
    sets the batch size). A column of the table named like a column of ``df`` is InvalidArgument.
    """
    if how not in ("inner", "left"):
        raise InvalidArgument(f"how: expected 'inner' or 'left', got {how!r}")
    if key_col not in df.columns:
        raise InvalidArgument(f"key_col: {key_col!r} is not a column of the DataFrame ({', '.join(df.columns)})")
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema
    from pyspark.sql.types import StructType

    index_url = _absolute(index_url)
    cols = _columns(columns)
    idx = Index.open(index_url, name, storage_options)
    key = idx.info()["key"]
    key_names = [k[0] for k in key]
    if len(key_names) != 1:
        raise InvalidArgument(f"{index_url}: lookup_join takes an index with one key column, this one has {key_names}")
    # The output schema: that of a lookup (of any one key of the key's type; its rows are not used).
    probe = {"string": "", "binary": b""}.get(key[0][1], 0)
    sample, _ = idx.lookup([probe], columns=cols)
    table_schema = sample.schema
    sample.close()
    drop = [n for n in key_names if cols is None or n not in cols]
    added = [f for f in table_schema if f.name not in drop]
    clash = [f.name for f in added if f.name in df.columns]
    if clash:
        raise InvalidArgument(f"lookup_join: the table's columns {clash} are named like columns of the DataFrame")
    spark_added = from_arrow_schema(__import__("pyarrow").schema(added))
    out_spark = StructType(list(df.schema.fields) + [f for f in spark_added.fields])
    out_arrow = to_arrow_schema(out_spark)
    lookup_cols = [f.name for f in added]

    def fn(batches: Any) -> Any:
        index = Index.open(index_url, name, storage_options)
        for b in batches:
            yield _join_batch(b, index, key_col, lookup_cols, how, out_arrow)

    return df.mapInArrow(fn, out_spark)
