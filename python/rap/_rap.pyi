# Type stub of the nanobind extension rap._rap (python/src/*.cc). The public API is rap/__init__.py.
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

_StorageOptions = Optional[Mapping[str, Union[str, bool, int, float, None]]]
_Progress = Optional[Callable[[int, int], None]]

class Batch:
    @property
    def num_rows(self) -> int: ...
    @property
    def num_columns(self) -> int: ...
    @property
    def column_names(self) -> List[str]: ...
    def __arrow_c_schema__(self) -> object: ...
    def __arrow_c_array__(self, requested_schema: object = None) -> Tuple[object, object]: ...

class Reader:
    def next(self) -> Optional[Batch]: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def column_names(self) -> List[str]: ...
    def stats(self) -> Dict[str, Any]: ...
    def __arrow_c_schema__(self) -> object: ...
    def __arrow_c_stream__(self, requested_schema: object = None) -> object: ...

class Index:
    @staticmethod
    def open(url: str, name: str = "default", storage_options: _StorageOptions = None,
             data_cache: Optional[Union[str, int]] = None) -> Index: ...
    def lookup(
        self,
        keys: Any,
        columns: Optional[Sequence[str]] = None,
        limit_per_key: Optional[int] = None,
        page_token: Optional[Union[str, Sequence[Optional[str]]]] = None,
    ) -> Tuple[Reader, List[Optional[str]], List[int]]: ...
    def lookup_range(
        self,
        lo: Any = None,
        hi: Any = None,
        lo_inclusive: bool = True,
        hi_inclusive: bool = True,
        prefix: Any = None,
        columns: Optional[Sequence[str]] = None,
        limit: Optional[int] = None,
        page_token: Optional[str] = None,
    ) -> Tuple[Reader, Optional[str], int]: ...
    def refresh(self) -> bool: ...
    def info(self) -> Dict[str, Any]: ...

def scan(
    url: str,
    columns: Optional[Sequence[str]] = None,
    where: Optional[str] = None,
    limit: Optional[int] = None,
    version: Optional[int] = None,
    prefetch: int = 3,
    warmup: str = "raw",
    memory_limit: Union[str, int] = "2GiB",
    batch_size: Optional[int] = None,
    plan: Optional[str] = None,
    storage_options: _StorageOptions = None,
    snapshot_id: Optional[int] = None,
    as_of: Optional[str] = None,
    location_map: Optional[Dict[str, str]] = None,
    index: Optional[str] = None,
    no_index: bool = False,
    tag: Optional[str] = None,
) -> Reader: ...
def build_index(
    table: str,
    key: Sequence[str],
    index: Optional[str] = None,
    name: str = "default",
    buckets: int = 1,
    cover: Sequence[str] = ...,
    hoist: Sequence[str] = ...,
    threads: int = 2,
    page_rows: int = 256,
    progress: _Progress = None,
    storage_options: _StorageOptions = None,
    kind: str = "hash",
    snapshot_id: Optional[int] = None,
    as_of: Optional[str] = None,
    location_map: Optional[Dict[str, str]] = None,
) -> Dict[str, Any]: ...
# Distributed builds (rap.spark.build_index): the plan is a dict of plain values, a part its manifest JSON.
def plan_build(table: str, key: Sequence[str], index: Optional[str] = None, name: str = "default",
               storage_options: _StorageOptions = None) -> Dict[str, Any]: ...
def build_part(table: str, plan: Dict[str, Any], ordinals: Sequence[int], token: str, key: Sequence[str],
               buckets: int = 1, cover: Sequence[str] = ..., hoist: Sequence[str] = ..., threads: int = 2,
               page_rows: int = 256, storage_options: _StorageOptions = None) -> str: ...
def commit_build(plan: Dict[str, Any], parts: Sequence[Tuple[str, Sequence[int]]],
                 storage_options: _StorageOptions = None) -> Dict[str, Any]: ...
def plan_update(index: str, name: str = "default", storage_options: _StorageOptions = None) -> Dict[str, Any]: ...
def commit_update(plan: Dict[str, Any], parts: Sequence[Tuple[str, Sequence[int]]],
                  storage_options: _StorageOptions = None) -> Dict[str, Any]: ...
# Distributed rewrites (rap.spark.rewrite): options and job are dicts of plain values (docs/spark.md).
def plan_rewrite(table: str, output: str, options: Dict[str, Any],
                 storage_options: _StorageOptions = None) -> Dict[str, Any]: ...
def count_rewrite_buckets(job: Dict[str, Any], options: Dict[str, Any], ordinals: Sequence[int],
                          storage_options: _StorageOptions = None) -> List[Tuple[int, int]]: ...
def read_rewrite_rows(job: Dict[str, Any], options: Dict[str, Any], ordinals: Sequence[int],
                      storage_options: _StorageOptions = None) -> Reader: ...
def write_rewrite_part(job: Dict[str, Any], options: Dict[str, Any], ordinal_of_bucket: Sequence[int], token: str,
                       rows: Any, storage_options: _StorageOptions = None) -> Dict[str, Any]: ...
def commit_rewrite(job: Dict[str, Any], options: Dict[str, Any], tasks: Sequence[Dict[str, Any]],
                   storage_options: _StorageOptions = None) -> Dict[str, Any]: ...
def update_index(url: str, threads: int = 2, progress: _Progress = None, storage_options: _StorageOptions = None,
                 snapshot_id: Optional[int] = None, as_of: Optional[str] = None,
                 location_map: Optional[Dict[str, str]] = None) -> Dict[str, Any]: ...
def compact_index(url: str, threads: int = 2, storage_options: _StorageOptions = None) -> Dict[str, Any]: ...
def vacuum_index(url: str, retain: str = "168h", dry_run: bool = False, storage_options: _StorageOptions = None) -> Dict[str, Any]: ...
def inspect(url: str, pages: bool = False, frames: bool = False, storage_options: _StorageOptions = None) -> str: ...
def inspect_index(url: str, version: int = -1, storage_options: _StorageOptions = None) -> str: ...
def rewrite(
    table: str,
    key: Sequence[str],
    output: Optional[str] = None,
    layout: str = "frame",
    align: Optional[Union[str, int]] = None,
    buckets: int = 1,
    cogroup: bool = False,
    cover: Optional[Sequence[str]] = None,
    delta: bool = True,
    in_place: bool = False,
    compression: str = "zstd",
    row_group_rows: Optional[int] = None,
    page_rows: Optional[int] = None,
    memory: Union[str, int] = "512MiB",
    temp_dir: Optional[str] = None,
    threads: int = 2,
    progress: _Progress = None,
    storage_options: _StorageOptions = None,
    index_kind: str = "hash",
    cluster_by: Sequence[str] = ...,
) -> Dict[str, Any]: ...
def write_parquet(
    data: Any,
    url: str,
    row_group_rows: Optional[int] = None,
    row_group_bytes: Optional[Union[str, int]] = None,
    page_rows: Optional[int] = None,
    page_bytes: Optional[Union[str, int]] = None,
    compression: Optional[Union[str, Mapping[str, str]]] = None,
    encoding: Optional[Union[str, Mapping[str, str]]] = None,
    dictionary: bool = True,
    statistics: bool = True,
    page_break_on: Sequence[str] = ...,
    frame_per_key: Sequence[str] = ...,
    align: Optional[Union[str, int]] = None,
    interleave: bool = False,
    data_page_version: int = 1,
    page_index: bool = True,
    crc: bool = False,
    kv: Mapping[str, str] = ...,
    storage_options: _StorageOptions = None,
) -> Dict[str, Any]: ...
