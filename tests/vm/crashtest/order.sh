#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# order.sh setup|workload|check [LOG]: a block-level probe of the crash
# states dmfault crashtest builds, with direct I/O on the raw device
# $DMF_DEV.  Each 4 KiB block n of 0-6 gets its own byte ('A' + n):
#
#   block 0, then a flush (fsync of the device)      durable from then on
#   mark blocks; blocks 1, 2, 3, 4, one write each    may be kept or lost
#   mark fua; block 5 with O_DSYNC (a FUA write)     durable once written
#   block 6                                          may be kept or lost
#
# check appends one line to LOG (default /tmp/dmf-crashtest-order.log): for
# blocks 0-6, 1 (its data), 0 (zeros: lost), t (part of it: torn), then
# $DMF_STATE.  It fails if one of blocks 2-4 is there, whole or torn, while
# the block before it is lost: the order a program that writes them one
# after the other without a flush may not rely on.
set -u
step=$1 log=${2:-/tmp/dmf-crashtest-order.log}
P=/tmp/dmf-crashtest-order

# put N [DD-OPERAND...]: block N with its byte, by direct I/O (dd adds up
# repeated oflag= and conv= operands)
put() {
	dd if=$P.$1 of="$DMF_DEV" bs=4k seek="$1" count=1 oflag=direct conv=notrunc \
		status=none "${@:2}"
}

# block N: 1, 0 or t
block() {
	dd if="$DMF_DEV" of=$P.got bs=4k skip="$1" count=1 iflag=direct status=none || return 1
	if cmp -s $P.got $P.$1; then
		echo 1
	elif cmp -s $P.got $P.z; then
		echo 0
	else
		echo t
	fi
}

mark() {
	dmsetup message "${DMF_DEV##*/}" 0 mark "$1"
}

case $step in
setup)
	for n in 0 1 2 3 4 5 6; do
		head -c 4096 /dev/zero | tr '\0' "\\$(printf '%03o' $((65 + n)))" > $P.$n
	done
	head -c 4096 /dev/zero > $P.z
	dd if=/dev/zero of="$DMF_DEV" bs=4k count=8 oflag=direct conv=fsync status=none || exit 1
	: > "$log"
	;;
workload)
	put 0 conv=fsync || exit 1
	mark blocks || exit 1
	for n in 1 2 3 4; do
		put $n || exit 1
	done
	mark fua || exit 1
	put 5 oflag=dsync || exit 1
	put 6 || exit 1
	;;
check)
	b=()
	for n in 0 1 2 3 4 5 6; do
		b[n]=$(block $n) || { echo "cannot read block $n"; exit 1; }
	done
	echo "${b[*]} ${DMF_STATE:-}" >> "$log"
	for n in 2 3 4; do
		if [ "${b[n]}" != 0 ] && [ "${b[n - 1]}" = 0 ]; then
			echo "block $n is on the disk (${b[n]}), block $((n - 1)) is not"
			exit 1
		fi
	done
	;;
esac
