# gnuplot docs/benchmarks/layouts_lookup.gp (from the repository root): layouts_lookup.png from
# layouts_lookup.csv (bench_layouts_lookup): warm lookups at 30 ms, per layout.
set datafile separator ","
set terminal pngcairo size 1200,420 noenhanced
set output "docs/benchmarks/layouts_lookup.png"
set multiplot layout 1,3
set style data histograms
set style fill solid 0.8
set boxwidth 0.8
set xtics rotate by -30
set key off
set yrange [0:*]
warm30 = "< awk -F, '$1 == \"30ms\" && $5 == \"warm\"' docs/benchmarks/layouts_lookup.csv"
set title "warm p50 ms at 30 ms latency"
plot warm30 using 7:xtic(2)
set title "data requests per key (warm)"
plot warm30 using 9:xtic(2)
set logscale y
set yrange [100:*]
set title "bytes per key (warm, log scale)"
plot warm30 using 10:xtic(2)
unset multiplot
