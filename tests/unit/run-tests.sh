#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run host unit test binaries the way the kselftest runner does: one KTAP
# stream whose subtests are each binary's KTAP, prefixed with "# ", then one
# line "P passed, F failed" summed over the test cases of every binary.  A
# binary that crashes, or exits non-zero without reporting a failure, counts
# one failure.
#
# usage: run-tests.sh TEST...

pass=0 fail=0 n=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "TAP version 13"
echo "1..$#"
for t in "$@"; do
	n=$((n + 1))
	echo "# selftests: unit: $t"
	./"$t" 2>&1 | tee "$out" | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	p=0 f=1
	if [ -n "$line" ]; then
		p=${line%% passed*}
		f=${line#*, }
		f=${f%% failed*}
	fi
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p)) fail=$((fail + f))
	if [ "$rc" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "ok $n unit: $t"
	else
		echo "not ok $n unit: $t # exit=$rc"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
