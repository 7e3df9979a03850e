#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fio verify under live rule changes, with dm-linear under the same load and
# the same rule changes (sent to a fault device beside it) as the control: a
# kernel report that comes with dm-linear too is not the fault target's, and
# the suite says so (tests/vm/README.md, "Kernel reports under rule churn").
# make check: one run of 16 MiB, one loop; make check-long: three runs of
# 64 MiB, three loops each; CHURN_RUNS overrides the runs.
. "$(dirname "$0")/../lib.sh"
ktap_begin churn

check "modules load" dmf_load
DISK=${VM_DISKS%% *}
[ -b "$DISK" ] || DISK=$(nullb_create ncd 1024 1)
SIDE=$(nullb_create nside 64 1)
S=$(dm_size "$DISK")
rounds=150
runs=${CHURN_RUNS:-$(by_length 3 1)}
size=$(by_length 64M 16M)
loops=$(by_length 3 1)

# churn DEV: add, replace, disable, enable and remove rules until fio ends
churn() {
	local i=0 id bad=0

	while kill -0 "$fpid" 2>/dev/null && [ $i -lt $rounds ]; do
		id=$(dmsetup message "$1" 0 rule add "error:p=0") || bad=$((bad + 1))
		dmsetup message "$1" 0 rule replace "$id" "delay:op=read,delay=100us,p=5%" || bad=$((bad + 1))
		dmsetup message "$1" 0 rule disable "$id" || bad=$((bad + 1))
		dmsetup message "$1" 0 rule enable "$id" || bad=$((bad + 1))
		dmsetup message "$1" 0 rule remove "$id" || bad=$((bad + 1))
		i=$((i + 1))
	done
	echo "$i $bad"
}

for r in $(seq "$runs"); do
	seen=
	for kind in fault linear; do
		dm_create cv "0 $S $kind $DISK 0"
		dm_create cside "0 $(dm_size "$SIDE") fault $SIDE 0"
		target=cv
		[ $kind = linear ] && target=cside
		kmsg_mark
		fio --minimal --name=v --filename=/dev/mapper/cv --rw=randwrite --bs=4k \
			--size=$size --ioengine=libaio --iodepth=16 --verify=crc32c --verify_fatal=1 \
			--do_verify=1 --loops=$loops >/tmp/cv.fio 2>&1 &
		fpid=$!
		read -r n bad < <(churn $target)
		wait $fpid
		rc=$?
		expect "run $r, $kind: fio verify ended cleanly with $n rounds of rule changes" 0 $rc
		[ $rc -ne 0 ] && sed 's/^/# /' /tmp/cv.fio | tail -n 5
		expect "run $r, $kind: every rule change succeeded" 0 "$bad"
		reports=$(kernel_reports)
		expect "run $r, $kind: no kernel report" "" "$reports"
		[ -n "$reports" ] && seen="$seen $kind"
		flags=$(emulator_flags)
		[ -n "$flags" ] && echo "# run $r, $kind: saved EFLAGS with reserved bits set ($(echo $flags)): the emulator's"
		dmsetup remove cv
		dmsetup remove cside
	done
	case $seen in
	" fault linear") echo "# run $r: kernel reports with dm-linear as well: not the fault target's" ;;
	" fault") echo "# run $r: kernel reports with the fault target only" ;;
	" linear") echo "# run $r: kernel reports with dm-linear only: not the fault target's" ;;
	esac
done
nullb_destroy nside
dm_cleanup
ktap_end
