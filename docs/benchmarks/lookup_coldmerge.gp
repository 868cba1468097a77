# gnuplot docs/benchmarks/lookup_coldmerge.gp (from the repository root): requests and p50 of one
# lookup before and after the lookup's cold-start merging (bench_lookup, 6 files, 400,000 rows).
set terminal pngcairo size 1200,900 noenhanced
set output 'docs/benchmarks/lookup_coldmerge.png'
set datafile separator ','
set multiplot layout 2,2 title 'bench_lookup: cold-start merging of a lookup''s page ranges (before / after)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8
set xtics rotate by -25 font ',9'
set key top left
do for [p in "30ms 5ms"] {
  set title p.': requests per lookup'
  plot for [f in "before after"] sprintf("< awk -F, '$1==\"%s\"' docs/benchmarks/lookup_coldmerge_%s.csv", p, f) \
       using 9:xtic(strcol(2).' '.strcol(4)) title f
  set title p.': p50 ms'
  plot for [f in "before after"] sprintf("< awk -F, '$1==\"%s\"' docs/benchmarks/lookup_coldmerge_%s.csv", p, f) \
       using 6:xtic(strcol(2).' '.strcol(4)) title f
}
unset multiplot
