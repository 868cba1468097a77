# gnuplot docs/benchmarks/orc.gp (from the repository root): bench_prefetch --format orc, median time
# per setting of the full and the filtered scan, over rap-netsim (20 ms / 256 MiB/s) and locally.
set terminal pngcairo size 1200,480 noenhanced
set output 'docs/benchmarks/orc.png'
set datafile separator ','
set multiplot layout 1,2 title 'bench_prefetch --format orc: 8 ORC files (47 MiB, pyarrow writer), median of 5 (Dec 5 2026, load average 5.6-7.6 on 2 cores)'
set ylabel 'seconds'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8
set xtics rotate by -45
set key top right
set yrange [0:*]
set title 'full scan (pyarrow ORC, local, 1 thread: 0.163 s)'
plot '< grep ",full," docs/benchmarks/orc.csv | grep "^20ms"' using 6:xtic(3) title '20 ms / 256 MiB/s', \
     '< grep ",full," docs/benchmarks/orc.csv | grep -v ",peer " | grep "^local"' using 6 title 'local files'
set title 'filtered scan, columns id, s (pyarrow: 0.107 s)'
plot '< grep ",filtered," docs/benchmarks/orc.csv | grep "^20ms"' using 6:xtic(3) title '20 ms / 256 MiB/s', \
     '< grep ",filtered," docs/benchmarks/orc.csv | grep -v ",peer " | grep "^local"' using 6 title 'local files'
unset multiplot
