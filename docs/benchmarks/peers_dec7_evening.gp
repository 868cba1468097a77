# gnuplot docs/benchmarks/peers_dec7_evening.gp (from the repository root): p50 of one lookup of 1, 10
# and 100 keys before (7 Dec afternoon, main 53ddde3) and after this evening's changes (index page
# size, local index gaps, the lookup rule for index pages and once trained), with Lance and Vortex
# from the same-day run (after column only). Data: peers_dec7_evening.csv.
set terminal pngcairo size 1500,1000 noenhanced
set output 'docs/benchmarks/peers_dec7_evening.png'
set datafile separator ','
set multiplot layout 3,1 title 'bench/peers, 2 M rows: p50 ms per lookup, before / after (7 Dec 2026, evening)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8
set xtics rotate by -30 font ',8'
set key top left
set logscale y
do for [p in "local s3-30ms s3-5ms"] {
  set title p
  plot sprintf("< awk -F, 'NR>1 && $1==\"%s\"' docs/benchmarks/peers_dec7_evening.csv", p) using 3:xtic(2) title 'before', \
       '' using 4 title 'after'
}
unset multiplot
