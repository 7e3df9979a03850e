#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dmfault crashtest records a workload once and checks the crash states it
# can leave.  It tells a right program from a wrong one: SQLite with
# synchronous=FULL (WAL) against OFF, a record log acknowledged after fsync
# against one acknowledged after write(), on ext4 and xfs; replace-via-rename
# on ext4 with auto_da_alloc against noauto_da_alloc.  A failure's
# account names its lost writes and their files, the epoch table counts
# it, and the command printed for it fails again.  A stream of filesystem
# operations leaves ext4 and xfs consistent in every state.  A block-level probe
# shows that the states reorder what no flush covered, keep what a flush or
# FUA made durable, and tear writes at the unit, a FUA write among them
# while it is in flight; an O_DSYNC log whose reader trusts a record's first
# sector fails in just those states.  A recovery that clears a journal's
# commit before its copy is durable fails only when the power fails again
# during it, which --recovery explores.  What it cannot judge it refuses,
# saying why.
. "$(dirname "$0")/../lib.sh"
ktap_begin crashtest

C=$top/tests/vm/crashtest
MAXS=$(by_length 120 24)
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
	right "records acknowledged after fsync on $fs all survive" records $fs fsync
	wrong "records acknowledged after write() on $fs are lost" records $fs nofsync
done
if [ "$FSES" = ext4 ]; then
	right "records acknowledged after fsync on xfs all survive" records xfs fsync
	wrong "records acknowledged after write() on xfs are lost" records xfs nofsync
fi

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

# --- a FUA write in flight (tests/vm/crashtest/dsync.sh) ---------------------------
# An O_DSYNC log of 8 KiB records on the raw device: every record is a FUA write,
# durable once it completes, so only a crash while one is in flight leaves part
# of it.  A reader that checks every sector survives every state; one that
# trusts a record's first sector fails, and only in those torn states.
# dsync MODE: crashtest of 8 records, its JSON in $T/dsync-MODE.json
dsync() {
	dmfault crashtest --max-states 60 --json --setup "$C/dsync.sh setup raw $1 8" \
		--workload "$C/dsync.sh workload raw $1 8" --check "$C/dsync.sh check raw $1 8" \
		"$NB" > "$T/dsync-$1.json" 2> "$T/dsync-$1.err"
}

dsync verify
expect "an O_DSYNC log read back with every sector checked survives every state" 0 $?
check "... over states that tear a record in flight" python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
e = d["epochs"]
assert d["states"]["checked"] >= 10 and d["states"]["failed"] == 0, d["states"]
assert sum(x["fua"] for x in e) == 8 and len(e) >= 8, e' "$T/dsync-verify.json"
dsync header
expect "an O_DSYNC log whose reader trusts a record's first sector fails" 1 $?
check "... only in states that tear the FUA write in flight at the crash" python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
f = d["failures"]
assert f and d["states"]["failed"] == len(f), d["states"]
for x in f:
    assert x["kind"] == "torn" and re.search(" tear=%d:1( |$)" % x["point"], x["spec"]), x
    assert "was taken but is torn" in x["output"], x' "$T/dsync-header.json"

# --- a crash during recovery (tests/vm/crashtest/twostep.sh) -----------------------
# A store that commits a record through a journal and leaves the copy home
# to its recovery.  No crash of the workload loses a record.  With
# --recovery the check's own writes (the copy and the cleared commit) are
# recorded on top of a state and their crash states checked again: a
# recovery that clears the commit with no flush after the copy loses the
# record, and only in such a state; one that flushes between does not.
# twostep MODE [ARGS...]: crashtest of 2 records, its JSON in $T/twostep-MODE.json
twostep() {
	local mode=$1

	shift
	dmfault crashtest --json "$@" --setup "$C/twostep.sh setup raw $mode 2" \
		--workload "$C/twostep.sh workload raw $mode 2" \
		--check "$C/twostep.sh check raw $mode 2" "$NB" \
		> "$T/twostep-$mode.json" 2> "$T/twostep-$mode.err"
}

twostep unflushed
expect "a recovery that clears the commit before the copy is durable passes every crash of the workload" \
	0 $?
twostep flushed --recovery 3 --recovery-states 8
expect "a recovery that flushes the copy before clearing the commit survives a crash during it" \
	0 $?
check "... over the crash states of the recoveries of 3 first states" python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = d["recovery"]
assert r["first_states"] == 3 and r["writes"] >= 4 and r["checked"] >= 6, r
assert r["failed"] == 0 and r["failures"] == [] and d["states"]["failed"] == 0, d
assert d["total"] == d["states"]["checked"] + r["checked"], d' "$T/twostep-flushed.json"
twostep unflushed --recovery 3 --recovery-states 8
expect "a recovery that clears the commit with no flush after the copy loses a record" 1 $?
check "... only in crash states of its own recovery, named with the state it recovered" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = d["recovery"]
assert d["states"]["failed"] == 0 and d["failures"] == [], d["states"]
assert r["failed"] == len(r["failures"]) >= 1 and d["failed"] == r["failed"], r
for x in r["failures"]:
    assert x["kind"] in ("omit", "subset") and x["first_spec"].startswith("keep="), x
    assert "acknowledged but is neither home nor committed" in x["output"], x
    assert "--recovery-state " in x["repro"] and "--state " in x["repro"], x' \
	"$T/twostep-unflushed.json"
repro=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["recovery"]["failures"][0]["repro"])' "$T/twostep-unflushed.json")
out=$(eval "$repro" 2>&1); rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q '^FAIL keep=[^ ]*, recovery keep=' &&
   echo "$out" | grep -q 'neither home nor committed'; then
	ok "a crash during recovery's reproduce line fails again, with both states"
else
	fail "a crash during recovery's reproduce line fails again, with both states" \
		"exit $rc: $repro" "$(echo "$out" | tail -n 5)"
fi

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
