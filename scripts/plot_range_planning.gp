# Median scan time by range-planning policy for each case of bench_range_planning.
#   gnuplot -e "datafile='range_planning_plot.dat'; outfile='docs/benchmarks/range_planning.png'" \
#           scripts/plot_range_planning.gp
# The data file is written by bench_range_planning into its --csv-dir: one row per case (profile and
# projection), one column per policy, median seconds.
if (!exists("datafile")) datafile = 'range_planning_plot.dat'
if (!exists("outfile")) outfile = 'range_planning.png'
set terminal pngcairo size 1100,560 font ",10" noenhanced
set output outfile
set title "bench_range_planning: median scan time by policy (rap-netsim, 4 files, 64 matching rows)" noenhanced
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel "scan time (s, median of repetitions)"
set yrange [0:*]
set grid ytics
set key outside right top vertical
set xtics nomirror
ncols = system(sprintf("head -1 '%s' | wc -w", datafile)) + 0
plot for [i=2:ncols] datafile using i:xtic(1) title columnheader(i)
