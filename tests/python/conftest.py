"""Shared fixtures of the Python suite (tests/python): the shared test data and small generated tables.

The suite runs against the extension of a CMake build (scripts/test.sh puts <build>/python on
PYTHONPATH) or an installed package (`pip install .`).
"""

from __future__ import annotations

import os
import pathlib
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rap

ROOT = pathlib.Path(__file__).resolve().parents[2]


def build_cli() -> pathlib.Path:
    """The `rap` CLI of the build whose extension is imported (scripts/test.sh: build/<kind>/tools/rap)."""
    return pathlib.Path(rap._rap.__file__).resolve().parents[2] / "tools" / "rap"


def fetched_jars() -> list[str]:
    """The pinned jars of scripts/fetch-jars.sh (fetched once into $RAP_JARS_DIR, default build/jars)."""
    dest = os.environ.get("RAP_JARS_DIR") or str(ROOT / "build" / "jars")
    out = subprocess.run(["bash", str(ROOT / "scripts" / "fetch-jars.sh"), dest], check=True, capture_output=True,
                         text=True)
    return out.stdout.split()


def fetched_jar(marker: str) -> str:
    """The fetched jar whose path contains `marker` ("iceberg-spark-runtime", "paimon-spark")."""
    return next(p for p in fetched_jars() if marker in p)


def cli_env() -> dict:
    """The environment for running that CLI. Under the Python sanitizer run (RAP_PYTHON_SANITIZER)
    the ASan runtime is preloaded into the interpreter; the sanitizer build's CLI carries its own
    runtime, and a second, preloaded one makes it abort ("incompatible ASan runtimes"), so it is
    dropped for the CLI."""
    env = dict(os.environ)
    if os.environ.get("RAP_PYTHON_SANITIZER"):
        env.pop("LD_PRELOAD", None)
    return env


def shared_dir() -> pathlib.Path:
    # The same rule as the C++ tests (tests/testing/paths.cc): $RAP_SHARED_DIR, else ../shared beside
    # the checkout, with parquet-testing/ and delta-tables/.
    d = pathlib.Path(os.environ.get("RAP_SHARED_DIR") or ROOT.parent / "shared")
    if not (d / "parquet-testing" / "data").is_dir() or not (d / "delta-tables").is_dir():
        pytest.fail(
            f"rap tests: the shared test data is missing: expected {d} with parquet-testing/ and delta-tables/ "
            "(a checkout's ../shared); set RAP_SHARED_DIR to where it is",
            pytrace=False,
        )
    return d


@pytest.fixture(scope="session")
def shared() -> pathlib.Path:
    return shared_dir()


def write_keyed_table(root: pathlib.Path, files: int = 3, rows_per_file: int = 4000, seed: int = 7) -> pa.Table:
    """A folder of Parquet files with an int64 key `k` (duplicates, unsorted), a string key `s`, and
    value columns with NULLs; returns the whole table (file order)."""
    import random

    rnd = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    parts = []
    for f in range(files):
        n = rows_per_file
        k = [rnd.randrange(0, 3000) for _ in range(n)]
        t = pa.table(
            {
                "k": pa.array(k, pa.int64()),
                "s": pa.array([f"user-{x % 500:04d}" for x in k], pa.string()),
                "v": pa.array([None if i % 17 == 0 else i * 1.5 for i in range(n)], pa.float64()),
                "name": pa.array([None if i % 11 == 0 else f"n{f}-{i}" for i in range(n)], pa.string()),
                "row": pa.array(range(f * n, (f + 1) * n), pa.int64()),
            }
        )
        pq.write_table(t, root / f"part-{f}.parquet", row_group_size=1500, data_page_size=4096,
                       write_page_index=True)
        parts.append(t)
    return pa.concat_tables(parts)


@pytest.fixture(scope="session")
def keyed_table(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("keyed") / "table"
    table = write_keyed_table(root)
    rap.build_index(str(root), "k", buckets=2, cover=["v", "name"], progress=False)
    rap.build_index(str(root), "s", name="by_s", progress=False)
    return root, table


@pytest.fixture(scope="session")
def long_table(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """Three files of 600,000 rows (about 1,800 batches of 1,024 rows): long enough to interrupt; a
    scan with warmup="decoded" runs threads beside the consumer (the next file's warmup)."""
    import numpy as np

    root = tmp_path_factory.mktemp("long") / "table"
    root.mkdir()
    n = 600_000
    for f in range(3):
        a = np.arange(f * n, (f + 1) * n, dtype=np.int64)
        t = pa.table({"a": a, "b": (a % 1000).astype(np.int32)})
        pq.write_table(t, root / f"part-{f}.parquet", row_group_size=100_000)
    return root
