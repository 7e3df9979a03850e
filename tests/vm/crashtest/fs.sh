# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the crashtest programs: make, mount and check the filesystem
# $fs (ext4 or xfs) on $DMF_DEV at $DMF_MNT.

fs_make() {
	case $fs in
	ext4) mkfs.ext4 -q -F "$DMF_DEV" ;;
	xfs) mkfs.xfs -q -f "$DMF_DEV" ;;
	*) echo "unknown filesystem $fs"; return 1 ;;
	esac
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
