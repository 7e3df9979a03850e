#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo: runs inside the VM.  A fault device over a virtio disk, ext4 on
# top, fio reading and writing two files for 10 s while rules fail reads
# with EIO, fail writes with ENOSPC and delay writes: the rules match the
# files' own extents, so the faults land on the workload's data all through
# the run and ext4's journal is left alone.  Then a second-by-second picture
# of faults and latency, the device's statistics and its fault log.  Lines
# "demo-data: ..." carry the per-second figures to the host, which plots
# them (make demo: build/demo.png).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$top/tools/dmfault:$top/tests/vm/bin:$PATH"
"$top/tests/vm/load" >/dev/null || exit 1
dmesg -n 1

DISK=${VM_DISKS%% *}
S=$(blockdev --getsz "$DISK")
M=/mnt/demo
SECS=10
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { echo "# $*"; "$@"; }

say "a fault device over $DISK ($((S / 2048)) MiB), no rules yet"
run dmsetup create demo --table "0 $S fault $DISK 0"
run dmsetup table demo
run mkfs.ext4 -q -F /dev/mapper/demo
mkdir -p $M
run mount /dev/mapper/demo $M

FIO=(fio --name=demo --directory=$M --rw=randrw --bs=4k --size=64M --numjobs=2
     --ioengine=libaio --iodepth=16 --direct=1 --group_reporting)
say "fio lays out its two 64 MiB files before any rule"
"${FIO[@]}" --create_only=1 > /dev/null || exit 1
sync

# the files' extents in device sectors (filefrag: 4 KiB blocks)
extents=$(filefrag -e $M/demo.*.0 | awk -F'[ .:]+' '$2 ~ /^[0-9]+$/ && NF > 6 {
	printf "%d-%d\n", $5 * 8, $6 * 8 + 7 }')
say "rules on the files' $(echo "$extents" | wc -l) extents, added at run time, no suspend:"
echo "   1% of reads fail (EIO), 0.5% of writes fail (ENOSPC), 5% of writes take 2-10 ms"
n=0
for e in $extents; do
	n=$((n + 1))
	dmsetup message demo 0 rule add "error:op=read,sectors=$e,p=1%,seed=$((40 + n))" &&
	dmsetup message demo 0 rule add "error:op=write,sectors=$e,status=enospc,p=0.5%,seed=$((60 + n))" &&
	dmsetup message demo 0 rule add "delay:op=write,sectors=$e,delay=2ms,jitter=8ms,p=5%,seed=$((80 + n))" ||
		exit 1
done
run dmsetup message demo 0 rule list

# every injection is a trace event: the run's are counted by the second
TR=/sys/kernel/tracing
echo 0 > $TR/tracing_on && echo > $TR/trace && echo 4096 > $TR/buffer_size_kb &&
	echo 1 > $TR/events/dm_fault/fault_inject/enable || exit 1

say "fio: 4k random read/write for $SECS s, going on over errors"
echo 1 > $TR/tracing_on
echo demo-start > $TR/trace_marker
"${FIO[@]}" --time_based --runtime=$SECS --continue_on_error=all --ignore_error=EIO,EIO:ENOSPC \
	--write_lat_log=/tmp/demo --write_iops_log=/tmp/demo --log_avg_msec=1000 > /tmp/demo.fio 2>&1
echo 0 > $TR/tracing_on
echo 0 > $TR/events/dm_fault/fault_inject/enable
grep -E 'read:|write:|err=|IOPS' /tmp/demo.fio | head -n 8

# per second: injected errors and delays, I/Os and mean latency (fio's logs,
# one line a second per job and direction: msec, nsec, dir, bs)
say "second by second: faults injected, I/Os completed, mean latency"
awk -v secs=$SECS '{for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break; t = $i + 0}
	/demo-start/ {t0 = t}
	/fault_inject:/ && t0 {s = int(t - t0) + 1; if (/action=error/) e[s]++; if (/action=delay/) d[s]++}
	END {for (s = 1; s <= secs; s++) print s, e[s] + 0, d[s] + 0}' $TR/trace > /tmp/demo.inj
cat /tmp/demo_lat.*.log | awk -F', *' '{s = int(($1 + 500) / 1000); if (s < 1) s = 1
	lat[s] += $2; n[s]++} END {for (s in n) print s, lat[s] / n[s] / 1e6}' | sort -n > /tmp/demo.lat
cat /tmp/demo_iops.*.log | awk -F', *' '{s = int(($1 + 500) / 1000); if (s < 1) s = 1
	io[s] += $2} END {for (s in io) print s, io[s]}' | sort -n > /tmp/demo.iops
join -a1 -e0 -o 0,1.2,1.3,2.2 /tmp/demo.inj /tmp/demo.lat |
	join -a1 -e0 -o 0,1.2,1.3,1.4,2.2 - /tmp/demo.iops > /tmp/demo.data
# bars scaled to each column's largest second
awk 'NR == FNR {for (i = 2; i <= 5; i++) if ($i > m[i]) m[i] = $i; next}
	FNR == 1 {printf "   s %-19s %-19s %-19s %s\n", "errors", "delays", "latency (ms)", "IOPS"}
	{printf "  %2d %4d %-14s %4d %-14s %5.1f %-13s %5d\n", $1, $2, bar($2, m[2]), $3,
		bar($3, m[3]), $4, bar($4, m[4]), $5}
	function bar(v, max,   s, i) {s = ""; for (i = 0; max && i < 12 * v / max; i++) s = s "#"
		return s}' /tmp/demo.data /tmp/demo.data
sed 's/^/demo-data: /' /tmp/demo.data

say "statistics"
if [ -x "$top/tools/dmfault/dmfault" ]; then
	run dmfault stats demo
else
	run dmsetup message demo 0 stats
fi

say "the last injected faults (time, op, sector, bytes, rule, action)"
dmsetup message demo 0 log | tail -n 8

say "what ext4 saw: nothing (the faults hit file data, fio got the errors)"
dmesg | grep -E 'EXT4-fs (error|warning)|Aborting journal' | tail -n 5

run umount $M
run dmsetup remove demo
"$top/tests/vm/unload" >/dev/null && echo "modules unloaded: nothing left behind"
