#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo: runs inside the VM.  A fault device over a virtio disk, ext4 on
# top, fio writing and reading through it while rules fail, delay and corrupt
# I/O; then the device's statistics and fault log.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$top/tools/dmfault:$top/tests/vm/bin:$PATH"
"$top/tests/vm/load" >/dev/null || exit 1
dmesg -n 1

DISK=${VM_DISKS%% *}
S=$(blockdev --getsz "$DISK")
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { echo "# $*"; "$@"; }

say "a fault device over $DISK ($((S / 2048)) MiB), no rules yet"
run dmsetup create demo --table "0 $S fault $DISK 0"
run dmsetup table demo
run mkfs.ext4 -q -F /dev/mapper/demo
mkdir -p /mnt/demo
run mount /dev/mapper/demo /mnt/demo

say "rules added at run time, no suspend: 1% of reads fail, 0.5% of writes fail with ENOSPC, 5% of writes take 2-10 ms"
run dmsetup message demo 0 rule add "error:op=read,p=1%,seed=42"
run dmsetup message demo 0 rule add "error:op=write,status=enospc,p=0.5%,seed=43"
run dmsetup message demo 0 rule add "delay:op=write,delay=2ms,jitter=8ms,p=5%,seed=44"
run dmsetup message demo 0 rule list

say "fio: 4k random read/write on ext4 for 10 s, continuing over errors"
fio --name=demo --directory=/mnt/demo --rw=randrw --bs=4k --size=64M --numjobs=2 \
	--ioengine=libaio --iodepth=16 --direct=1 --time_based --runtime=10 \
	--continue_on_error=all --group_reporting 2>&1 |
	grep -E 'read:|write:|clat \(|lat \(msec\)|err=|IOPS' | head -n 20

say "statistics"
if command -v dmfault >/dev/null && [ -x "$top/tools/dmfault/dmfault" ]; then
	run dmfault stats demo
else
	run dmsetup message demo 0 stats
fi
run dmsetup status demo

say "the last injected faults (time, op, sector, bytes, rule, action)"
dmsetup message demo 0 log | tail -n 8

say "what ext4 saw"
dmesg | grep -E 'EXT4-fs|I/O error' | tail -n 5

run umount /mnt/demo
run dmsetup remove demo
"$top/tests/vm/unload" >/dev/null && echo "modules unloaded: nothing left behind"
