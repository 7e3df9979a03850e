#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dsync.sh setup|workload|check raw MODE N: a log of N 8 KiB records written
# with O_DIRECT|O_DSYNC on the raw device $DMF_DEV, record i in slot i (at
# 8 KiB * i), each acknowledged once its write returned.  Every 512-byte
# sector of a record begins with "rec NNNN sec SS": a record is whole when
# all 16 carry their own line.  An O_DSYNC write is a FUA write, durable
# once it completes, so only a crash while one is in flight can leave a
# record in part, as a drive that writes atomically no more than a logical
# block may.
#
# The check reads the log back as a program would, up to the first record
# it does not take:
#   verify   takes a record only when every sector is its own (a checksum):
#            a torn record ends the log, and every acknowledged record is
#            before it;
#   header   takes a record when its first sector is, and uses all of it:
#            the check fails when a record it took is not whole.
set -u
step=$1 mode=$3 n=${4:-16}
P=/tmp/dmf-crashtest-dsync
ack=$P.ack

. "$(dirname "$0")/fs.sh"

# rec I: record I's 8 KiB on stdout
rec() {
	local s

	for s in $(seq 0 15); do
		printf 'rec %04d sec %02d\n' "$1" "$s" | head -c 512
		head -c $((512 - 16)) /dev/zero | tr '\0' "$(printf '\\%03o' $((97 + $1 % 26)))"
	done
}

case $step in
setup)
	dd if=/dev/zero of="$DMF_DEV" bs=8k count=$((n + 1)) oflag=direct conv=fsync \
		status=none || exit 1
	for i in $(seq 1 "$n"); do
		rec "$i" > $P.$i
	done
	: > $ack
	;;
workload)
	for i in $(seq 1 "$n"); do
		dd if=$P.$i of="$DMF_DEV" bs=8k seek="$i" count=1 oflag=direct,dsync \
			conv=notrunc status=none || exit 1
		echo "$i" >> $ack
		mark_step "acked-$i"
	done
	;;
check)
	acked=$(acked $ack)
	took=0
	for i in $(seq 1 "$n"); do
		dd if="$DMF_DEV" of=$P.got bs=8k skip="$i" count=1 iflag=direct status=none ||
			{ echo "cannot read record $i"; exit 1; }
		if [ "$mode" = verify ]; then
			cmp -s $P.got $P.$i || break
		else
			[ "$(head -c 15 $P.got)" = "$(printf 'rec %04d sec 00' "$i")" ] || break
			cmp -s $P.got $P.$i || { echo "record $i was taken but is torn"; exit 1; }
		fi
		took=$i
	done
	[ "$took" -ge "$acked" ] || { echo "records taken $took < acknowledged $acked"; exit 1; }
	;;
esac
