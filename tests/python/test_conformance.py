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


def data_files() -> list[pathlib.Path]:
    root = shared_dir() / "parquet-testing" / "data"
    return sorted(p for p in root.rglob("*") if p.is_file() and (p.name.endswith(".parquet") or p.name.endswith(".parquet.encrypted")))


def _ids(paths):
    return [str(p.relative_to(shared_dir() / "parquet-testing" / "data")) for p in paths]


FILES = data_files()


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_parquet_testing_file_equals_pyarrow(path: pathlib.Path) -> None:
    name = path.name
    if name.endswith(".parquet.encrypted"):
        with pytest.raises(rap.NotSupported, match="encrypted Parquet is not supported"):
            pa.table(rap.scan(str(path)))
        return
    if name in EXPECTED_ERRORS:
        cls, text = EXPECTED_ERRORS[name]
        with pytest.raises(cls) as e:
            pa.table(rap.scan(str(path)))
        assert text in str(e.value) and name in str(e.value), str(e.value)
        return
    got = pa.table(rap.scan(str(path)))
    want = pq.read_table(path)
    assert_tables_equal(got, want, TYPE_EXCEPTIONS.get(name, {}), str(path))


def assert_tables_equal(got: pa.Table, want: pa.Table, exceptions: dict, what: str) -> None:
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
        assert g.to_pylist() == w.to_pylist() or _equal_with_nan(g, w), f"{what}: column {name} values differ"


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


def _rows(t: pa.Table) -> list:
    return sorted((repr(r) for r in t.to_pylist()))


@pytest.mark.parametrize("path", DELTA, ids=[p.name for p in DELTA])
def test_delta_table_equals_deltalake(path: pathlib.Path) -> None:
    import deltalake

    want = pa.table(deltalake.DeltaTable(str(path)).to_pyarrow_table())
    got = pa.table(rap.scan(str(path)))
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
