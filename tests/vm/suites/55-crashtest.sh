#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dmfault crashtest records a workload once and checks the crash states it
# can leave.  It tells a right program from a wrong one: SQLite with
# synchronous=FULL (WAL) against OFF, a record log acknowledged after fsync
# against one acknowledged after write(), on ext4 and xfs (make check's
# short form: SQLite on ext4, the log on xfs); replace-via-rename
# on ext4 with auto_da_alloc against noauto_da_alloc.  A failure's
# account names its lost writes and their files, the epoch table counts
# it, and the command printed for it fails again.  A stream of filesystem
# operations leaves ext4 and xfs consistent in every state.  A block-level probe
# shows that the states reorder what no flush covered, keep what a flush or
# FUA made durable, and tear writes at the unit, a FUA write among them
# while it is in flight (54-crashtest-classes: the state classes on
# workloads that fail only in them).  What it cannot judge it refuses,
# saying why.
. "$(dirname "$0")/../lib.sh"
ktap_begin crashtest

C=$top/tests/vm/crashtest
MAXS=$(by_length 120 12)
FSES=$(by_length "ext4 xfs" "ext4")
T=/tmp/dmf-crashtest
mkdir -p $T

check "modules load" dmf_load
NB=$(nullb_create nbct 512 1)

# ct PROG FS MODE [ARGS...]: crashtest of tests/vm/crashtest/PROG.sh
ct() {
	local prog=$1 fs=$2 mode=$3

	shift 3
	dmfault crashtest --max-states "$MAXS" --minimise 16 "$@" \
		--setup "$C/$prog.sh setup $fs $mode 16" \
		--workload "$C/$prog.sh workload $fs $mode 16" \
		--check "$C/$prog.sh check $fs $mode 16" "$NB"
}

# right NAME PROG FS MODE: every state checked passes, over many epochs
right() {
	local j=$T/$2-$3-$4.json rc

	ct "$2" "$3" "$4" --json > "$j" 2> "$T/err"; rc=$?
	if [ $rc = 0 ] && python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s, e = d["states"], d["epochs"]
assert s["checked"] >= 10 and s["failed"] == 0 and d["failures"] == [], s
assert len(e) >= 4 and sum(x["states"] for x in e) == s["checked"], e
assert 1 <= d["workload_writes"] < d["writes"], (d["workload_writes"], d["writes"])' "$j" 2>&1
	then
		ok "$1: $(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["states"]["checked"], "states over", len(d["epochs"]), "epochs, none failed")' "$j")"
	else
		fail "$1" "exit $rc" "$(tail -n 8 "$T/err")" "$(head -c 800 "$j")"
	fi
}

# wrong NAME PROG FS MODE: some state fails; its account names the lost
# writes with their files; the epoch table counts it; the command printed
# for it fails the same way again
wrong() {
	local out rc repro

	out=$(ct "$2" "$3" "$4" 2>&1); rc=$?
	echo "$out" > "$T/$2-$3-$4.out"
	repro=$(echo "$out" | grep -m1 '^  dmfault crashtest ')
	if [ $rc != 1 ] || [ -z "$repro" ]; then
		fail "$1" "exit $rc, expected 1 with a reproduce line" "$(echo "$out" | tail -n 8)"
		return
	fi
	ok "$1: $(echo "$out" | tail -n 1)"
	within "$1: the epoch table counts the failures" \
		"$(echo "$out" | awk '$1 ~ /^[0-9]+$/ && NF == 6 {f += $6} END {print f + 0}')" 1 100000
	if echo "$out" | grep -Eq '^    write [0-9]+: sector [0-9]+\+[0-9]+ (write|fua|discard|zeroes), (epoch [0-9]+|after the workload).*: [/<]'; then
		ok "$1: the account names the lost writes and the files that hold them"
	else
		fail "$1: the account names the lost writes and the files that hold them" \
			"$(echo "$out" | grep -A 14 '^epoch [0-9]*: keep=' | head -n 24)"
	fi
	out=$(eval "$repro" 2>&1); rc=$?
	if [ $rc = 1 ] && echo "$out" | grep -q '^FAIL keep='; then
		ok "$1: the reproduce line fails again"
	else
		fail "$1: the reproduce line fails again" "exit $rc: $repro" "$(echo "$out" | tail -n 5)"
	fi
}

for fs in $FSES; do
	right "sqlite synchronous=FULL on $fs loses no committed row in any state" sqlite $fs FULL
	wrong "sqlite synchronous=OFF on $fs loses committed rows" sqlite $fs OFF
done
for fs in $(by_length "ext4 xfs" xfs); do
	right "records acknowledged after fsync on $fs all survive" records $fs fsync
	wrong "records acknowledged after write() on $fs are lost" records $fs nofsync
done

# replace-via-rename without fsync: safe on ext4 (auto_da_alloc), not with noauto_da_alloc
right "replace-via-rename on ext4: the file holds a whole version in every state" \
	rename ext4 default
wrong "replace-via-rename on ext4 with noauto_da_alloc: the file is left empty" \
	rename ext4 noauto_da_alloc

# --- a filesystem's own consistency (tests/vm/crashtest/fsops.sh, in the manner of
# fstests' fsstress under dm-log-writes): every state mounts, its tree walks, it
# unmounts and checks clean
for fs in ext4 xfs; do
	right "fsops (creates, writes, renames, links, fsyncs) on $fs: every state checks clean" \
		fsops $fs "$(by_length 300 100)"
done

# --- the block-level probe (tests/vm/crashtest/order.sh) ---------------------------
# Writes: 1 block 0, then a flush; 2-5 blocks 1-4; 6 block 5 with FUA; 7
# block 6.  The check logs the blocks each state shows ("1 0 t ..." and the
# spec) and fails when one of blocks 2-4 is there without the one before.
O=$T/order.log

# probe [ARGS...]: crashtest of the probe, its JSON in $T/order.json
probe() {
	dmfault crashtest "$@" --json --setup "$C/order.sh setup $O" \
		--workload "$C/order.sh workload" --check "$C/order.sh check $O" "$NB" \
		> $T/order.json 2> $T/order.err
}

probe
expect "the probe finds the reordering its check fails on" 1 $?
cp $O $T/order-all.log
check "the control state keeps every block" \
	awk 'NR == 1 {exit !($0 == "1 1 1 1 1 1 1 keep=all")}' $T/order-all.log
check "a state keeps block 2 and loses block 1, written before it with no flush between" \
	awk '$2 == 0 && $3 == 1 {f = 1} END {exit !f}' $T/order-all.log
check "no state loses the flushed block 0 when a block written after the flush is there" \
	awk '($2 $3 $4 $5 $6 $7) ~ /[1t]/ && $1 != 1 {print; bad = 1} END {exit bad}' \
	$T/order-all.log
check "no state loses the FUA block 5, or tears it, when block 6 is there" \
	awk '$6 != 1 && $7 != 0 {print; bad = 1} END {exit bad}' $T/order-all.log
check "a state tears the FUA block 5 while it is in flight, before block 6" \
	awk '$6 == "t" && $7 == 0 {f = 1} END {exit !f}' $T/order-all.log
check "some state tears a write at the 512-byte logical block" \
	awk '{for (i = 1; i <= 7; i++) if ($i == "t") f = 1} END {exit !f}' $T/order-all.log
# (the kernel may flush after an O_DSYNC write that was FUA: block 6 then
# has an epoch of its own)
check "the recording has the flush, and the FUA write after blocks 1-4" python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["epochs"]
assert [(x["writes"], x["fua"]) for x in e[:1]] == [(1, 0)], e
assert e[1]["fua"] == 1 and e[1]["writes"] >= 5 and sum(x["fua"] for x in e) == 1, e
assert sum(x["writes"] for x in e) == 7, e' $T/order.json
check "each explained failure is the one block lost before a kept one, in step blocks" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
m = [x for x in d["failures"] if x["minimal"] is not None]
assert m and d["states"]["failed"] == len(d["failures"]), d["states"]
for x in m:
    w = x["minimal"]
    assert len(w) == 1 and w[0]["kind"] == "write" and w[0]["sector"] in (8, 16, 24), w
    assert w[0]["step"] == "blocks" and w[0]["epoch"] == 1, w
assert "no ext4 or xfs" in d["files_note"], d.get("files_note")' $T/order.json
repro=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["failures"][0]["repro"])' $T/order.json)
out=$(eval "$repro" 2>&1); rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q '^FAIL keep=' &&
   echo "$out" | grep -q 'block [234] is on the disk'; then
	ok "the probe's reproduce line fails again"
else
	fail "the probe's reproduce line fails again" "exit $rc: $repro" "$(echo "$out" | tail -n 5)"
fi
probe --unit 4096
check "with a 4 KiB unit no 4 KiB write is torn" \
	awk '{for (i = 1; i <= 7; i++) if ($i == "t") bad = 1} END {exit bad || NR < 10}' $O
check "the unit is given in sectors" python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["unit"] == 8' $T/order.json
probe --max-states 5
check "--max-states caps the states and counts what it skipped" python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["states"]["checked"] <= 5 and d["states"]["capped"] > 10, d["states"]
assert sum(x["skipped"] for x in d["epochs"]) == d["states"]["capped"] + d["states"]["duplicates"]
assert all(x["states"] >= 1 for x in d["epochs"]), d["epochs"]' $T/order.json

# --- refusals --------------------------------------------------------------------
refused "crashtest needs its three commands" "--setup, --workload and --check are needed" \
	dmfault crashtest --setup true "$NB"
refused "a state is read by the target's own parser" "--state 'keep=3-1': keep= is all, none or" \
	dmfault crashtest --setup true --workload true --check true --state keep=3-1 "$NB"
refused "a torn write must be kept" "A torn write must be kept" \
	dmfault crashtest --setup true --workload true --check true --state 'keep=1 tear=2:1' "$NB"
refused "a bad tearing unit is refused with the target's reason" \
	"--unit 1536: Invalid tearing unit" \
	dmfault crashtest --setup true --workload true --check true --unit 1536 "$NB"
refused "--recovery-state needs the --state it recovers" "--recovery-state needs --state" \
	dmfault crashtest --setup true --workload true --check true --recovery-state keep=1 "$NB"
refused "--subset-max past 20 is refused" "--subset-max: at most 20" \
	dmfault crashtest --setup true --workload true --check true --subset-max 21 "$NB"
refused "a check that fails without a crash cannot judge" "the check fails without a crash" \
	dmfault crashtest --setup true --workload true --check false "$NB"
refused "a workload that fails is an error, not a finding" "the workload exited 3" \
	dmfault crashtest --setup true --workload 'exit 3' --check true "$NB"
refused "a recording past the cache limit says to raise --limit" \
	"the recording passed the cache limit \([0-9]+ bytes\): raise --limit" \
	dmfault crashtest --limit 64k --setup true --check true \
	--workload 'dd if=/dev/zero of=$DMF_DEV bs=64k count=16 oflag=direct status=none' "$NB"
refused "a state past the recording is refused" \
	"the state keeps write 9 after 0 marks, but the workload recorded 0 writes and 1 marks" \
	dmfault crashtest --setup true --workload true --check true --state keep=9 "$NB"
expect "crashtest removed its device" no \
	"$(dm_exists dmfault-crashtest && echo yes || echo no)"
refused "a disk that is not a block device is refused" "not a block device" \
	dmfault crashtest --setup true --workload true --check true /etc/passwd

# --- --step-timeout: a workload or check that hangs does not hang crashtest --------
# (timeout 120: without the deadline they would sleep 300 s)
refused "a workload that hangs is killed after --step-timeout, with where it hung" \
	"the workload hung: killed after 1 s \(--step-timeout\); pid [0-9]+ \(sleep\) state S: .*nanosleep" \
	timeout 120 dmfault crashtest --setup true --workload 'sleep 300' --check true \
	--step-timeout 1 "$NB"
expect "nothing of the workload is left" "" "$(pgrep -x -f 'sleep 300')"
refused "a check that hangs is killed too, and fails" \
	"the check hung: killed after 1 s \(--step-timeout\)" \
	timeout 120 dmfault crashtest --setup true --workload true --check 'sleep 300' \
	--step-timeout 1 "$NB"
expect "nothing of the check is left" "" "$(pgrep -x -f 'sleep 300')"
refused "--step-timeout takes seconds" "--step-timeout: '1m' is not a number of seconds" \
	dmfault crashtest --setup true --workload true --check true --step-timeout 1m "$NB"

check "modules unload" dmf_unload
nullb_destroy nbct
ktap_end
