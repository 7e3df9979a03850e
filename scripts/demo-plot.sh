#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Plot make demo's figures by the second (the "demo-data: s errors delays
# latency_ms iops" lines of its console log) as a PNG with gnuplot.
#
# usage: scripts/demo-plot.sh LOG PNG
set -eu
log=$1 png=$2
data=$(mktemp)
trap 'rm -f "$data"' EXIT
sed -n 's/^demo-data: //p' "$log" > "$data"
[ -s "$data" ] || { echo "demo-plot: no demo-data lines in $log" >&2; exit 1; }
gnuplot <<GP
set terminal pngcairo size 900,520 font ",11" noenhanced
set output "$png"
set title "dm-fault demo: faults injected into fio on ext4, and what fio saw"
set xlabel "second of the run"
set ylabel "faults injected per second"
set y2label "mean latency (ms)"
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set key top left
set style fill solid 0.6 border -1
set boxwidth 0.35
plot "$data" using (\$1 - 0.18):2 with boxes title "errors (EIO, ENOSPC)", \
     "$data" using (\$1 + 0.18):3 with boxes title "delays (2-10 ms)", \
     "$data" using 1:4 axes x1y2 with linespoints lw 2 pt 7 title "fio mean latency"
GP
echo "demo: the run by the second in $png"
