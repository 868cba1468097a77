#!/usr/bin/env python3
"""bench/peers/report.py: the Markdown tables of docs/benchmarks/peers.md from peers.py CSV files.

  python3 bench/peers/report.py docs/benchmarks/peers_local.csv docs/benchmarks/peers_s3.csv

Prints, per profile, the lookup table (p50 / p99 ms, requests and KiB per lookup where rap-netsim
counted them), the scan table, and the build and size table of each file's rows.
"""

import csv
import sys


def f(x, spec=".1f"):
    return format(float(x), spec) if x not in ("", None) else "–"


def main() -> None:
    for path in sys.argv[1:]:
        rows = list(csv.DictReader(open(path)))
        print(f"<!-- from {path} -->")
        builds = [r for r in rows if r["workload"] == "build"]
        if builds:
            print("| what | time (s) | size (MiB) | load1 | note |\n|---|---:|---:|---:|---|")
            for r in builds:
                print(f"| {r['method']} | {float(r['p50_ms']) / 1000:.2f} | {int(float(r['bytes'])) / 2**20:.1f} | "
                      f"{r['load1']} | {r['note']} |")
            print()
        for prof in dict.fromkeys(r["profile"] for r in rows if r["workload"] != "build"):
            pr = [r for r in rows if r["profile"] == prof]
            remote = any(r["requests"] not in ("", None) for r in pr)
            print(f"**{prof}: lookups** (k,c01,c02,c03; p50 / p99 ms" + (", requests, KiB per lookup" if remote else "")
                  + "; load1 at the end of the cell)\n")
            head = "| method |" + "".join(f" {b} key{'s' if b > 1 else ''} |" for b in (1, 10, 100)) + " load1 |"
            print(head + "\n|---|---:|---:|---:|---:|")
            methods = dict.fromkeys(r["method"] for r in pr if r["workload"].startswith("lookup"))
            for m in methods:
                cells, load = [], ""
                for b in (1, 10, 100):
                    r = next((r for r in pr if r["method"] == m and r["workload"] == f"lookup{b}"), None)
                    if r is None or not r["p50_ms"]:
                        cells.append("skipped" if r is not None else "–")
                        continue
                    c = f"{f(r['p50_ms'])} / {f(r['p99_ms'])}"
                    if remote:
                        c += f" · {f(r['requests'], '.0f')} req · {float(r['bytes']) / 1024:.0f} KiB"
                    cells.append(c)
                    load = r["load1"]
                print(f"| {m} | " + " | ".join(cells) + f" | {load} |")
            print()
            scans = [r for r in pr if r["workload"].startswith("scan")]
            if scans:
                print(f"**{prof}: scans** (median ms" + (", requests, MiB per scan" if remote else "") + ")\n")
                print("| method | full scan | k,c01,c02 where c04 < 1000 | load1 |\n|---|---:|---:|---:|")
                for m in dict.fromkeys(r["method"] for r in scans):
                    cells = []
                    for w in ("scan_full", "scan_filtered"):
                        r = next((r for r in scans if r["method"] == m and r["workload"] == w), None)
                        if r is None:
                            cells.append("–")
                            continue
                        c = f"{float(r['p50_ms']):.0f}"
                        if remote:
                            c += f" · {f(r['requests'], '.0f')} req · {float(r['bytes']) / 2**20:.1f} MiB"
                        cells.append(c)
                    print(f"| {m} | " + " | ".join(cells) + f" | {r['load1']} |")
                print()


if __name__ == "__main__":
    main()
