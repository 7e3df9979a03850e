#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host test of bench/report.py, no VM: the console logs in report/ (good.log:
# block and allocator records and an integer above 2^53; bad.log: malformed
# @@BENCH records) and report/engine.json, against the expected table with
# the engine's verdicts (report/good.txt), CSV (report/good.csv), the values
# of the JSON and the errors.  KTAP on stdout, then "P passed, F failed".
#
# usage: tests/unit/report_test.sh          (from anywhere; needs python3)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
report_py="$here/../../bench/report.py"
fix="$here/report"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 pass=0 fail=0

# t NAME CMD...: one test case; what CMD prints is the diagnostic of a failure.
t() {
	local name=$1 out
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		echo "ok $n $name"
		pass=$((pass + 1))
	else
		[[ -n $out ]] && head -n 20 <<<"$out" | sed "s/^/# /"
		echo "not ok $n $name"
		fail=$((fail + 1))
	fi
}

# report NAME ARGS...: run the report from report/, into $tmp/NAME/{stdout,stderr,rc}.
report() {
	local d=$tmp/$1
	shift
	mkdir -p "$d"
	(cd "$fix" && python3 "$report_py" "$@" >"$d/stdout" 2>"$d/stderr")
	echo $? >"$d/rc"
}

# expect_rc NAME RC [TEXT]: run NAME exited RC without a Python traceback,
# with TEXT in its stderr (with nothing on stderr if TEXT is "").
expect_rc() {
	local rc err=$tmp/$1/stderr
	rc=$(cat "$tmp/$1/rc")
	[[ $rc == "$2" ]] || { echo "exit status $rc, want $2"; cat "$err"; return 1; }
	! grep -n Traceback "$err" || return 1
	if [[ $# -gt 2 && -z $3 ]]; then
		! grep . "$err"
	elif [[ $# -gt 2 ]]; then
		grep -qF -- "$3" "$err" || { echo "no '$3' in:"; cat "$err"; return 1; }
	fi
}

# json NAME PYTHON: assertions on run NAME's 6.1.0-test.json (doc; the rows
# by config, row; the allocator modes by name, alloc).
json() {
	python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
row = {r["config"]: r for r in doc["summary"]}
alloc = {a["mode"]: a for a in doc["alloc"]}
exec(sys.argv[2])' "$tmp/$1/out/6.1.0-test.json" "$2"
}

echo "TAP version 13"
echo "1..15"

report good --engine engine.json "$tmp/good/out" good.log
t "good log: exit status 0, nothing on stderr" expect_rc good 0 ""
t "good log: the table and the engine's verdicts" diff -u "$fix/good.txt" "$tmp/good/stdout"
t "good log: the CSV" diff -u "$fix/good.csv" "$tmp/good/out/6.1.0-test.csv"
t "good log: integers above 2^53 exact in the JSON" json good '
ios = [r["ios"] for r in doc["runs"] if r["kind"] == "fio" and r["config"] == "dm-linear"]
assert ios[0] == 9007199254740993 and type(ios[0]) is int, ios
inj = row["fault-p0.1%"]["injected"]
assert inj == 9007199254740993 + 2 + 40 and type(inj) is int, inj'
t "good log: the big integer as written" \
	grep -q '"ios": 9007199254740993,' "$tmp/good/out/6.1.0-test.json"
t "good log: medians, ratios and verdicts in the JSON" json good '
lin, fl = row["dm-linear"], row["dm-flakey"]
assert lin["iops_median"] == 100000.5 and lin["rounds"] == 3, lin
assert row["raw"]["iops_median"] == 110500.0, row["raw"]
assert abs(row["fault"]["ratio"] - 99000 / 100000.5) < 1e-12, row["fault"]
assert [(v["target"], v["ok"]) for v in row["fault"]["targets"]] == \
    [(">= 0.995", False), (">= dm-flakey %.3f" % fl["ratio"], True)], row["fault"]["targets"]
assert [v["ok"] for v in row["fault-16miss"]["targets"]] == [False, True]
assert row["fault-p0.1%"]["errors"] == 119 and row["zz-extra"]["targets"] == []
assert list(row) == ["raw", "dm-linear", "dm-flakey", "fault", "fault-16miss", "fault-p0.1%",
                     "zz-extra"], list(row)
assert alloc["firing"]["failures"] == 3 and alloc["firing"]["hooked_per_op"] == 7.41
assert abs(alloc["disarmed"]["ratio"] - 62344.140 / 62500) < 1e-12
assert [(v["target"], v["ok"]) for v in alloc["disarmed"]["targets"]] == [(">= 0.998", False)]
assert [(v["target"], v["ok"]) for v in alloc["filtered"]["targets"]] == \
    [("<= 250/alloc", False), (">= 0.93", True)], alloc["filtered"]["targets"]
assert abs(alloc["filtered"]["delta_ns_per_hooked"] - 300) < 0.01, alloc["filtered"]
assert alloc["firing"]["targets"] == []
assert doc["notes"][0].startswith("dm-dust") and doc["notes"][-1].startswith("alloc:")
assert len(doc["runs"]) == 18 + 4, len(doc["runs"])
assert doc["setup"]["rounds"] == 3 and doc["smoke"] is False'

report plot --smoke --plot "$tmp/plot/out/ratios.png" "$tmp/plot/out" good.log
t "plot: ratios-nullb.dat" diff -u - "$tmp/plot/out/ratios-nullb.dat" <<-'END'
	# config 6.1.0-test/randread
	raw 1.1050
	dm-linear 1.0000
	dm-flakey 0.7500
	fault 0.9900
	fault-16miss 0.9400
	fault-p0.1% 0.9000
	zz-extra 0.5000
END

report bad "$tmp/bad/out" bad.log
t "malformed records: exit status 1, no traceback" expect_rc bad 1
t "malformed records: errors name the log and the line" diff -u - "$tmp/bad/stderr" <<-'END'
	report: bad.log:4: malformed @@BENCH record: not JSON: Expecting property name enclosed in double quotes at column 100
	report: bad.log:5: malformed @@BENCH record: the record is not a JSON object
	report: bad.log:6: malformed @@BENCH record: "iops" in the fio record is not a string, number, true, false or null
	report: bad.log:7: malformed @@BENCH record: the alloc record has no "ops_per_s" that is a number
	report: bad.log:8: malformed @@BENCH record: not JSON: number NaN out of range
	report: bad.log:9: malformed @@BENCH record: the record has no "kind" that is a string
	report: bad.log:10: malformed @@BENCH record: the fio record has no "injected" that is a number
END
t "malformed records: the others reported, the errors noted" grep -qzP \
	'\nnullb  randread  fault +99\.00 [^\n]*\n(note: bad\.log:[0-9]+: malformed [^\n]*\n){7}\n' \
	"$tmp/bad/stdout"

printf '{"cases": [{"name": "p0", "insn": {"n": 1}}]}' >"$tmp/engine.json"
report engine --engine "$tmp/engine.json" "$tmp/engine/out" good.log
t "malformed engine.json: exit status 1 and an error" expect_rc engine 1 \
	"engine.json: not the JSON of bench/engine.sh: \"insn\" in case 1 is not"

report usage "$tmp/usage/out"
t "usage: no log, exit status 2" expect_rc usage 2 "usage:"
report option --frob "$tmp/option/out" good.log
t "usage: unknown option, exit status 2" expect_rc option 2 "unrecognized arguments: --frob"

head -n 20 "$fix/good.log" >"$tmp/partial.log"
report partial "$tmp/partial/out" "$tmp/partial.log" "$tmp/absent.log"
t "partial and unreadable logs: exit status 1" expect_rc partial 1 \
	"report: $tmp/absent.log: No such file or directory"
t "partial log: noted" grep -q "^note: the guest did not finish (no 'done' record)" \
	"$tmp/partial/stdout"

echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
