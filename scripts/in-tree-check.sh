#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make in-tree-check: scripts/in-tree.sh into a fresh copy of Debian's
# linux-source-V (V: 6.1 or 6.12; default: each installed), a defconfig with
# CONFIG_DM_FAULT=m and CONFIG_DM_FAULT_ALLOC_HOOKS=m (and what they depend
# on), and a build of the three modules: any compiler warning or error in
# them fails.  About 2 minutes a kernel on two cores; not part of make check.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 0 ]; then
	set -- $(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sed 's/.*linux-source-\(.*\)\.tar\.xz/\1/')
	[ $# -gt 0 ] || { echo "in-tree-check: no /usr/src/linux-source-*.tar.xz" >&2; exit 1; }
	for v; do "$0" "$v" || exit 1; done
	exit 0
fi
tarball=/usr/src/linux-source-$1.tar.xz
w=$top/build/in-tree-$1
rm -rf "$w" && mkdir -p "$w"
echo "# $tarball"
tar -C "$w" -xf "$tarball"
k=$(echo "$w"/linux-source-*)
"$top/scripts/in-tree.sh" "$k"
cd "$k"
make -s defconfig
scripts/config -e MD -m BLK_DEV_DM -m DM_FAULT -m DM_FAULT_ALLOC_HOOKS -e KPROBES \
	-e FTRACE -e FUNCTION_TRACER -e DYNAMIC_FTRACE
make -s olddefconfig
grep -E '^CONFIG_DM_FAULT(_ALLOC_HOOKS)?=m$' .config | paste -sd' '
# modpost cannot resolve the kernel's symbols without a vmlinux: not ours
make -j"$(nproc)" KBUILD_MODPOST_WARN=1 drivers/md/dm-fault.ko lib/dmf_engine.ko mm/dmf_alloc.ko 2>&1 |
	tee "$w/build.log" | grep -E '^ *(CC|LD) \[M\]' || true
bad=$(grep -E '(warning|error):' "$w/build.log" | grep -v modpost || true)
ls drivers/md/dm-fault.ko lib/dmf_engine.ko mm/dmf_alloc.ko
[ -z "$bad" ] || { echo "$bad"; echo "in-tree-check: FAILED"; exit 1; }
echo "in-tree-check: the three modules build in $(basename "$k") without a warning"
