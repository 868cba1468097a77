# Plot of bench/python/bench_python.py's CSV (docs/benchmarks/python.md); run from docs/benchmarks: gnuplot python.gp
set datafile separator " "
set terminal pngcairo size 1200,500 font "sans,10" noenhanced
set output "python.png"
set multiplot layout 1,2
# Link floor over S3 (as bench_prefetch's): rap's bytes / 256 MiB/s + one 20 ms latency, a dashed line per query.
linkfloor(p) = sprintf("< awk -F, '$1==\"%s\" && $3==\"rap.scan -> pyarrow\" && $6!=\"\" {print ($2==\"full\" ? 0 : 1) - 0.4, $6 / 268435456 * 1000 + 20}' python.csv", p)
sel(p, e, o) = sprintf("< awk -F, '$1==\"%s\" && $3==\"%s\" && $2!=\"lookup\" {print ($2==\"full\" ? 0 : 1) + %f, $4 * 1000}' python.csv", p, e, o)
set style fill solid 0.8 border -1
set boxwidth 0.15
set xtics ("full scan" 0, "filtered scan" 1)
set xrange [-0.5:1.5]
set yrange [0:*]
set ylabel "median ms (lower is better)"
set grid ytics
set key outside bottom center horizontal maxrows 2
# DuckDB has no S3 row (no httpfs offline): gnuplot warns that its S3 selection
# is empty, and that the local panel has no floor.
do for [p in "local s3_20ms"] {
  prof = (p eq "local") ? "local" : "s3 20ms"
  set title (p eq "local") ? "local files (/dev/shm)" : "S3 via rap-netsim, 20 ms per request, 256 MiB/s"
  plot sel(prof, "rap.scan -> pyarrow", -0.3) u 1:2 w boxes lc rgb "#d62728" t "rap.scan -> pyarrow", \
       sel(prof, "pyarrow.dataset", -0.15) u 1:2 w boxes lc rgb "#1f77b4" t "pyarrow.dataset", \
       sel(prof, "polars scan_parquet", 0.0) u 1:2 w boxes lc rgb "#2ca02c" t "polars scan_parquet", \
       sel(prof, "duckdb", 0.15) u 1:2 w boxes lc rgb "#ff7f0e" t "DuckDB (local only)", \
       sel(prof, "C++ rap scan (open_s+scan_s)", 0.3) u 1:2 w boxes lc rgb "#7f7f7f" t "C++ rap scan", \
       linkfloor(prof) u 1:2:(0.8):(0) w vectors nohead dt 2 lw 2 lc rgb "black" t "S3 link floor (bytes / 256 MiB/s + 20 ms)"
}
unset multiplot
