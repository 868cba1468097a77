# gnuplot docs/benchmarks/zorder.gp (from the repository root): zorder.png from zorder.csv
# (bench_zorder) and zorder_duckdb.csv (bench/zorder_duckdb.py): box queries per layout.
set datafile separator ","
set terminal pngcairo size 1300,420 noenhanced
set output "docs/benchmarks/zorder.png"
set multiplot layout 1,3
set logscale x
set logscale y
set xlabel "box area (fraction of the plane)"
set key top left
set grid
sel(p, l) = sprintf("< awk -F, '$1 == \"%s\" && $2 == \"%s\"' docs/benchmarks/zorder.csv", p, l)
duck(p, l) = sprintf("< awk -F, '$1 == \"%s\" && $3 == \"%s\"' docs/benchmarks/zorder_duckdb.csv", p, l)
set title "bytes read per query (rap, cold)"
set ylabel "bytes"
plot sel("local", "natural") using 3:7 with linespoints title "natural order", \
     sel("local", "sorted_x") using 3:7 with linespoints title "sorted by x", \
     sel("local", "zorder") using 3:7 with linespoints title "Z-order x,y"
set title "median time over rap-netsim at 20 ms (rap)"
set ylabel "seconds"
plot sel("20ms", "natural") using 3:6 with linespoints title "natural order", \
     sel("20ms", "sorted_x") using 3:6 with linespoints title "sorted by x", \
     sel("20ms", "zorder") using 3:6 with linespoints title "Z-order x,y"
set title "median time over rap-netsim at 20 ms (DuckDB)"
plot duck("20ms", "natural") using 4:6 with linespoints title "natural order", \
     duck("20ms", "sorted_x") using 4:6 with linespoints title "sorted by x", \
     duck("20ms", "zorder") using 4:6 with linespoints title "Z-order x,y"
unset multiplot
