"""rap-netsim for the Python benchmarks (bench/*/…py): started on 127.0.0.1 at a free port, serving a
folder (s3://bkt/key is ROOT/bkt/key), with a latency and throughput profile; stopped within bounded
time. Import it with the bench folder on sys.path (each script puts it there)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Optional, Union


class Netsim:
    """rap-netsim serving `root`; `url` is its endpoint, `control(what)` its /_netsim/ API. `env` is the
    server's environment (default: this process's) — the Python sanitizer tests pass one without the
    preloaded ASan runtime, which a sanitizer-built binary refuses (tests/python/conftest.py cli_env)."""

    def __init__(self, binary: str, root: Union[str, pathlib.Path], latency: str = "0ms",
                 throughput: Optional[str] = None, prefix: str = "rap-bench-netsim-",
                 env: Optional[dict] = None):
        self._tmp = tempfile.TemporaryDirectory(prefix=prefix)
        port_file = pathlib.Path(self._tmp.name) / "port"
        cmd = [binary, "--root", str(root), "--latency", latency]
        if throughput:
            cmd += ["--throughput", throughput]
        cmd += ["--bind", "127.0.0.1", "--port", "0", "--port-file", str(port_file), "--quiet", "--exit-with-parent"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 10
        while not port_file.exists() or not port_file.read_text().strip():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                sys.exit(f"rap-netsim ({binary}) did not start: exit status {self.proc.returncode}")
            time.sleep(0.02)
        self.port = int(port_file.read_text().strip())
        self.url = f"http://127.0.0.1:{self.port}"

    def control(self, what: str) -> dict:
        with urllib.request.urlopen(f"{self.url}/_netsim/{what}", timeout=10) as r:
            return json.loads(r.read() or b"{}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self._tmp.cleanup()
