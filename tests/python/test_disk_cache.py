"""The disk tier of remote reads from Python (storage_options cache_dir / cache_size, docs/server.md
"Disk cache"): a fresh Python process per lookup (a serverless function) over rap-netsim's HTTP
reads the index and data pages from the cache directory after the first one — fewer requests and
bytes reach the server — and returns the rows pyarrow's own reading of the files gives."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pyarrow.compute as pc
import pytest

import rap
from conftest import ROOT, build_cli, cli_env, write_keyed_table

sys.path.insert(0, str(ROOT / "bench"))
from netsim import Netsim  # noqa: E402  (the project's rap-netsim helper)

LOOKUP = """
import json, sys, rap
url, cache, key = sys.argv[1], sys.argv[2], int(sys.argv[3])
reader, _ = rap.lookup(url, [key], columns=["k", "s", "v", "name", "row"],
                       storage_options={"cache_dir": cache, "cache_size": "64MiB"})
t = reader.read_all()
print(json.dumps(sorted(t.to_pylist(), key=lambda r: r["row"])))
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    netsim_bin = build_cli().parent / "rap-netsim"
    if not netsim_bin.exists():
        pytest.skip(f"{netsim_bin} is not built")
    root = tmp_path_factory.mktemp("disk-cache")
    table = write_keyed_table(root / "t")
    rap.build_index(str(root / "t"), "k", buckets=4, progress=False)
    rap.build_index(str(root / "t"), "k", name="covered", buckets=4, cover=["s", "v", "name", "row"], progress=False)
    ns = Netsim(str(netsim_bin), root, env=cli_env())
    yield ns, table
    ns.stop()


def lookup_in_a_new_process(url: str, cache: pathlib.Path, key: int) -> list:
    out = subprocess.run([sys.executable, "-c", LOOKUP, url, str(cache), str(key)], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("index", ["", "/_rap_index/covered"])
def test_fresh_processes_read_pages_from_the_disk_cache(served, tmp_path: pathlib.Path, index: str) -> None:
    ns, table = served
    url = ns.url + "/t" + index
    for key in (5, 1234, 2999):
        want = sorted(table.filter(pc.equal(table["k"], key)).to_pylist(), key=lambda r: r["row"])
        assert want, key
        counts = []
        for _ in range(3):
            ns.control("reset")
            assert lookup_in_a_new_process(url, tmp_path / "cache", key) == want
            total = ns.control("stats")
            counts.append((total["requests"], total["payload_bytes"]))
        assert counts[1][0] < counts[0][0] and counts[1][1] < counts[0][1], counts
        assert counts[2] == counts[1], counts
    assert list((tmp_path / "cache").glob("??/*.rdc")), "no cache entry was written"


def test_bad_cache_settings_raise(served, tmp_path: pathlib.Path) -> None:
    ns, _ = served
    with pytest.raises(rap.errors.InvalidArgument, match="RAP_CACHE_SIZE"):
        rap.lookup(ns.url + "/t", [5], storage_options={"cache_dir": str(tmp_path), "cache_size": "lots"})
    (tmp_path / "file").write_text("x")
    with pytest.raises(rap.Error, match="file/cache"):
        rap.lookup(ns.url + "/t", [5], storage_options={"cache_dir": str(tmp_path / "file" / "cache")})
