#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fsops.sh setup|workload|check FS [OPS [SEED]]: a seeded stream of OPS
# filesystem operations (tests/vm/bin/dmf-fsops: creates, writes, renames,
# links, unlinks, directories, fsyncs) on FS, in slices of 25 with a step
# mark after each, for dmfault crashtest.  check mounts the crash state
# (which replays the journal), unmounts it and runs the filesystem's own
# read-only check: every state must be consistent.
set -u
step=$1 fs=$2 ops=${3:-200} seed=${4:-1}
bin=$(cd "$(dirname "$0")/../bin" && pwd)

. "$(dirname "$0")/fs.sh"

case $step in
setup)
	fs_make && fs_mount || exit 1
	mkdir -p "$DMF_MNT"/t/d{1..8} && "$bin/dmf-fsops" "$DMF_MNT/t" 0 50 "$seed" && sync
	;;
workload)
	for ((i = 50; i < 50 + ops; i += 25)); do
		"$bin/dmf-fsops" "$DMF_MNT/t" "$i" 25 "$seed" || exit 1
		mark_step "ops-$((i + 25))"
	done
	;;
check)
	fs_mount || { echo "mount failed"; exit 1; }
	find "$DMF_MNT" -xdev > /dev/null || { umount "$DMF_MNT"; echo "the tree cannot be walked"; exit 1; }
	umount "$DMF_MNT" || exit 1
	fs_check
	;;
esac
