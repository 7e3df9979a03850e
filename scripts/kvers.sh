#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Which kernels to build for.
#
#   scripts/kvers.sh          the test matrix (make check, demo, lint, bench):
#                             the kernels scripts/deps.sh installs, Debian's
#                             generic flavour of 6.1 and 6.12 for this
#                             architecture, oldest first.  Other kernels with
#                             headers here (cloud, rt, one's own) are not in
#                             it: CI's time holds two kernels.
#   scripts/kvers.sh --flavours  the same for the flavour kernels of
#                             make deps-flavours (make check-flavours)
#   scripts/kvers.sh --build  what make, make modules and make install build
#                             for: $KVERS ("a b"), else $KVER, else the kernel
#                             $KDIR was built as, else the running kernel.
#                             A kernel without a build tree is an error that
#                             says which package holds it.  With $KROOT (the
#                             arm64 root of make ARCH=arm64) the build trees
#                             are KROOT's, and its kernels the default.
set -u

# releases METAPACKAGE...: the kernel releases that Debian's linux-headers-*
# metapackages depend on, where that kernel's build tree is here.  The
# metapackages, not a pattern over /lib/modules, name the matrix: an older
# ABI left behind by an upgrade is not tested again.
releases() {
	local p d k

	for p in "$@"; do
		d=$(dpkg-query -W -f='${Depends}' "$p" 2>/dev/null) || continue
		k=${d%% *}
		k=${k#linux-headers-}
		[ -e "/lib/modules/$k/build/Makefile" ] && echo "$k"
	done | sort -V | xargs
}

case "${1:-}" in
'')	# shellcheck disable=SC2046 # one package name a word
	releases $("$(dirname "$0")/deps.sh" --headers check)
	exit 0 ;;
--flavours)
	# shellcheck disable=SC2046
	releases $("$(dirname "$0")/deps.sh" --headers flavours)
	exit 0 ;;
--build) ;;
*)	echo "usage: $0 [--build|--flavours]" >&2; exit 2 ;;
esac

if [ -n "${KDIR:-}" ]; then
	rel=$KDIR/include/config/kernel.release
	[ -r "$rel" ] || {
		echo "dm-fault: KDIR=$KDIR is not a prepared kernel build tree (no include/config/kernel.release)" >&2
		exit 1
	}
	cat "$rel"
	exit 0
fi
mods=${KROOT:-}/lib/modules
# The kernels with a build tree under $mods.
built() {
	local d

	for d in "$mods"/*/build/Makefile; do
		[ -e "$d" ] && basename "${d%/build/Makefile}"
	done | sort -V | xargs
}
if [ -n "${KROOT:-}" ]; then
	[ -d "$mods" ] || {
		echo "dm-fault: no arm64 root at $KROOT: scripts/arm64-root.sh makes it (as root)" >&2
		exit 1
	}
	want=${KVERS:-${KVER:-$(built)}}
	[ -n "$want" ] || {
		echo "dm-fault: no kernel build tree in the arm64 root ($mods/*/build):" \
			"scripts/arm64-root.sh makes them (as root)" >&2
		exit 1
	}
else
	want=${KVERS:-${KVER:-$(uname -r)}}
fi
for k in $want; do
	[ -e "$mods/$k/build/Makefile" ] && continue
	have=$(built)
	echo "dm-fault: no kernel build tree for $k ($mods/$k/build)" >&2
	echo "  install its headers (on Debian: linux-headers-$k), or name another kernel:" >&2
	echo "  make KVER=VERSION, make KVERS=\"V1 V2\" or make KDIR=/path/to/kernel/build" >&2
	[ -n "$have" ] && echo "  kernels with headers here: $have" >&2
	exit 1
done
echo "$want"
