#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run fuzz targets for $FUZZ_SECONDS each from their committed corpus
# (corpus/NAME for NAME_fuzz, dictionary NAME.dict), without writing to it
# (new inputs go to a scratch directory), and report in KTAP closed by
# "P passed, F failed".  Crash inputs are kept as ./crash-*.
#
# usage: run-fuzz.sh libfuzzer|standalone TARGET...

kind=$1
shift
secs=${FUZZ_SECONDS:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0 n=0

# fuzz TARGET: run it, print its comment line; the exit status is the target's.
fuzz() {
	local target=$1 name=${1%_fuzz} rc runs rate last cov corp

	mkdir -p "$work/$name"
	if [ "$kind" = libfuzzer ]; then
		./"$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
			-dict="$name.dict" -artifact_prefix="$PWD/" -print_final_stats=1 \
			"$work/$name" "corpus/$name" >"$work/log" 2>&1
		rc=$?
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
		rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log")
		last=$(grep -E '^#[0-9]+' "$work/log" | tail -n 1)
		cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
		corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
		echo "# $target: libFuzzer, ${secs} s, ${runs:-?} runs, ${rate:-?} exec/s," \
		     "coverage ${cov:-?} edges, corpus ${corp:-?} inputs"
	else
		FUZZ_SECONDS=$secs ./"$target" "corpus/$name"/* >"$work/log" 2>&1
		rc=$?
		echo "# $target: standalone driver, ${secs} s: $(grep '^Done' "$work/log")"
	fi
	return $rc
}

echo "TAP version 13"
echo "1..$#"
for t in "$@"; do
	n=$((n + 1))
	if fuzz "$t"; then
		echo "ok $n $t"
		pass=$((pass + 1))
	else
		rc=$?
		grep -v -E '^#[0-9]+|^INFO:' "$work/log" | tail -n 40 | sed 's/^/# /'
		echo "not ok $n $t # exit=$rc"
		fail=$((fail + 1))
	fi
done
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
