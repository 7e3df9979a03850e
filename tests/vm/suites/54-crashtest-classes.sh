#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The crash states dmfault crashtest explores beyond a recording's prefixes,
# each on a workload that fails only in its states: an O_DSYNC log whose
# reader trusts a record's first sector fails only where the FUA write in
# flight at the crash is torn; a recovery that clears a journal's commit
# before its copy is durable fails only when the power fails again during
# it, which --recovery explores.  The right variant of each passes.
. "$(dirname "$0")/../lib.sh"
ktap_begin crashtest-classes

C=$top/tests/vm/crashtest
T=/tmp/dmf-crashtest-classes
mkdir -p $T

check "modules load" dmf_load
NB=$(nullb_create nbcc 512 1)

# --- a FUA write in flight (tests/vm/crashtest/dsync.sh) ---------------------------
# An O_DSYNC log of 8 KiB records on the raw device: every record is a FUA write,
# durable once it completes, so only a crash while one is in flight leaves part
# of it.  A reader that checks every sector survives every state; one that
# trusts a record's first sector fails, and only in those torn states.
# dsync MODE: crashtest of $DN records, its JSON in $T/dsync-MODE.json
DN=$(by_length 8 4)
dsync() {
	dmfault crashtest --max-states "$(by_length 60 20)" --json \
		--setup "$C/dsync.sh setup raw $1 $DN" --workload "$C/dsync.sh workload raw $1 $DN" \
		--check "$C/dsync.sh check raw $1 $DN" "$NB" > "$T/dsync-$1.json" 2> "$T/dsync-$1.err"
}

dsync verify
expect "an O_DSYNC log read back with every sector checked survives every state" 0 $?
check "... over states that tear a record in flight" python3 -c 'import json, sys
d, n = json.load(open(sys.argv[1])), int(sys.argv[2])
e = d["epochs"]
assert d["states"]["checked"] >= 10 and d["states"]["failed"] == 0, d["states"]
assert sum(x["fua"] for x in e) == n and len(e) >= n, e' "$T/dsync-verify.json" $DN
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

check "modules unload" dmf_unload
nullb_destroy nbcc
rm -rf $T
ktap_end
