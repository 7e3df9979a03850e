#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/engine.sh [--smoke] [--json FILE] - instructions per dmf_should_fail()
# decision, on the host, with callgrind.
#
# Builds bench/engine.c with lib/dmf-engine.c (unchanged) against the
# userspace shim (-I tools/kshim -I include), runs each case for N1 and
# N2 decisions collecting only inside bench_loop(), and prints
#   (Ir(N2) - Ir(N1)) / (N2 - N1) - baseline
# which cancels setup and the loop.  "engine" counts only the instructions
# of lib/dmf-engine.c (with the atomics inlined into it); the rest is the
# shim (pthread locks for RCU and stack_trace_save()).  The loop runs on
# the shim's CPU 0 with SHIM_ONE_CPU, where a per-CPU operation is one
# instruction, as in the kernel.

set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
n1=20000 n2=40000 json=
while (($#)); do
	case $1 in
	--smoke) n1=200 n2=400 ;;
	--json) json=$2; shift ;;
	*) echo "usage: $0 [--smoke] [--json FILE]" >&2; exit 2 ;;
	esac
	shift
done

for f in tools/kshim/dmf/kernel.h tools/kshim/kernel-shim.c tools/kshim/test-hooks.c; do
	[[ -f $f ]] || { echo "engine.sh: $f missing: the userspace shim is not there yet" >&2; exit 1; }
done
command -v valgrind >/dev/null || { echo "engine.sh: valgrind not installed (scripts/deps.sh bench)" >&2; exit 1; }

out=bench/results/engine
mkdir -p "$out"
# -O2 as the kernel builds the engine; no -Wextra: the kernel does not use it.
# Without the unit tests' race-window hook in atomic64_read(), which the
# kernel does not have.
gcc -O2 -g -Wall -DSHIM_NO_RACE_WINDOW -DSHIM_ONE_CPU -I tools/kshim -I include -o "$out/engine" \
	bench/engine.c lib/dmf-engine.c tools/kshim/kernel-shim.c tools/kshim/test-hooks.c -lpthread

# ir FILE: total collected Ir; self FILE: Ir of the engine's own functions.
ir() { sed -n 's/^totals: *//p' "$1"; }
self() {
	callgrind_annotate --inclusive=no --threshold=100 --auto=no "$1" 2>/dev/null |
		awk '/ (lib\/dmf-engine\.c|tests\/unit\/shim\/dmf\/kernel\.h):/ {
			gsub(",", "", $1); s += $1 } END { print s + 0 }'
}

base=0
rows=()
printf '%-16s %9s %9s %6s  %s\n' case "insn" "engine" target "what"
while IFS=$'\t' read -r name target what; do
	tag=${name//[^a-zA-Z0-9.-]/_}
	for n in $n1 $n2; do
		valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_loop \
			--callgrind-out-file="$out/cg.$tag.$n" "$out/engine" "$name" "$n" \
			>"$out/$tag.$n.out" 2>"$out/$tag.$n.err" ||
			{ cat "$out/$tag.$n.err" >&2; exit 1; }
	done
	read -r per eng < <(awk -v a="$(ir "$out/cg.$tag.$n1")" -v b="$(ir "$out/cg.$tag.$n2")" \
		-v ea="$(self "$out/cg.$tag.$n1")" -v eb="$(self "$out/cg.$tag.$n2")" \
		-v d=$((n2 - n1)) 'BEGIN { printf "%.2f %.2f\n", (b - a) / d, (eb - ea) / d }')
	fired=$(awk '{ print $3 }' "$out/$tag.$n2.out")
	if [[ $name == baseline ]]; then
		base=$per
		net=$per
	else
		net=$(awk -v p="$per" -v b="$base" 'BEGIN { printf "%.2f", p - b }')
	fi
	verdict=
	((target)) && verdict=$(awk -v x="$net" -v t="$target" 'BEGIN { print (x <= t ? "PASS" : "MISS") " <= " t }')
	printf '%-16s %9s %9s %6s  %s (fired %s of %s) %s\n' "$name" "$net" "$eng" "${target/#0/-}" \
		"$what" "$fired" "$n2" "$verdict"
	rows+=("$(jq -cn --arg name "$name" --arg what "$what" --argjson insn "$net" \
		--argjson engine "$eng" --argjson target "$target" --argjson fired "$fired" \
		--argjson n "$n2" '{name: $name, what: $what, insn: $insn, engine_only: $engine,
		 fired: $fired, n: $n} + (if $target > 0 then {target: $target} else {} end)')")
done < <("$out/engine" --list)

if [[ -n $json ]]; then
	printf '%s\n' "${rows[@]}" | jq -s --arg cc "$(gcc --version | head -n 1)" \
		--arg vg "$(valgrind --version)" \
		'{compiler: $cc, valgrind: $vg, flags: "-O2", method: "callgrind delta N2-N1 minus baseline loop", cases: .}' >"$json"
fi
