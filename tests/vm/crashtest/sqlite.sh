#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# sqlite.sh setup|workload|check FS SYNC [ROWS] [JOURNAL]: SQLite inserting
# rows, one transaction each, with PRAGMA synchronous=SYNC (FULL or OFF) and
# journal_mode=JOURNAL (default WAL), on FS (ext4 or xfs) on $DMF_DEV at
# $DMF_MNT, for dmfault crashtest.  (In DELETE mode FULL does not sync the
# directory after it deletes the journal: a power cut right after a commit
# can roll it back; SQLite's EXTRA level is for that.)  The workload notes
# each row whose COMMIT returned in an acknowledgement file off the device
# and marks it in the recording (acked-N); check passes if integrity_check
# says ok and every row acknowledged before the crash is there.
set -u
step=$1 fs=$2 sync=$3 rows=${4:-40} journal=${5:-WAL}
ack=/tmp/dmf-crashtest-sqlite.ack

. "$(dirname "$0")/fs.sh"

case $step in
setup)
	fs_make && fs_mount || exit 1
	sqlite3 "$DMF_MNT/db" "PRAGMA journal_mode=$journal;
		CREATE TABLE t(i INTEGER PRIMARY KEY, v TEXT);" > /dev/null || exit 1
	: > $ack
	sync
	;;
workload)
	for i in $(seq 1 "$rows"); do
		sqlite3 "$DMF_MNT/db" "PRAGMA synchronous=$sync; INSERT INTO t VALUES($i, 'row $i');" \
			2>/dev/null || exit 1
		echo "$i" >> $ack
		mark_step "acked-$i"
	done
	;;
check)
	fs_mount || { echo "mount failed"; exit 1; }
	out=$(sqlite3 "$DMF_MNT/db" "PRAGMA integrity_check; SELECT count(*) FROM t;" 2>&1)
	umount "$DMF_MNT"
	acked=$(acked $ack)
	set -- $out
	[ "$1" = ok ] || { echo "integrity_check: $out"; exit 1; }
	[ "$2" -ge "$acked" ] 2>/dev/null || { echo "rows $2 < acknowledged $acked"; exit 1; }
	fs_check || exit 1
	;;
esac
