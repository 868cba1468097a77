# Plot of bench_disk_cache.py's CSVs: p50 of a fresh-process lookup, by index and cache state.
#   gnuplot -e "c30='docs/benchmarks/disk_cache_30ms.csv'; c5='docs/benchmarks/disk_cache_5ms.csv'; out='docs/benchmarks/disk_cache.png'" bench/disk_cache/plot.gp
set terminal pngcairo size 900,420
set output out
set datafile separator ","
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "p50 of a fresh rap lookup process (ms)"
set key top right
set yrange [0:*]
set xtics rotate by -30 font ",9"
set bmargin 5
set multiplot layout 1,2
set title "S3 at 30 ms (rap-netsim)"
plot c30 every ::1 using 4:xtic(sprintf("%s/%s", stringcolumn(2), stringcolumn(3))) title "p50 ms" lc rgb "#3366cc"
set title "S3 at 5 ms (rap-netsim)"
plot c5 every ::1 using 4:xtic(sprintf("%s/%s", stringcolumn(2), stringcolumn(3))) title "p50 ms" lc rgb "#dc3912"
unset multiplot
