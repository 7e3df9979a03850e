# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the crashtest programs: make, mount and check the filesystem
# $fs (ext4 or xfs) on $DMF_DEV at $DMF_MNT, and mark the workload's steps.

. "$(dirname "${BASH_SOURCE[0]}")/../../../tools/dmfault/crash/crashtest.sh"

# the catalogue's mkfs: ext4's inode tables and journal zeroed by mkfs, not
# by a kernel thread in the background of the workload (its writes would
# make two recordings of one workload differ)
fs_make() {
	DMF_FS=$fs dmf_mkfs
}

# ext4: no timed journal commit during a run, only what fsync asks for
fs_mount() {
	case $fs in
	ext4) mount -o commit=600 "$DMF_DEV" "$DMF_MNT" ;;
	*) mount "$DMF_DEV" "$DMF_MNT" ;;
	esac
}

# after a mount replayed the log and an unmount: a read-only check
fs_check() {
	case $fs in
	ext4) fsck.ext4 -fn "$DMF_DEV" > /dev/null 2>&1 || { echo "fsck.ext4 -fn failed"; return 1; } ;;
	xfs) xfs_repair -n "$DMF_DEV" > /dev/null 2>&1 || { echo "xfs_repair -n failed"; return 1; } ;;
	esac
}

# mark_step LABEL: a step mark in crashtest's recording (its account of a
# failure names lost writes by the step they came after).  A refused mark
# ends the workload: the check reads acknowledgements from the marks.
mark_step() {
	dmsetup message "${DMF_DEV##*/}" 0 mark "$1" > /dev/null ||
		{ echo "fs.sh: mark $1 refused on ${DMF_DEV##*/}" >&2; exit 1; }
}

# acked FILE: how many acknowledgements (lines of FILE) the workload had
# made when the power failed.  The workload marks acked-N after the N-th;
# crashtest gives the check the last mark made before the crash in
# DMF_STEP: none (""), acked-N, or dmfault-end once the workload was over.
# Outside crashtest (no DMF_STEP), every line counts.
acked() {
	case ${DMF_STEP-dmfault-end} in
	acked-*) echo "${DMF_STEP#acked-}" ;;
	dmfault-end) wc -l < "$1" ;;
	*) echo 0 ;;
	esac
}
