#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dmfault crashtest tells a right program from a wrong one: SQLite with
# synchronous=FULL (WAL) against OFF, and a record log acknowledged after
# fsync against one acknowledged after write(), on ext4 and xfs; a failure
# comes with a command that repeats it, and it does.
. "$(dirname "$0")/../lib.sh"
ktap_begin crashtest

C=$top/tests/vm/crashtest
POINTS=$(by_length 8 3)
SEEDS=$(by_length 2 1)
FSES=$(by_length "ext4 xfs" "ext4")
T=/tmp/dmf-crashtest
mkdir -p $T

check "modules load" dmf_load
NB=$(nullb_create nbct 512 1)

# ct PROG FS MODE [ARGS...]: crashtest of tests/vm/crashtest/PROG.sh
ct() {
	local prog=$1 fs=$2 mode=$3

	shift 3
	dmfault crashtest --points "$POINTS" --seeds "$SEEDS" "$@" \
		--setup "$C/$prog.sh setup $fs $mode 16" \
		--workload "$C/$prog.sh workload $fs $mode 16" \
		--check "$C/$prog.sh check $fs $mode 16" "$NB" 2>&1
}

# right NAME PROG FS MODE: every explored crash state passes the check
right() {
	local out rc

	out=$(ct "$2" "$3" "$4" --json); rc=$?
	echo "$out" > "$T/$2-$3-$4.json"
	if [ $rc = 0 ] && python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["total"] >= 2 and d["failed"] == 0 and d["epochs"] >= 1, d
assert all(r["ok"] for r in d["runs"]) and len(d["runs"]) == d["total"]' "$T/$2-$3-$4.json" 2>&1
	then
		ok "$1: $(grep -o '"total": [0-9]*' "$T/$2-$3-$4.json"), none failed"
	else
		fail "$1" "exit $rc" "$(echo "$out" | tail -n 8)"
	fi
}

# wrong NAME PROG FS MODE: some crash state fails the check, and the
# command crashtest prints for it fails the same way again
wrong() {
	local out rc repro

	out=$(ct "$2" "$3" "$4"); rc=$?
	repro=$(echo "$out" | grep -m1 '^  dmfault crashtest ')
	if [ $rc != 1 ] || [ -z "$repro" ]; then
		fail "$1" "exit $rc, expected 1 with a reproduce line" "$(echo "$out" | tail -n 8)"
		return
	fi
	ok "$1: $(echo "$out" | tail -n 1)"
	within "$1: the summary has a row per point, failures counted" \
		"$(echo "$out" | awk '$1 ~ /^(flush:[0-9]+|end)$/ && $3 ~ /^[0-9]+$/ {f += $3}
			END {print f + 0}')" 1 1000
	out=$(eval "$repro" 2>&1); rc=$?
	if [ $rc = 1 ] && echo "$out" | grep -q '^FAIL'; then
		ok "$1: the reproduce line fails again"
	else
		fail "$1: the reproduce line fails again" "exit $rc: $repro" "$(echo "$out" | tail -n 5)"
	fi
}

for fs in $FSES; do
	right "sqlite synchronous=FULL on $fs loses no committed row" sqlite $fs FULL
	wrong "sqlite synchronous=OFF on $fs loses committed rows" sqlite $fs OFF
	right "records acknowledged after fsync on $fs all survive" records $fs fsync
	wrong "records acknowledged after write() on $fs are lost" records $fs nofsync
done
[ "$FSES" = ext4 ] && right "records acknowledged after fsync on xfs all survive" records xfs fsync

# --- refusals --------------------------------------------------------------------
refused "crashtest needs its three commands" "--setup, --workload and --check are needed" \
	dmfault crashtest --setup true "$NB"
refused "a bad policy is refused with the target's reason" \
	"--lose some: Unknown crash policy \(all, none, writes, sectors\)" \
	dmfault crashtest --setup true --workload true --check true --lose some "$NB"
refused "a bad point is refused" "--at: 'flush:0' is not flush:N" \
	dmfault crashtest --setup true --workload true --check true --at flush:0 --seed 1 "$NB"
refused "--at without --seed is refused" "--at needs --seed" \
	dmfault crashtest --setup true --workload true --check true --at end "$NB"
refused "a check that fails without a crash cannot judge" "the check fails without a crash" \
	dmfault crashtest --setup true --workload true --check false "$NB"
expect "crashtest removed its device" no \
	"$(dm_exists dmfault-crashtest && echo yes || echo no)"
refused "a disk that is not a block device is refused" "not a block device" \
	dmfault crashtest --setup true --workload true --check true /etc/passwd

# --- --step-timeout: a workload that hangs does not hang crashtest ----------------
# (timeout 120: without the deadline the workload would sleep 300 s)
refused "a workload that hangs is killed after --step-timeout, with where it hung" \
	"the workload hung: killed after 1 s \(--step-timeout\); pid [0-9]+ \(sleep\) state S: .*nanosleep" \
	timeout 120 dmfault crashtest --setup true --workload 'sleep 300' --check true \
	--step-timeout 1 "$NB"
expect "nothing of the workload is left" "" "$(pgrep -x -f 'sleep 300')"
refused "--step-timeout takes seconds" "--step-timeout: '1m' is not a number of seconds" \
	dmfault crashtest --setup true --workload true --check true --step-timeout 1m "$NB"

check "modules unload" dmf_unload
nullb_destroy nbct
ktap_end
