"""Paimon tables written by pypaimon read by rap.scan, every value compared with pypaimon's own
reading of the same snapshot (docs/paimon.md): a partitioned, bucketed primary-key table of five
commits (five sorted runs per bucket, updates and deletes of the same keys across runs, a deleted
key inserted again) at every snapshot; a first-row table; a composite key of three columns over
many types; append tables partitioned without buckets and bucketed by a key; ORC data files.

pypaimon pins a pyarrow older than the project's, so it lives in its own virtual environment
(scripts/install-paimon-venv.sh, requirements-paimon.txt): tests/python/paimon_writer.py runs there,
writes the tables and pypaimon's readings as Parquet files, and this test compares them with rap's.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rap

REPO = pathlib.Path(__file__).resolve().parents[2]


def paimon_python() -> pathlib.Path:
    env = os.environ.get("RAP_PAIMON_PYTHON")
    if env:
        return pathlib.Path(env)
    for root in (REPO, pathlib.Path("/work/main")):
        p = root / ".venv-paimon" / "bin" / "python"
        if p.exists():
            return p
    return REPO / ".venv-paimon" / "bin" / "python"


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> list:
    python = paimon_python()
    if not python.exists():
        pytest.fail(f"{python}: no Paimon virtual environment; run scripts/install-paimon-venv.sh")
    out = tmp_path_factory.mktemp("paimon")
    subprocess.run([str(python), str(REPO / "tests" / "python" / "paimon_writer.py"), str(out)], check=True,
                   timeout=300)
    return json.loads((out / "cases.json").read_text())


def rows(table: pa.Table, keys: list) -> list:
    keys = [k for k in keys if k in table.column_names]  # a key column may be renamed in older snapshots
    return sorted(table.sort_by([(k, "ascending") for k in keys]).to_pylist(), key=repr)


def test_every_table_and_snapshot_reads_as_pypaimon_reads_it(written) -> None:
    checked = set()
    for case in written:
        if case["expected"] is None:
            continue
        expected = pq.read_table(case["expected"])
        got = pa.table(rap.scan(case["path"], snapshot_id=case["snapshot"], tag=case.get("tag")))
        what = f"{case['table']} snapshot {case['snapshot']} tag {case.get('tag')}"
        assert got.column_names == expected.column_names, what
        assert got.num_rows == expected.num_rows, what
        for name in expected.column_names:
            assert got.schema.field(name).type == expected.schema.field(name).type, (what, name)
        assert rows(got, case["keys"]) == rows(expected, case["keys"]), what
        checked.add(case["table"])
    assert checked == {"pk_multi", "pk_first_row", "pk_types", "append_parts", "append_bucketed", "append_orc",
                       "pk_orc", "evolve_pk", "evolve_append_orc", "dv_append", "pk_dv_level0",
                       "pk_dv_merge_on_read", "pk_index", "compact_bucketed", "compact_parts"}


def test_primary_key_table_is_merged_not_listed(written) -> None:
    case = next(c for c in written if c["table"] == "pk_multi" and c["snapshot"] is None)
    path = pathlib.Path(case["path"])
    in_files = sum(pq.ParquetFile(f).metadata.num_rows for f in path.glob("p=*/bucket-*/*.parquet"))
    merged = pa.table(rap.scan(str(path)))
    assert merged.num_rows == pq.read_table(case["expected"]).num_rows == 32
    assert in_files > merged.num_rows  # superseded and deleted versions are in the files
    # A deleted key inserted again is there with its new value; a key deleted last is not.
    ks = dict(zip(merged.column("k").to_pylist(), merged.column("v").to_pylist()))
    assert ks[8] == "w8" and ks[40] == "w40"
    assert 4 not in ks and 1 not in ks and 11 not in ks
    assert ks[5] == "x5" and ks[3] == "u3"


def test_filters_and_projection_on_a_merged_table(written) -> None:
    case = next(c for c in written if c["table"] == "pk_multi" and c["snapshot"] is None)
    expected = pq.read_table(case["expected"])
    want = sorted(r["k"] for r in expected.to_pylist() if r["p"] == "a" and r["k"] > 10)
    got = pa.table(rap.scan(case["path"], columns=["k"], where="p = 'a' AND k > 10"))
    assert sorted(got.column("k").to_pylist()) == want


def test_orc_primary_key_table_is_merged(written) -> None:
    case = next(c for c in written if c["table"] == "pk_orc" and c["snapshot"] is None)
    path = pathlib.Path(case["path"])
    orc_files = list(path.glob("p=*/bucket-*/*.orc"))
    assert orc_files and not list(path.glob("p=*/bucket-*/*.parquet"))
    merged = pa.table(rap.scan(str(path)))
    expected = pq.read_table(case["expected"])
    assert merged.num_rows == expected.num_rows
    ks = {(r["name"], r["id"]): r["v"] for r in merged.to_pylist()}
    assert len(ks) == merged.num_rows  # one row per key
    assert ks[("n0", 0)] == "c0" and ks[("n3", 3)] == "b3" and ks[("n2", 2)] == "a2"
    assert ("n4", 4) not in ks and ("n1", 1) not in ks and ("n3", 13) not in ks
    info = rap.scan(str(path), columns=["id"], where="p = 'b' AND id > 20")
    want = sorted(r["id"] for r in expected.to_pylist() if r["p"] == "b" and r["id"] > 20)
    assert sorted(pa.table(info).column("id").to_pylist()) == want


def test_schema_evolution_matches_columns_by_field_id(written) -> None:
    for table in ("evolve_pk", "evolve_append_orc"):
        case = next(c for c in written if c["table"] == table and c["snapshot"] is None)
        got = pa.table(rap.scan(case["path"]))
        assert got.column_names == ["id", "a2", "e", "c"], table
        by_id = {}
        for r in got.to_pylist():
            by_id.setdefault(r["id"], []).append(r)
        # Written under schema 0: "a" renamed to "a2" is read, "e" added later and "c" dropped and
        # added again (a new field id) are NULL.
        assert {"id": 3, "a2": "a3", "e": None, "c": None} in by_id[3], table
        assert {"id": 12, "a2": "r12", "e": "e12", "c": None} in by_id[12], table
        assert {"id": 27, "a2": "z27", "e": None, "c": "c27"} in by_id[27], table
        # A filter on a renamed column finds the rows of the files that still call it "a".
        sel = pa.table(rap.scan(case["path"], columns=["id"], where="a2 = 'a5'"))
        assert sel.column("id").to_pylist() == [5], table


def test_column_type_change_is_refused(written) -> None:
    case = next(c for c in written if c["table"] == "evolve_type")
    with pytest.raises(rap.NotSupported, match="does not convert column types"):
        pa.table(rap.scan(case["path"]))


def test_deletion_vectors_of_a_data_evolution_table(written) -> None:
    case = next(c for c in written if c["table"] == "dv_append" and c["snapshot"] is None)
    path = pathlib.Path(case["path"])
    assert list((path / "index").iterdir())  # deletion-vector index files
    got = sorted(pa.table(rap.scan(str(path))).column("id").to_pylist())
    assert got == sorted(pq.read_table(case["expected"]).column("id").to_pylist())
    assert not {0, 5, 11, 45, 46, 69, 75} & set(got) and {6, 10, 12, 44, 47, 70, 79} <= set(got)
    # Before any delete: every row.
    assert len(pa.table(rap.scan(str(path), snapshot_id=2))) == 70


def test_primary_key_table_with_deletion_vectors_skips_level_0(written) -> None:
    level0 = next(c for c in written if c["table"] == "pk_dv_level0" and c["snapshot"] is None)
    assert len(pq.read_table(level0["expected"])) == 0  # pypaimon's reading: nothing compacted yet
    assert len(pa.table(rap.scan(level0["path"]))) == 0
    mor = next(c for c in written if c["table"] == "pk_dv_merge_on_read" and c["snapshot"] is None)
    got = pa.table(rap.scan(mor["path"]))
    assert len(got) == 30 and dict(zip(got.column("id").to_pylist(), got.column("v").to_pylist()))[15] == "b15"


def test_time_travel_by_tag(written) -> None:
    case = next(c for c in written if c.get("tag") == "before_last")
    by_tag = pa.table(rap.scan(case["path"], tag="before_last"))
    assert rows(by_tag, ["k"]) == rows(pa.table(rap.scan(case["path"], snapshot_id=3)), ["k"])
    assert rows(by_tag, ["k"]) != rows(pa.table(rap.scan(case["path"])), ["k"])
    with pytest.raises(rap.NotFound, match="tag 'nope' does not exist"):
        rap.scan(case["path"], tag="nope")
    with pytest.raises(rap.InvalidArgument, match="not at two of them"):
        rap.scan(case["path"], tag="before_last", snapshot_id=2)
    other = next(c for c in written if c["table"] == "append_parts")
    with pytest.raises(rap.InvalidArgument, match="not a Paimon tag name"):
        rap.scan(other["path"], tag="../x")


def test_a_tag_on_a_table_that_is_not_paimon_is_refused(tmp_path) -> None:
    pq.write_table(pa.table({"a": [1, 2]}), tmp_path / "x.parquet")
    with pytest.raises(rap.InvalidArgument, match="not a Paimon table"):
        rap.scan(str(tmp_path), tag="t1")


def merged_by_key(path: str) -> dict:
    return {r["id"]: r for r in pa.table(rap.scan(path)).to_pylist()}


def looked_up(path: str, keys: list) -> dict:
    reader, _ = rap.lookup(path, keys)
    got = pa.table(reader).to_pylist()
    by_key = {}
    for r in got:
        assert r["id"] not in by_key, r  # one row per key: the merged, latest version
        by_key[r["id"]] = r
    return by_key


def test_index_on_a_primary_key_table_returns_the_merged_rows(written, tmp_path) -> None:
    # The RAP index keyed by the primary key: a lookup of every key (present, deleted, never written)
    # returns what the merge-on-read scan has for it, and `update_index` follows new commits (new
    # level-0 files supersede older versions of a key, -D rows remove it, a removed key comes back).
    case = next(c for c in written if c["table"] == "pk_index")
    path = case["path"]
    keys = list(range(-2, 75))
    rap.build_index(path, "id", progress=False)
    want = merged_by_key(path)
    assert want == {r["id"]: r for r in pq.read_table(case["expected"]).to_pylist()}  # pypaimon's reading
    assert len(want) == 53 and 1 not in want and 10 not in want and want[4]["v"] == "u4"
    assert looked_up(path, keys) == want
    assert list(pa.table(rap.lookup(path, [8])[0]).column_names) == ["id", "p", "v", "op"]

    def p(i):
        return "a" if i % 3 else "b"

    rows = ([{"id": i, "p": p(i), "v": f"w{i}", "op": "+U"} for i in range(0, 70, 5)] +
            [{"id": i, "p": p(i), "v": None, "op": "-D"} for i in (2, 3, 8, 20)] +
            [{"id": 10, "p": p(10), "v": "back10", "op": "+I"}])
    doc = tmp_path / "rows.json"
    doc.write_text(json.dumps({"schema": [["id", "int64"], ["p", "string"], ["v", "string"], ["op", "string"]],
                               "rows": rows}))
    subprocess.run([str(paimon_python()), str(REPO / "tests" / "python" / "paimon_writer.py"), "commit",
                    str(pathlib.Path(path).parents[1]), "pk_index", str(doc), str(tmp_path / "after.parquet")],
                   check=True, timeout=120)
    stale = looked_up(path, keys)
    assert stale == want  # the index is at the snapshot it was built on until it is updated
    result = rap.update_index(path, progress=False)
    assert result["changed"] and result["table_version"] == 3 and result["added_files"] > 0
    assert result["deletion_vectors_changed"] > 0  # older files' superseded rows, as inline vectors
    want = merged_by_key(path)
    assert want == {r["id"]: r for r in pq.read_table(tmp_path / "after.parquet").to_pylist()}
    assert want[10]["v"] == "back10" and 3 not in want and want[65]["v"] == "w65" and want[5]["v"] == "w5"
    assert looked_up(path, keys) == want


def test_index_refuses_files_of_an_older_schema(written, tmp_path) -> None:
    import shutil
    case = next(c for c in written if c["table"] == "evolve_pk" and c["snapshot"] is None)
    copy = tmp_path / "evolve_pk"
    shutil.copytree(case["path"], copy)
    with pytest.raises(rap.NotSupported, match="older schema"):
        rap.build_index(str(copy), "id", progress=False)
    assert not (copy / "_rap_index").exists()


def test_a_damaged_deletion_vector_is_an_error_naming_the_index_file(written, tmp_path) -> None:
    import shutil
    case = next(c for c in written if c["table"] == "dv_append" and c["snapshot"] is None)
    copy = tmp_path / "dv_append"
    shutil.copytree(case["path"], copy)
    snapshot = json.loads((copy / "snapshot" / "snapshot-6").read_text())
    assert snapshot["indexManifest"]
    for index_file in (copy / "index").iterdir():
        data = bytearray(index_file.read_bytes())
        data[-1] ^= 0xFF  # the last vector's CRC
        index_file.write_bytes(bytes(data))
    # The vectors are loaded when the scan reaches their bucket: the error comes from the read, as
    # rap's own class (an Arrow C stream consumer such as pyarrow.table gets an OSError carrying it).
    with pytest.raises(rap.Corrupt, match=r"index/index-.*CRC-32 mismatch at byte offset"):
        rap.scan(str(copy)).read_all()
    with pytest.raises(OSError, match=r"Corrupt: .*index/index-.*CRC-32 mismatch at byte offset"):
        pa.table(rap.scan(str(copy)))
    for index_file in (copy / "index").iterdir():
        index_file.unlink()
    with pytest.raises(rap.NotFound, match=r"index file .*index/index-"):
        rap.scan(str(copy)).read_all()


def pypaimon_reading(warehouse: pathlib.Path, name: str, out: pathlib.Path) -> tuple[pa.Table, list]:
    """pypaimon's reading of db.NAME's latest snapshot and its data file names."""
    r = subprocess.run([str(paimon_python()), str(REPO / "tests" / "python" / "paimon_writer.py"), "read",
                        str(warehouse), name, str(out)], check=True, timeout=300, capture_output=True, text=True)
    return pq.read_table(out), json.loads(r.stdout.strip().splitlines()[-1])["files"]


@pytest.mark.parametrize("name", ["compact_bucketed", "compact_parts"])
def test_compact_append_table_read_by_pypaimon(written, tmp_path, name) -> None:
    """rap.compact of a pypaimon append table (bucketed: six commits; partitioned, bucket -1, a NULL
    partition, files of two schemas after a rename): a COMPACT snapshot that pypaimon reads with the
    rows it read before, from rap's files where it compacted; rap.scan agrees; a second run finds
    nothing to do; a dry run writes nothing."""
    import shutil

    case = next(c for c in written if c["table"] == name and c["snapshot"] is None)
    warehouse = tmp_path / "warehouse"
    path = warehouse / "db.db" / name
    shutil.copytree(case["path"], path)
    expected = pq.read_table(case["expected"])
    before_files = sorted(p.name for p in path.rglob("data-*"))

    dry = rap.compact(str(path), dry_run=True)
    assert dry["snapshot_id"] == -1 and dry["files_read"] >= 4
    assert sorted(p.name for p in path.rglob("data-*")) == before_files
    assert not (path / "snapshot" / f"snapshot-{dry['base_snapshot_id'] + 1}").exists()

    r = rap.compact(str(path))
    assert r["snapshot_id"] == r["base_snapshot_id"] + 1
    assert r["files_read"] == dry["files_read"] and r["files_written"] == dry["files_written"]
    assert r["files_written"] < r["files_read"]
    assert 0 < r["rows"] <= len(expected)
    assert r["warmup_files"] >= r["files_read"] - r["files_written"]  # every input but each bin's first warmed
    snapshot = json.loads((path / "snapshot" / f"snapshot-{r['snapshot_id']}").read_text())
    assert snapshot["commitKind"] == "COMPACT"
    assert (path / "snapshot" / "LATEST").read_text().strip() == str(r["snapshot_id"])

    got, files = pypaimon_reading(warehouse, name, tmp_path / "after.parquet")
    assert rows(got, case["keys"]) == rows(expected, case["keys"])
    assert len(files) == len(before_files) - r["files_read"] + r["files_written"]
    new_files = set(files) - set(before_files)
    assert len(new_files) == r["files_written"]
    assert rows(pa.table(rap.scan(str(path))), case["keys"]) == rows(expected, case["keys"])

    again = rap.compact(str(path))
    assert again["snapshot_id"] == -1 and again["files_read"] == 0


def compacted_orc_copy(written, warehouse: pathlib.Path, name: str) -> tuple[dict, list, dict]:
    """A copy of pypaimon's ORC append table NAME under WAREHOUSE/db.db, compacted by rap.compact:
    (its case, its ORC files before, rap.compact's result)."""
    import shutil

    case = next(c for c in written if c["table"] == name and c["snapshot"] is None)
    path = warehouse / "db.db" / name
    shutil.copytree(case["path"], path)
    orc_before = sorted(p.name for p in path.rglob("data-*.orc"))
    assert orc_before and not list(path.rglob("data-*.parquet"))
    r = rap.compact(str(path))
    assert r["snapshot_id"] == r["base_snapshot_id"] + 1
    assert r["files_written"] < r["files_read"] <= len(orc_before)
    return case, orc_before, r


def test_compact_orc_append_tables_read_by_pypaimon(written, tmp_path) -> None:
    """rap.compact of pypaimon's ORC append tables (file.format orc; one with a renamed and an added
    column across its files): rap reads the ORC files and writes Parquet, and pypaimon reads the
    COMPACT snapshot's mix of ORC and Parquet files with the rows it read before; rap.scan agrees."""
    warehouse = tmp_path / "warehouse"
    for name in ("append_orc", "evolve_append_orc"):
        case, orc_before, r = compacted_orc_copy(written, warehouse, name)
        expected = pq.read_table(case["expected"])
        got, files = pypaimon_reading(warehouse, name, tmp_path / f"{name}.parquet")
        assert rows(got, case["keys"]) == rows(expected, case["keys"])
        new_files = set(files) - set(orc_before)
        assert len(new_files) == r["files_written"] and all(f.endswith(".parquet") for f in new_files)
        assert len(files) == len(orc_before) - r["files_read"] + r["files_written"]
        path = warehouse / "db.db" / name
        assert rows(pa.table(rap.scan(str(path))), case["keys"]) == rows(expected, case["keys"])


# Java under Spark: left to the release run, as the Spark test modules are (scripts/test.sh): under
# the Python sanitizer run the JVM would inherit the preloaded ASan runtime (it hung there).
@pytest.mark.skipif(bool(os.environ.get("RAP_PYTHON_SANITIZER")),
                    reason="a JVM under the preloaded ASan runtime; the release run checks it")
def test_compact_orc_append_table_read_by_java_paimon(written, tmp_path) -> None:
    """Java Paimon (Spark, Paimon 0.9) reads rap's COMPACT snapshot of pypaimon's ORC append table,
    ORC and Parquet files mixed, with the rows pypaimon wrote."""
    import sys

    pytest.importorskip("pyspark")
    from conftest import fetched_jar

    warehouse = tmp_path / "warehouse"
    case, _, _ = compacted_orc_copy(written, warehouse, "append_orc")
    out = tmp_path / "java.json"
    subprocess.run([sys.executable, str(REPO / "tests" / "python" / "paimon_spark_reader.py"),
                    fetched_jar("paimon-spark"), str(warehouse), str(out), "append_orc"], check=True,
                   env=dict(os.environ, PYSPARK_PYTHON=sys.executable), timeout=600)
    java = json.loads(out.read_text())
    assert java["commit_kind"] == "COMPACT"
    assert any(f.endswith(".parquet") for f in java["files"])
    assert rows(pa.Table.from_pylist(java["rows"], schema=pq.read_schema(case["expected"])),
                case["keys"]) == rows(pq.read_table(case["expected"]), case["keys"])


def test_compact_refuses_what_it_does_not_compact(written, tmp_path) -> None:
    pk = next(c for c in written if c["table"] == "pk_multi" and c["snapshot"] is None)
    with pytest.raises(rap.NotSupported, match="primary-key"):
        rap.compact(pk["path"])
    with pytest.raises(rap.InvalidArgument, match="min_files"):
        rap.compact(pk["path"], min_files=1)
    folder = tmp_path / "plain"
    folder.mkdir()
    pq.write_table(pa.table({"a": [1]}), folder / "a.parquet")
    with pytest.raises(rap.InvalidArgument, match="not a Paimon table"):
        rap.compact(str(folder))
