#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dmfault hunt, short form (make hunt sweeps the whole catalogue): a
# catalogue of its own (--catalog) with a clean path from the installed
# one and three planted findings.  dmf-hunt --plant FILE removes
# FILE when its call fails, a stand-in for an error path that leaves
# damage behind, and FILE is in that path's sanity probe: each planted path
# ends in lasting damage at step 1.  The stack filter (alloc_file_pseudo)
# makes step 1 fail the same allocation in plant-a and plant-b (pipe2): one
# finding seen twice; plant-c fails it under eventfd: another chain, another
# finding.  The table, its totals and the --json shape are checked.
. "$(dirname "$0")/../lib.sh"
ktap_begin hunt

dmf_load 2>/dev/null
if [ ! -d /sys/kernel/debug/dm-fault ]; then
	skip "dmfault hunt" "dmf_alloc not loaded"
	ktap_end
	exit
fi
H=/dev/shm/h45
mkdir -p $H
cp "$top/tools/dmfault/dmf-hunt" $H/
P="$H/dmf-hunt --plant"
S=require-symbol=alloc_file_pseudo
cat > $H/catalog <<EOT
[plant-a]
setup = : > $H/a
step = $P $H/a pipe
knobs = $S probe=$H/a

[plant-b]
setup = : > $H/b
step = $P $H/b pipe
knobs = $S probe=$H/b

[plant-c]
setup = : > $H/c
step = $P $H/c eventfd
knobs = $S probe=$H/c

[timerfd]
step = $H/dmf-hunt timerfd
EOT
C="--catalog $H/catalog"
knobs() {	# the knobs hunt sets, both hooks
	local d

	for d in /sys/kernel/debug/dm-fault/{failslab,fail_page_alloc}; do
		cat $d/{verbose,verbose_ratelimit_interval_ms,reject-module,probability,times}
	done | paste -sd' '
}
before=$(knobs)

out=$(dmfault hunt "${HUNT_VM[@]}" $C --max-steps 40 2>&1)
rc=$?
expect "hunt exits 1 when it has findings" 1 $rc
row() {	# row PATH: "END FINDINGS" of PATH's table row
	echo "$out" | awk -v p="$1" '$1 == p {print $5, $6, $7}'
}
for p in plant-a plant-b plant-c; do
	expect "$p: lasting damage at step 1, one finding" "lasting damage 1" "$(row $p)"
done
t=$(echo "$out" | awk '$1 == "timerfd" {print $2, $NF}')
if [[ $t =~ ^[1-9][0-9]*\ 0$ ]]; then
	ok "timerfd: swept ($t), no finding"
else
	fail "timerfd: swept, no finding" "row: $t" "$out"
fi
expect "two findings: plant-a and plant-b share a chain, plant-c has its own" 2 \
	"$(echo "$out" | grep -c '^finding ')"
if [[ $out == *"finding 1: lasting damage: open $H/a: No such file or directory"* ]] &&
	[[ $out == *"seen 2 times, in: plant-a plant-b; first at plant-a step 1"* ]] &&
	[[ $out == *"seen 1 time, in: plant-c; first at plant-c step 1"* ]]; then
	ok "findings name their paths, hits and first step"
else
	fail "findings name their paths, hits and first step" "$out"
fi
expect "each finding has the injected call chain through alloc_file_pseudo" 2 \
	"$(echo "$out" | grep -c '^  chain: .*alloc_file_pseudo')"
expect "each finding has a reproduce line" 2 \
	"$(echo "$out" | grep -c "^  reproduce: dmfault hunt --catalog $H/catalog --set 'reject-module=9p 9pnet' --max-steps 1 plant-")"
if [[ $out =~ hunt:\ 4\ paths,\ ([0-9]+)\ faulted\ steps,\ ([0-9]+)\ faults\ injected,\ 2\ findings ]] &&
	[ "${BASH_REMATCH[1]}" -ge 4 ]; then
	ok "summary line: 4 paths, ${BASH_REMATCH[1]} steps, 2 findings"
else
	fail "summary line" "$(echo "$out" | tail -n 1)"
fi

dmfault hunt "${HUNT_VM[@]}" $C --json --max-steps 40 > $H/json 2> $H/err
rc=$?
shape=$(python3 - $H/json <<'EOT' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["path"]: x for x in d["paths"]}
f = d["findings"]
print(len(p), sorted(d), sorted(d["paths"][0]), sorted(f[0]) if f else None,
      p["plant-a"]["end"], p["plant-a"]["steps"], p["plant-a"]["faults"],
      len(f), f[0]["hits"], f[0]["paths"], f[1]["hits"], f[1]["first_path"],
      "alloc_file_pseudo" in f[0]["chain"], f[0]["kind"], f[0]["fault"].startswith("fail"))
EOT
)
expect "hunt --json: exit 1, the same paths and findings" \
	"1 4 ['findings', 'paths', 'seconds'] ['command', 'end', 'failed', 'faults', 'findings', 'path', 'seconds', 'steps', 'teardown', 'why'] ['chain', 'fault', 'first_path', 'first_step', 'hits', 'kind', 'paths', 'reproduce', 'what'] lasting damage 1 1 2 2 plant-a plant-b 1 plant-c True lasting damage True" \
	"$rc $shape"
expect "hunt --json writes nothing on stderr" "" "$(cat $H/err)"
expect "hunt removed the scratch directories it made in /var/tmp" "" \
	"$(ls -d /var/tmp/dmf-hunt.* 2>/dev/null)"
err=$(dmfault hunt $C nosuch 2>&1 >/dev/null)
expect "hunt of a path not in the catalogue: usage error" \
	"2 dmfault: hunt: no path 'nosuch' in the catalogue" "$? $(echo "$err" | head -n 1)"
expect "hunt leaves no fail-nth entry and no mark" "" \
	"$(output awk '!/ exited$/' /sys/kernel/debug/dm-fault/{fail-nth,mark})"
expect "hunt restores the knobs" "$before" "$(knobs)"

# --- --step-timeout: what hangs is killed and reported ----------------------------
# hang (--step-timeout 2): the command waits forever after its pipe,
# faulted or not: each faulted step is a hang finding with the fault's
# chain (one a step: each fails another allocation of the pipe), and the
# first step with no fault ends the path (broken: it hangs by itself).
# stuck (--step-timeout 5: its teardown must fit, on the debug kernel too):
# the post line reads a device whose stall rule holds the read, so dd
# sleeps in D state and SIGKILL cannot end it: lasting damage that names dd
# and its kernel stack; the teardown releases the read and removes the
# device.  (timeout 300: without the deadline hunt would wait forever.)
read -r DA _ <<< "$VM_DISKS"
cat > $H/catalog-hang <<EOT
[hang]
step = $H/dmf-hunt --hang pipe
knobs = $S

[nosetup]
setup = echo no disk here >&2; exit 3
step = $H/dmf-hunt timerfd
teardown = echo left hs behind >&2; exit 4
knobs = $S
EOT
cat > $H/catalog-stuck <<EOT
[stuck]
setup = dmsetup create hs --table "0 8 fault $DA 0 1 stall:op=read"
step = $H/dmf-hunt timerfd
post = dd if=/dev/mapper/hs of=/dev/null bs=4k count=1 iflag=direct
teardown = dmsetup message hs 0 release; dmsetup remove --retry hs
EOT
out=$(timeout 300 dmfault hunt "${HUNT_VM[@]}" --catalog $H/catalog-hang --step-timeout 2 --max-steps 10 2>&1)
expect "hunt with hanging steps ends, exit 1 (findings)" 1 $?
hang=$(echo "$out" | awk '$1 == "hang" {print $2, $5, $6}')
if [[ $hang =~ ^([1-9][0-9]*)\ broken\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
	ok "hang: ends broken (its unfaulted step hangs too), a finding a faulted step ($hang)"
else
	fail "hang: ends broken (its unfaulted step hangs too), a finding a faulted step" "row: $hang" \
		"$out"
fi
# why a path ended early or did not run is said after the rows
if [[ $out =~ hang:\ broken:\ killed\ after\ 2\ s\ \(--step-timeout\) ]] &&
	[[ $out == *"nosetup: skipped: setup failed (status 3): no disk here"* ]] &&
	[ "$(echo "$out" | awk '$1 == "nosetup" {print $2, $5}')" = "0 skipped" ]; then
	ok "why: hang ended broken (its unfaulted step was killed), nosetup skipped (status 3 and its output)"
else
	fail "why: hang ended broken (its unfaulted step was killed), nosetup skipped (status 3 and its output)" \
		"$out"
fi
# a teardown that fails leaves state for the next path: said with its output
if [[ $out == *"nosetup: teardown failed (status 4): left hs behind"* ]]; then
	ok "a failed teardown is said, with its status and last line"
else
	fail "a failed teardown is said, with its status and last line" "$out"
fi
if [[ $out =~ finding\ 1:\ hang:\ killed\ after\ 2\ s\ \(--step-timeout\)\;\ pid\ [0-9]+\ \(dmf-hunt\)\ state\ S ]] &&
	[[ $out == *"in: hang; first at hang step 1"* ]]; then
	ok "the hang finding names the task, its state, the path and step"
else
	fail "the hang finding names the task, its state, the path and step" "$out"
fi
# the first with its fault and call chain, through the stack filter's
# function (on the debug kernel some later faults' log lines are missed:
# "(not logged)", a gap of the chain reader, not of the deadline)
if echo "$out" | sed -n '/^finding 1: hang:/,/^  chain:/p' | grep -q '^  fault: failslab ' &&
	echo "$out" | sed -n '/^finding 1: hang:/,/^  chain:/p' | grep -q '^  chain: .*alloc_file_pseudo'; then
	ok "the first hang finding has its fault and call chain"
else
	fail "the first hang finding has its fault and call chain" "$out"
fi
out=$(timeout 300 dmfault hunt "${HUNT_VM[@]}" --catalog $H/catalog-stuck --step-timeout 5 --max-steps 10 2>&1)
expect "stuck: lasting damage at step 1, one finding (exit 1)" "1 1 lasting damage 1" \
	"$? $(echo "$out" | awk '$1 == "stuck" {print $2, $5, $6, $7}')"
if [[ $out =~ lasting\ damage:\ the\ post\ line\ hung:\ killed\ after\ 5\ s\ \(--step-timeout\),\ but\ pid\ [0-9]+\ \(dd\)\ is\ not\ dead\ 10\ s\ after\ SIGKILL\ \(stuck\ in\ the\ kernel\)\;\ pid\ [0-9]+\ \(dd\)\ state\ D:\ [a-z_]+ ]]; then
	ok "the stuck post line: dd in D state, with its kernel stack"
else
	fail "the stuck post line: dd in D state, with its kernel stack" "$out"
fi
wait_until 200 sh -c '! pgrep -f "dmf-hunt --hang" >/dev/null && ! pgrep -x dd >/dev/null'
expect "nothing hung is left (dmf-hunt, dd), the teardown removed the device" "0 0 no" \
	"$(pgrep -c -f 'dmf-hunt --hang') $(pgrep -c -x dd) $(dm_exists hs && echo yes || echo no)"
dmsetup remove --retry hs 2>/dev/null
out=$(timeout 120 dmfault run --nth-sweep --step-timeout 1 --set require-symbol=alloc_file_pseudo \
	-- sleep 300 2>&1)
expect "run --nth-sweep: a command that hangs with no fault ends the sweep" 1 $?
if [[ $out == *"ran past --step-timeout with no fault injected"* ]] &&
	[[ $out =~ \(sleep\)\ state\ S:\ .*nanosleep ]]; then
	ok "and says where it waits (sleep, nanosleep)"
else
	fail "and says where it waits (sleep, nanosleep)" "$out"
fi
refused "--step-timeout takes seconds" "--step-timeout: 'x' is not a number of seconds" \
	dmfault hunt --step-timeout x

# --- installed: make install-tools, run from outside the checkout ---------------
# The installed tool finds its helper and catalogue beside itself
# (PREFIX/libexec/dmfault, PREFIX/share/dmfault).  tmpfs and ext4, a few
# steps each: the ext4 image is on the first free loop device, which the
# step and teardown read from $DMF_ENV; the scratch directory is a new one
# in $TMPDIR, removed afterwards with its loop device detached.
I=$H/inst
out=$(make -s -C "$top" install-tools DESTDIR=$I PREFIX=/usr 2>&1)
expect "make install-tools DESTDIR PREFIX=/usr" "0 " "$? $out"
expect "installed: the tool, its helper, the catalogues, crashtest's helpers, man page and completion" \
	"libexec/dmfault/dmf-hunt sbin/dmfault share/bash-completion/completions/dmfault share/dmfault/crashtest.catalog share/dmfault/crashtest.sh share/dmfault/hunt.catalog share/man/man8/dmfault.8" \
	"$(cd $I/usr && find . -type f | sed 's|^\./||' | sort | paste -sd' ')"
check "a \$TMPDIR and a working directory outside the checkout" mkdir -p $H/tmp $H/cwd
out=$(cd $H/cwd && TMPDIR=$H/tmp $I/usr/sbin/dmfault hunt "${HUNT_VM[@]}" -v --max-steps 3 tmpfs ext4 \
	2> $H/err)
rc=$?
rows=$(echo "$out" | awk '$1 == "tmpfs" || $1 == "ext4" {print $1, $2, $5, $6, $7}' | paste -sd,)
expect "installed hunt tmpfs ext4: exit 0, 3 steps each, no finding" \
	"0 tmpfs 3 max steps 0,ext4 3 max steps 0" "$rc $rows"
if grep -Eq "^hunt: ext4: $I/usr/libexec/dmfault/dmf-hunt mount ext4 /dev/loop[0-9]+ $H/tmp/dmf-hunt\.[A-Za-z0-9]{6}/mnt\$" \
	$H/err; then
	ok "installed hunt: its own helper, a loop device from losetup -f, the scratch directory in \$TMPDIR"
else
	fail "installed hunt: its own helper, a loop device from losetup -f, the scratch directory in \$TMPDIR" \
		"$(grep '^hunt: ' $H/err)" "$out"
fi
expect "installed hunt: its loop device is detached, its scratch directory removed" "0 " \
	"$(losetup -a | grep -c "$H/tmp") $(ls $H/tmp)"

printf '[a]\nstep = true\nstpe = true\n' > $H/bad.catalog
out=$(cd $H/cwd && TMPDIR=$H/tmp $I/usr/sbin/dmfault hunt --catalog $H/bad.catalog 2>&1)
expect "a catalogue with an unknown key: exit 1, FILE:LINE and the key, nothing run" \
	"1 dmfault: hunt: $H/bad.catalog:3: unknown key 'stpe' (setup, step, post, teardown or knobs) " \
	"$? $out $(ls $H/tmp)"
printf '[a]\nsetup = echo 1X=y >> $DMF_ENV\nstep = $DMF_HUNT timerfd\n' > $H/env.catalog
out=$(cd $H/cwd && $I/usr/sbin/dmfault hunt "${HUNT_VM[@]}" --catalog $H/env.catalog --dir $H/mine 2>&1)
rc=$?
if [ $rc = 0 ] && [[ $out == *"a: skipped: setup: \$DMF_ENV line 1: '1X=y' is not KEY=VALUE"* ]] &&
	[ -d $H/mine ]; then
	ok "a setup's bad \$DMF_ENV line skips its path; --dir is kept"
else
	fail "a setup's bad \$DMF_ENV line skips its path; --dir is kept" "rc $rc" "$out"
fi
if modprobe ts_kmp; then
	out=$(cd $H/cwd && $I/usr/sbin/dmfault hunt "${HUNT_VM[@]}" --max-steps 1 module 2>&1)
	expect "module: ts_kmp loaded before the hunt: skipped, and still loaded" \
		"0 module: skipped: setup failed (status 1): ts_kmp is loaded: not swept yes" \
		"$? $(echo "$out" | grep '^module: ') $([ -e /sys/module/ts_kmp ] && echo yes)"
	check "rmmod ts_kmp" rmmod ts_kmp
else
	skip "module: a loaded ts_kmp is skipped" "no ts_kmp module"
fi
check "remove the installed helper" rm $I/usr/libexec/dmfault/dmf-hunt
out=$(cd $H/cwd && $I/usr/sbin/dmfault hunt tmpfs 2>&1)
expect "without its helper: exit 1, both places named" \
	"1 dmfault: hunt: no helper: neither $I/usr/libexec/dmfault/dmf-hunt nor $I/usr/sbin/dmf-hunt is there" \
	"$? $out"
rm -rf $H
ktap_end
