#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# records.sh setup|workload|check FS fsync|nofsync [N]: a program that
# appends numbered records to a log file on FS and acknowledges each one,
# after fsync or right after write(), for dmfault crashtest, marking each
# acknowledgement in the recording (acked-N).  check passes if the log
# starts with every record acknowledged before the crash, intact and in
# order.
set -u
step=$1 fs=$2 mode=$3 n=${4:-40}
ack=/tmp/dmf-crashtest-records.ack

. "$(dirname "$0")/fs.sh"

case $step in
setup)
	fs_make && fs_mount || exit 1
	: > "$DMF_MNT/log"
	: > $ack
	sync
	;;
workload)
	for i in $(seq 1 "$n"); do
		printf 'record %04d\n' "$i" >> "$DMF_MNT/log" || exit 1
		if [ "$mode" = fsync ]; then
			sync "$DMF_MNT/log" || exit 1
		fi
		echo "$i" >> $ack
		mark_step "acked-$i"
	done
	;;
check)
	fs_mount || { echo "mount failed"; exit 1; }
	good=$(awk '$0 == sprintf("record %04d", NR) {n = NR; next} {exit} END {print n + 0}' \
		"$DMF_MNT/log" 2>/dev/null)
	umount "$DMF_MNT"
	acked=$(acked $ack)
	[ "${good:-0}" -ge "$acked" ] || { echo "records intact ${good:-0} < acknowledged $acked"; exit 1; }
	fs_check || exit 1
	;;
esac
