#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make install and DKMS, on the host (make check runs it before the VMs):
# make install DESTDIR=... lays out the modules for each kernel, dmfault,
# its man page and completion and dmf_alloc's modprobe.d line, and make
# uninstall takes them all away; dkms builds the three modules from the tree
# make dkms-src lays out, for every kernel (and the two that need no ftrace
# for a kernel without it), in a private DKMS tree (nothing of the system's
# touched); and in a VM per kernel, modprobe over the installed tree loads
# dm-fault with dmf_engine under it, a fault device works, and modprobe
# dmf_alloc loads it, or says why not from a tree without it.  KTAP out,
# last line "P passed, F failed".
#
# usage: tests/packaging.sh KVER...
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
. tests/vm/lib.sh
KVER=host
ktap_begin packaging host

tmp=$(mktemp -d /tmp/dmf-packaging.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

# A build installs nothing: make, make modules, make tools and make install
# run no package step, and a kernel without headers is refused by name.
out=$(make -s modules KVER="$1" 2>&1)
expect "make modules KVER=$1 builds for that kernel, and only it" "0 MODULES $1" \
	"$? $(awk '$1 == "MODULES" {print $1, $2}' <<< "$out" | paste -sd' ')"
out=$(make -s modules KVER=0.0.0-nosuch 2>&1)
expect "make KVER= with no headers fails" 2 $?
expect "... and says which kernel has no build tree" 1 \
	"$(grep -c 'no kernel build tree for 0.0.0-nosuch (/lib/modules/0.0.0-nosuch/build)' <<< "$out")"
expect "no build or install target runs a package step" 0 \
	"$(make -n all modules tools install install-tools KVERS="$*" DESTDIR="$root" 2>&1 |
		grep -c 'deps\.sh [a-z]')"
check "make install DESTDIR" make -s install DESTDIR="$root" PREFIX=/usr KVERS="$*"
for k in "$@"; do
	expect "$k: the three modules under updates/dm-fault" "dm-fault.ko dmf_alloc.ko dmf_engine.ko" \
		"$(ls "$root/lib/modules/$k/updates/dm-fault" | paste -sd' ')"
done
for f in sbin/dmfault share/man/man8/dmfault.8 share/bash-completion/completions/dmfault; do
	check "installed: /usr/$f" test -s "$root/usr/$f"
done
check "installed: /lib/modprobe.d/dm-fault.conf" test -s "$root/lib/modprobe.d/dm-fault.conf"
check "the installed dmfault runs" "$root/usr/sbin/dmfault" rule check "error:op=read,p=1%"
check "its man page formats" bash -c "man -l '$root/usr/share/man/man8/dmfault.8' > /dev/null"
check "make uninstall DESTDIR" make -s uninstall DESTDIR="$root" PREFIX=/usr KVERS="$*"
expect "nothing of ours is left" "" "$(output find "$root" -type f)"

# the VM checks need an installed tree; depmod it as the system would
check "make install DESTDIR again, for modprobe" \
	make -s install DESTDIR="$root" PREFIX=/usr KVERS="$*"
for k in "$@"; do
	mkdir -p "$root/lib/modules/$k/kernel"
	check "$k: depmod -b on the tree" depmod -b "$root" "$k"
	expect "$k: dm-fault depends on dmf_engine" "updates/dm-fault/dmf_engine.ko" \
		"$(awk -F': ' '$1 ~ /dm-fault.ko$/ {print $2}' "$root/lib/modules/$k/modules.dep")"
done
# the same tree with no dmf_alloc, as on a kernel it is not built for
cp -a "$root" "$tmp/noalloc"
for k in "$@"; do
	rm "$tmp/noalloc/lib/modules/$k/updates/dm-fault/dmf_alloc.ko"
	depmod -b "$tmp/noalloc" "$k"
done

if command -v dkms > /dev/null; then
	check "make dkms-src lays out the DKMS source" make -s dkms-src DESTDIR="$tmp/src"
	v=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
	d=(--sourcetree "$tmp/src/usr/src" --dkmstree "$tmp/dkms")
	mkdir -p "$tmp/dkms"
	check "dkms add" dkms add "${d[@]}" -m dm-fault -v "$v"
	for k in "$@"; do
		check "dkms build for $k" dkms build "${d[@]}" -m dm-fault -v "$v" -k "$k"
		b=$tmp/dkms/dm-fault/$v/$k/x86_64/module
		expect "$k: dkms built the three modules, for $k" "3 $k" \
			"$(ls "$b" 2>/dev/null | grep -c '\.ko') $(modinfo -F vermagic "$b"/dm-fault.ko* |
				awk '{print $1}')"
	done
	# a kernel the allocator hooks cannot hook (here: the last kernel's
	# headers without ftrace with arguments): DKMS builds the other two
	k=${*: -1}
	f=$tmp/nohooks
	cp -rs "$(readlink -f "/lib/modules/$k/build")" "$f"
	for c in .config include/config/auto.conf; do
		rm -f "$f/$c"
		grep -v '^CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS=' "/lib/modules/$k/build/$c" > "$f/$c"
	done
	check "dkms build for a kernel without ftrace with arguments" \
		dkms build "${d[@]}" -m dm-fault -v "$v" -k "$k" --kernelsourcedir "$f" --force
	expect "... builds the target and the engine, not the allocator hooks" \
		"dm-fault.ko dmf_engine.ko" \
		"$(ls "$tmp/dkms/dm-fault/$v/$k/x86_64/module" | sed 's/\.ko.*/.ko/' | paste -sd' ')"
else
	fail "dkms" "dkms is not installed (scripts/deps.sh check installs it)"
fi

# modprobe in a VM, over the installed tree, with the modules of the checkout
# out of the way: tests/vm/run's guest sees the host's /tmp.  Then
# modprobe.d's word for dmf_alloc: it loads it where it is and says why
# not where it is not (MODPROBE_OPTIONS reaches the modprobe it runs).
for k in "$@"; do
	out=$(tests/vm/run --kernel "$k" --timeout 300 -- bash -c "
		modprobe dm-mod && modprobe -d '$root' dm-fault || exit 1
		lsmod | awk '\$1 ~ /^(dm_fault|dmf_engine)\$/ {print \$1}' | sort | paste -sd' '
		modprobe null_blk nr_devices=1 gb=1 && dmsetup create pk --table \
			\"0 \$(blockdev --getsz /dev/nullb0) fault /dev/nullb0 0 1 error:op=read\" &&
		! dd if=/dev/mapper/pk of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null &&
		dmsetup status pk | awk '{print \$5}' && dmsetup remove pk
		test -s '$root/lib/modprobe.d/dm-fault.conf' || exit 1
		MODPROBE_OPTIONS='-d $tmp/noalloc -C $tmp/noalloc/lib/modprobe.d' modprobe dmf_alloc
		echo \"noalloc rc=\$? loaded=\$(lsmod | grep -c '^dmf_alloc ')\"
		MODPROBE_OPTIONS='-d $root -C $root/lib/modprobe.d' modprobe dmf_alloc
		echo \"alloc rc=\$? loaded=\$(lsmod | grep -c '^dmf_alloc ')\"
		modprobe -d '$root' -r dmf_alloc dm-fault
		echo \"unload rc=\$? left=\$(lsmod | grep -cE '^(dm_fault|dmf_engine|dmf_alloc) ')\"" 2>&1)
	expect "$k: modprobe -d loads dm-fault and dmf_engine; a read fails as its rule says" \
		"dm_fault dmf_engine|read:1:4096:1:4096" \
		"$(echo "$out" | grep -E '^(dm_fault|read:)' | paste -sd'|')"
	expect "$k: modprobe dmf_alloc with none installed fails, saying why" \
		"modprobe: dmf_alloc is not built for kernel $k: the allocator hooks need an x86-64 or arm64 kernel with CONFIG_KPROBES|noalloc rc=1 loaded=0" \
		"$(echo "$out" | grep -oE '(modprobe: dmf_alloc is not built for kernel [0-9][^:]*: [^,]*|^noalloc rc=.*)' | paste -sd'|')"
	expect "$k: ... and with it installed loads it through the same line; modprobe -r unloads all three" \
		"alloc rc=0 loaded=1|unload rc=0 left=0" \
		"$(echo "$out" | grep -E '^(alloc rc=|unload rc=)' | paste -sd'|')"
	echo "$out" | grep -q '^unload rc=0 left=0' || echo "$out" | tail -n 5 | sed 's/^/# /'
done
ktap_end
echo "$_ktap_pass passed, $_ktap_fail failed"
