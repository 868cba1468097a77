#!/usr/bin/env python3
"""bench/peers/plot.py: the plot of docs/benchmarks/peers.md from peers.py's CSV, drawn by gnuplot.

  python3 bench/peers/plot.py docs/benchmarks/peers_local.csv docs/benchmarks/peers_s3_2m.csv docs/benchmarks/peers.png

One panel per profile (local, s3-5ms, s3-30ms): lookup p50 in ms (log scale) per method, one bar per batch
size (1, 10, 100 keys). Methods missing from a profile are left out of its panel.
"""

import csv
import pathlib
import subprocess
import sys
import tempfile


def main() -> None:
    srcs, out = sys.argv[1:-1], sys.argv[-1]
    rows = [r for src in srcs for r in csv.DictReader(open(src))]
    profiles = [p for p in ("local", "s3-5ms", "s3-30ms") if any(r["profile"] == p for r in rows)]
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="rap-peers-plot-"))
    panels = []
    for p in profiles:
        cells = {}
        for r in rows:
            if r["profile"] == p and r["workload"].startswith("lookup") and r["p50_ms"]:
                cells.setdefault(r["method"], {})[r["workload"]] = float(r["p50_ms"])
        dat = tmp / f"{p}.dat"
        with open(dat, "w") as f:
            f.write("method lookup1 lookup10 lookup100\n")
            for m, v in cells.items():
                f.write(f"{m} {v.get('lookup1', '?')} {v.get('lookup10', '?')} {v.get('lookup100', '?')}\n")
        panels.append((p, dat))
    script = [f"set terminal pngcairo size 1500,{420 * len(panels)} font ',10'", f"set output '{out}'",
              f"set multiplot layout {len(panels)},1", "set style data histograms",
              "set style histogram clustered gap 1", "set style fill solid 0.8 border -1", "set logscale y",
              "set ylabel 'lookup p50 (ms, log)'", "set key top left", "set grid ytics", "set xtics rotate by -20",
              "set datafile missing '?'"]
    for p, dat in panels:
        script.append(f"set title 'point lookups, {p} (k,c01,c02,c03 of 1, 10, 100 random keys)'")
        script.append(f"plot '{dat}' using 2:xtic(1) title '1 key', '' using 3 title '10 keys', "
                      f"'' using 4 title '100 keys'")
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)


if __name__ == "__main__":
    main()
