#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/alloc.sh OPS ROUNDS [MODDIR] - run inside the VM by bench/guest.sh:
# cost of the allocator hooks (MODDIR/dmf_alloc.ko, default build/KVER, with
# dmf_engine already loaded) on an allocation-heavy workload
# (bench/allocload: tmpfs create/unlink and pipes on a tmpfs), in four modes,
# interleaved per round:
#
#   none       dmf_alloc not loaded
#   disarmed   loaded, probability 0
#   filtered   armed (probability 100%), task filter on, workload not marked:
#              every allocation is evaluated, none fails
#   firing     probability 0.01%, only the workload marked (debugfs mark):
#              fires rarely
#
# In filtered and firing, ignore-gfp-wait is N so that the workload's
# GFP_KERNEL allocations reach the engine.
#
# Results are @@BENCH lines (kind "alloc"); a missing module or knob is an
# "alloc-note" and the mode (or the whole part) is skipped.

set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 2
ops=${1:-5000} rounds=${2:-3}
KVER=$(uname -r)
ko=${3:-build/$KVER}/dmf_alloc.ko
bin=bench/results/bin/allocload
dbg=/sys/kernel/debug/dm-fault/failslab
work=/tmp/bench-alloc

emit() {
	echo "@@BENCH $(jq -cn "$@" '$ARGS.named')"
}
note() {
	emit --arg kind alloc-note --arg kernel "$KVER" --arg text "alloc: $*"
}

if [[ ! -f $ko ]]; then
	note "$ko is absent (dmf_alloc not built for this kernel): allocator-hook benchmark skipped"
	exit 0
fi
if [[ ! -x $bin ]]; then
	note "$bin is absent (bench/run builds it): allocator-hook benchmark skipped"
	exit 0
fi
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mkdir -p "$work"
mountpoint -q "$work" || mount -t tmpfs -o size=64m none "$work" ||
	{ note "cannot mount a tmpfs on $work"; exit 0; }

load() {
	insmod "$ko" 2>/dev/null || { note "insmod $ko failed: $(dmesg | tail -n 3 | paste -sd' ')"; return 1; }
	[[ -d $dbg ]] || { note "dmf_alloc loaded but $dbg is missing"; return 1; }
}
unload() {
	rmmod dmf_alloc 2>/dev/null || note "cannot unload dmf_alloc"
}
knob() {	# NAME VALUE: write a knob; fails quietly if it is absent
	[[ -e $dbg/$1 ]] || return 1
	echo "$2" >"$dbg/$1" 2>/dev/null || { note "writing '$2' to $dbg/$1 failed"; return 1; }
}
# a knob that marks a task by PID, if the module has one
mark_file() {
	local f
	for f in mark task-pid pid pids; do
		[[ -e $dbg/$f ]] && { echo "$dbg/$f"; return; }
		[[ -e $dbg/../$f ]] && { echo "$dbg/../$f"; return; }
	done
}
injected() {	# the module's own count of injected faults, if it keeps one
	local f
	for f in counters injected stats; do
		[[ -r $dbg/$f ]] && { sed -n 's/.*injected[=: ]*\([0-9]*\).*/\1/p; t; s/^\([0-9][0-9]*\)$/\1/p' "$dbg/$f" | head -n 1; return; }
	done
}

counter() {	# NAME: a line "NAME N" of the hook's counters file, or nothing
	[[ -r $dbg/counters ]] && sed -n "s/^$1[=: ]*\([0-9][0-9]*\)\$/\1/p" "$dbg/counters" | head -n 1
}

run() {	# MODE ROUND [MARKFILE]
	local mode=$1 round=$2 out ops_done ns fails inj seen0 seen1 seen=
	seen0=$(counter seen)
	out=$("$bin" "$work" "$ops" ${3:+"$3"} 2>&1) || { note "$mode: allocload failed: $out"; return; }
	seen1=$(counter seen)
	# allocations the hook saw per operation (its probes fired)
	[[ -n $seen0 && -n $seen1 ]] &&
		seen=$(awk -v a="$seen0" -v b="$seen1" -v o="$ops" 'BEGIN { printf "%.2f", (b - a) / o }')
	read -r ops_done ns fails < <(sed -n 's/^ops=\([0-9]*\) ns=\([0-9]*\) failures=\([0-9]*\).*/\1 \2 \3/p' <<<"$out")
	[[ -n ${ns-} ]] || { note "$mode: unexpected output: $out"; return; }
	inj=$(injected)
	emit --arg kind alloc --arg kernel "$KVER" --arg mode "$mode" --argjson round "$round" \
		--argjson ops "$ops_done" --argjson ns "$ns" --argjson failures "$fails" \
		--argjson ops_per_s "$(awk -v o="$ops_done" -v n="$ns" 'BEGIN { printf "%.3f", o * 1e9 / n }')" \
		${inj:+--argjson injected "$inj"} ${seen:+--argjson hooked_per_op "$seen"}
}

"$bin" "$work" 200 >/dev/null	# page in the program and warm the caches
load || exit 0
emit --arg kind alloc-setup --arg kernel "$KVER" --argjson ops "$ops" --argjson rounds "$rounds" \
	--arg module "$ko" --arg knobs "$(ls "$dbg" | paste -sd' ')"
unload
for ((r = 1; r <= rounds; r++)); do
	run none "$r"
	load || break
	knob probability 0
	run disarmed "$r"
	if knob task-filter Y || knob task-filter 1; then
		# GFP_KERNEL allocations are skipped by default, as the kernel's failslab
		knob ignore-gfp-wait N
		knob times -1
		knob probability 100
		run filtered "$r"
		knob probability 0
		mf=$(mark_file)
		if [[ -n $mf ]]; then
			knob probability 0.01
			run firing "$r" "$mf"
			knob probability 0
			[[ -e $dbg/../unmark ]] && cat "$mf" >"$dbg/../unmark" 2>/dev/null
		else
			((r == 1)) && note "no knob marks a task by PID in $dbg: 'firing' not measured"
		fi
		knob task-filter N || knob task-filter 0
	else
		((r == 1)) && note "no task-filter knob in $dbg: 'filtered' and 'firing' not measured"
	fi
	unload
done
umount "$work" 2>/dev/null
exit 0
