#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The debug kernel of make check-debug: allnoconfig + kvm_guest.config +
# scripts/debug-kernel.config, built from Debian's linux-source-V package
# (V: 6.1, the default, or 6.12, the two kernels make check runs on), and
# dm-fault's modules built against it.  V 6.12-rt is the same 6.12 source
# with scripts/debug-kernel-rt.config on top: PREEMPT_RT, where spinlocks
# sleep, checked by lockdep and might_sleep (mainline has PREEMPT_RT from
# 6.12; 6.1 needed the out-of-tree patch set).  Everything lives in
# build/debug-V/; the kernel is built again only when a fragment or the
# source tarball changes, the modules every time (make does little when
# nothing changed).  Prints the kernel's release.
#
# usage: scripts/debug-kernel.sh [V]
#
#   build/debug-V/obj/arch/x86/boot/bzImage   the kernel (O= tree)
#   build/debug-V/mods/lib/modules/KVER       its modules (modules_install)
#   build/debug-V/dm-fault/*.ko                dm-fault's modules for it
#
# DEBUG_KERNEL_JOBS (default 2) is make's -j; everything runs under nice 15.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ver=${1:-6.1}
frags=("$top/scripts/debug-kernel.config")
case $ver in
6.1 | 6.12) ;;
6.12-rt) frags+=("$top/scripts/debug-kernel-rt.config") ;;
*)	echo "debug-kernel: no debug kernel '$ver' (6.1, 6.12 or 6.12-rt)" >&2; exit 2 ;;
esac
srcver=${ver%-rt}
tarball=/usr/src/linux-source-$srcver.tar.xz
dir=$top/build/debug-$ver
src=$dir/linux-source-$srcver
obj=$dir/obj
jobs=${DEBUG_KERNEL_JOBS:-2}

kmake() {
	nice -n 15 make -s -C "$src" O="$obj" "$@"
}

[[ -r $tarball ]] || {
	echo "debug-kernel: $tarball missing (apt-get install linux-source-$srcver)" >&2
	exit 2
}
mkdir -p "$dir"
exec {lockfd}>"$dir/.lock"
flock "$lockfd"

tstamp=$(stat -L -c '%n %s %Y' "$tarball")
if [[ "$(cat "$dir/src.stamp" 2>/dev/null)" != "$tstamp" ]]; then
	rm -rf "$src" "$obj" "$dir/stamp" "$dir/src.stamp"
	echo "  UNTAR   $tarball" >&2
	nice -n 15 tar -xJf "$tarball" -C "$dir"
	echo "$tstamp" >"$dir/src.stamp"
fi

# The settings of the fragments (not their comments), a later fragment's
# setting of a symbol replacing an earlier one's, as merge_config.sh does;
# in the order the symbols first appear.
settings() {
	grep -hE '^(CONFIG_|# CONFIG_)' "${frags[@]}" |
		awk '{ s = $0; sub(/^# /, "", s); sub(/[= ].*/, "", s) }
		!(s in v) { o[n++] = s } { v[s] = $0 }
		END { for (i = 0; i < n; i++) print v[o[i]] }'
}

# The cache key: the hash of the settings.
key=$(settings | sha256sum | cut -d' ' -f1)
if [[ "$(cat "$dir/stamp" 2>/dev/null)" != "$key" || ! -s $obj/arch/x86/boot/bzImage ]]; then
	rm -f "$dir/stamp"
	mkdir -p "$obj"
	echo "  CONFIG  allnoconfig kvm_guest.config ${frags[*]#"$top"/}" >&2
	kmake allnoconfig kvm_guest.config >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" \
		>"$dir/config.log" 2>&1
	kmake olddefconfig 2>>"$dir/config.log"
	# Say which of the fragments' settings Kconfig did not take.
	# "is not set" is taken too when the symbol is not there at all.
	settings | while read -r l; do
		sym=$(sed -E 's/^# //; s/[= ].*//' <<<"$l")
		grep -qxF "$l" "$obj/.config" ||
			{ [[ $l == "# "* ]] && ! grep -q "^$sym=" "$obj/.config"; } ||
			echo "debug-kernel: note: '$l' not taken" >&2
	done
	echo "  BUILD   bzImage modules (nice -n 15 make -j$jobs, log in ${dir#"$top"/}/build.log)" >&2
	t0=$SECONDS
	if ! kmake -j"$jobs" bzImage modules >"$dir/build.log" 2>&1; then
		tail -n 30 "$dir/build.log" >&2
		exit 1
	fi
	rm -rf "$dir/mods"
	kmake INSTALL_MOD_PATH="$dir/mods" modules_install >/dev/null
	echo "$key" >"$dir/stamp"
	echo "  BUILT   the debug kernel in $((SECONDS - t0)) s" >&2
fi
kver=$(cat "$obj/include/config/kernel.release")

# dm-fault's modules, as the Makefile's modules target builds them.
s=$dir/dm-fault/src
mkdir -p "$s"
for f in Kbuild lib drivers mm include; do
	cp -rsf "$top/$f" "$s/"
done
echo "  MODULES $kver" >&2
nice -n 15 make -s -C "$obj" M="$s" -j"$jobs" modules >&2
cp "$s"/*.ko "$dir/dm-fault/"
echo "$kver"
