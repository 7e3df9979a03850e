#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# rename.sh setup|workload|check FS MOUNT-OPTIONS [N]: a program that
# replaces its configuration file N times the common way, write a new file
# and rename it over the old one, then fsync the directory (not the file),
# on FS (ext4 or xfs) at $DMF_MNT, for dmfault crashtest.  MOUNT-OPTIONS:
# "default", or options such as noauto_da_alloc.  ext4 starts a file's
# writeback when it is renamed over another (auto_da_alloc), so the
# directory's journal commit carries its data first and every crash state
# holds one whole version, old or new; with noauto_da_alloc the rename is
# committed before the data is even allocated, and the file is left empty.
# check passes if the file holds one whole version.
set -u
step=$1 fs=$2 opts=$3 n=${4:-16}

. "$(dirname "$0")/fs.sh"

mount_it() {
	if [ "$opts" = default ]; then
		fs_mount
	else
		mount -o "commit=600,$opts" "$DMF_DEV" "$DMF_MNT"
	fi
}

case $step in
setup)
	fs_make && mount_it || exit 1
	printf 'version 0\nend\n' > "$DMF_MNT/conf" && sync
	;;
workload)
	for i in $(seq 1 "$n"); do
		printf 'version %d\n%s\nend\n' "$i" "$(head -c 3000 /dev/zero | tr '\0' x)" \
			> "$DMF_MNT/conf.new" && mv "$DMF_MNT/conf.new" "$DMF_MNT/conf" &&
			python3 -c 'import os, sys; os.fsync(os.open(sys.argv[1], os.O_RDONLY))' \
			"$DMF_MNT" || exit 1
		mark_step "replaced-$i"
	done
	;;
check)
	mount_it || { echo "mount failed"; exit 1; }
	v=$(awk 'NR == 1 && /^version [0-9]+$/ {v = $2} END {if (v != "" && $0 == "end") print v}' \
		"$DMF_MNT/conf" 2>/dev/null)
	size=$(stat -c %s "$DMF_MNT/conf" 2>/dev/null)
	umount "$DMF_MNT"
	[ -n "$v" ] || { echo "conf holds no whole version (size ${size:-none})"; exit 1; }
	fs_check || exit 1
	;;
esac
