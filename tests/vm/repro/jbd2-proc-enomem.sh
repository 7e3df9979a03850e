#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Reproducer of a kernel WARN that dmfault hunt's ext4 path reaches:
# when jbd2 cannot allocate its /proc/fs/jbd2/<dev>/info
# entry at mount, the unmount (or the failed mount's cleanup) warns in
# remove_proc_entry(): "name 'info'".
#
# jbd2_stats_proc_init() (fs/jbd2/journal.c, 6.1 and 6.12 alike) ignores a
# failed proc_create_data(): the journal works without its statistics
# file, as meant.  jbd2_stats_proc_exit() removes "info" unconditionally,
# and remove_proc_entry() WARNs for a name it cannot find.
# Harmless without panic_on_warn; with it (as fuzzing and some production
# fleets run) an allocation failure at mount becomes a panic at umount.
#
# What it does, in the guest: an ext4 image on a loop device, then
# dmf-hunt mounts and unmounts it with one slab fault, scoped to the
# proc_dir_entry cache under the jbd2 module:
#   1. the directory (proc_mkdir, the 1st such allocation) fails: shown,
#      no verdict (it did not warn on 6.12);
#   2. the "info" file (proc_create_data, the 2nd) fails: the WARN;
#   3. control: no fault; no warning.
# Exit 0 if 2 warned and 3 did not, 1 if not.  tests/vm/run then
# exits 125 (a kernel warning during the command), as it should.
#
# usage: tests/vm/run --kernel KVER --mem 1536 -- tests/vm/repro/jbd2-proc-enomem.sh

top=$(cd "$(dirname "$0")/../../.." && pwd)
export PATH="$top/tools/dmfault:$top/tests/vm/bin:$PATH"
W=/dev/shm/jbd2repro

echo "# kernel $(uname -r)"
"$top/tests/vm/load" dmf_alloc > /dev/null || { echo "cannot load dmf_alloc"; exit 2; }
modprobe ext4 && modprobe loop || exit 2
mkdir -p $W/mnt
truncate -s 32M $W/img && mkfs.ext4 -q $W/img && losetup /dev/loop0 $W/img || exit 2
dmesg -n 1

# attempt NAME INTERVAL: mount and umount with the INTERVALth jbd2
# proc_dir_entry allocation failed (0: no fault); prints the WARN lines.
attempt() {
	local mark="jbd2-repro: $1"

	echo "$mark" > /dev/kmsg
	if [ "$2" -gt 0 ]; then
		dmfault run --slab --times 1 --interval "$2" --set verbose=2 \
			--set require-module=jbd2 --set cache-filter=proc_dir_entry \
			-- dmf-hunt mount ext4 /dev/loop0 $W/mnt
	else
		dmf-hunt mount ext4 /dev/loop0 $W/mnt
	fi
	dmesg | sed -n "/$mark/,\$p" | grep -E 'FAULT_INJECTION|called by|from jbd2|WARNING|remove_proc_entry|name ' |
		grep -v 'jbd2-repro' | sed 's/^\[ *[0-9.]*\] /  /' | head -n 12
	dmesg | sed -n "/$mark/,\$p" | grep -q 'WARNING: .* remove_proc_entry'
}

echo "# 1. fail jbd2's proc_mkdir(<dev>) at mount, then umount"
attempt dir 1; dir=$?
echo "# 2. fail jbd2's proc_create_data(\"info\") at mount, then umount"
attempt info 2; info=$?
echo "# 3. control: mount and umount, no fault"
attempt control 0; control=$?
losetup -d /dev/loop0
if [ $info -eq 0 ] && [ $control -ne 0 ]; then
	echo "# REPRODUCED: a failed jbd2 /proc allocation at mount makes the umount WARN in remove_proc_entry()"
	exit 0
fi
echo "# not reproduced (dir: $dir, info: $info, control: $control; 0 = warned)"
exit 1
