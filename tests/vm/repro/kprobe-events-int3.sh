#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Control experiment for alloc-armed-rmmod.sh, with no dm-fault module:
# the kernel's own kprobe events (tracefs), plain int3 kprobes (the
# optimizer off) at the same addresses dmf_alloc uses (allocator entry +
# the ftrace call, past ENDBR), enabled and disabled 100 times a round
# under fio, then deleted.  If the guest oopses with "Oops: int3" at one
# of these addresses, the stray int3 is not dm-fault's.
#
# Seen (QEMU 7.2, two vCPUs, one host thread each): 6.12 "Oops: int3" at
# __schedule+0x339 in round 3 and in round 6; 6.1 hung in round 3 and in
# round 1 (two runs), one vCPU looping __schedule+0x1bc -> exc_int3 ->
# back (a stale int3 QEMU keeps executing after the byte was restored),
# the other in smp_call_function_many_cond().  With --one-thread: 10
# rounds clean.
#
# usage: tests/vm/run --kernel K --mem 2048 --multi-thread -- \
#            tests/vm/repro/kprobe-events-int3.sh [ROUNDS]
. "$(dirname "$0")/../lib.sh"
ktap_begin kprobe-events-int3

T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
echo 0 > /proc/sys/debug/kprobes-optimization
# the slab and page allocator entry points this kernel has
syms=()
for s in kmem_cache_alloc_noprof __alloc_pages_noprof __kmalloc_noprof \
	 kmem_cache_alloc __alloc_pages __kmalloc; do
	grep -q " T $s\$" /proc/kallsyms && syms+=("$s")
done
echo "# probing ${syms[*]} at +9"
modprobe null_blk nr_devices=0 > /dev/null 2>&1
NB=$(nullb_create ctl0 64 1)
fio --name=ctl --filename="$NB" --ioengine=libaio --direct=1 --rw=randrw --bs=4k \
	--iodepth=16 --numjobs=2 --time_based --runtime=3600 > /dev/null 2>&1 &
fpid=$!
sleep 2
rounds=${1:-6}
for round in $(seq "$rounds"); do
	n=0
	for s in "${syms[@]}"; do
		echo "p:dmfctl/p$n $s+9" >> $T/kprobe_events || exit 1
		n=$((n + 1))
	done
	for i in $(seq 100); do
		echo 1 > $T/events/dmfctl/enable
		ls / > /dev/null
		echo 0 > $T/events/dmfctl/enable
	done
	echo > $T/kprobe_events
	ls / > /dev/null
	echo "# round $round done"
done
kill -INT $fpid
wait $fpid
ok "$rounds rounds of kprobe events at allocator+9 enabled/disabled x100 under fio, deleted"
nullb_destroy ctl0
ktap_end
