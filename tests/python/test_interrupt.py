"""Ctrl-C: a real SIGINT sent to a child Python process in the middle of rap.build_index (and of a
scan's iteration) raises KeyboardInterrupt there promptly, the build leaves no index version and no
thread behind (the C++ work is cancelled through its cancellation hook, python/src/binding.h
RunInterruptible), and the process goes on."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rap


@pytest.fixture(scope="module")
def many_files(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """80 files of 50,000 keyed rows: an index build on one thread takes a good while."""
    root = tmp_path_factory.mktemp("sigint") / "table"
    root.mkdir()
    rng = np.random.default_rng(3)
    for f in range(80):
        k = rng.integers(0, 1 << 40, size=50_000, dtype=np.int64)
        pq.write_table(pa.table({"k": k, "v": k % 7}), root / f"part-{f:03d}.parquet", row_group_size=10_000)
    return root


CHILD = textwrap.dedent(
    """
    import os, sys, threading
    import rap
    url, kind = sys.argv[1], sys.argv[2]
    base = len(os.listdir("/proc/self/task"))
    said = False
    def progress(done, total):
        global said
        if not said:
            said = True
            print("started", flush=True)
    try:
        if kind == "build":
            rap.build_index(url, "k", threads=1, progress=progress)
        else:
            for i, b in enumerate(rap.scan(url, batch_size=1000)):
                if i == 0:
                    print("started", flush=True)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    threads = len(os.listdir("/proc/self/task"))
    print(f"threads {threads} {base}", flush=True)
    """
)


@pytest.mark.parametrize("kind", ["build", "scan"])
def test_sigint_interrupts_a_long_call_in_a_child(many_files: pathlib.Path, tmp_path: pathlib.Path, kind: str) -> None:
    env = dict(os.environ)
    p = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(many_files), kind],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        first = p.stdout.readline().strip()
        assert first == "started", first + p.stderr.read()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)  # a hang fails here, not a timing assertion
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    lines = out.split("\n")
    assert lines[0] == "interrupted", (out, err)
    assert p.returncode == 0, err
    threads, base = (int(x) for x in lines[1].split()[1:])
    assert threads <= base, (out, err)  # every thread the call started is gone
    if kind == "build":
        with pytest.raises(rap.Error):  # a cancelled build commits no index version
            rap.Index.open(str(many_files))
