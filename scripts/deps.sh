#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages dm-fault needs to build, test and benchmark.
# As root, missing packages are installed with apt-get; otherwise the exact
# apt-get line is printed and the script fails.
#
# usage: scripts/deps.sh [build|check|demo|deb|lint|bench|debug|all]
set -eu

base="make gcc libc6-dev kmod cpio xz-utils zstd
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	libdevmapper-dev dmsetup"
vm="qemu-system-x86 busybox-static fio e2fsprogs xfsprogs util-linux jq python3 sqlite3"
pkg="dkms man-db"
lint="sparse linux-source-6.1 perl"
fuzz="clang libclang-rt-14-dev"
bench="gnuplot-nox valgrind"
debug="linux-source-6.1 linux-source-6.12 flex bison bc libelf-dev libssl-dev"

case "${1:-all}" in
build)	want="$base" ;;
check)	want="$base $vm $fuzz $lint $pkg" ;;
demo)	want="$base $vm gnuplot-nox" ;;
deb)	want="$base debhelper dh-dkms dpkg-dev fakeroot lintian git" ;;
lint)	want="$base $lint" ;;
bench)	want="$base $vm $bench" ;;
debug)	want="$base $vm $debug" ;;
all)	want="$base $vm $lint $fuzz $bench $debug $pkg gnuplot-nox" ;;
*)	echo "usage: $0 [build|check|demo|deb|lint|bench|debug|all]" >&2; exit 2 ;;
esac

missing=
for p in $want; do
	s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case "$s" in ii*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "dm-fault: missing packages; run as root:" >&2
	echo "  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
	exit 1
fi
echo "dm-fault: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
