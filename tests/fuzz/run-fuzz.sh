#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run one fuzz target for $FUZZ_SECONDS from the committed corpus, without
# writing to it (new inputs go to a scratch directory), and report in KTAP
# closed by "P passed, F failed".  Crash inputs are kept as ./crash-*.
#
# usage: run-fuzz.sh TARGET libfuzzer|standalone

target=$1 kind=$2
secs=${FUZZ_SECONDS:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "TAP version 13"
echo "1..1"
if [ "$kind" = libfuzzer ]; then
	./"$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=256 \
		-dict=engine.dict -artifact_prefix="$PWD/" -print_final_stats=1 \
		"$work" corpus >"$work/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log")
	last=$(grep -E '^#[0-9]+' "$work/log" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
	echo "# $target: libFuzzer, ${secs} s, ${runs:-?} runs, ${rate:-?} exec/s," \
	     "coverage ${cov:-?} edges, corpus ${corp:-?} inputs"
else
	FUZZ_SECONDS=$secs ./"$target" corpus/* >"$work/log" 2>&1
	rc=$?
	echo "# $target: standalone driver, ${secs} s: $(grep '^Done' "$work/log")"
fi
if [ "$rc" -eq 0 ]; then
	echo "ok 1 $target"
	echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"
	echo "1 passed, 0 failed"
	exit 0
fi
grep -v -E '^#[0-9]+|^INFO:' "$work/log" | tail -n 40 | sed 's/^/# /'
echo "not ok 1 $target # exit=$rc"
echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
echo "0 passed, 1 failed"
exit 1
