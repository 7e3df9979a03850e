#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dmfault crashtest on many machines: --save keeps a recorded run (the disk
# as the setup left it, sparse; the recording and its writes' data; the
# manifest), --load checks it again on a scratch device, all of it or a
# shard (--shard I/N), and --merge makes one report of the shards' reports.
# A saved run checked in 2 shards and merged gives the verdicts of the
# whole run checked at once: the same states, counts per epoch and
# failures, the same first failure with the same account.  --merge refuses
# a missing shard, a shard given twice and shards of two runs, saying so;
# --load refuses options that the saved run fixes.  --svg draws each epoch
# with the counts of the report.  The workload is the smallest that fails
# over several epochs: 8 records (4 in make check's short form) written
# with O_DSYNC on the raw device, an epoch and a FUA write each, read back
# by a reader that trusts a record's first sector (54-crashtest-classes),
# so the replay's FUA writes are tested too.
. "$(dirname "$0")/../lib.sh"
ktap_begin crashtest-shard

C=$top/tests/vm/crashtest
T=/tmp/dmf-crashtest-shard
rm -rf $T
mkdir -p $T

check "modules load" dmf_load
NB=$(nullb_create nbshard 512 1)

# save DIR MAXSTATES: record dsync.sh's header reader of $DN records into DIR
DN=$(by_length 8 4)
save() {
	dmfault crashtest --save "$1" --max-states "$2" --minimise 16 \
		--setup "$C/dsync.sh setup raw header $DN" \
		--workload "$C/dsync.sh workload raw header $DN" \
		--check "$C/dsync.sh check raw header $DN" "$NB"
}

# json FILE EXPR: a python expression over the report d
json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

out=$(save $T/run $((DN * 15 / 2)) 2>&1); rc=$?
if [ $rc = 0 ] && [ -s $T/run/manifest ] && [ -s $T/run/record ] && [ -e $T/run/disk.img ]; then
	ok "--save keeps the run: $(echo "$out" | tail -n 1)"
else
	fail "--save keeps the run" "exit $rc" "$(echo "$out" | tail -n 8)"
fi
expect "the manifest says its format" "dmfault-crashtest-save 1" "$(head -n 1 $T/run/manifest)"
within "disk.img is sparse: KiB on the disk" "$(du -k $T/run/disk.img | cut -f1)" 0 65536
expect "disk.img is the size of the disk" "$(blockdev --getsize64 "$NB")" \
	"$(stat -c %s $T/run/disk.img)"
expect "--save removed its device" no "$(dm_exists dmfault-crashtest && echo yes || echo no)"

# the whole run, checked from the saved directory at once
start=$(date +%s)
dmfault crashtest --load $T/run --json --svg $T/all.svg "$NB" > $T/all.json 2> $T/all.err
rc=$?
all_s=$(( $(date +%s) - start ))
if [ $rc = 1 ] && [ "$(json $T/all.json "d['states']['failed'] > 0 and len(d['epochs']) >= $DN and sum(e['fua'] for e in d['epochs']) == $DN")" = True ]; then
	ok "--load checks every state of the saved run: $(json $T/all.json 'd["states"]["checked"]') states, $(json $T/all.json 'd["states"]["failed"]') failed, $(json $T/all.json 'len(d["epochs"])') epochs, ${all_s} s"
else
	fail "--load checks every state of the saved run" "exit $rc, expected 1 (a state fails)" \
		"$(tail -n 8 $T/all.err)" "$(head -c 600 $T/all.json)"
fi
echo "# states per minute, one VM, the whole run: $(json $T/all.json 'round(d["total"] * 60 / d["seconds"], 1)')"

# the same run in two shards, one after the other (each a machine of its own)
for i in 0 1; do
	start=$(date +%s)
	dmfault crashtest --load $T/run --shard $i/2 --json "$NB" > $T/s$i.json 2> $T/s$i.err
	rc=$?
	echo "# shard $i/2: $(( $(date +%s) - start )) s wall clock, $(json $T/s$i.json 'd["states"]["checked"]') states"
	if [ $rc -le 1 ] && [ "$(json $T/s$i.json 'd["shard"]')" = "{'index': $i, 'count': 2}" ]; then
		ok "shard $i/2 checks its share: $(json $T/s$i.json 'd["states"]["checked"]') of $(json $T/s$i.json 'd["state_total"]') states"
	else
		fail "shard $i/2 checks its share" "exit $rc" "$(tail -n 8 $T/s$i.err)"
	fi
done

expect "the shards removed their devices (dmfault-crashtest-I)" no \
	"$(dm_exists dmfault-crashtest-0 || dm_exists dmfault-crashtest-1 && echo yes || echo no)"

dmfault crashtest --merge --svg $T/merged.svg $T/s1.json $T/s0.json > $T/merged.json 2> $T/merged.err
rc=$?
expect "--merge exits as the whole run did" 1 $rc
# the verdicts: counts, each epoch's, the failing states, the first failure's account
verdicts='(d["states"]["checked"], d["states"]["failed"], d["states"]["duplicates"],
 d["states"]["capped"], d["states"]["minimise_checks"], d["total"], d["failed"],
 [(e["states"], e["checked"], e["failed"], e["skipped"]) for e in d["epochs"]],
 [(f["spec"], f["check_exit"], f["lost"]) for f in d["failures"]],
 [(f["spec"], f.get("minimal_spec"), f["minimal"], f["files"], f["repro"])
  for f in d["failures"] if f["minimal"] is not None])'
one=$(json $T/all.json "$verdicts")
two=$(json $T/merged.json "$verdicts")
if [ -n "$one" ] && [ "$one" = "$two" ]; then
	ok "two shards merged give the whole run's verdicts and first failures"
else
	fail "two shards merged give the whole run's verdicts and first failures" \
		"whole:  $one" "merged: $two" "$(cat $T/merged.err)"
fi
expect "the merged report names the first failure as the whole run does" \
	"$(json $T/all.json 'd["failures"][0]["spec"], d["failures"][0]["minimal_spec"]')" \
	"$(json $T/merged.json 'd["failures"][0]["spec"], d["failures"][0]["minimal_spec"]')"

# the pictures: every epoch in words, with the counts of the report
for p in all merged; do
	want=$(json $T/$p.json '"\n".join("epoch %d: %d checked, %d passed, %d failed, %d skipped" % (e["epoch"], e["checked"], e["checked"] - e["failed"], e["failed"], e["skipped"]) for e in d["epochs"])')
	got=$(grep -o 'epoch [0-9]*: [0-9]* checked, [0-9]* passed, [0-9]* failed, [0-9]* skipped' $T/$p.svg)
	if [ -n "$want" ] && [ "$want" = "$got" ] && grep -q '^<svg ' $T/$p.svg && grep -q '^</svg>' $T/$p.svg; then
		ok "--svg of the $p report names each epoch with its counts"
	else
		fail "--svg of the $p report names each epoch with its counts" "json: $want" "svg: $got"
	fi
done

run=$(json $T/s0.json 'd["run"]')
refused "--merge refuses a missing shard" "shard 1/2 of run $run is missing" \
	dmfault crashtest --merge $T/s0.json
refused "--merge refuses a shard given twice" \
	"shard 0/2 given twice: $T/s0.json and $T/s0.json" \
	dmfault crashtest --merge $T/s0.json $T/s0.json
# a second run, saved with a small plan so that its shard is quick
check "a second run is saved" save $T/run2 4
dmfault crashtest --load $T/run2 --shard 1/2 --json "$NB" > $T/r2s1.json 2> $T/r2s1.err
refused "--merge refuses shards of two runs" \
	"$T/s0.json and $T/r2s1.json are shards of different runs \(run $run, run [0-9a-f]{16}\)" \
	dmfault crashtest --merge $T/s0.json $T/r2s1.json
refused "--load refuses the options the saved run fixes" \
	"--load: the run's commands and options are those saved in $T/run/manifest" \
	dmfault crashtest --load $T/run --max-states 5 "$NB"
refused "--shard needs --load" "--shard needs --load" \
	dmfault crashtest --shard 0/2 --setup true --workload true --check true "$NB"
refused "--shard takes I/N with I < N" "--shard '2/2': I/N, with 0 <= I < N" \
	dmfault crashtest --load $T/run --shard 2/2 "$NB"
cp -r $T/run $T/bad
printf 'x' | dd of=$T/bad/data bs=1 seek=100 conv=notrunc status=none
refused "--load refuses data that is not what was saved" \
	"$T/bad/data is not what this run saved \(its hash differs\)" \
	dmfault crashtest --load $T/bad "$NB"
expect "crashtest removed its device" no "$(dm_exists dmfault-crashtest && echo yes || echo no)"

check "modules unload" dmf_unload
nullb_destroy nbshard
rm -rf $T
ktap_end
