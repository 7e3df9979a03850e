#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scripts/arm64-root.sh [DIR] - the arm64 Debian 12 root that make ARCH=arm64
# builds against and tests/vm/run --arch arm64 boots, made once outside the
# checkout (DIR, else $ARM64_ROOT, else /var/cache/dm-fault/arm64-root).
#
# mmdebstrap --arch=arm64 puts in it Debian's generic arm64 kernels (6.1 and
# 6.12), the packages the VM suites run (the guest's root is DIR over 9p) and
# busybox-static for the VM's initramfs.  Each kernel's headers package is
# unpacked into it without its dependencies: its compiler and its kbuild
# tools are arm64 programs, and installing linux-headers-arm64 on an amd64
# host would remove the host's gcc.  The cross build uses the host's
# aarch64-linux-gnu-gcc and the host's own kbuild tools and common headers
# of the same kernel (the arch-independent linux-kbuild-V and
# linux-headers-V-common that the amd64 headers of that kernel install):
# the root's usr/lib/linux-kbuild-V links to the host's.
#
# scripts/arm64-root.sh --deb [DIR] - the root make deb-check ARCH=arm64
# boots (DIR, else $ARM64_DEB_ROOT, else /var/cache/dm-fault/arm64-deb-root):
# what a user's arm64 machine has to install dm-fault's packages, the same
# kernels with their headers installed as on that machine, dkms and its
# compiler.  It is not a build root: an arm64 compiler and kbuild tools
# in it are what a user's DKMS runs.
#
# Runs as root (mmdebstrap --mode=root; the packages' scripts run under
# qemu-user through binfmt_misc).  An existing root is kept while its
# package list is the same; delete DIR to make it again.
set -euo pipefail

deb=
[ "${1:-}" != --deb ] || { deb=1; shift; }
if [ -n "$deb" ]; then
	root=${1:-${ARM64_DEB_ROOT:-/var/cache/dm-fault/arm64-deb-root}}
	pkgs="linux-image-arm64 linux-image-6.12-arm64 linux-headers-arm64
		linux-headers-6.12-arm64 dkms gcc make busybox-static kmod dmsetup
		procps util-linux mount man-db"
else
	root=${1:-${ARM64_ROOT:-/var/cache/dm-fault/arm64-root}}
	pkgs="linux-image-arm64 linux-image-6.12-arm64 busybox-static kmod dmsetup
		procps psmisc util-linux mount e2fsprogs xfsprogs fio jq python3 sqlite3"
fi
stamp=$(echo "$pkgs" | xargs | sha256sum | cut -d' ' -f1)

die() {
	echo "arm64-root: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "mmdebstrap --mode=root needs root"
for t in mmdebstrap arch-test aarch64-linux-gnu-gcc; do
	command -v "$t" >/dev/null || die "$t not found (make deps-arm64 installs it)"
done
dpkg --print-foreign-architectures | grep -qx arm64 ||
	die "apt has no arm64 packages: dpkg --add-architecture arm64 && apt-get update (make deps-arm64)"
# mmdebstrap runs the arm64 packages' scripts through qemu-user.
[ -e /proc/sys/fs/binfmt_misc/status ] ||
	mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
	die "binfmt_misc cannot be mounted: arm64 programs cannot run here"
if ! grep -qx enabled /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
	update-binfmts --enable qemu-aarch64 ||
		die "qemu-aarch64 not registered in binfmt_misc (qemu-user-static, binfmt-support)"
fi

# Remove a root that an interrupted mmdebstrap may have left with /dev/pts,
# /dev/shm, /proc and /sys mounted in it: unmount those first (deepest
# first), and never cross into another file system.
remove_root() {
	local m

	[ -e "$1" ] || return 0
	while read -r m; do
		umount -l "$m" || die "cannot unmount $m, left in $1 by an earlier run"
	done < <(awk -v d="$1/" 'index($2, d) == 1 {print $2}' /proc/self/mounts | sort -r)
	rm -rf --one-file-system "$1"
}

if [ "$(cat "$root/.dmf-arm64-root" 2>/dev/null)" != "$stamp" ]; then
	echo "arm64-root: making $root (mmdebstrap, some minutes)" >&2
	mkdir -p "$(dirname "$root")"
	remove_root "$root.new"
	# shellcheck disable=SC2086 # the package list, a word each
	mmdebstrap --arch=arm64 --variant=minbase --mode=root -q \
		--aptopt='APT::Install-Recommends "false"' \
		--include="$(echo $pkgs | tr ' ' ,)" bookworm "$root.new" ||
		die "mmdebstrap failed"
	echo "$stamp" >"$root.new/.dmf-arm64-root"
	remove_root "$root"
	mv "$root.new" "$root"
fi

if [ -n "$deb" ]; then
	for img in "$root"/boot/vmlinuz-*; do
		echo "${img##*/vmlinuz-}"
	done
	exit 0
fi

# Each kernel's build tree, for the host's cross compiler.
debs=$(mktemp -d)
chmod 755 "$debs"	# apt-get download writes as _apt
trap 'rm -rf "$debs"' EXIT
for img in "$root"/boot/vmlinuz-*; do
	k=${img##*/vmlinuz-}
	tree=$root/usr/src/linux-headers-$k
	if [ ! -e "$tree/Makefile" ]; then
		(cd "$debs" && apt-get download -q "linux-headers-$k:arm64" >/dev/null) ||
			die "cannot download linux-headers-$k:arm64"
		# not into the root itself: dpkg-deb -x would make its lib
		# (a link to usr/lib) a directory of the package's lib/modules
		dpkg-deb -x "$debs"/linux-headers-"$k"_*_arm64.deb "$debs/$k"
		cp -a "$debs/$k/usr/src/." "$root/usr/src/"
	fi
	# Relative, so that it leads to the tree from the host as in the guest;
	# from where the link really is (lib is usr/lib in a merged-/usr root).
	mods=$(realpath "$root/lib/modules/$k")
	ln -sfn "$(realpath -m --relative-to="$mods" "$tree")" "$mods/build"
	common=$(sed -n 's/^include //p' "$tree/Makefile")
	kbuild=$(readlink "$tree/scripts")
	kbuild=${kbuild#../../lib/}
	kbuild=${kbuild%/scripts}
	ln -sfn "/usr/lib/$kbuild" "$root/usr/lib/$kbuild"
	if ! [ -r "$common" ] || ! [ -x "/usr/lib/$kbuild/scripts/basic/fixdep" ]; then
		die "building for $k needs the host's $common and /usr/lib/$kbuild:" \
			"apt-get install $(basename "$(dirname "$common")") $kbuild"
	fi
	echo "$k"
done
