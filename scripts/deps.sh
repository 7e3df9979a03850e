#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages dm-fault needs to build, test and benchmark.
# As root, missing packages are installed with apt-get; otherwise the exact
# apt-get line is printed and the script fails.  With --check nothing is
# installed: missing packages are named with the make target that installs
# them, and the script fails.  Only make deps, make deps-GROUP, make check
# and make demo install; every other target checks.  With --headers the
# group's linux-headers metapackages are printed (scripts/kvers.sh makes
# the test matrix of them).
#
# usage: scripts/deps.sh [--check|--headers] [build|check|demo|deb|lint|bench|debug|flavours|arm64|all]
set -eu

only_check='' headers=''
case "${1:-}" in
--check) only_check=1; shift ;;
--headers) headers=1; shift ;;
esac

arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
# The test matrix: Debian's generic flavour of 6.1 and 6.12.
kernels="linux-image-$arch linux-headers-$arch
	linux-image-6.12-$arch linux-headers-6.12-$arch"
# Debian's other flavours, for make check-flavours: cloud (a trimmed
# configuration for virtual machines) and rt (PREEMPT_RT).  The cloud
# kernels have no 9p; tests/vm/run builds it from linux-source.
flavours="linux-image-cloud-$arch linux-headers-cloud-$arch
	linux-image-rt-$arch linux-headers-rt-$arch
	linux-image-6.12-cloud-$arch linux-headers-6.12-cloud-$arch
	linux-image-6.12-rt-$arch linux-headers-6.12-rt-$arch"
base="make gcc libc6-dev kmod cpio xz-utils zstd $kernels libdevmapper-dev dmsetup"
vm="qemu-system-x86 busybox-static fio e2fsprogs xfsprogs util-linux jq python3 sqlite3 postgresql"
pkg="dkms man-db"
lint="sparse linux-source-6.1 perl"
fuzz="clang libclang-rt-14-dev"
# the in-tree dm-dust that a VM suite compares fault-dust with: make dust-ref
ref="linux-source-6.1 linux-source-6.12"
bench="gnuplot-nox valgrind"
debug="linux-source-6.1 linux-source-6.12 flex bison bc libelf-dev libssl-dev"
# make ARCH=arm64 and make check-arm64: the cross compiler, the arm64
# libdevmapper (apt's arm64 architecture), mmdebstrap and qemu-user for
# scripts/arm64-root.sh, QEMU for arm64.  The amd64 headers of $base bring
# the kbuild tools and common headers the cross build uses.
arm64="gcc-aarch64-linux-gnu libdevmapper-dev:arm64 mmdebstrap arch-test
	qemu-user-static binfmt-support qemu-system-arm"

group=${1:-all}
case "$group" in
build)	want="$base" ;;
check)	want="$base $vm $fuzz $lint $ref $pkg" ;;
demo)	want="$base $vm gnuplot-nox" ;;
deb)	want="$base debhelper dh-dkms dpkg-dev fakeroot lintian git" ;;
lint)	want="$base $lint" ;;
bench)	want="$base $vm $bench" ;;
debug)	want="$base $vm $debug" ;;
flavours) want="$base $vm $flavours linux-source-6.1 linux-source-6.12" ;;
arm64)	want="$base $vm $arm64" ;;
all)	want="$base $vm $lint $fuzz $ref $bench $debug $pkg gnuplot-nox" ;;
*)	echo "usage: $0 [--check|--headers] [build|check|demo|deb|lint|bench|debug|flavours|arm64|all]" >&2; exit 2 ;;
esac

if [ -n "$headers" ]; then
	case "$group" in
	flavours) want=$flavours ;;
	*) want=$kernels ;;
	esac
	for p in $want; do
		case "$p" in linux-headers-*) echo "$p" ;; esac
	done
	exit 0
fi

missing=
for p in $want; do
	s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case "$s" in ii*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0

if [ -n "$only_check" ]; then
	echo "dm-fault: missing packages:$missing" >&2
	echo "  make deps-$group (as root) installs them" >&2
	exit 1
fi
# arm64 packages come from apt's arm64 architecture.
foreign=
case "$missing" in
*:arm64*) dpkg --print-foreign-architectures | grep -qx arm64 ||
		foreign="dpkg --add-architecture arm64 && " ;;
esac
if [ "$(id -u)" != 0 ]; then
	echo "dm-fault: missing packages; run as root:" >&2
	echo "  ${foreign}apt-get update && apt-get install -y --no-install-recommends$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
[ -z "$foreign" ] || dpkg --add-architecture arm64
# A freshly booted machine may be running unattended-upgrades: wait for
# its dpkg lock rather than fail at once.
apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
# Debian 12 is what the tests run on: its kernel packages are the VMs'.
none=
for p in $missing; do
	apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]' || none="$none $p"
done
if [ -n "$none" ]; then
	echo "dm-fault: this system's package archive has no$none" >&2
	case $none in
	*linux-*) echo "  make check and make demo boot Debian 12's kernels (6.1 and 6.12) in QEMU" \
			"and are tested on Debian 12 only; make builds for your own kernel" >&2 ;;
	esac
	exit 1
fi
echo "dm-fault: installing$missing" >&2
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $missing >/dev/null
