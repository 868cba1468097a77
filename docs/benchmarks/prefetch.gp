# gnuplot docs/benchmarks/prefetch.gp (from the repository root): full-scan median time per setting.
set terminal pngcairo size 1100,520 noenhanced
set output 'docs/benchmarks/prefetch.png'
set datafile separator ','
set title 'bench_prefetch: full scan of 8 files (60 MiB), median of 3 (Dec 3 2026, 20:05-20:14 UTC, quiet machine)'
set ylabel 'seconds'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8
set xtics rotate by -45
set key top right
plot '< grep ",full," docs/benchmarks/prefetch.csv | grep -v ",peer " | grep "^20ms"' using 6:xtic(3) title '20 ms / 256 MiB/s', \
     '< grep ",full," docs/benchmarks/prefetch.csv | grep -v ",peer " | grep "^50ms"' using 6 title '50 ms / 64 MiB/s', \
     '< grep ",full," docs/benchmarks/prefetch.csv | grep -v ",peer " | grep "^local"' using 6 title 'local files'
