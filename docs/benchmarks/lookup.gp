# gnuplot docs/benchmarks/lookup.gp (from the repository root): p50 latency of one lookup per method,
# for batches of 1, 10 and 100 keys, at 30 ms and 5 ms rap-netsim latency (log scale).
set terminal pngcairo size 1200,900 noenhanced
set output 'docs/benchmarks/lookup.png'
set datafile separator ','
set multiplot layout 2,1 title 'bench_lookup: p50 latency of one lookup (16 files, 2M rows, 20 columns)'
set logscale y
set ylabel 'p50 ms (log)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8
set xtics rotate by -25 font ',9'
set key top left
do for [p in "30ms 5ms"] {
  set title p.' latency'
  plot for [k in "1 10 100"] sprintf("< awk -F, '$1==\"%s\" && $4==%s' docs/benchmarks/lookup.csv", p, k) \
       using 6:xtic(strcol(2).' '.strcol(3)) title k.' keys'
}
unset multiplot
