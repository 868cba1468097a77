# Plots of bench_serve's CSVs (docs/benchmarks/serve.md); run from docs/benchmarks: gnuplot serve.gp
set datafile separator ","
set terminal pngcairo size 1500,460 font "sans,10"
set output "serve.png"
set multiplot layout 1,3
sel(p, l, k) = sprintf("< awk -F, '$1==\"serve\" && $2==\"%s\" && $3==\"%s\" && $4==%d' serve.csv", p, l, k)
set logscale x 2
set xtics (1, 64)
set xrange [0.8:90]
set xlabel "concurrency (wrk connections)"
set key top left
set grid
set title "1-key lookups: throughput"
set ylabel "lookups/s"
plot sel("local","plain",1) u 5:9 w lp lc 1 t "local plain", \
     sel("local","covered",1) u 5:9 w lp lc 2 t "local covered", \
     sel("local","hoisted",1) u 5:9 w lp lc 3 t "local hoisted", \
     sel("local","interleaved",1) u 5:9 w lp lc 8 t "local interleaved", \
     sel("5ms","plain",1) u 5:9 w lp lc 4 t "5 ms plain", \
     sel("5ms","covered",1) u 5:9 w lp lc 5 t "5 ms covered"
set title "1-key lookups: p50 (solid) and p99 (dashed)"
set ylabel "ms"
set logscale y 10
plot sel("local","plain",1) u 5:10 w lp lc 1 t "local plain", \
     sel("local","plain",1) u 5:11 w lp lc 1 dt 2 notitle, \
     sel("local","hoisted",1) u 5:10 w lp lc 3 t "local hoisted", \
     sel("local","hoisted",1) u 5:11 w lp lc 3 dt 2 notitle, \
     sel("local","interleaved",1) u 5:10 w lp lc 8 t "local interleaved", \
     sel("local","interleaved",1) u 5:11 w lp lc 8 dt 2 notitle, \
     sel("5ms","plain",1) u 5:10 w lp lc 4 t "5 ms plain", \
     sel("5ms","plain",1) u 5:11 w lp lc 4 dt 2 notitle
unset logscale
set title "soak: server RSS (local, covered, 1 key, concurrency 64)"
set xlabel "seconds"
set ylabel "MiB"
set yrange [0:*]
set xtics auto
set xrange [*:*]
plot "serve_rss.csv" u 1:2 every ::1 w l lw 2 t "RSS"
unset multiplot
