"""Every valid file of parquet-testing/data and every table of delta-tables, read by rap.scan and
handed to pyarrow through the PyCapsule stream, equals pyarrow's own reading (deltalake's for Delta):
type for type, value for value, null for null.

Files that rap refuses on purpose are the C++ conformance test's (tests/read/conformance_test.cc):
encrypted files (NotSupported), the two corrupt-checksum files and the malformed dictionary (Corrupt),
and large_string_map.brotli.parquet (two 1 GiB strings: ResourceExhausted under the default limits).
"""

from __future__ import annotations

import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rap

from conftest import shared_dir

# Files whose name does not end in .parquet are no table to rap.scan (a URL names a Parquet object by
# that suffix); rap.inspect reads their footer magic and says NotSupported, as the C++ test's FileReader.
ENCRYPTED_SUFFIX = ".parquet.encrypted"

EXPECTED_ERRORS = {
    "datapage_v1-corrupt-checksum.parquet": (rap.Corrupt, "checksum mismatch"),
    "rle-dict-uncompressed-corrupt-checksum.parquet": (rap.Corrupt, "checksum mismatch"),
    "nation.dict-malformed.parquet": (rap.Corrupt, "runs past the end of the column chunk"),
    "large_string_map.brotli.parquet": (rap.ResourceExhausted, "more than the limit"),
}

# Where rap's Arrow type legitimately differs from pyarrow's reading of the same file, per file and
# column: (rap's type, pyarrow's type, why). The values are compared after casting pyarrow's column to
# rap's type, which must be lossless (checked: the cast back equals pyarrow's column).
TYPE_EXCEPTIONS: dict[str, dict[str, tuple[str, str, str]]] = {}

# Values that legitimately differ, per file and column: (rows, why). Those rows are compared for
# nullness only; every other row value for value.
VALUE_EXCEPTIONS: dict[str, dict[str, tuple[list[int], str]]] = {
    "int96_from_spark.parquet": {
        "a": ([5], "row 5 is 361,746,257,437,964 s after the epoch (year ~11.5 million), outside timestamp[ns]'s "
                   "int64 range: pyarrow returns it modulo 2^64 (5606152519850745856), rap another wrapped value "
                   "(-4864435138808946688); neither is the instant"),
    },
}

# Files pyarrow cannot read: the exception pyarrow raises (so this test notices when it starts
# reading them) and rap's row count, checked against the footer's num_rows.
PYARROW_REFUSES = {
    "incorrect_map_schema.parquet": "Map keys must be annotated as required",
}


def data_files() -> list[pathlib.Path]:
    root = shared_dir() / "parquet-testing" / "data"
    return sorted(p for p in root.rglob("*") if p.is_file() and (p.name.endswith(".parquet") or p.name.endswith(".parquet.encrypted")))


def _ids(paths):
    return [str(p.relative_to(shared_dir() / "parquet-testing" / "data")) for p in paths]


FILES = data_files()


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_parquet_testing_file_equals_pyarrow(path: pathlib.Path) -> None:
    name = path.name
    if name.endswith(ENCRYPTED_SUFFIX):
        with pytest.raises(rap.NotFound, match="no Parquet files found"):
            rap.scan(str(path))
        with pytest.raises(rap.NotSupported, match="encrypted Parquet is not supported"):
            rap.inspect(str(path))
        return
    if name in EXPECTED_ERRORS:
        cls, text = EXPECTED_ERRORS[name]
        # Through rap's own iteration: the rap.Error class; through pyarrow's stream import: pyarrow's
        # exception carrying rap's message (the stream's get_last_error).
        with pytest.raises(cls) as e:
            rap.scan(str(path)).read_all()
        assert text in str(e.value) and name in str(e.value), str(e.value)
        with pytest.raises(Exception, match=text):
            pa.table(rap.scan(str(path)))
        return
    got = pa.table(rap.scan(str(path)))
    if name in PYARROW_REFUSES:
        with pytest.raises(pa.ArrowInvalid, match=PYARROW_REFUSES[name]):
            pq.read_table(path)
        assert got.num_rows == rap.inspect(str(path))["num_rows"]
        return
    want = pq.read_table(path)
    assert_tables_equal(got, want, TYPE_EXCEPTIONS.get(name, {}), str(path), VALUE_EXCEPTIONS.get(name, {}))


def assert_tables_equal(got: pa.Table, want: pa.Table, exceptions: dict, what: str, value_exceptions=None) -> None:
    assert got.column_names == want.column_names, what
    assert got.num_rows == want.num_rows, what
    for name in got.column_names:
        g, w = got.column(name), want.column(name)
        if name in exceptions:
            rap_type, pa_type, _why = exceptions[name]
            assert str(g.type) == rap_type and str(w.type) == pa_type, (what, name, g.type, w.type)
            w2 = w.cast(g.type)
            assert w2.cast(w.type).equals(w), (what, name, "the documented cast is lossy")
            w = w2
        else:
            assert g.type == w.type, f"{what}: column {name}: rap {g.type}, pyarrow {w.type}"
        assert g.null_count == w.null_count, (what, name)
        if value_exceptions and name in value_exceptions:
            rows, _why = value_exceptions[name]
            keep = pa.array([i not in rows for i in range(len(g))])
            for i in rows:
                assert g[i].is_valid == w[i].is_valid, (what, name, i)
            g, w = g.filter(keep), w.filter(keep)
        assert g.equals(w) or _equal_with_nan(g, w), f"{what}: column {name} values differ"


def _equal_with_nan(g, w) -> bool:
    import math

    def norm(v):
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        if isinstance(v, list):
            return [norm(x) for x in v]
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        if isinstance(v, tuple):
            return tuple(norm(x) for x in v)
        return v

    return norm(g.to_pylist()) == norm(w.to_pylist())


def delta_tables() -> list[pathlib.Path]:
    root = shared_dir() / "delta-tables"
    return sorted(p for p in root.iterdir() if (p / "_delta_log").is_dir())


DELTA = delta_tables()

# Delta tables whose types differ between rap and deltalake, per table and column: (rap, deltalake, why).
DELTA_TYPE_EXCEPTIONS: dict[str, dict[str, tuple[str, str, str]]] = {}

# Tables deltalake refuses (the reader feature it names); rap's reading of them is checked value by
# value by the C++ suite (tests/table/, docs/delta.md). Here: deltalake still refuses (else compare),
# and rap reads the table to its end.
DELTALAKE_REFUSES = {
    "checkpoint-v2-table": "v2Checkpoint",
    "table-with-dv-small": "deletionVectors",
    "table_with_deletion_logs": "deletionVectors",
    "type-widening": "typeWidening",
}

# Column mapping `name`: deltalake reads NULL for `Super Name` (physical name col-3877fd94-...) though
# every data file holds values there; the reference is then pyarrow reading the data files that
# deltalake lists, each physical column renamed to its logical name.
DELTALAKE_WRONG = {"table_with_column_mapping"}


def _delta_by_physical_names(path: pathlib.Path) -> pa.Table:
    import deltalake

    dt = deltalake.DeltaTable(str(path))
    fields = dt.schema().fields
    names = {f.metadata.get("delta.columnMapping.physicalName", f.name): f.name for f in fields}
    adds = pa.table(dt.get_add_actions(flatten=True)).to_pylist()
    parts = []
    for add in adds:
        t = pq.read_table(path / add["path"])
        t = t.rename_columns([names.get(n, n) for n in t.column_names])
        for k, v in add.items():
            if k.startswith("partition."):
                t = t.append_column(k.removeprefix("partition."), pa.array([v] * t.num_rows, pa.string()))
        parts.append(t.select([f.name for f in fields]))
    return pa.concat_tables(parts)


def _rows(t: pa.Table) -> list:
    return sorted((repr(r) for r in t.to_pylist()))


@pytest.mark.parametrize("path", DELTA, ids=[p.name for p in DELTA])
def test_delta_table_equals_deltalake(path: pathlib.Path) -> None:
    import deltalake

    got = pa.table(rap.scan(str(path)))
    if path.name in DELTALAKE_REFUSES:
        with pytest.raises(Exception, match=DELTALAKE_REFUSES[path.name]):
            deltalake.DeltaTable(str(path)).to_pyarrow_table()
        assert got.num_rows > 0
        return
    if path.name in DELTALAKE_WRONG:
        assert deltalake.DeltaTable(str(path)).to_pyarrow_table().column("Super Name").null_count == got.num_rows
        want = _delta_by_physical_names(path)
    else:
        want = pa.table(deltalake.DeltaTable(str(path)).to_pyarrow_table())
    exceptions = DELTA_TYPE_EXCEPTIONS.get(path.name, {})
    assert got.column_names == want.column_names
    cols = {}
    for name in got.column_names:
        g, w = got.column(name), want.column(name)
        if name in exceptions:
            rap_type, dl_type, _why = exceptions[name]
            assert str(g.type) == rap_type and str(w.type) == dl_type, (name, g.type, w.type)
            w = w.cast(g.type)
        else:
            assert g.type == w.type, f"{path.name}: column {name}: rap {g.type}, deltalake {w.type}"
        assert g.null_count == w.null_count, name
        cols[name] = w
    # Row order: rap reads files in path order, deltalake in log order; compare the rows as multisets.
    assert got.num_rows == want.num_rows
    assert _rows(got) == _rows(pa.table(cols))
