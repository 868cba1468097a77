# gnuplot docs/benchmarks/restructure/ratios.gp (from the repository root): main's speed relative to
# the commit before issue 27's restructure (c52b9b4), per bench_decode case and bench_scan query.
set terminal pngcairo size 1300,650 noenhanced
set rmargin 8
set output 'docs/benchmarks/restructure/ratios.png'
set datafile separator ','
set title 'main (fc7759a) vs before the restructure (c52b9b4): speed ratio, > 1 = main faster'
set style data histograms
set style fill solid 0.8
set xtics rotate by -40 font ',8'
set yrange [0:2.6]
set grid ytics
set key off
plot 'docs/benchmarks/restructure/ratios.csv' every ::1 using 5:xtic(strcol(1).' '.strcol(2)), 1 with lines lc rgb 'black'
