#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Reproducer for the open defect noted on issue #4 (2026-12-04), not part
# of make check: it crashes the guest.  On 6.12 under QEMU TCG, rmmod of
# dmf_alloc while the slab hook is armed, after rounds of 100 arm/disarm
# cycles under fio and a reload, left an int3 in kmem_cache_alloc_noprof
# (+0x9) that rmmod's own exit then hit: "Oops: int3", RIP +0xa.  Round 3
# of 6 crashed at 41 s, round 1 at 20 s on a second run; with the hook
# disarmed by its probability knob before each rmmod ("disarm") all 6
# rounds ran clean, and so did the armed script with one vCPU (--cpus 1).
# An msleep(500) between the disarm and the unregistering in
# dmf_alloc_exit() did not help: round 2 crashed, at __alloc_pages_noprof
# +0x9, a page-hook probe last armed by the previous module instance.  The
# oops's Code: line shows the original byte at +0x9 each time.
#
# usage: tests/vm/run --kernel 6.12.117+deb12-amd64 --mem 2048 -- \
#            tests/vm/repro/alloc-armed-rmmod.sh [disarm]
. "$(dirname "$0")/../lib.sh"
ktap_begin armed-rmmod

D=/sys/kernel/debug/dm-fault
SL=$D/failslab
PG=$D/fail_page_alloc
dmf_load > /dev/null 2>&1
NB=$(nullb_create dmfi0 64 1)
ko="$BUILD/dmf_alloc.ko"
for round in 1 2 3 4 5 6; do
	echo Y > $SL/task-filter
	echo Y > $PG/task-filter
	fio --name=arm --filename="$NB" --ioengine=libaio --direct=1 --rw=randrw --bs=4k \
		--iodepth=16 --numjobs=2 --time_based --runtime=600 > /dev/null 2>&1 &
	fpid=$!
	sleep 2
	for i in $(seq 100); do
		echo 1/1000 > $SL/probability
		echo 1/1000 > $PG/probability
		echo 0 > $SL/probability
		echo 0 > $PG/probability
	done
	kill -INT $fpid
	wait $fpid
	"$top/tests/vm/unload" dmf_alloc || break
	insmod "$ko" failslab=2,1/1000000000,0,-1 fail_page_alloc=0,5,4096,0 || break
	cat $SL/interval $SL/probability $SL/space $SL/times > /dev/null
	[ "$1" = disarm ] && echo 0 > $SL/probability
	rmmod dmf_alloc
	ls / > /dev/null
	insmod "$ko"
	echo "# round $round done"
done
ok "6 rounds of arm/disarm x100, reload armed, rmmod ($([ "$1" = disarm ] && echo disarmed || echo armed))"
nullb_destroy dmfi0
ktap_end
