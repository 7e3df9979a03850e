#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Which kernels to build for.
#
#   scripts/kvers.sh          the test matrix: every /lib/modules/*/build,
#                             oldest first (make check, demo, lint, bench)
#   scripts/kvers.sh --build  what make, make modules and make install build
#                             for: $KVERS ("a b"), else $KVER, else the kernel
#                             $KDIR was built as, else the running kernel.
#                             A kernel without a build tree is an error that
#                             says which package holds it.
set -u

if [ "${1:-}" != --build ]; then
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] && basename "$(dirname "$d")"
	done 2>/dev/null | sort -V | xargs
	exit 0
fi

if [ -n "${KDIR:-}" ]; then
	rel=$KDIR/include/config/kernel.release
	[ -r "$rel" ] || {
		echo "dm-fault: KDIR=$KDIR is not a prepared kernel build tree (no include/config/kernel.release)" >&2
		exit 1
	}
	cat "$rel"
	exit 0
fi
want=${KVERS:-${KVER:-$(uname -r)}}
for k in $want; do
	[ -e "/lib/modules/$k/build/Makefile" ] && continue
	have=$("$0")
	echo "dm-fault: no kernel build tree for $k (/lib/modules/$k/build)" >&2
	echo "  install its headers (on Debian: linux-headers-$k), or name another kernel:" >&2
	echo "  make KVER=VERSION, make KVERS=\"V1 V2\" or make KDIR=/path/to/kernel/build" >&2
	[ -n "$have" ] && echo "  kernels with headers here: $have" >&2
	exit 1
done
echo "$want"
