#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# examples/sqlite-commit-error.sh DISK [ROWS]: does a write error at commit
# reach SQLite's caller, and does the database survive it?
#
# A fault device over DISK (its data is lost), ext4 on it, a table filled
# with ROWS committed rows (synchronous=FULL, WAL); then every write fails
# (EIO) and one more transaction is committed: COMMIT must fail, with the
# error, not pretend.  The rule goes, the filesystem is checked and mounted
# again, and the database must pass integrity_check with exactly the rows
# committed before the fault.  Prints what it saw; exits 0 if SQLite
# behaved, 1 if not, 2 on a setup error.
#
# Run it in the test VM with one command:
#   tests/vm/run --disk 512M -- examples/sqlite-commit-error.sh /dev/vda
set -u
disk=${1:?usage: $0 DISK [ROWS]} rows=${2:-200}
top=$(cd "$(dirname "$0")/.." && pwd)
mnt=$(mktemp -d)
dev=/dev/mapper/sqlite-example

lsmod | grep -q '^dm_fault ' || "$top/tests/vm/load" > /dev/null || modprobe dm-fault || exit 2
cleanup() {
	umount "$mnt" 2>/dev/null
	dmsetup remove sqlite-example 2>/dev/null
	rmdir "$mnt"
}
trap cleanup EXIT
sql() {
	sqlite3 -batch -bail "$mnt/db" "$@"
}

dmsetup create sqlite-example --table "0 $(blockdev --getsz "$disk") fault $disk 0" &&
	mkfs.ext4 -q -F $dev && mount $dev "$mnt" || exit 2
sql "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE t(n INTEGER, pad TEXT);" \
	> /dev/null || exit 2
for ((i = 1; i <= rows; i += 50)); do
	sql "PRAGMA synchronous=FULL; BEGIN; $(for ((j = i; j < i + 50 && j <= rows; j++)); do
		printf "INSERT INTO t VALUES (%d, hex(randomblob(200)));" $j; done) COMMIT;" || exit 2
done
echo "committed: $(sql 'SELECT count(*) FROM t;') rows"

dmsetup message sqlite-example 0 rule add "error:op=write,status=eio" > /dev/null || exit 2
out=$(sql "PRAGMA synchronous=FULL; BEGIN; INSERT INTO t VALUES (-1, 'after the fault');
	COMMIT;" 2>&1)
rc=$?
echo "the commit under the fault: exit $rc: ${out:-no message}"
dmsetup message sqlite-example 0 rule remove 1 || exit 2
umount "$mnt" 2>/dev/null || umount -l "$mnt"
fsck.ext4 -fy $dev > /dev/null 2>&1
[ $? -le 1 ] || { echo "fsck could not repair the filesystem"; exit 1; }
mount $dev "$mnt" || exit 2
check=$(sql "PRAGMA integrity_check;" 2>&1)
count=$(sql "SELECT count(*) FROM t WHERE n > 0;" 2>&1)
lost=$(sql "SELECT count(*) FROM t WHERE n < 0;" 2>&1)
echo "after the fault: integrity_check: $check; rows: $count committed before, $lost from the failed commit"
if [ $rc -eq 0 ]; then
	echo "FAIL: the commit succeeded while every write failed"
	exit 1
fi
if [ "$check" != ok ] || [ "$count" != "$rows" ] || [ "$lost" != 0 ]; then
	echo "FAIL: the database is not what was committed"
	exit 1
fi
echo "ok: the error reached the application and the committed data is intact"
