"""DuckDB on bench_zorder's tables and boxes (docs/benchmarks/zorder.md): the same box queries
(`--boxes`, written by bench_zorder) over the same three layouts (DIR/bkt/{natural,sorted_x,zorder}),
locally and as s3:// through rap-netsim at the given latencies (DuckDB's httpfs extension from the
duckdb-ext-httpfs wheel of requirements-bench.txt: DuckDB 1.4.4, no download). Per layout and
selectivity: the median wall time, and over rap-netsim the median requests and payload bytes as
rap-netsim counts them. Each query runs on a fresh connection (no cached metadata or bytes); the rows
are checked against the natural layout's (count and sum of v).

    python bench/zorder_duckdb.py --dir /tmp/rap-bench-zorder --boxes zorder_boxes.csv \
        --netsim build/dev/tools/rap-netsim --csv zorder_duckdb.csv
"""

import argparse
import csv
import glob
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import duckdb

LAYOUTS = ["natural", "sorted_x", "zorder"]
KEY = "bench"


class Netsim:
    """rap-netsim on 127.0.0.1 (a free port) serving `root`."""

    def __init__(self, binary: str, root: str, latency: str):
        self._tmp = tempfile.TemporaryDirectory(prefix="rap-zorder-netsim-")
        port_file = pathlib.Path(self._tmp.name) / "port"
        self.proc = subprocess.Popen([binary, "--root", root, "--latency", latency, "--bind", "127.0.0.1", "--port", "0",
                                      "--port-file", str(port_file), "--quiet", "--exit-with-parent"],
                                     stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not port_file.exists() or not port_file.read_text().strip():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                sys.exit(f"rap-netsim ({binary}) did not start")
            time.sleep(0.02)
        self.port = int(port_file.read_text().strip())

    def control(self, what: str) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_netsim/{what}", timeout=10) as r:
            return json.loads(r.read() or b"{}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self._tmp.cleanup()


def connect(server: Netsim | None):
    con = duckdb.connect()
    con.sql("set threads=2")
    con.sql("set enable_external_file_cache=false")
    if server:
        import duckdb_ext

        ext = glob.glob(os.path.join(list(duckdb_ext.__path__)[0], "**", "httpfs.duckdb_extension"), recursive=True)
        con.sql("set autoinstall_known_extensions=false")
        con.sql(f"load '{ext[0]}'")
        con.sql(f"set s3_endpoint='127.0.0.1:{server.port}'; set s3_use_ssl=false; set s3_url_style='path'; "
                f"set s3_region='us-east-1'; set s3_access_key_id='{KEY}'; set s3_secret_access_key='{KEY}'")
    return con


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True, help="bench_zorder's --dir (tables under DIR/bkt)")
    ap.add_argument("--boxes", required=True, help="bench_zorder's --boxes CSV")
    ap.add_argument("--latencies", default="20ms,30ms")
    ap.add_argument("--netsim", default="build/dev/tools/rap-netsim")
    ap.add_argument("--csv", default="zorder_duckdb.csv")
    a = ap.parse_args()
    with open(a.boxes) as f:
        boxes = [(float(r["selectivity"]), r["where"]) for r in csv.DictReader(f)]
    profiles = ["local"] + [p for p in a.latencies.split(",") if p]
    out = []
    print(f"DuckDB {duckdb.__version__}")
    for profile in profiles:
        server = None if profile == "local" else Netsim(a.netsim, a.dir, profile)
        try:
            runs: dict = {}
            for sel, where in boxes:
                want = None
                for layout in LAYOUTS:
                    files = (f"s3://bkt/{layout}/*.parquet" if server else f"{a.dir}/bkt/{layout}/*.parquet")
                    con = connect(server)
                    if server:
                        server.control("reset")
                    t0 = time.perf_counter()
                    t = con.sql(f"select x, y, v, s from read_parquet('{files}') where {where}").to_arrow_table()
                    secs = time.perf_counter() - t0
                    st = server.control("stats") if server else {}
                    con.close()
                    got = (t.num_rows, sum(t.column("v").to_pylist()))
                    if want is None:
                        want = got
                    elif got != want:
                        sys.exit(f"MISMATCH {profile} {layout} {where}: {got} vs {want}")
                    runs.setdefault((layout, sel), []).append((secs, st.get("requests", 0), st.get("payload_bytes", 0),
                                                               t.num_rows))
            print(f"\n{profile}\n{'layout':9s} {'select.':>8s} {'median ms':>10s} {'requests':>9s} {'bytes':>12s} {'rows':>9s}")
            for layout in LAYOUTS:
                for sel in sorted({s for s, _ in boxes}):
                    rs = runs[(layout, sel)]
                    med = [statistics.median(x[i] for x in rs) for i in range(4)]
                    print(f"{layout:9s} {sel * 100:7.3g}% {med[0] * 1000:10.1f} {med[1]:9.0f} {med[2]:12.0f} {med[3]:9.0f}")
                    out.append({"profile": profile, "engine": f"duckdb-{duckdb.__version__}", "layout": layout,
                                "selectivity": sel, "boxes": len(rs), "median_s": round(med[0], 4),
                                "median_requests": med[1], "median_bytes": med[2], "median_rows": med[3]})
        finally:
            if server:
                server.stop()
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0].keys()))
        w.writeheader()
        w.writerows(out)
    print(f"\nwrote {a.csv}")


if __name__ == "__main__":
    main()
