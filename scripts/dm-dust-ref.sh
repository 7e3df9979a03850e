#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the in-tree dm-dust of a kernel, the reference that the VM suite
# 21-dust-diff runs beside fault-dust.  Debian's kernels do not build
# dm-dust, so its one source file is taken from Debian's linux-source for
# the kernel's version (/usr/src/linux-source-V.tar.xz, V the first two
# numbers of KVER) and built out of tree with the kernel's own Kbuild into
# build/KVER/ref/dm-dust.ko.  A module newer than its tarball is kept.
#
# usage: scripts/dm-dust-ref.sh KVER...
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || { echo "usage: $0 KVER..." >&2; exit 2; }
for k in "$@"; do
	v=$(echo "$k" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	tarball=/usr/src/linux-source-$v.tar.xz
	out=$top/build/$k/ref
	if [ ! -r "$tarball" ]; then
		echo "dm-dust-ref: $tarball is missing: install linux-source-$v (make deps-check)" >&2
		exit 1
	fi
	[ "$out/dm-dust.ko" -nt "$tarball" ] && continue
	echo "  DM-DUST $k"
	mkdir -p "$out"
	tar -xJOf "$tarball" "linux-source-$v/drivers/md/dm-dust.c" > "$out/dm-dust.c"
	echo 'obj-m := dm-dust.o' > "$out/Kbuild"
	make -s -C "/lib/modules/$k/build" M="$out" modules 2>&1 | grep -v 'Skipping BTF' || true
	[ -e "$out/dm-dust.ko" ] || { echo "dm-dust-ref: dm-dust.ko for $k did not build" >&2; exit 1; }
done
