#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# git.sh setup|workload|check FS FSYNC [N]: git committing N files, one
# commit each, in a repository on FS (ext4 or xfs, mounted with its
# defaults: ext4 commits its journal every 5 s) on $DMF_DEV at $DMF_MNT, for
# dmfault crashtest.  FSYNC: "default" (git's core.fsync, which syncs packs
# but not loose objects, refs or the index) or "all" (core.fsync=all with
# core.fsyncMethod=fsync).  The workload notes each commit that returned in
# an acknowledgement file off the device and marks it (acked-N); check
# passes if git fsck finds the store whole and HEAD's branch, once made,
# names a commit, and with
# "all" if HEAD holds every commit acknowledged before the crash (git's
# default, its manual says, "risks losing recent work": that alone is no
# failure, a store left corrupt is).
set -u
step=$1 fs=$2 mode=$3 n=${4:-8}
ack=/tmp/dmf-crashtest-git.ack
repo=$DMF_MNT/repo

. "$(dirname "$0")/fs.sh"

case $step in
setup)
	fs_make && mount "$DMF_DEV" "$DMF_MNT" || exit 1
	git init -q "$repo" && git -C "$repo" config user.name dmfault &&
		git -C "$repo" config user.email dmfault@localhost &&
		git -C "$repo" config gc.auto 0 || exit 1
	if [ "$mode" = all ]; then
		git -C "$repo" config core.fsync all &&
			git -C "$repo" config core.fsyncMethod fsync || exit 1
	fi
	: > $ack
	sync
	;;
workload)
	for i in $(seq 1 "$n"); do
		seq -f "file $i line %g" 200 > "$repo/f$i" &&
			git -C "$repo" add "f$i" && git -C "$repo" commit -q -m "commit $i" || exit 1
		echo "$i" >> $ack
		mark_step "acked-$i"
	done
	;;
check)
	mount "$DMF_DEV" "$DMF_MNT" || { echo "mount failed"; exit 1; }
	out=$(git -C "$repo" fsck --full --no-progress 2>&1) || {
		umount "$DMF_MNT"
		echo "git fsck: $(echo "$out" | head -n 3)"
		exit 1
	}
	# no branch file yet: no commit; one that names no commit: corrupt
	have=0
	[ -e "$repo/.git/$(git -C "$repo" symbolic-ref HEAD)" ] &&
		{ have=$(git -C "$repo" rev-list --count HEAD 2>&1) || have="HEAD: $have"; }
	umount "$DMF_MNT"
	acked=$(acked $ack)
	[ "$mode" = all ] || acked=0
	[ "$have" -ge "$acked" ] 2>/dev/null || { echo "commits $have < acknowledged $acked"; exit 1; }
	fs_check || exit 1
	;;
esac
