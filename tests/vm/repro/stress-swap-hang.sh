#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Reproducer attempt for a hang seen once (6.12, one host thread):
# 15-stress printed "xfs: device removed" and then
# nothing for over 15 minutes, in the live table swap section (100
# suspend/load/resume of fault, fault-flakey and fault-delay tables under
# a fio verify loop); QEMU stayed at 100 % of its host thread.  Not in make
# check.  This runs that section 40 times over; when a round stops moving
# for a minute it prints the tables, the stacks of dmsetup, fio and the
# kworkers, sysrq-w and the device's stats, and fails.
#
# usage: tests/vm/run --kernel K --mem 2048 --disk 1G --timeout 2400 -- \
#            tests/vm/repro/stress-swap-hang.sh
. "$(dirname "$0")/../lib.sh"
ktap_begin swaps
dmf_load
DISK=${VM_DISKS%% *}
S=$(dm_size "$DISK")
FIO="fio --output=/dev/null --minimal"
echo 1 > /proc/sys/kernel/sysrq
dm_create sw "0 $S fault $DISK 0"
rm -f /tmp/sw.stop
(
	while [ ! -e /tmp/sw.stop ]; do
		$FIO --name=v --filename=/dev/mapper/sw --rw=randwrite --bs=4k --size=32M \
			--ioengine=libaio --iodepth=16 --verify=crc32c --verify_fatal=1 \
			--do_verify=1 --verify_backlog=32 --time_based --runtime=3 >/tmp/sw.fio 2>&1 || echo "# fio failed"
	done
) &
tables=("0 $S fault $DISK 0"
	"0 $S fault $DISK 0 2 error:p=0,sectors=0-1000 delay:op=write,delay=1ms,p=10%"
	"0 $S fault $DISK 0 1 stall:op=write,sectors=0-130000,timeout=20ms"
	"0 $S fault-flakey $DISK 0 180 0"
	"0 $S fault-delay $DISK 0 0 $DISK 0 1")
for round in $(seq 40); do
	for i in $(seq 100); do
		echo "$round.$i" > /tmp/progress
		dmsetup suspend --nolockfs sw || { echo "# suspend failed"; break; }
		echo "${tables[$((i % ${#tables[@]}))]}" | dmsetup load sw || { echo "# load failed"; break; }
		dmsetup resume sw || { echo "# resume failed"; break; }
	done &
	w=$!
	last=; same=0
	while kill -0 $w 2>/dev/null; do
		sleep 10
		p=$(cat /tmp/progress)
		if [ "$p" = "$last" ]; then
			same=$((same + 1))
			if [ $same -ge 6 ]; then
				echo "# STUCK at $p (table $(( ${p#*.} % 5 )))"
				dmsetup info sw
				dump_stacks
				dmsetup message sw 0 stats
				exit 1
			fi
		else
			same=0; last=$p
		fi
	done
	echo "# round $round done"
done
touch /tmp/sw.stop
ok "4000 swaps"
ktap_end
