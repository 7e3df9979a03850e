#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Reproducer of an "Oops: int3" on 6.12 under QEMU TCG with a host thread
# per vCPU, not part of make check: it crashes the guest.  rmmod of
# dmf_alloc after rounds of 100 arm/disarm cycles under fio and a reload is
# followed, within a few of the 6 rounds, by an oops at an int3 in
# kmem_cache_alloc_noprof+0x9 (a probe site) that no kprobe claims, the
# oops's Code: line showing the original byte back.  With one vCPU
# (--cpus 1), or two on one host thread (--one-thread), all 6 rounds pass.
#
# Cause: the emulator.  A vCPU of multi-threaded TCG can run an int3 that
# another vCPU removed and synchronised, and 6.12's kprobe_int3_handler(),
# unlike 6.1's, does not back up over an int3 that has gone.
# kprobe-events-int3.sh beside this does the same with no dm-fault module
# (the kernel's kprobe events) and oopses the same way on 6.12 with
# multi-threaded TCG, and runs clean on one thread.
#
# usage: tests/vm/run --kernel "$(ls /lib/modules | grep ^6.12)" --mem 2048 --multi-thread -- \
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
