#!/usr/bin/env python3
"""The `rap serve` soak of issue #34 (docs/reliability.md, "Soak"): continuous lookups against a
server while another process appends to the Delta table (delta-rs, the table's own writer), deletes
from it, and runs `rap index update` every few seconds. Every answer must equal a brute-force reading
of the Delta version the answering index manifest covers (delta-rs's own reading of that version),
no request may fail, and the server's RSS must stay flat.

Not part of the test suite (it runs for minutes); run it from a build:

    PYTHONPATH=build/release/python .venv/bin/python tests/reliability/serve_soak.py \
        --rap build/release/tools/rap --seconds 600 --csv soak.csv

Exit status 0 when every check held, 1 otherwise (the failures are printed).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import pyarrow as pa
from deltalake import DeltaTable, write_deltalake

import rap

KEY_SPACE = 3000


def batch(rnd: random.Random, first_row: int, n: int, version_tag: int) -> pa.Table:
    keys = [rnd.randrange(KEY_SPACE) for _ in range(n)]
    return pa.table({
        "k": pa.array(keys, pa.int64()),
        "row": pa.array(range(first_row, first_row + n), pa.int64()),
        "tag": pa.array([f"v{version_tag}-{i}" for i in range(n)], pa.string()),
    })


class Oracle:
    """Per Delta version: key -> sorted rows, from delta-rs's own reading (cached)."""

    def __init__(self, table: str, index: str) -> None:
        self.table, self.index = table, index
        self.by_table_version: dict[int, dict[int, list[int]]] = {}
        self.table_version_of_index: dict[int, int] = {}
        self.lock = threading.Lock()

    def expected(self, index_version: int) -> dict[int, list[int]]:
        with self.lock:
            tv = self.table_version_of_index.get(index_version)
            if tv is None:
                tv = rap.inspect_index(self.index, version=index_version)["table"]["version"]
                self.table_version_of_index[index_version] = tv
            rows = self.by_table_version.get(tv)
            if rows is None:
                t = DeltaTable(self.table, version=tv).to_pyarrow_table(columns=["k", "row"])
                rows = {}
                for k, r in zip(t["k"].to_pylist(), t["row"].to_pylist()):
                    rows.setdefault(k, []).append(r)
                for v in rows.values():
                    v.sort()
                self.by_table_version[tv] = rows
            return rows


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lookups = 0
        self.errors: list[str] = []
        self.mismatches: list[str] = []
        self.index_versions: set[int] = set()

    def fail(self, kind: str, msg: str) -> None:
        with self.lock:
            (self.errors if kind == "error" else self.mismatches).append(msg)


def reader(port: int, oracle: Oracle, stats: Stats, stop: threading.Event, seed: int, pause: float) -> None:
    rnd = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while not stop.is_set():
        keys = [rnd.randrange(-5, KEY_SPACE) for _ in range(rnd.choice((1, 1, 4, 10)))]
        query = "&".join(f"key={k}" for k in keys) + "&columns=row"
        try:
            conn.request("GET", f"/v1/tables/t/lookup?{query}")
            resp = conn.getresponse()
            body = resp.read()
        except (OSError, http.client.HTTPException) as e:
            stats.fail("error", f"keys {keys}: {e!r}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        if resp.status != 200:
            stats.fail("error", f"keys {keys}: HTTP {resp.status} {body[:200]!r}")
            continue
        doc = json.loads(body)
        want = oracle.expected(doc["index_version"])
        for entry in doc["keys"]:
            k = int(entry["key"][0])
            got = sorted(r["row"] for r in entry["rows"])
            if got != want.get(k, []) or entry["next_page_token"] is not None:
                extra = sorted(set(got) - set(want.get(k, [])))
                missing = sorted(set(want.get(k, [])) - set(got))
                stats.fail("mismatch", f"index v{doc['index_version']} key {k}: {len(got)} rows, want "
                                       f"{len(want.get(k, []))}; extra {extra[:8]}, missing {missing[:8]}, "
                                       f"token {entry['next_page_token']!r}")
        with stats.lock:
            stats.lookups += 1
            stats.index_versions.add(doc["index_version"])
        if pause:
            time.sleep(pause)


def writer(args, table: str, index: str, stats: Stats, stop: threading.Event, log: list) -> None:
    rnd = random.Random(99)
    next_row, tag = 10_000_000, 1
    while not stop.wait(args.write_every):
        try:
            if tag % 4 == 0:
                DeltaTable(table).delete(f"k = {rnd.randrange(KEY_SPACE)}")
            else:
                write_deltalake(table, batch(rnd, next_row, args.append_rows, tag), mode="append")
                next_row += args.append_rows
            cmds = [["index", "update", index, "--quiet"]]
            if args.compact_every and tag % args.compact_every == 0:
                # Maintenance as in production: fold the fragments, then drop what no version within
                # the retention references (the server refreshes every second, far inside it).
                cmds += [["index", "compact", index],
                         ["index", "vacuum", index, "--retain", f"{args.retain}s"]]
            for cmd in cmds:
                r = subprocess.run([args.rap, *cmd], capture_output=True, text=True)
                if r.returncode != 0:
                    stats.fail("error", f"rap {' '.join(cmd[:2])}: exit {r.returncode}: {r.stderr.strip()}")
            log.append((time.time(), DeltaTable(table).version()))
        except Exception as e:  # noqa: BLE001 - a failed write is a soak failure, reported
            where = traceback.extract_tb(e.__traceback__)[-1]
            stats.fail("error", f"writer ({'delete' if tag % 4 == 0 else 'append'}, {where.filename}:{where.lineno}): "
                                f"{e!r}")
        tag += 1


def cache_mib(port: int) -> str:
    """The server's cache sizes from /metrics (what RSS growth up to their budgets is)."""
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
    except (OSError, http.client.HTTPException) as e:
        return f"(metrics: {e!r})"
    sizes = {}
    for line in text.splitlines():
        for name in ("rap_metadata_cache_bytes", "rap_index_page_cache_bytes"):
            if line.startswith(name):
                sizes[name.split("_cache")[0][4:]] = float(line.split()[-1]) / 2**20
    return "  ".join(f"{k} cache {v:.1f} MiB" for k, v in sizes.items())


def rss_kib(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rap", default="build/release/tools/rap", help="the rap CLI (serve, index update)")
    ap.add_argument("--seconds", type=float, default=600, help="how long the lookups run (default 600)")
    ap.add_argument("--readers", type=int, default=4, help="lookup client threads (default 4)")
    ap.add_argument("--pause", type=float, default=0.002, help="seconds each client sleeps between lookups")
    ap.add_argument("--write-every", type=float, default=3, help="seconds between Delta commits (default 3)")
    ap.add_argument("--append-rows", type=int, default=500, help="rows per appended commit")
    ap.add_argument("--compact-every", type=int, default=10,
                    help="run `rap index compact` and `vacuum` after every N-th write (default 10; 0: never)")
    ap.add_argument("--retain", type=int, default=30, help="vacuum's --retain in seconds (default 30)")
    ap.add_argument("--index-cache", default="64MiB",
                    help="the server's index page cache budget (default 64MiB, small enough that ten minutes of "
                         "new fragments fill it: RSS flat means the caches are bounded)")
    ap.add_argument("--csv", help="write the RSS/lookup samples here (t, rss_kib, lookups, delta_version)")
    ap.add_argument("--dir", help="work folder (default: a temporary one)")
    args = ap.parse_args()
    if not os.access(args.rap, os.X_OK):
        ap.error(f"--rap {args.rap}: not an executable (build it: ninja -C build/release rap)")

    work = pathlib.Path(args.dir or tempfile.mkdtemp(prefix="rap-soak-"))
    table = str(work / "t")
    index = table + "/_rap_index/default"
    rnd = random.Random(7)
    for i in range(4):
        write_deltalake(table, batch(rnd, i * 20_000, 20_000, 0), mode="append")
    rap.build_index(table, "k", buckets=4, cover=["row"], progress=False)

    port_file = work / "port"
    server = subprocess.Popen([args.rap, "serve", "--table", f"t={table}", "--listen", "127.0.0.1:0",
                               "--port-file", str(port_file), "--refresh-interval", "1", "--no-access-log",
                               "--index-cache", args.index_cache],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if server.poll() is not None or time.time() > deadline:
                print(f"rap serve did not start: {server.stderr.read() if server.poll() is not None else 'timeout'}")
                return 1
            time.sleep(0.05)
        port = int(port_file.read_text())
        oracle, stats, stop = Oracle(table, index), Stats(), threading.Event()
        writes: list = []
        threads = [threading.Thread(target=reader, args=(port, oracle, stats, stop, s, args.pause))
                   for s in range(args.readers)]
        threads.append(threading.Thread(target=writer, args=(args, table, index, stats, stop, writes)))
        for t in threads:
            t.start()
        samples = []
        t0 = time.time()
        while time.time() - t0 < args.seconds:
            time.sleep(1)
            with stats.lock:
                n = stats.lookups
            samples.append((round(time.time() - t0, 1), rss_kib(server.pid), n, writes[-1][1] if writes else 0))
            if len(samples) % 30 == 0:
                print(f"{samples[-1][0]:7.0f} s  rss {samples[-1][1] / 1024:.1f} MiB  lookups {n}  delta v{samples[-1][3]}  "
                      f"errors {len(stats.errors)}  mismatches {len(stats.mismatches)}  {cache_mib(port)}", flush=True)
        stop.set()
        for t in threads:
            t.join()
    finally:
        server.terminate()
        server.wait(timeout=30)

    if args.csv:
        with open(args.csv, "w") as f:
            f.write("t_s,rss_kib,lookups,delta_version\n")
            f.writelines(f"{a},{b},{c},{d}\n" for a, b, c, d in samples)
    quarter = max(1, len(samples) // 4)
    second_q = max(s[1] for s in samples[quarter:2 * quarter]) if len(samples) >= 4 else 0
    last_q = max(s[1] for s in samples[-quarter:]) if samples else 0
    summary = {"seconds": args.seconds, "lookups": stats.lookups, "errors": len(stats.errors),
               "mismatches": len(stats.mismatches), "index_versions_seen": len(stats.index_versions),
               "delta_commits": len(writes), "rss_mib_second_quarter_max": round(second_q / 1024, 1),
               "rss_mib_last_quarter_max": round(last_q / 1024, 1)}
    print(json.dumps(summary))
    for msg in (stats.errors + stats.mismatches)[:20]:
        print("FAIL", msg)
    ok = not stats.errors and not stats.mismatches and stats.lookups > 0 and len(stats.index_versions) >= 2
    # RSS flat: the last quarter's peak within 10% (+16 MiB) of the second quarter's (the first quarter
    # fills the caches).
    if len(samples) >= 8 and last_q > second_q * 1.10 + 16 * 1024:
        print(f"FAIL RSS grew: {second_q / 1024:.1f} MiB -> {last_q / 1024:.1f} MiB")
        ok = False
    if len(stats.index_versions) < 2:
        print("FAIL the server never answered from a refreshed index (one index version seen)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
