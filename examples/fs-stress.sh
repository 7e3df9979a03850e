#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# examples/fs-stress.sh ext4|xfs DISK [SECONDS]: filesystem stress under
# faults.  A fault device over DISK (its data is lost), the filesystem on
# it, fio's files laid out, then rules on those files' extents (1 % of
# reads fail with EIO, 0.5 % of writes with ENOSPC, 5 % of writes are
# delayed 2-10 ms) while examples/fio/fs-faults.fio runs for SECONDS
# (default 30).  Then the statistics, and the filesystem must unmount and
# check clean, read with the rules gone: the faults hit file data, so the
# filesystem itself must be whole.  Exits 0 if so, 1 if not, 2 on a setup error.
#
#   tests/vm/run --disk 1G -- examples/fs-stress.sh xfs /dev/vda 30
set -u
fs=${1:?usage: $0 ext4|xfs DISK [SECONDS]} disk=${2:?usage: $0 ext4|xfs DISK [SECONDS]}
secs=${3:-30}
top=$(cd "$(dirname "$0")/.." && pwd)
dev=/dev/mapper/fs-stress
export DIR RUNTIME=$secs
DIR=$(mktemp -d)

lsmod | grep -q '^dm_fault ' || "$top/tests/vm/load" > /dev/null || modprobe dm-fault || exit 2
cleanup() {
	umount "$DIR" 2>/dev/null
	dmsetup remove fs-stress 2>/dev/null
	rmdir "$DIR"
}
trap cleanup EXIT

dmsetup create fs-stress --table "0 $(blockdev --getsz "$disk") fault $disk 0" || exit 2
case $fs in
ext4) mkfs.ext4 -q -F $dev ;;
xfs) mkfs.xfs -q -f $dev ;;
*) echo "$0: ext4 or xfs"; exit 2 ;;
esac || exit 2
mount $dev "$DIR" && fio --create_only=1 "$top/examples/fio/fs-faults.fio" > /dev/null &&
	sync || exit 2
# the files' extents, in sectors of the device (filefrag -b512)
n=0
for e in $(filefrag -b512 -e "$DIR"/randrw.* | awk -F'[ .:]+' '$2 ~ /^[0-9]+$/ && NF > 6 {
	printf "%d-%d\n", $5, $6}'); do
	n=$((n + 1))
	dmsetup message fs-stress 0 rule add "error:op=read,sectors=$e,p=1%" > /dev/null &&
	dmsetup message fs-stress 0 rule add "error:op=write,sectors=$e,status=enospc,p=0.5%" \
		> /dev/null &&
	dmsetup message fs-stress 0 rule add "delay:op=write,sectors=$e,delay=2ms,jitter=8ms,p=5%" \
		> /dev/null ||
		exit 2
done
echo "$fs: rules on $n extents of fio's files; fio for $secs s"
fio "$top/examples/fio/fs-faults.fio" | grep -E '^ *(read|write):' || exit 1
dmsetup status fs-stress | awk '{for (i = 12; i < 12 + $11; i++) {split($i, f, ":")
	inj[f[5]] += f[4]}} END {printf "injected: %d errors, %d delays\n",
	inj["error"], inj["delay"]}'
umount "$DIR" || { echo "FAIL: $fs does not unmount"; exit 1; }
# the check reads the disk as it is, with no rule left to fail its reads
dmsetup reload fs-stress --table "0 $(blockdev --getsz "$disk") fault $disk 0" &&
	dmsetup resume fs-stress || exit 2
case $fs in
ext4) chk=$(fsck.ext4 -fn $dev 2>&1) ;;
xfs) chk=$(xfs_repair -n $dev 2>&1) ;;
esac || {
	echo "$chk" | tail -n 20
	dmesg | grep -iE 'xfs|ext4|I/O error' | tail -n 20
	echo "FAIL: $fs does not check clean"
	exit 1
}
echo "ok: $fs unmounted and checks clean"
