#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dmfault run --nth-sweep on a real kernel bug that leaves lasting damage
# without an oops: one failed allocation under
# p9_client_clunk() leaks a fid on the 9p server, and later opens on the
# root fail with EINVAL (tests/vm/repro/9p-clunk-enomem.sh, 6.1 and 6.12).
# The sweep's sanity probe must say "lasting damage", never "completed".
# On a kernel without the bug the sweep completes, and the test checks
# that it does not cry wolf.  It damages the 9p root until drop_caches
# frees lower fid numbers, so it runs last (the fid stays leaked on the
# server: a long run after it could meet the number again).
. "$(dirname "$0")/../lib.sh"
ktap_begin sweep-damage

# tests/vm/run's root: an overlay whose lower layer is the host's / over 9p
# (mounted outside the chroot, so not in /proc/mounts as 9p).
if [ "${DMF_VM-}" != 1 ] || ! grep -q '^overlay / overlay' /proc/mounts; then
	skip "nth-sweep reports lasting damage on the 9p root" "not the tests/vm/run 9p root"
	ktap_end
	exit
fi
dmf_load dmf_alloc 2>/dev/null
if [ ! -d /sys/kernel/debug/dm-fault ]; then
	skip "nth-sweep reports lasting damage on the 9p root" "dmf_alloc not loaded"
	ktap_end
	exit
fi
# The marked command and the checks run from tmpfs: once the root is
# damaged, execs from it fail.
BB=/dev/shm/busybox
cp /bin/busybox $BB
out=$(dmfault run --nth-sweep --max-steps 50 --slab --page \
	--set require-symbol=9pnet:p9_client_clunk -- $BB cat /etc/passwd 2>&1)
rc=$?
# Is the root damaged?  Lookups of files nothing looked up before: each
# keeps a new fid, so they get past the lower numbers the sweep's exits
# freed and reach the leaked one (an open and close of one file would reuse
# the lowest free number again and again).
if $BB find /usr/share/zoneinfo 2>&1 >/dev/null | $BB grep -q 'Invalid argument'; then
	damaged=yes
else
	damaged=no
fi
if [ $damaged = yes ]; then
	if [ $rc -eq 1 ] && [[ $out == *"step 1: lasting damage: "*"Invalid argument"* ]] &&
		[[ $out == *"left lasting damage at step 1"* ]] && [[ $out != *completed* ]]; then
		ok "nth-sweep reports the lasting damage of a failed TCLUNK allocation at step 1"
	else
		fail "nth-sweep reports the lasting damage of a failed TCLUNK allocation" \
			"exit $rc, root damaged" "$out"
	fi
else
	if [ $rc -eq 0 ] && [[ $out == *"completed without a fault"* ]] &&
		[[ $out != *"lasting damage"* ]]; then
		ok "nth-sweep completes on a kernel without the 9p fid leak"
	else
		fail "nth-sweep on an undamaged root" "exit $rc, root not damaged" "$out"
	fi
fi
echo 2 > /proc/sys/vm/drop_caches
if /bin/true 2>/dev/null && : < /etc/shells 2>/dev/null; then
	ok "the root opens and execs again after drop_caches"
else
	fail "the root opens and execs again after drop_caches"
fi
expect "the sweep leaves no fail-nth entry" "" \
	"$(output awk '!/ exited$/' /sys/kernel/debug/dm-fault/fail-nth)"
rm -f $BB
ktap_end
