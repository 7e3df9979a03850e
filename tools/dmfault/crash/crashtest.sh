# SPDX-License-Identifier: GPL-2.0-only
#
# Shell helpers for the entries of dmfault crashtest's catalogue
# (crashtest.catalog): each line sources them with . "$DMF_LIB".  They work
# on the filesystem $DMF_FS on $DMF_DEV at $DMF_MNT, as crashtest sets them,
# and read what the workload had acknowledged from the marks crashtest
# hands the check (DMF_STEP, DMF_MARKS).

# dmf_mkfs: make $DMF_FS.  ext4's inode tables and journal are zeroed by
# mkfs, not by a kernel thread in the background of the workload.
dmf_mkfs() {
	case $DMF_FS in
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DMF_DEV" ;;
	xfs) mkfs.xfs -q -f "$DMF_DEV" ;;
	*) echo "crashtest.sh: cannot make $DMF_FS" >&2; return 1 ;;
	esac
}

# dmf_mount [OPTIONS]: mount it as a user would, with the filesystem's
# defaults (ext4 commits its journal every 5 s) unless OPTIONS are given.
dmf_mount() {
	mount ${1:+-o "$1"} "$DMF_DEV" "$DMF_MNT"
}

# dmf_fsck: after the check's mount replayed the log and its unmount, a
# read-only fsck; fails the check if the filesystem is not clean.
dmf_fsck() {
	case $DMF_FS in
	ext4) fsck.ext4 -fn "$DMF_DEV" > /dev/null 2>&1 || dmf_fail "fsck.ext4 -fn failed" ;;
	xfs) xfs_repair -n "$DMF_DEV" > /dev/null 2>&1 || dmf_fail "xfs_repair -n failed" ;;
	esac
}

# dmf_ack N: the workload's N-th acknowledgement (a commit returned, a file
# replaced), marked in the recording as acked-N.  A refused mark ends the
# workload: the check could not know what was acknowledged.
dmf_ack() {
	dmsetup message "${DMF_DEV##*/}" 0 mark "acked-$1" > /dev/null ||
		{ echo "crashtest.sh: mark acked-$1 refused on ${DMF_DEV##*/}" >&2; exit 1; }
}

# dmf_acked: how many acknowledgements the workload had made when the power
# failed: N after the mark acked-N, every one (the marks but the end mark)
# once the workload was over, 0 before the first.
dmf_acked() {
	case ${DMF_STEP-} in
	acked-*) echo "${DMF_STEP#acked-}" ;;
	dmfault-end) echo $((DMF_MARKS - 1)) ;;
	*) echo 0 ;;
	esac
}

# dmf_fail WHY: the check fails, saying why, with nothing left mounted.
dmf_fail() {
	cd / && umount "$DMF_MNT" 2> /dev/null
	echo "$*"
	exit 1
}

# dmf_want HAVE WHAT: fail unless HAVE (the rows, commits or version the
# state holds) covers every acknowledgement made before the crash.
dmf_want() {
	[ "$1" -ge "$(dmf_acked)" ] 2> /dev/null ||
		dmf_fail "$2 $1 < acknowledged $(dmf_acked)"
}
