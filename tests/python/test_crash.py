"""Crash consistency through the Python front end (docs/reliability.md, "Crash consistency").

The writes of the Python package (build_index, update_index, compact_index, rewrite in place) go
through the same C++ commit code as the CLI, whose matrix is tests/reliability/crash_matrix_test.cc.
This test shows that the front end inherits it: each write runs in a child Python process that
SIGKILLs itself right after its Nth object-store mutation (RAP_CRASH_AFTER_OPS; the mutations of a
clean run are counted with RAP_CRASH_LOG), for every N of a clean run. After each kill:

- the table scans to exactly its rows (every write here keeps the rows);
- the latest index manifest (if one was published) references only objects that exist, and
  looking up every key answers exactly the rows of a brute-force reading of the live files that
  manifest lists;
- ``vacuum_index(retain="0s")`` keeps the answers the same;
- the write run again succeeds, and the same checks hold.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import rap
from conftest import write_keyed_table

KEYS = list(range(-2, 3002))  # every key of write_keyed_table's tables, and a few absent ones


def child(code: str, env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    """`code` in a fresh Python process with this process's import path and `env_extra`."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", "import rap\n" + code], env=env, capture_output=True,
                          text=True, timeout=120)


def crash_points(code: str, log: pathlib.Path) -> int:
    """The number of object-store mutations a clean run of `code` passes (it runs; its effect stays)."""
    log.unlink(missing_ok=True)
    r = child(code, {"RAP_CRASH_LOG": str(log)})
    assert r.returncode == 0, r.stderr
    return sum(1 for line in log.read_text().splitlines() if line.strip()) if log.exists() else 0


def killed_at(code: str, n: int) -> None:
    r = child(code, {"RAP_CRASH_AFTER_OPS": str(n)})
    assert r.returncode == -signal.SIGKILL, f"crash point {n}: exit {r.returncode}\n{r.stderr}"


def table_rows(root: pathlib.Path) -> list[tuple]:
    t = pa.table(rap.scan(str(root), columns=["row", "k"]))
    return sorted(zip(t["row"].to_pylist(), t["k"].to_pylist()))


def index_state(root: pathlib.Path, index: str) -> dict | None:
    """The latest manifest, or None when no manifest was ever published."""
    if not (pathlib.Path(index) / "_manifest").is_dir():
        return None
    try:
        return rap.inspect_index(index)
    except rap.NotFound:
        return None


def check_index(root: pathlib.Path, index: str, manifest: dict) -> None:
    """Every object the manifest references exists; every key's lookup equals brute force over the
    live files it lists (its own snapshot of the table)."""
    base = pathlib.Path(index)
    for frag in manifest["fragments"]:
        assert (base / frag["path"]).is_file(), f"dangling fragment {frag['path']}"
    for schema in manifest["schemas"]:
        assert (base / schema).is_file(), f"dangling schema {schema}"
    live = [f["path"] for f in manifest["files"] if not f["removed"]]
    for path in live:
        assert (root / path).is_file(), f"dangling data file {path}"
    data = pa.concat_tables([pq.read_table(root / p, columns=["k", "row"]) for p in live])
    want: dict[int, list[int]] = {}
    for k, row in zip(data["k"].to_pylist(), data["row"].to_pylist()):
        want.setdefault(k, []).append(row)
    reader, _ = rap.Index.open(index).lookup(KEYS, columns=["row"])
    got_table = pa.table(reader)
    got: dict[int, list[int]] = {}
    for k, row in zip(got_table["k"].to_pylist(), got_table["row"].to_pylist()):
        got.setdefault(k, []).append(row)
    assert {k: sorted(v) for k, v in got.items()} == {k: sorted(v) for k, v in want.items()}


def check_after_crash(root: pathlib.Path, index: str, rows: list[tuple], must_have_index: bool) -> None:
    assert table_rows(root) == rows
    manifest = index_state(root, index)
    if manifest is None:
        assert not must_have_index, "the index published before the write is gone"
        return
    check_index(root, index, manifest)
    rap.vacuum_index(index, retain="0s")
    after = index_state(root, index)
    assert after is not None and after["version"] == manifest["version"]
    check_index(root, index, after)


def run_matrix(tmp_path: pathlib.Path, name: str, setup, code: str, must_have_index: bool) -> int:
    """Runs `code` killed at each of its crash points on a fresh copy of `setup`'s table."""
    template = tmp_path / f"{name}-template"
    setup(template)
    rows = table_rows(template)
    clean = tmp_path / f"{name}-clean"
    shutil.copytree(template, clean)
    k = crash_points(code.format(root=str(clean)), tmp_path / f"{name}.log")
    assert k > 0, f"{name}: no crash point in a clean run"
    for n in range(1, k + 1):
        work = tmp_path / f"{name}-{n}"
        shutil.copytree(template, work)
        index = str(work / "_rap_index" / "default")
        killed_at(code.format(root=str(work)), n)
        check_after_crash(work, index, rows, must_have_index)
        r = child(code.format(root=str(work)), {})
        assert r.returncode == 0, f"{name} rerun after crash point {n}: {r.stderr}"
        assert table_rows(work) == rows
        manifest = index_state(work, index)
        assert manifest is not None
        check_index(work, index, manifest)
        shutil.rmtree(work)
    return k


def folder_table(root: pathlib.Path) -> None:
    write_keyed_table(root, files=3, rows_per_file=1500)


def indexed_folder_plus_one(root: pathlib.Path) -> None:
    """An indexed folder table with one file the index has not seen."""
    write_keyed_table(root, files=3, rows_per_file=1500)
    rap.build_index(str(root), "k", buckets=2, progress=False)
    extra = write_keyed_table(root / "more", files=1, rows_per_file=1500, seed=11)
    (root / "more" / "part-0.parquet").rename(root / "part-9.parquet")
    (root / "more").rmdir()
    del extra


def indexed_runs(root: pathlib.Path) -> None:
    """An indexed folder with two runs per bucket (a build and an update), to compact."""
    indexed_folder_plus_one(root)
    rap.update_index(str(root / "_rap_index" / "default"), progress=False)


def indexed_delta(root: pathlib.Path) -> None:
    """A Delta table (rap rewrite's output, with its index)."""
    src = root.parent / (root.name + "-src")
    write_keyed_table(src, files=2, rows_per_file=1500)
    rap.rewrite(str(src), str(root), key="k", layout="page", progress=False)


@pytest.mark.parametrize(
    "name,setup,code,must_have_index",
    [
        ("build", folder_table, "rap.build_index({root!r}, 'k', buckets=3, progress=False)", False),
        ("update", indexed_folder_plus_one, "rap.update_index({root!r} + '/_rap_index/default', progress=False)",
         True),
        ("compact", indexed_runs, "rap.compact_index({root!r} + '/_rap_index/default')", True),
        ("rewrite_in_place", indexed_delta,
         "rap.rewrite({root!r}, in_place=True, key='k', layout='page', progress=False)", True),
    ],
)
def test_python_writes_survive_kill_at_every_crash_point(tmp_path, name, setup, code, must_have_index) -> None:
    k = run_matrix(tmp_path, name, setup, code, must_have_index)
    print(json.dumps({"path": name, "crash_points": k}))
