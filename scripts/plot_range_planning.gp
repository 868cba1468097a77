# Median scan time by range-planning policy for each case of bench_range_planning.
#   gnuplot -e "datafile='range_planning_plot.dat'; outfile='docs/benchmarks/range_planning.png'" \
#           scripts/plot_range_planning.gp
# The data file is written by bench_range_planning into its --csv-dir: one row per case (profile,
# mode and projection), one column per policy, median seconds.
if (!exists("datafile")) datafile = 'range_planning_plot.dat'
if (!exists("outfile")) outfile = 'range_planning.png'
set terminal pngcairo size 1400,620 font ",10" noenhanced
set output outfile
set title "bench_range_planning: median scan time by policy and mode (rap-netsim, 4 files, 64 matching rows; seed = seed 000's conditions, default = rap scan's defaults)" noenhanced
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel "scan time (s, median of repetitions; log scale)"
set logscale y
set yrange [0.5:*]
set grid ytics
set key outside right top vertical
set xtics nomirror rotate by -20
ncols = system(sprintf("head -1 '%s' | wc -w", datafile)) + 0
plot for [i=2:ncols] datafile using i:xtic(1) title columnheader(i)
