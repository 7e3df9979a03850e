#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/msgcost.sh [--devices N] [--rounds R] [DIR...] - run inside the VM
# (tests/vm/run --icount): what a rule message costs, for each build of the
# target in DIR... (default build/KVER; another build, e.g. of an earlier
# commit, is compared in the same boot).  For each build: N fault devices
# over slices of one null_blk, each with a rule; bench/msgcost sends a rule
# add and a rule remove to every device R times (one process, no dmsetup
# start per message), then to one device N x R times.  Prints
#
#   @@MSG build=DIR devices=N messages=M ns=NS
#
# one line a measurement, NS the average per message.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 2
ndev=200 rounds=5 builds=()
while (($#)); do
	case $1 in
	--devices) ndev=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	-*) echo "usage: $0 [--devices N] [--rounds R] [DIR...]" >&2; exit 2 ;;
	*) builds+=("$1") ;;
	esac
	shift
done
((${#builds[@]})) || builds=("build/$(uname -r)")
bin=/tmp/msgcost
gcc -O2 -Wall -o $bin bench/msgcost.c -ldevmapper || exit 1

modprobe dm-mod || exit 1
modprobe null_blk nr_devices=1 gb=1 memory_backed=0 || exit 1
status=0
for b in "${builds[@]}"; do
	insmod "$b/dmf_engine.ko" && insmod "$b/dm-fault.ko" || { echo "insmod from $b failed"; exit 1; }
	devs=()
	for ((i = 0; i < ndev; i++)); do
		dmsetup create "mc$i" --table "0 2048 fault /dev/nullb0 $((i * 2048)) 1 error:p=0" ||
			{ status=1; break; }
		devs+=("mc$i")
	done
	if ((status == 0)); then
		out=$($bin "$rounds" 7 "${devs[@]}") || status=1
		echo "@@MSG build=$b devices=$ndev messages=${out%% *} ns=$(echo "$out" | awk '{print $3}')"
		out=$($bin $((rounds * ndev)) 7 mc0) || status=1
		echo "@@MSG build=$b devices=1 messages=${out%% *} ns=$(echo "$out" | awk '{print $3}')"
	fi
	for d in "${devs[@]}"; do
		dmsetup remove "$d" || status=1
	done
	rmmod dm_fault dmf_engine || status=1
done
exit $status
