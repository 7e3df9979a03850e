#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make deb-check: the packages of make deb, installed in a VM and used with
# nothing from the checkout: dpkg -i of dm-fault-dkms (its postinst builds
# the modules with DKMS for the guest's kernel) and dmfault, modprobe
# dm-fault, modprobe dmf_alloc through the package's modprobe.d line (or
# its word on why not, where the kernel cannot have it), a fault device
# with a rule, dmfault stats.  Each kernel in turn (the DKMS build runs
# under TCG: minutes; on arm64, in the root of scripts/arm64-root.sh
# --deb, some twenty).  Last line "P passed, F failed".
#
# usage: tests/deb-check.sh DEB-DIR KVER...
top=$(cd "$(dirname "$0")/.." && pwd)
debs=$(cd "${1:?usage: $0 DEB-DIR KVER...}" && pwd)
shift
p=0 f=0
script=$(mktemp /tmp/dmf-deb-check.XXXXXX)
trap 'rm -f "$script"' EXIT
# run from /, with the packages' own paths only
cat > "$script" <<EOS
cd /
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
dpkg -i $debs/dm-fault-dkms_*_all.deb $debs/dmfault_*_\$(dpkg --print-architecture).deb \
	> /tmp/dpkg.log 2>&1 ||
	{ tail -n 20 /tmp/dpkg.log; exit 1; }
dkms status | grep "dm-fault.*\$(uname -r).*installed" && echo "ok dkms"
modprobe dm-fault && lsmod | grep -q '^dmf_engine ' && echo "ok modprobe"
# dmf_alloc where DKMS built it; elsewhere the package's modprobe.d line
# says why, on a kernel that lacks what dkms.conf asks for
if modprobe dmf_alloc 2>/tmp/alloc.err; then
	lsmod | grep -q '^dmf_alloc ' && modprobe -r dmf_alloc && echo "ok alloc"
elif grep -q "^modprobe: dmf_alloc is not built for kernel \$(uname -r): " /tmp/alloc.err; then
	lacks=\$(kernel_source_dir=/lib/modules/\$(uname -r)/build
		. /usr/src/dm-fault-*/dkms.conf; dmf_alloc_lacks)
	[ -n "\$lacks" ] && echo "alloc: not built, and the kernel has no \$lacks" && echo "ok alloc"
else
	cat /tmp/alloc.err
fi
modprobe null_blk nr_devices=1 gb=1
dmsetup create pk --table "0 \$(blockdev --getsz /dev/nullb0) fault /dev/nullb0 0 1 error:op=read" &&
	! dd if=/dev/mapper/pk of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null &&
	echo "ok device"
command -v dmfault | grep -qx /usr/sbin/dmfault && dmfault stats pk | grep -E '^  read +1 ' &&
	echo "ok dmfault"
man -w dmfault | grep -q /usr/share/man/man8/dmfault.8 && echo "ok man"
dmsetup remove pk && modprobe -r dm-fault && echo "ok unload"
EOS
for k in "$@"; do
	# an arm64 kernel boots the root a user's arm64 machine would be
	if [[ $k == *-arm64 ]]; then
		root=${ARM64_DEB_ROOT:-/var/cache/dm-fault/arm64-deb-root}
		if [ ! -e "$root/boot/vmlinuz-$k" ]; then
			echo "not ok - $k: no $root/boot/vmlinuz-$k (scripts/arm64-root.sh --deb makes it)"
			f=$((f + 1))
			continue
		fi
		out=$(ARM64_ROOT=$root "$top/tests/vm/run" --arch arm64 --kernel "$k" --mem 2048 \
			--timeout 5400 -- bash "$script" 2>&1)
	else
		out=$("$top/tests/vm/run" --kernel "$k" --mem 2048 --timeout 3600 -- bash "$script" 2>&1)
	fi
	for t in dkms modprobe alloc device dmfault man unload; do
		if echo "$out" | grep -qx "ok $t"; then
			echo "ok - $k: $t"
			p=$((p + 1))
		else
			echo "not ok - $k: $t"
			f=$((f + 1))
		fi
	done
	[ $f -eq 0 ] || echo "$out" | tail -n 15 | sed 's/^/# /'
done
echo "$p passed, $f failed"
[ $f -eq 0 ]
