# gnuplot docs/benchmarks/layouts.gp (from the repository root): layouts.png from layouts.csv
set datafile separator ","
set terminal pngcairo size 1000,420 noenhanced
set output "docs/benchmarks/layouts.png"
set multiplot layout 1,2
set style data histograms
set style fill solid 0.8
set boxwidth 0.8
set xtics rotate by -30
set key off
set yrange [0:*]
set title "file size vs standard (rows of ~100 B)"
plot "docs/benchmarks/layouts.csv" using 5:xtic(1) skip 1
set logscale y
set yrange [100:*]
set title "bytes read per looked-up key (log scale)"
plot "docs/benchmarks/layouts.csv" using 6:xtic(1) skip 1
unset multiplot
