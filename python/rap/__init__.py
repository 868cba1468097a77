"""rap: random access Parquet — fast scans and point lookups on a Parquet data lake.

Results are Arrow data handed over zero-copy through the Arrow PyCapsule interface, so that
``pyarrow.table(r)``, ``polars.DataFrame(r)`` and ``duckdb.sql("select ... from r")`` take a rap
reader directly::

    import pyarrow as pa, rap
    table = pa.table(rap.scan("s3://bucket/events", columns=["user_id", "kind"], where="kind = 'click'"))
    index = rap.Index.open("s3://bucket/events")
    reader, tokens = index.lookup([42, 43], columns=["kind"])

Everything runs in rap's C++ core (the same code as the ``rap`` CLI) with the GIL released.
See docs/python.md.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from . import _rap
from . import errors as _errors
from ._progress import ProgressArg, make_progress
from .errors import (
    AccessDenied,
    Cancelled,
    Changed,
    Corrupt,
    Error,
    Internal,
    InvalidArgument,
    IOError,
    NotFound,
    NotSupported,
    ResourceExhausted,
    Timeout,
)

__version__ = "0.1.0"

__all__ = [
    "scan",
    "lookup",
    "Index",
    "RecordBatchReader",
    "RecordBatch",
    "build_index",
    "update_index",
    "compact_index",
    "vacuum_index",
    "compact",
    "inspect",
    "inspect_index",
    "rewrite",
    "write_parquet",
    *_errors.__all__,
]

StorageOptions = Optional[Mapping[str, Union[str, bool, int, float, None]]]
RecordBatch = _rap.Batch
RecordBatch.__doc__ = """One record batch of a reader: ``__arrow_c_array__`` / ``__arrow_c_schema__``
(``pyarrow.record_batch(b)``, ``polars.DataFrame(b)``), ``num_rows``, ``num_columns``, ``column_names``."""


class RecordBatchReader:
    """The batches of a scan or a lookup, in order.

    * ``__arrow_c_stream__`` / ``__arrow_c_schema__``: ``pyarrow.table(r)``, ``polars.DataFrame(r)``,
      ``duckdb.sql("select * from r")`` consume it zero-copy (the reader is then used up).
    * iteration yields :class:`RecordBatch` objects (``__arrow_c_array__``).
    * :meth:`read_all` (a pyarrow Table), :meth:`to_polars`.
    * :attr:`stats`: the scan's (or lookup's) counters as a dict.
    * a context manager: leaving it (or :meth:`close`) cancels the scan and joins its threads.

    Ctrl-C while iterating (or in :meth:`read_all`) stops the scan at the next batch and raises
    KeyboardInterrupt, with no thread left.
    """

    __slots__ = ("_r", "next_page_tokens", "rows_per_key")

    def __init__(self, inner: Any, next_page_tokens: Optional[List[Optional[str]]] = None,
                 rows_per_key: Optional[List[int]] = None) -> None:
        self._r = inner
        #: Lookups: per requested key, the token that resumes it (``page_token=``), None when complete.
        self.next_page_tokens = next_page_tokens
        #: Lookups: per requested key, the rows returned for it (batches hold only keys with rows).
        self.rows_per_key = rows_per_key

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """The Arrow C stream (PyCapsule "arrow_array_stream"); hands the batches to the consumer."""
        return self._r.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self) -> Any:
        """The schema as an Arrow C schema (PyCapsule "arrow_schema")."""
        return self._r.__arrow_c_schema__()

    @property
    def column_names(self) -> List[str]:
        """The output column names."""
        return list(self._r.column_names)

    @property
    def schema(self) -> Any:
        """The schema as a pyarrow Schema (needs pyarrow)."""
        import pyarrow as pa

        return pa.schema(self._r)

    def __iter__(self) -> Iterator[RecordBatch]:
        return self

    def __next__(self) -> RecordBatch:
        b = self._r.next()
        if b is None:
            raise StopIteration
        return b

    def read_next_batch(self) -> Optional[RecordBatch]:
        """The next batch, or None at the end."""
        return self._r.next()

    def read_all(self) -> Any:
        """Every remaining batch as one pyarrow Table (needs pyarrow). Ctrl-C interrupts it."""
        import pyarrow as pa

        schema = pa.schema(self._r)
        batches = [pa.record_batch(b) for b in self]
        return pa.Table.from_batches(batches, schema=schema)

    def to_polars(self) -> Any:
        """Every remaining batch as a polars DataFrame (needs polars and pyarrow)."""
        import polars as pl

        return pl.from_arrow(self.read_all())

    @property
    def stats(self) -> Dict[str, Any]:
        """The counters of the scan (``rap scan --stats``) or of the lookup (``rap lookup --stats``)."""
        return self._r.stats()

    @property
    def closed(self) -> bool:
        return bool(self._r.closed)

    def close(self) -> None:
        """Stops the scan now: cancels its reads and joins its threads (idempotent)."""
        self._r.close()

    def __enter__(self) -> "RecordBatchReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"rap.RecordBatchReader(columns={self.column_names!r}, closed={self.closed})"


def _columns(columns: Optional[Union[str, Sequence[str]]], what: str = "columns") -> Optional[List[str]]:
    if columns is None:
        return None
    if isinstance(columns, str):
        return [c.strip() for c in columns.split(",") if c.strip()]
    out = list(columns)
    for c in out:
        if not isinstance(c, str):
            raise InvalidArgument(f"{what}: expected column names (str), got {type(c).__name__}")
    return out


def scan(
    url: str,
    columns: Optional[Union[str, Sequence[str]]] = None,
    where: Optional[str] = None,
    limit: Optional[int] = None,
    version: Optional[int] = None,
    prefetch: int = 3,
    warmup: str = "raw",
    memory_limit: Union[str, int] = "2GiB",
    batch_size: Optional[int] = None,
    plan: Optional[str] = None,
    storage_options: StorageOptions = None,
    snapshot_id: Optional[int] = None,
    as_of: Optional[Union[int, str]] = None,
    location_map: Optional[Mapping[str, str]] = None,
    index: Optional[str] = None,
    no_index: bool = False,
    tag: Optional[str] = None,
) -> RecordBatchReader:
    """Scans a table (a Delta table, an Iceberg table, a folder/prefix of Parquet files, or one file), like ``rap scan``.

    url: a path, file://, http(s):// or s3:// URL. columns: output columns (a list, or "a,b");
    "s.x" selects field x of struct s. where: a filter such as
    ``"id = 5 AND name IN ('a','b') AND ts >= '2024-01-01'"``. limit: stop after N rows. version:
    Delta time travel. prefetch: producer threads per file (1: in the calling thread). warmup:
    "none", "raw" or "decoded" (prepare the next file while one is read). memory_limit: the scan's
    memory budget ("512MiB", bytes, 0 = none). batch_size: rows per batch (default 65536). plan: the
    range planning policy ("auto", "exact", "fixed:1MiB", "store"). storage_options: see
    :data:`STORAGE_OPTIONS`. Iceberg (docs/iceberg.md): snapshot_id and as_of (ms since the epoch or a
    UTC time "YYYY-MM-DD HH:MM:SS") choose the snapshot (so do they for Paimon, docs/paimon.md, and
    tag, the snapshot of a Paimon tag); location_map {OLD: NEW} reads paths the
    metadata names under OLD from NEW. index / no_index: ``where`` is answered through an index of
    the table (``<url>/_rap_index/NAME``) when one covers it — by default any that does, ``index`` picks
    one, ``no_index=True`` reads every file; the rows are the same either way, and ``stats`` says which
    index was used (``index_used``, ``index_predicate``) or why none was (``index_reason``);
    docs/scan-index.md.

    Bad arguments raise :class:`InvalidArgument` before any I/O.
    """
    return RecordBatchReader(
        _rap.scan(url, _columns(columns), where, limit, version, prefetch, warmup, memory_limit, batch_size, plan,
                  storage_options, snapshot_id, _as_of(as_of), _location_map(location_map), index, bool(no_index), tag)
    )


def _as_of(as_of: Optional[Union[int, str]]) -> Optional[str]:
    if as_of is not None and not isinstance(as_of, (int, str)) or isinstance(as_of, bool):
        raise InvalidArgument(f"as_of: expected ms since the epoch (int) or a UTC time (str), got {type(as_of).__name__}")
    return None if as_of is None else str(as_of)


def _location_map(location_map: Optional[Mapping[str, str]]) -> Optional[Dict[str, str]]:
    if location_map is not None and not isinstance(location_map, Mapping):
        raise InvalidArgument(f"location_map: expected a dict {{OLD prefix: NEW prefix}}, got {type(location_map).__name__}")
    return None if location_map is None else dict(location_map)


def _keys(keys: Any) -> Any:
    # numpy arrays (and numpy scalars in lists) become Python values; Arrow arrays pass as they are.
    if hasattr(keys, "__arrow_c_array__"):
        return keys
    tolist = getattr(keys, "tolist", None)
    if tolist is not None and type(keys).__module__.startswith("numpy"):
        return tolist()
    if hasattr(keys, "__arrow_c_stream__") and not isinstance(keys, (list, tuple)):
        import pyarrow as pa

        return pa.chunked_array(keys).combine_chunks()
    return keys


class Index:
    """A RAP index of a table (``rap index build``), for point lookups.

    ``Index.open(url)`` reads the newest manifest; :meth:`lookup` may be called from many threads at
    once (the GIL is released while it runs); :meth:`refresh` loads a newer manifest.
    """

    __slots__ = ("_i",)

    def __init__(self, inner: Any) -> None:
        self._i = inner

    @classmethod
    def open(
        cls,
        url: str,
        name: str = "default",
        storage_options: StorageOptions = None,
        data_cache: Optional[Union[str, int]] = None,
    ) -> "Index":
        """Opens the index at ``url`` (an index folder), or the index ``name`` of the table at ``url``.

        data_cache: the size of a cache of data pages decoded whole, shared by this Index's lookups
        (an int of bytes or a size such as ``"256MiB"``; default: off, as ``rap serve --data-cache 0``):
        a hot key's lookup then neither reads nor decodes its pages again. The lookup stats
        ``data_pages_decoded`` and ``data_page_cache_hits`` show it working.
        """
        return cls(_rap.Index.open(url, name, storage_options, data_cache))

    def lookup(
        self,
        keys: Any,
        columns: Optional[Union[str, Sequence[str]]] = None,
        limit_per_key: Optional[int] = None,
        page_token: Optional[Union[str, Sequence[Optional[str]]]] = None,
    ) -> Tuple[RecordBatchReader, List[Optional[str]]]:
        """Looks keys up; returns ``(reader, next_page_tokens)``.

        keys: a list of int/str/bytes (tuples for a compound key), a numpy array, or any Arrow array
        (PyCapsule ``__arrow_c_array__``; a struct array for a compound key). The reader yields the
        rows of the keys in request order (a key's rows in file and row order); columns: the output
        columns (default: all; key columns not requested come first). limit_per_key: at most N rows
        per key; ``next_page_tokens[i]`` then resumes key i (None when it is complete), passed back as
        ``page_token`` (a list, one per key; a str for one key).
        """
        inner, tokens, counts = self._i.lookup(_keys(keys), _columns(columns), limit_per_key, page_token)
        return RecordBatchReader(inner, tokens, counts), tokens

    def lookup_range(
        self,
        lo: Any = None,
        hi: Any = None,
        *,
        lo_inclusive: bool = True,
        hi_inclusive: bool = True,
        prefix: Any = None,
        columns: Optional[Union[str, Sequence[str]]] = None,
        limit: Optional[int] = None,
        page_token: Optional[str] = None,
    ) -> Tuple[RecordBatchReader, Optional[str]]:
        """The rows of every key in a range, in key order; returns ``(reader, next_page_token)``.

        lo, hi: bounds (None: open), each a value of the first key column or a tuple of the leading
        key columns' values (``(42,)`` on a (user, ts) key selects every ts of user 42); inclusive
        unless ``lo_inclusive``/``hi_inclusive`` say otherwise. prefix: instead of lo/hi, every key
        starting with it (str/bytes: byte prefix; a tuple: leading columns equal, the last a prefix).
        limit: at most N rows; ``next_page_token`` (None at the end) then resumes the same range.
        Best on a sorted index (``build_index(..., kind="sorted")``): it reads only the partitions the
        range touches; a hash index reads every fragment.
        """
        inner, token, _ = self._i.lookup_range(lo, hi, lo_inclusive, hi_inclusive, prefix, _columns(columns), limit,
                                               page_token)
        return RecordBatchReader(inner, [token], None), token

    def refresh(self) -> bool:
        """Loads a newer manifest if one was published; True when the index changed."""
        return self._i.refresh()

    def info(self) -> Dict[str, Any]:
        """The index: URLs, key columns, manifest and table versions, buckets, files, fragments,
        covered and hoisted columns, page cache counters."""
        return self._i.info()

    def __repr__(self) -> str:
        i = self.info()
        return f"rap.Index({i['index_url']!r}, key={i['key']!r}, manifest_version={i['manifest_version']})"


def lookup(
    url: str,
    keys: Any,
    columns: Optional[Union[str, Sequence[str]]] = None,
    limit_per_key: Optional[int] = None,
    page_token: Optional[Union[str, Sequence[Optional[str]]]] = None,
    name: str = "default",
    storage_options: StorageOptions = None,
) -> Tuple[RecordBatchReader, List[Optional[str]]]:
    """One-off lookup: ``Index.open(url, name, storage_options).lookup(keys, ...)``."""
    return Index.open(url, name, storage_options).lookup(keys, columns, limit_per_key, page_token)


def build_index(
    table: str,
    key: Union[str, Sequence[str]],
    *,
    index: Optional[str] = None,
    name: str = "default",
    kind: str = "hash",
    buckets: int = 1,
    cover: Optional[Union[str, Sequence[str]]] = None,
    hoist: Optional[Union[str, Sequence[str]]] = None,
    threads: int = 2,
    page_rows: int = 256,
    progress: ProgressArg = None,
    storage_options: StorageOptions = None,
    snapshot_id: Optional[int] = None,
    as_of: Optional[Union[int, str]] = None,
    location_map: Optional[Mapping[str, str]] = None,
) -> Dict[str, Any]:
    """Indexes every live file of a table (``rap index build``); returns what was written.

    key: the key column, or two (a compound key). index: the index URL (default
    ``<table>/_rap_index/<name>``). kind: "hash" (exact keys) or "sorted" (range-partitioned: also
    :meth:`Index.lookup_range`; buckets is then the number of partitions). cover: columns whose page locations go into the index; hoist:
    columns whose values go into the index. progress: None (a bar on a terminal), False, or a
    callable ``progress(done, total)``. snapshot_id / as_of / location_map: as for :func:`scan`, the
    Iceberg snapshot to index and where the metadata's paths are read from (``--snapshot``,
    ``--as-of``, ``--location-map``; docs/iceberg.md "The RAP index"); the index records the snapshot
    and the mapped paths, not the map.
    """
    return _rap.build_index(table, _columns(key, "key"), index, name, buckets, _columns(cover, "cover") or [],
                            _columns(hoist, "hoist") or [], threads, page_rows,
                            make_progress(progress, "indexing"), storage_options, kind=kind, snapshot_id=snapshot_id,
                            as_of=_as_of(as_of), location_map=_location_map(location_map))


def update_index(url: str, *, threads: int = 2, progress: ProgressArg = None,
                 storage_options: StorageOptions = None, snapshot_id: Optional[int] = None,
                 as_of: Optional[Union[int, str]] = None,
                 location_map: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    """Indexes the files added to the table since the indexed version (``rap index update``).

    snapshot_id / as_of: an Iceberg snapshot to bring the index to (default: the current one);
    location_map: as given to :func:`build_index` (it is not recorded, so give it again).
    """
    return _rap.update_index(url, threads, make_progress(progress, "indexing"), storage_options,
                             snapshot_id=snapshot_id, as_of=_as_of(as_of), location_map=_location_map(location_map))


def compact_index(url: str, *, threads: int = 2, storage_options: StorageOptions = None) -> Dict[str, Any]:
    """Merges each bucket's fragments into one (``rap index compact``)."""
    return _rap.compact_index(url, threads, storage_options)


def vacuum_index(url: str, *, retain: str = "168h", dry_run: bool = False,
                 storage_options: StorageOptions = None) -> Dict[str, Any]:
    """Deletes index files no manifest within the retention references (``rap index vacuum``)."""
    return _rap.vacuum_index(url, retain, dry_run, storage_options)


def compact(table: str, *, target_file_size: Optional[Union[str, int]] = None, min_files: int = 2,
            dry_run: bool = False, progress: ProgressArg = None,
            storage_options: StorageOptions = None) -> Dict[str, Any]:
    """Compacts a Paimon append table (``rap compact``): in each bucket with at least ``min_files``
    files under ``target_file_size`` (default: the table's ``target-file-size``, else 256 MiB), those
    files — and every file with a deletion vector, whose deleted rows are dropped — are bin-packed in
    sequence order into Parquet files of about that size (ORC inputs too), read with a prefetch
    queue of three batches and RAW warmup of the next file, and committed as a Paimon COMPACT
    snapshot.

    Returns ``snapshot_id`` (-1: nothing compacted, or ``dry_run``), ``base_snapshot_id``,
    ``buckets``, ``files_read``, ``files_written``, ``rows``, ``bytes_read``, ``bytes_written``,
    ``warmup_files``, ``warmup_bytes``, ``index_files_dropped`` (deletion-vector index files the new
    snapshot no longer lists) and ``seconds``. Primary-key tables, row tracking, non-Avro manifests,
    index types other than deletion vectors and data files neither Parquet nor ORC raise
    NotSupported; a concurrent commit of the same snapshot id raises Changed (nothing committed, the
    files written deleted again)."""
    return _rap.compact_table(table, target_file_size, min_files, dry_run, make_progress(progress, "compacting"),
                              storage_options)


def inspect(url: str, *, pages: bool = False, frames: bool = False,
            storage_options: StorageOptions = None) -> Dict[str, Any]:
    """What a Parquet file holds, from its metadata, as the dict of ``rap inspect --json``: schema,
    key-value metadata, row groups, per column chunk the codec, encodings, sizes, statistics and page
    index; ``pages=True`` adds every page header (``frames=True``: every ZSTD frame)."""
    return json.loads(_rap.inspect(url, pages, frames, storage_options))


def inspect_index(url: str, *, version: Optional[int] = None, storage_options: StorageOptions = None) -> Dict[str, Any]:
    """The index manifest as a dict (``rap index inspect --json``)."""
    return json.loads(_rap.inspect_index(url, -1 if version is None else version, storage_options))


def rewrite(
    table: Optional[str] = None,
    output: Optional[str] = None,
    *,
    key: Optional[Union[str, Sequence[str]]] = None,
    source: Any = None,
    layout: str = "frame",
    align: Optional[Union[str, int]] = None,
    buckets: int = 1,
    cogroup: bool = False,
    cover: Optional[Union[str, Sequence[str]]] = None,
    delta: bool = True,
    in_place: bool = False,
    compression: str = "zstd",
    row_group_rows: Optional[int] = None,
    page_rows: Optional[int] = None,
    memory: Union[str, int] = "512MiB",
    temp_dir: Optional[str] = None,
    threads: int = 2,
    progress: ProgressArg = None,
    storage_options: StorageOptions = None,
    index_kind: str = "hash",
    cluster_by: Optional[Union[str, Sequence[str]]] = None,
) -> Dict[str, Any]:
    """Rewrites a table for point lookups with its index built in the same pass (``rap rewrite``).

    layout: "sorted", "page", "frame", "interleaved", "blob", or "zorder": rows in the Z-order of the
    ``cluster_by`` columns (e.g. ``["x", "y"]``) for box queries pruned by page statistics, one file,
    no key and no index (``index_url`` is empty). key: required except with "zorder". cover: covered columns (default:
    every one that can be; an empty list: none). delta: write a Delta table (else a folder of
    Parquet). in_place: a new version of the input table (Delta: an OPTIMIZE commit; Iceberg v1/v2: a
    ``replace`` snapshot, its id in ``table_version``; a partitioned one rewritten partition by
    partition). index_kind: "hash" or "sorted" (the
    index is range-partitioned into ``buckets`` partitions: ranges, prefixes, ``scan(where=...)`` ranges).

    source: instead of a table URL, anything with ``__arrow_c_stream__`` (a pyarrow Table, a polars
    DataFrame, a rap reader): it is written first as one ZSTD Parquet file in a temporary folder
    (under ``temp_dir``), which is then rewritten (the rewrite's sort needs to read its input twice).
    """
    if source is not None:
        if table is not None:
            raise InvalidArgument("rewrite: give the table URL or source=, not both")
        if in_place:
            raise InvalidArgument("rewrite: in_place needs a table, not source=")
        if output is None:
            raise InvalidArgument("give the output folder (output), or in_place=True")
        import shutil
        import tempfile

        staging = tempfile.mkdtemp(prefix="rap-rewrite-source-", dir=temp_dir)
        try:
            write_parquet(source, staging + "/part-0.parquet", compression="zstd")
            return _rap.rewrite(staging, _columns(key, "key") or [], output, layout, align, buckets, cogroup,
                                _columns(cover, "cover"), delta, in_place, compression, row_group_rows, page_rows,
                                memory, temp_dir, threads, make_progress(progress, "reading"), storage_options,
                                index_kind=index_kind, cluster_by=_columns(cluster_by, "cluster_by") or [])
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    if table is None:
        raise InvalidArgument("rewrite: give the table URL (or source=)")
    return _rap.rewrite(table, _columns(key, "key") or [], output, layout, align, buckets, cogroup, _columns(cover, "cover"),
                        delta, in_place, compression, row_group_rows, page_rows, memory, temp_dir, threads,
                        make_progress(progress, "reading"), storage_options, index_kind=index_kind,
                        cluster_by=_columns(cluster_by, "cluster_by") or [])


def write_parquet(
    data: Any,
    path: str,
    *,
    row_group_rows: Optional[int] = None,
    row_group_bytes: Optional[Union[str, int]] = None,
    page_rows: Optional[int] = None,
    page_bytes: Optional[Union[str, int]] = None,
    compression: Optional[Union[str, Mapping[str, str]]] = None,
    encoding: Optional[Union[str, Mapping[str, str]]] = None,
    dictionary: bool = True,
    statistics: bool = True,
    page_break_on: Optional[Union[str, Sequence[str]]] = None,
    frame_per_key: Optional[Union[str, Sequence[str]]] = None,
    align: Optional[Union[str, int]] = None,
    interleave: bool = False,
    data_page_version: int = 1,
    page_index: bool = True,
    crc: bool = False,
    kv: Optional[Mapping[str, str]] = None,
    storage_options: StorageOptions = None,
) -> Dict[str, Any]:
    """Writes ``data`` (anything with ``__arrow_c_stream__``: a pyarrow Table or RecordBatchReader, a
    polars DataFrame, a rap reader) as one Parquet file at ``path`` (a path or URL), with the layout
    controls of ``rap convert``.

    row_group_rows / row_group_bytes, page_rows / page_bytes: row group and page limits (bytes alone
    decide when only they are given). compression: "zstd:3", "snappy", "gzip:9", "lz4_raw", "brotli",
    "none" (default, as the CLI), or a dict {column: codec} ("" = default). encoding: "plain",
    "delta", "dict", ... or a dict {column: encoding}. page_break_on: columns whose value change starts
    a page (a page per key). frame_per_key: a ZSTD frame per key (docs/layouts.md), with ``align``
    (e.g. "4KiB") and ``interleave``. kv: key-value metadata. The file appears atomically (written in
    memory, then one Put). Returns rows, row groups, pages, frames and bytes written.
    """
    return _rap.write_parquet(data, path, row_group_rows, row_group_bytes, page_rows, page_bytes, compression,
                              encoding, dictionary, statistics, _columns(page_break_on, "page_break_on") or [],
                              _columns(frame_per_key, "frame_per_key") or [], align, interleave, data_page_version,
                              page_index, crc, dict(kv or {}), storage_options)


#: The keys of ``storage_options`` and the environment variables they stand for.
STORAGE_OPTIONS: Dict[str, str] = {
    "endpoint": "AWS_ENDPOINT_URL_S3 (and AWS_ENDPOINT_URL)",
    "endpoint_url": "same as endpoint",
    "region": "AWS_REGION (and AWS_DEFAULT_REGION)",
    "access_key_id": "AWS_ACCESS_KEY_ID",
    "secret_access_key": "AWS_SECRET_ACCESS_KEY",
    "session_token": "AWS_SESSION_TOKEN",
    "profile": "AWS_PROFILE",
    "shared_credentials_file": "AWS_SHARED_CREDENTIALS_FILE",
    "config_file": "AWS_CONFIG_FILE",
    "anonymous": "RAP_S3_ANONYMOUS",
    "ca_bundle": "RAP_CA_BUNDLE",
    "ca_dir": "SSL_CERT_DIR",
    "insecure": "RAP_HTTP_INSECURE",
    "connect_timeout": "RAP_HTTP_CONNECT_TIMEOUT_S",
    "timeout": "RAP_HTTP_DEADLINE_S",
    "low_speed_time": "RAP_HTTP_LOW_SPEED_TIME_S",
    "max_attempts": "RAP_HTTP_MAX_ATTEMPTS",
    "max_concurrency": "RAP_HTTP_MAX_CONCURRENCY",
    "hedge": "RAP_HTTP_HEDGE",
}
