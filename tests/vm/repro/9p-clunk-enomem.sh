#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Reproducer of the kernel's 9p client fid leak that a fail-nth sweep
# reaches: after p9_client_clunk() fails to allocate its TCLUNK request,
# opens of unrelated files on the 9p root fail with EINVAL.
#
# p9_client_clunk() (net/9p/client.c, 6.1 and 6.12 alike) destroys the fid
# locally on any error other than -ERESTARTSYS, -ENOMEM from
# p9_client_rpc() -> p9_tag_alloc() included: the fid number goes back to
# the client's idr although the TCLUNK never left the guest, so the server
# still holds that fid.  p9_fid_create() hands out the lowest free number,
# so the next walk that clones a fid names it as newfid, and QEMU's
# v9fs_walk() (hw/9pfs/9p.c: alloc_fid() finds it in use) answers EINVAL.
# p9_client_walk() then destroys the clone locally, without a clunk, and
# the number stays poisoned: every open or lookup that needs a new fid
# while it is the lowest free one fails with EINVAL.
#
# What it does, in the guest, with the allocator hooks (dmf_alloc):
#   1. control: one marked shell reads a few root files while every slab
#      allocation under 9pnet EXCEPT p9_client_clunk's may fail (3 faults);
#      afterwards an unmarked shell opens files on the root: no EINVAL.
#   2. the bug: the same with the faults required under p9_client_clunk
#      (1 fault); the unmarked shell's opens then fail with EINVAL.
#   3. the same with dmf_alloc unloaded: still EINVAL (no state of ours).
#   4. echo 2 > drop_caches (frees lower fid numbers): the opens work again.
# Exit 0 if the bug showed (step 2 EINVAL, step 1 none), 1 if not.
#
# usage: tests/vm/run --kernel KVER --mem 1536 --timeout 600 -- tests/vm/repro/9p-clunk-enomem.sh

top=$(cd "$(dirname "$0")/../../.." && pwd)
D=/sys/kernel/debug/dm-fault
SL=$D/failslab
BB=/dev/shm/busybox
W=/dev/shm/9prepro

echo "# kernel $(uname -r); root: $(grep -m1 '^overlay / ' /proc/mounts) (lower: the host's / over 9p, cache=loose)"
"$top/tests/vm/load" dmf_alloc > /dev/null || { echo "cannot load dmf_alloc"; exit 2; }
cp /bin/busybox $BB || exit 2
mkdir -p $W/bin
# Once the bug shows, execs from the root fail too: from here on the tools
# are busybox applets on tmpfs.
$BB --install -s $W/bin
PATH=$W/bin
# Files the checker opens: ones nothing else in the guest has open.
find /usr/share/zoneinfo/Europe -type f 2>/dev/null | head -n 40 > $W/files
find /usr/share/zoneinfo/America -type f 2>/dev/null | head -n 40 > $W/files2
find /usr/share/zoneinfo/Asia -type f 2>/dev/null | head -n 40 > $W/files3

put() { echo "$2" > "$1" || echo "# write $2 > $1 failed"; }

# count_einval LIST: open each file from an unmarked shell; "EINVAL N/M".
count_einval() {
	$BB sh -c 'n=0 e=0
		while read f; do
			n=$((n + 1))
			( : < "$f" ) 2>&1 | $BB grep -q "Invalid argument" && e=$((e + 1))
		done
		echo "$e/$n"' < "$1"
}

# marked_reader: a marked shell (static busybox on tmpfs) that opens,
# reads and closes 5 files of the 9p root; prints what the reads gave.
marked_reader() {
	rm -f $W/go $W/ready
	$BB mkfifo $W/go
	$BB sh -c ': > '$W'/ready; read x < '$W'/go
		for f in /etc/passwd /etc/group /etc/hostname /etc/shells /etc/os-release; do
			if read l < $f; then echo "  marked read $f: ok"; else echo "  marked read $f: failed"; fi
		done' &
	pid=$!
	while [ ! -e $W/ready ]; do sleep 0.1; done
	echo $pid > $D/mark
	echo go > $W/go
	wait $pid
}

arm() {	# arm TIMES: slab hook, marked tasks only, sleeping allocations too
	put $SL/counters 0
	put $SL/task-filter Y
	put $SL/ignore-gfp-wait N
	put $SL/verbose 2
	put $SL/verbose_ratelimit_interval_ms 0
	put $SL/stacktrace-depth 32
	put $SL/times "$1"
	put $SL/probability 100
}

disarm() {
	put $SL/probability 0
	put $SL/times 1
	put $SL/require-module ""
	put $SL/require-symbol ""
	put $SL/reject-symbol ""
}

injected() { awk '$1 == "injected" {print $2}' $SL/counters; }

echo "# before: EINVAL opens $(count_einval $W/files)"

echo "# 1. control: up to 3 faults in 9pnet, p9_client_clunk's chain rejected"
dmesg -c > /dev/null
put $SL/require-module 9pnet
put $SL/reject-symbol 9pnet:p9_client_clunk
arm 3
marked_reader
c_inj=$(injected)
disarm
dmesg | grep -A4 FAULT_INJECTION | head -n 15 | sed 's/^/  /'
c_einval=$(count_einval $W/files)
echo "# control: $c_inj fault(s) injected; afterwards EINVAL opens $c_einval"

echo "# 2. one fault in p9_client_clunk's chain"
dmesg -c > /dev/null
put $SL/require-symbol 9pnet:p9_client_clunk
arm 1
marked_reader
b_inj=$(injected)
disarm
dmesg | grep -A12 FAULT_INJECTION | head -n 14 | sed 's/^/  /'
b_einval=$(count_einval $W/files2)
echo "# clunk: $b_inj fault(s) injected; afterwards EINVAL opens $b_einval"
# the same on an exec from the root (as the sweep's step 306 saw it)
if out=$(/bin/true 2>&1); then
	echo "# exec /bin/true afterwards: ok"
else
	echo "# exec /bin/true afterwards: $out"
fi

# Not state of ours: with the hooks unloaded the root stays broken.
rmmod dmf_alloc dmf_engine 2>/dev/null || rmmod dmf_alloc
u_einval=$(count_einval $W/files3)
echo "# dmf_alloc unloaded ($(grep -c '^dmf_' /proc/modules) dmf_ modules left): EINVAL opens $u_einval"

echo 2 > /proc/sys/vm/drop_caches
a_einval=$(count_einval $W/files2)
echo "# after echo 2 > drop_caches: EINVAL opens $a_einval"

/dev/shm/busybox rm -rf $W $BB
if [ "$b_inj" = 1 ] && [ "${b_einval%%/*}" -gt 0 ] && [ "${u_einval%%/*}" -gt 0 ] &&
	[ "${c_einval%%/*}" = 0 ]; then
	echo "# REPRODUCED: one failed allocation under p9_client_clunk() leaves the root returning EINVAL"
	exit 0
fi
echo "# NOT reproduced (clunk faults $b_inj, EINVAL after it $b_einval; control $c_einval)"
exit 1
