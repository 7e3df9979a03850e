#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# twostep.sh setup|workload|check raw flushed|unflushed N: a store of N
# 512-byte records on the raw device $DMF_DEV that commits through a
# journal and leaves the copy home to recovery, as a write-ahead log does.
# Record i has a journal sector (64 + i), a commit sector (i) and a home
# sector (128 + i).  The workload writes the journal sector and flushes,
# writes "commit i" and flushes, and then acknowledges the record.
#
# The check is the store's recovery and then its reader: each committed
# record is copied home and its commit cleared, then every acknowledged
# record must be at home.  The repair is two steps:
#   flushed    flushes the copy before it clears the commit: a crash
#              between them leaves the commit, and the next recovery
#              copies again;
#   unflushed  clears the commit with no flush after the copy: the disk
#              may keep the clear and lose the copy, and the record is
#              then nowhere.
# A crash in the workload never loses a record (the flushes order it), so
# only a crash during the check's own recovery finds the second.
set -u
step=$1 mode=$3 n=${4:-4}
P=/tmp/dmf-crashtest-twostep
ack=$P.ack

. "$(dirname "$0")/fs.sh"

# sector TEXT: TEXT padded with zeroes to 512 bytes
sector() {
	{ printf '%s' "$1"; head -c 512 /dev/zero; } | head -c 512
}

# put SECTOR [FLAGS]: stdin to that sector, with O_DIRECT (and conv=FLAGS)
put() {
	dd of="$DMF_DEV" bs=512 seek="$1" count=1 oflag=direct conv=notrunc${2:+,$2} \
		status=none
}

# get SECTOR: that sector on stdout, read with O_DIRECT
get() {
	dd if="$DMF_DEV" bs=512 skip="$1" count=1 iflag=direct status=none
}

case $step in
setup)
	dd if=/dev/zero of="$DMF_DEV" bs=512 count=192 oflag=direct conv=fsync status=none ||
		exit 1
	: > $ack
	;;
workload)
	for i in $(seq 1 "$n"); do
		sector "$(printf 'record %04d' "$i")" | put $((64 + i)) fsync || exit 1
		sector "$(printf 'commit %04d' "$i")" | put "$i" fsync || exit 1
		echo "$i" >> $ack
		mark_step "acked-$i"
	done
	;;
check)
	for i in $(seq 1 "$n"); do
		[ "$(get "$i" | tr -d '\0')" = "$(printf 'commit %04d' "$i")" ] || continue
		if [ "$mode" = flushed ]; then
			get $((64 + i)) | put $((128 + i)) fsync || exit 1
		else
			get $((64 + i)) | put $((128 + i)) || exit 1
		fi
		sector "" | put "$i" || exit 1
	done
	sync "$DMF_DEV" || exit 1
	acked=$(acked $ack)
	for i in $(seq 1 "$acked"); do
		[ "$(get $((128 + i)) | tr -d '\0')" = "$(printf 'record %04d' "$i")" ] ||
			{ echo "record $i was acknowledged but is neither home nor committed"; exit 1; }
	done
	;;
esac
