#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The dmfault tool: every command on a live fault device, --json checked by a
# JSON parser, the errors it names with their exit statuses (no such device,
# not a fault device, module not loaded, rule syntax error, permission
# denied, busy, bad usage), no half-created device left behind, the
# allocator commands when dmf_alloc is there, and the completion script.
. "$(dirname "$0")/../lib.sh"
ktap_begin tool

T=$top/tools/dmfault

# want NAME RC PATTERN CMD...: CMD exits RC and its stderr contains PATTERN.
want() {
	local name=$1 rc=$2 pat=$3 err r

	shift 3
	err=$("$@" 2>&1 >/dev/null)
	r=$?
	if [ "$r" = "$rc" ] && [[ $err == *"$pat"* ]]; then
		ok "$name"
	else
		fail "$name" "command: $*" "exit $r (want $rc), stderr wanted to contain: $pat" \
			"stderr: $err"
	fi
}

# json NAME PYTHON-EXPR CMD...: CMD's output parses as JSON (json.tool) and
# PYTHON-EXPR, with the document as d, is true.
json() {
	local name=$1 expr=$2 out

	shift 2
	if ! out=$("$@" 2>&1); then
		fail "$name" "command failed: $*" "$out"
	elif ! echo "$out" | python3 -m json.tool >/dev/null 2>&1; then
		fail "$name" "not JSON: $*" "$(echo "$out" | head -n 20)"
	elif ! echo "$out" | python3 -c "import json, sys; d = json.load(sys.stdin); sys.exit(0 if ($expr) else 1)"; then
		fail "$name" "JSON check failed: $expr" "$(echo "$out" | head -n 40)"
	else
		ok "$name"
	fi
}

# --- no modules yet: nothing is loaded ------------------------------------
check "version" dmfault --version
check "help" dmfault --help
for c in $(dmfault --help | awk '/^Commands:/ {on = 1; next} /^$/ {on = 0} on {print $1 "_" $2}'); do
	c=${c//_/ }
	case $c in rule* | alloc* | badblocks*) ;; *) c=${c%% *} ;; esac
	# shellcheck disable=SC2086
	check "help of '$c'" dmfault $c --help
done
want "usage: no command" 2 "usage:" dmfault
want "usage: unknown command" 2 "unknown command 'frob'" dmfault frob
want "usage: rule without a subcommand" 2 "needs a subcommand" dmfault rule
want "usage: unknown subcommand" 2 "unknown subcommand 'frob'" dmfault rule frob x
want "usage: missing arguments" 2 "missing argument" dmfault create onlyname
want "usage: too many arguments" 2 "unexpected argument" dmfault table a b
want "usage: unknown option" 2 "unknown option '--frob'" dmfault list --frob
want "usage: option of another command" 2 "--print does not apply" dmfault stats --print
want "usage: option without its value" 2 "needs SECONDS" dmfault stats --watch
want "usage: bad size" 2 "not a size" dmfault create x /dev/null --size 12q
want "usage: unaligned size" 2 "multiple of 512" dmfault create x /dev/null --size 1000
want "usage: readable rule syntax error names the word" 2 "rule syntax error at '5'" \
	dmfault create x /dev/null --error read:5
want "usage: raw rule syntax error names the word" 2 "at 'sectors=9-1'" \
	dmfault create x /dev/null 'error:sectors=9-1'
want "usage: bad rule id" 2 "not a rule id" dmfault rule remove x abc
want "usage: --count without --watch" 2 "--count needs --watch" dmfault stats --count 2
want "usage: run without a command" 2 "no command to run" dmfault run

check "completion script is valid bash" bash -n "$T/dmfault.bash-completion"
expect "completion script matches the command table" "" \
	"$(dmfault completion bash | diff - "$T/dmfault.bash-completion")"
missing=
for c in $(dmfault --help | awk '/^Commands:/ {on = 1; next} /^$/ {on = 0} on {print $1}' | sort -u); do
	grep -q "^\.B $c\b\|^\.SS \"\?$c\b\|^\.SS $c" "$T/dmfault.8" || missing="$missing $c"
done
expect "man page documents every command" "" "$missing"

# --- module not loaded ----------------------------------------------------
NB=$(nullb_create dmft0 64 1)
check "null_blk device" test -b "$NB"
S=$(dm_size "$NB")
MAJMIN=$(printf '%d:%d' "0x$(stat -c %t "$NB")" "0x$(stat -c %T "$NB")")
modprobe dm-mod 2>/dev/null
grep -q '^dm_fault ' /proc/modules && dmf_unload dm_fault >/dev/null 2>&1
if grep -q '^dm_fault ' /proc/modules; then
	skip "module not loaded" "dm_fault is loaded and in use"
else
	want "module not loaded: create names the cause" 1 "dm-fault module not loaded" \
		dmfault create nomod "$NB"
	expect "module not loaded: no device left behind" "" "$(matching '^nomod\s' dmsetup ls)"
	check "module not loaded: create --print still works" dmfault create nomod "$NB" --print
fi
check "modules load" dmf_load

# --- create --print -------------------------------------------------------
line=$(dmfault create p0 "$NB" --error read:1%,enospc --drop write:after=60s \
	--rule error:op=flush --print)
expect "create --print builds the table line" \
	"0 $S fault $MAJMIN 0 3 error:op=read,p=1%,status=enospc drop:op=write,after=60 error:op=flush" \
	"$line"
expect "create --print creates nothing" "" "$(matching '^p0\s' dmsetup ls)"
line=$(dmfault create p0 "$NB" --offset 1M --size 16M \
	--error 'read+write:range=4k+8k,size=4k-64k,every=3,once,eio' --print)
expect "create --print: offset, size, ranges, units" \
	"0 32768 fault $MAJMIN 2048 1 error:op=read+write,sectors=8-23,size=4k-64k,interval=3,times=1,status=eio" \
	"$line"
echo "$line" | dmsetup create p0 >/dev/null 2>&1
expect "the printed line is accepted by dmsetup create" "1" \
	"$(dmsetup table p0 2>/dev/null | grep -c ' fault ')"
dmsetup remove p0 2>/dev/null

# --- create, list, table --------------------------------------------------
check "create" dmfault create t0 "$NB" --error read:once,seed=7
check "create makes the node (no udev)" test -b /dev/mapper/t0
expect "create: the table holds the rule" \
	"0 $S fault $MAJMIN 0 1 error:id=1,op=read,p=100%,times=1,seed=7" "$(dmsetup table t0)"
expect "table prints dmsetup's table" "$(dmsetup table t0)" "$(dmfault table t0)"
out=$(dmfault list)
expect "list shows the device, its disk and rule count" "t0 $NB 1" \
	"$(echo "$out" | awk '$1 == "t0" {print $1, $3, $5}')"
expect "list --names" "t0" "$(dmfault list --names)"
json "list --json" \
	"[x['name'] for x in d['devices']] == ['t0'] and d['devices'][0]['disk'] == '$NB' and d['devices'][0]['rules'] == 1 and d['devices'][0]['size'] == $S * 512 and d['devices'][0]['offset'] == 0" \
	dmfault list --json
expect "list --bytes" "$((S * 512))" "$(dmfault list --bytes | awk '$1 == "t0" {print $2}')"

# --- I/O, stats, log ------------------------------------------------------
io_fails "the once rule failed the first read" t0 "Input/output error" \
	dd if=/dev/mapper/t0 of=/dev/null bs=4k count=1 iflag=direct
check "the second read passes" dd if=/dev/mapper/t0 of=/dev/null bs=4k count=1 iflag=direct
out=$(dmfault stats t0)
expect "stats: rule 1 injected 1" "1" "$(echo "$out" | awk '$1 == "1" && $2 == "error" {print $6}')"
expect "stats: read failed 1" "1" "$(echo "$out" | awk '$1 == "read" {print $4}')"
json "stats --json" \
	"d['devices'][0]['name'] == 't0' and d['devices'][0]['ops']['read']['failed'] == 1 and d['devices'][0]['ops']['read']['bios'] == 2 and d['devices'][0]['rules'][0] == dict(id=1, action='error', enabled=True, seen=2, matched=2, injected=1, seed=7)" \
	dmfault stats --json t0
json "stats --json without a name: every fault device" \
	"[x['name'] for x in d['devices']] == ['t0']" dmfault stats --json
out=$(dmfault log t0)
expect "log: one injected fault" "read 0 4096 1 error" \
	"$(echo "$out" | awk 'NR == 2 {print $3, $4, $5, $6, $7}')"
json "log --json" \
	"d['devices'][0]['name'] == 't0' and [(e['op'], e['sector'], e['bytes'], e['rule'], e['action']) for e in d['devices'][0]['entries']] == [('read', 0, 4096, 1, 'error')] and d['devices'][0]['entries'][0]['time'] > 0" \
	dmfault log --json t0

# --watch: two reports with rates; JSON one document per line
(for _ in 1 2 3 4 5 6 7 8; do dd if=/dev/mapper/t0 of=/dev/null bs=4k count=64 iflag=direct 2>/dev/null; sleep 0.1; done) &
out=$(dmfault stats --watch 500ms --count 2 t0)
rc=$?
expect "stats --watch --count 2: two reports" "0 2" "$rc $(echo "$out" | grep -c '^every ')"
# a listed device removed while --watch samples it is left out, not an error
dm_create gone "0 $S fault $NB 0"
check "stats --watch: device gone exists" dm_exists gone
# (12 s of reports: a remove takes seconds on the debug kernel)
dmfault stats --watch 500ms --count 24 >/tmp/gone.out 2>/tmp/gone.err &
wpid=$!
wait_until 100 grep -q '^gone: ' /tmp/gone.out
dmsetup remove gone
wait $wpid
expect "stats --watch: a device removed meanwhile: exit 0, nothing on stderr" "0:" \
	"$?:$(cat /tmp/gone.err)"
expect "stats --watch: it is in the first report, not in the last" "1 0" \
	"$(awk '/^every / {n++} /^gone: / {seen[n] = 1} END {print seen[1] + 0, seen[n] + 0}' \
		/tmp/gone.out)"
out=$(dmfault stats --watch 500ms --count 2 --json t0)
n=0
while IFS= read -r l; do
	echo "$l" | python3 -c "import json, sys; d = json.load(sys.stdin); sys.exit(0 if 'bios_per_s' in d['devices'][0]['ops']['read'] and d['interval'] > 0 else 1)" && n=$((n + 1))
done <<<"$out"
expect "stats --watch --json: one valid document with rates per refresh" 2 "$n"
wait

# --- rules on a live device -----------------------------------------------
expect "rule add (readable) prints the new id" 2 "$(dmfault rule add t0 --drop write:5%)"
expect "rule add (raw) prints the new id" 3 "$(dmfault rule add t0 'error:op=write,p=1/2')"
expect "rule add of two rules prints two ids" "4 5" \
	"$(dmfault rule add t0 --error flush --delay any:delay=1ms,disabled | tr '\n' ' ' | sed 's/ $//')"
expect "rule list: five rules" 5 "$(dmfault rule list t0 | tail -n +2 | wc -l)"
check "rule disable" dmfault rule disable t0 2
expect "rule list shows it disabled" "no" "$(dmfault rule list t0 | awk '$1 == 2 {print $3}')"
check "rule enable" dmfault rule enable t0 2
expect "rule list shows it enabled" "yes" "$(dmfault rule list t0 | awk '$1 == 2 {print $3}')"
check "rule replace" dmfault rule replace t0 3 --error write:enospc
expect "rule replace keeps the id" "error:id=3,op=write,status=enospc" \
	"$(dmfault rule list t0 | awk '$1 == 3 {print $4}' | sed 's/,p=.*//')"
want "rule replace naming another id: the kernel's reason, exit 1" 1 \
	"t0: the target refused rule 'error:id=7,op=write': replace keeps the rule id" \
	dmfault rule replace t0 3 'error:id=7,op=write'
check "rule remove of two ids" dmfault rule remove t0 4 5
json "rule list --json" \
	"[(r['id'], r['action'], r['enabled']) for r in d['devices'][0]['rules']] == [(1, 'error', True), (2, 'drop', True), (3, 'error', True)] and d['devices'][0]['rules'][1]['rule'].startswith('drop:id=2')" \
	dmfault rule list --json t0
check "release (nothing held)" dmfault release t0
check "create with a stall rule" dmfault create st "$NB" --stall read:range=0+4k
dd if=/dev/mapper/st of=/dev/null bs=4k count=1 iflag=direct status=none &
pid=$!
sleep 1
json "stats --json shows the held read" "d['devices'][0]['held'] == 1" dmfault stats --json st
expect "stats shows the held read" "held 1" \
	"$(dmfault stats st | head -n 1 | grep -o 'held [0-9]*')"
check "release of one rule's bios" dmfault release st 1
wait $pid
expect "release: the held read completes" 0 $?
want "release: bad rule id" 2 "not a rule id" dmfault release st x
check "remove the stall device" dmfault remove st
check "reset" dmfault reset t0
json "reset zeroes the counters" \
	"all(r['injected'] == 0 and r['seen'] == 0 for r in d['devices'][0]['rules']) and d['devices'][0]['ops']['read']['bios'] == 0" \
	dmfault stats --json t0
expect "reset clears the log" "" "$(output dmfault log t0)"

# --- errors named, with exit statuses -------------------------------------
want "no such device" 1 "nosuch: no such device" dmfault stats nosuch
want "no such device (rule add)" 1 "nosuch: no such device" dmfault rule add nosuch --error read
check "a linear device" dm_create lin "0 $S linear $NB 0"
want "not a fault device" 1 "lin: not a fault device" dmfault stats lin
want "not a fault device (rule list)" 1 "lin: not a fault device" dmfault rule list lin
want "remove refuses a device that is not a fault device" 1 "not a fault device" \
	dmfault remove lin
expect "list leaves out other targets" "t0" "$(dmfault list --names)"
check "remove --force removes it" dmfault remove --force lin

# --- the compatibility targets: their counters, log and rules -------------
# fault-flakey/-delay/-error tables are dm-flakey's, dm-delay's and dm-error's;
# what they count, log and hold is the fault target's.
check "a fault-flakey device that drops writes" dm_create cf \
	"0 $S fault-flakey $NB 0 0 180 1 drop_writes"
check "a fault-delay device" dm_create cdl "0 $S fault-delay $NB 0 0"
check "a fault-error device" dm_create cer "0 $S fault-error"
expect "list shows them, their disks and targets" \
	"cdl $NB (fault-delay)|cer - (fault-error)|cf $NB (fault-flakey)" \
	"$(dmfault list | awk '$1 ~ /^c(dl|er|f)$/ {print $1, $3, $NF}' | sort | paste -sd'|')"
json "list --json names the target" \
	"sorted((x['name'], x['target']) for x in d['devices'] if x['name'] != 't0') == [('cdl', 'fault-delay'), ('cer', 'fault-error'), ('cf', 'fault-flakey')]" \
	dmfault list --json
check "four dropped writes" dd if=/dev/zero of=/dev/mapper/cf bs=4k count=4 oflag=direct
out=$(dmfault stats cf)
expect "stats of a fault-flakey device: its target, disk and the writes" \
	"cf: fault-flakey on $NB,|4" \
	"$(echo "$out" | head -n 1 | cut -d' ' -f1-4)|$(echo "$out" | awk '$1 == "write" {print $2}')"
json "stats --json of it: the rule flakey's table made dropped them" \
	"d['devices'][0]['target'] == 'fault-flakey' and d['devices'][0]['ops']['write']['bios'] == 4 and sum(r['injected'] for r in d['devices'][0]['rules']) == 4" \
	dmfault stats --json cf
expect "log of it: the four drops" "4" "$(dmfault log cf | grep -c ' write .* drop')"
expect "rule add on a fault-delay device" "1" "$(dmfault rule add cdl --error read:once)"
io_fails "its rule failed the read" cdl "Input/output error" \
	dd if=/dev/mapper/cdl of=/dev/null bs=4k count=1 iflag=direct
expect "stats of the fault-error device: no disk" "cer: fault-error on -," \
	"$(dmfault stats cer | head -n 1 | cut -d' ' -f1-4)"
check "remove of the compatibility devices" dmfault remove cf cdl cer
expect "list is back to t0" "t0" "$(dmfault list --names)"
# Rules are checked by the target's own parser before anything is sent:
# the kernel's reason, with the part of the rule it is about.
want "an unknown key is refused with the target's reason" 2 \
	"rule syntax error at 'bogus=1' in 'error:bogus=1': Unknown rule key" \
	dmfault rule add t0 'error:bogus=1'
want "an unknown action is refused with the target's reason" 2 \
	"rule syntax error at 'frob' in 'frob:p=1%': Unknown rule action" \
	dmfault create t1 "$NB" 'frob:p=1%'
expect "a refused create leaves no device behind" "" "$(matching '^t1\s' dmsetup ls)"
want "refused create, second rule: the combination is named" 2 \
	"rule syntax error in 'error:up=5': up= needs down=" \
	dmfault create t1 "$NB" --error read 'error:up=5'
expect "no device left behind after a refused rule" "" "$(matching '^t1\s' dmsetup ls)"
for r in 'error:p=1e-30' 'error:p=0.0000000000000000001' 'corrupt:op=read+write' \
	 'corrupt:bits=1,byte=2' 'torn:op=flush'; do
	want "the tool refuses what the kernel refuses: $r" 2 "rule syntax error" \
		dmfault rule add t0 "$r"
	dmsetup message t0 0 rule add "$r" >/dev/null 2>&1
	# t0 keeps its three rules (1 to 3)
	expect "... and the kernel refuses it too: $r" "1 3" \
		"$? $(dmsetup message t0 0 rule list | wc -l)"
done
out=$(dmfault rule check 'error:p=1%' 'error:bogus=1' --error read:1e-30 2>&1)
expect "rule check: one line a rule, the target's verdict and reason" \
	"1|error:p=1%	ok|error:bogus=1	Unknown rule key (at 'bogus=1')|error:op=read,p=1e-30	Invalid value in rule (at 'p=1e-30')" \
	"$?|$(echo "$out" | paste -sd '|')"
check "rule check: every rule accepted, exit 0" dmfault rule check --drop write:5% 'delay:delay=1ms'
check "a rule with an id in use" dmfault rule add t0 'error:id=77,op=flush,enabled=0'
want "refused by the live device: the kernel's reason, exit 1" 1 \
	"t0: rule 'error:id=77,op=flush': that id is already in use" \
	dmfault rule add t0 'error:id=77,op=flush'
check "remove the rule with id 77" dmfault rule remove t0 77
want "no rule with that id" 1 "t0: no rule with id 99" dmfault rule remove t0 99
want "name already in use" 1 "t0: a device of that name already exists" \
	dmfault create t0 "$NB"
want "DEV does not exist" 1 "/dev/nonexistent: no such device" \
	dmfault create t1 /dev/nonexistent
want "DEV is not a block device" 1 "not a block device" dmfault create t1 /etc/hostname
want "offset past the end" 1 "past its end" dmfault create t1 "$NB" --offset 1G
want "size past the end" 1 "past its end" dmfault create t1 "$NB" --size 1G
if command -v setpriv >/dev/null; then
	want "permission denied" 1 "permission denied" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$T/dmfault" list
else
	skip "permission denied" "no setpriv"
fi
exec 3</dev/mapper/t0
expect "t0 is held open" 1 "$(dmsetup info -c --noheadings -o open t0)"
want "busy device" 1 "t0: device is busy" dmfault remove t0
exec 3<&-

# --- remove ---------------------------------------------------------------
check "create a second device" dmfault create t2 "$NB" --offset 8M --size 8M --drop write
expect "list: two devices" "t0 t2" "$(dmfault list --names | tr '\n' ' ' | sed 's/ $//')"
expect "list: offset of the second" "8.0M" "$(dmfault list | awk '$1 == "t2" {print $4}')"
check "remove two devices" dmfault remove t0 t2
expect "remove: they are gone" "" "$(matching '^t[02]\s' dmsetup ls)"
expect "list with no fault device prints nothing" "" "$(output dmfault list)"
json "list --json with no fault device" "d == {'devices': []}" dmfault list --json
want "remove of a device that is gone" 1 "t0: no such device" dmfault remove t0

# --- allocator hooks --------------------------------------------------------
if [ ! -d /sys/kernel/debug/dm-fault ]; then
	want "alloc show without dmf_alloc names the cause" 1 \
		"allocator hooks not loaded (dmf_alloc)" dmfault alloc show
	want "run without dmf_alloc names the cause" 1 \
		"allocator hooks not loaded (dmf_alloc)" dmfault run -- true
	for t in "alloc show" "alloc show --json" "alloc set" "alloc mark/unmark" "run" \
		"run restores the knobs" "run --nth-sweep" "no fail-nth entry left"; do
		skip "$t" "no /sys/kernel/debug/dm-fault: dmf_alloc not built or not loaded"
	done
else
	check "alloc show" dmfault alloc show
	json "alloc show --json" "'failslab' in d['hooks']" dmfault alloc show --json
	check "alloc set" dmfault alloc set --slab verbose=0
	want "alloc set of an unknown knob" 1 "no knob 'frob'" dmfault alloc set frob=1
	sleep 60 &
	check "alloc mark" dmfault alloc mark $!
	check "alloc unmark" dmfault alloc unmark $!
	kill $! 2>/dev/null
	want "alloc mark of no such process" 1 "no such process" dmfault alloc mark 4000000
	# Keep the marked program off the 9p root (see VM-NOTES): a static
	# busybox in tmpfs reading procfs.
	cp /bin/busybox /dev/shm/busybox
	out=$(dmfault run --slab --times 1 -- /dev/shm/busybox cat /proc/version 2>&1)
	rc=$?
	if [[ $out == "Linux version"*"/dev/shm/busybox: exit "*" fault"*" injected"* ]]; then
		ok "run reports what was injected (exit $rc)"
	else
		fail "run reports what was injected" "exit $rc" "$out"
	fi
	expect "run restores the knobs" "$(cat /sys/kernel/debug/dm-fault/failslab/probability)" \
		"$(dmfault alloc show --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["hooks"]["failslab"]["probability"])')"
	out=$(dmfault run --nth-sweep --max-steps 2000 -- /dev/shm/busybox cat /proc/version 2>&1)
	rc=$?
	steps=$(echo "$out" | grep -c '^step')
	if [ $rc -eq 0 ] && [[ $out == *"exit 0, no fault injected: done"* ]] &&
		[[ $out == *"completed without a fault"* ]] && [ "$steps" -gt 1 ]; then
		ok "run --nth-sweep fails each allocation in turn, then completes ($steps steps)"
	else
		fail "run --nth-sweep" "exit $rc" "$(echo "$out" | tail -n 20)"
	fi
	expect "run --nth-sweep leaves no fail-nth entry" "" \
		"$(output awk '!/ exited$/' /sys/kernel/debug/dm-fault/fail-nth)"
	check "alloc set counters=0 (both hooks)" dmfault alloc set --slab --page counters=0
	expect "alloc set counters=0: every counter of both hooks reads 0" "0" \
		"$(cat /sys/kernel/debug/dm-fault/{failslab,fail_page_alloc}/counters | awk '{print $2}' | sort -u)"
	rm -f /dev/shm/busybox
fi

# --- allocator commands against a stand-in debugfs tree -------------------
# The same code paths as above, on a directory that plays dmf_alloc: the
# command run reads its fail-nth and "injects" by bumping the counter.
F=$(mktemp -d /dev/shm/dmft.XXXXXX)
mkdir -p "$F/failslab" "$F/fail_page_alloc"
for k in probability interval times space verbose min-order; do
	echo 0 >"$F/failslab/$k"
	echo 0 >"$F/fail_page_alloc/$k"
done
for k in task-filter ignore-gfp-wait; do
	echo N >"$F/failslab/$k"
	echo N >"$F/fail_page_alloc/$k"
done
for h in failslab fail_page_alloc; do
	printf 'seen 0\nevaluated 0\npassed 0\ninjected 0\n' >"$F/$h/counters"
done
: >"$F/mark"
: >"$F/fail-nth"
cat >"$F/cmd" <<EOF
#!/bin/bash
# As dmf_alloc would: fail (count a fault, and for fail-nth leave "PID 0")
# while fail-nth is 1..3, or when a hook's probability is 100.
read -r pid nth <"$F/fail-nth" 2>/dev/null
[ "\$pid" = "\$\$" ] || nth=0
bump() {
	local c=$F/failslab/counters n

	[ "\$1" = page ] && c=$F/fail_page_alloc/counters
	n=\$(awk '\$1 == "injected" {print \$2}' \$c)
	printf 'seen 0\nevaluated 0\npassed 0\ninjected %d\n' \$((n + 1)) >\$c
}
if [ "\${nth:-0}" -ge 1 ] && [ "\$nth" -le 3 ]; then
	echo "\$\$ 0" >$F/fail-nth
	bump slab
	[ "\$nth" = 2 ] && [ -n "\$BREAK_AT_2" ] && rm -f "\$BREAK_AT_2"
	[ "\$nth" = 2 ] && [ -n "\$NOEXEC_AT_2" ] && chmod -x "\$0"
	exit 3
fi
if [ "\$(cat $F/fail_page_alloc/probability)" = 100 ]; then
	bump page
	exit 3
fi
if [ "\$(cat $F/failslab/probability)" = 100 ]; then
	bump slab
	exit 3
fi
exit 0
EOF
chmod +x "$F/cmd"
export DMFAULT_DEBUGFS=$F
out=$(dmfault alloc show)
expect "stand-in: alloc show lists the knobs" "failslab: probability 0" \
	"$(echo "$out" | awk '/^failslab:/ {h = $1} $1 == "probability" && h {print h, $1, $2; exit}')"
json "stand-in: alloc show --json" \
	"d['hooks']['failslab']['probability'] == '0' and d['hooks']['fail_page_alloc']['task-filter'] == 'N' and 'mark' in d['dm-fault']" \
	dmfault alloc show --json
json "stand-in: alloc show --page --json shows one hook" \
	"list(d['hooks']) == ['fail_page_alloc']" dmfault alloc show --page --json
check "stand-in: alloc set" dmfault alloc set probability=5 interval=2
expect "stand-in: alloc set wrote the knobs" "5 2" \
	"$(cat "$F/failslab/probability") $(cat "$F/failslab/interval")"
check "stand-in: alloc set --page" dmfault alloc set --page min-order=1
expect "stand-in: alloc set --page wrote that hook only" "1 0" \
	"$(cat "$F/fail_page_alloc/min-order") $(cat "$F/failslab/min-order")"
want "stand-in: alloc set of an unknown knob" 1 "failslab: no knob 'frob'" \
	dmfault alloc set frob=1
want "stand-in: alloc set without =" 2 "not KNOB=VALUE" dmfault alloc set frob
check "stand-in: alloc mark" dmfault alloc mark $$
expect "stand-in: mark writes the pid" "$$" "$(cat "$F/mark")"
check "stand-in: alloc unmark" dmfault alloc unmark $$
expect "stand-in: unmark writes -pid" "-$$" "$(cat "$F/mark")"
want "stand-in: mark of no such process" 1 "4000000: no such process" \
	dmfault alloc mark 4000000
want "stand-in: mark of a non-number" 2 "not a process id" dmfault alloc mark abc
out=$(dmfault run --times 1 -- "$F/cmd" 2>&1)
rc=$?
expect "stand-in: run exits with the command's status and reports the fault" \
	"3 1 fault injected" "$rc $(echo "$out" | grep -o '1 fault injected')"
expect "stand-in: run restores the knobs it set" "5 2 0 N" \
	"$(cat "$F/failslab/probability") $(cat "$F/failslab/interval") $(cat "$F/failslab/times") $(cat "$F/failslab/task-filter")"
want "stand-in: run of a missing command" 127 "exec failed" dmfault run -- /nonexistent/cmd
out=$(dmfault run --nth-sweep -- "$F/cmd")
rc=$?
expect "stand-in: nth-sweep steps until no fault" "0 4" "$rc $(echo "$out" | grep -c '^step')"
expect "stand-in: nth-sweep reports each step's status" \
	"step 1: exit 3, 1 fault injected|step 4: exit 0, no fault injected: done" \
	"$(echo "$out" | sed -n '1p;4p' | tr '\n' '|' | sed 's/|$//')"
want "stand-in: nth-sweep gives up after --max-steps" 1 "still hit a fault at step 2" \
	dmfault run --nth-sweep --max-steps 2 -- "$F/cmd"
# A step whose exec fails did not complete: a finding, not "done".
for c in /nonexistent/cmd "$F/failslab/times"; do
	out=$(dmfault run --nth-sweep -- "$c")
	rc=$?
	if [ $rc -eq 1 ] && [[ $out == *"step 1: exec failed: "*"the command did not run"* ]] &&
		[[ $out == *"could not be run (exec failed"* ]] && [[ $out != *completed* ]]; then
		ok "stand-in: nth-sweep of a command whose exec fails ($c) reports it"
	else
		fail "stand-in: nth-sweep of a command whose exec fails ($c)" "exit $rc" "$out"
	fi
done
cp "$F/cmd" "$F/cmd2"
out=$(NOEXEC_AT_2=1 dmfault run --nth-sweep -- "$F/cmd2")
rc=$?
if [ $rc -eq 1 ] && [[ $out == *"step 3: exec failed: Permission denied, no fault injected"* ]] &&
	[[ $out == *"did not run at step 3"*"stopped after 2 faulted runs"* ]] &&
	[[ $out != *completed* ]]; then
	ok "stand-in: nth-sweep stops when a later step's exec fails without a fault"
else
	fail "stand-in: nth-sweep with an exec failing at step 3" "exit $rc" "$out"
fi
# Lasting damage: the sanity probe after each step reads $DMFAULT_PROBE_FILES;
# the stand-in removes one at step 2.
echo x > "$F/probe"
out=$(DMFAULT_PROBE_FILES=$F/probe BREAK_AT_2=$F/probe dmfault run --nth-sweep -- "$F/cmd")
rc=$?
expect "stand-in: nth-sweep stops at lasting damage, says so" \
	"1|step 2: lasting damage: open $F/probe: No such file or directory|lasting damage at step 2" \
	"$rc|$(echo "$out" | grep '^step 2: lasting')|$(echo "$out" | grep -o 'lasting damage at step 2' | tail -n 1)"
out=$(dmfault run --page --times 1 -- "$F/cmd" 2>&1)
rc=$?
expect "stand-in: run --page reads that hook's counters file" "3 1 fault injected" \
	"$rc $(echo "$out" | grep -o '1 fault injected')"
out=$(dmfault run --exec --nth-sweep -- "$F/cmd")
rc=$?
expect "stand-in: nth-sweep --exec (held before the exec)" "0 4" \
	"$rc $(echo "$out" | grep -c '^step')"
expect "stand-in: fail-nth entries are dropped after each step" "-" \
	"$(cut -c1 "$F/fail-nth")"
rm -f "$F/fail-nth"
want "stand-in: nth-sweep without fail-nth names the cause" 1 "fail-nth: No such file or directory" \
	dmfault run --nth-sweep -- "$F/cmd"
export DMFAULT_DEBUGFS=/nonexistent
want "alloc without the module names the cause" 1 \
	"allocator hooks not loaded (dmf_alloc)" dmfault alloc show
# dm-fault installed for this kernel and dmf_alloc not (the guest's
# modules.dep is on its overlay): the kernel lacks what the hooks need
dep=/lib/modules/$KVER/modules.dep
if cp "$dep" /tmp/modules.dep.orig; then
	want "alloc without the module, neither installed: names the missing directory" 1 \
		"allocator hooks not loaded (dmf_alloc): no /nonexistent" dmfault alloc show
	echo "updates/dkms/dm-fault.ko: kernel/drivers/md/dm-mod.ko" >> "$dep"
	want "alloc on a kernel dm-fault is installed for without dmf_alloc says why" 1 \
		"not built for $(uname -m) $KVER: they need an x86-64 or arm64 kernel with kprobes and ftrace with arguments" \
		dmfault alloc show
	cat /tmp/modules.dep.orig > "$dep"
else
	fail "the guest's modules.dep can be copied" "$dep"
fi
unset DMFAULT_DEBUGFS
rm -rf "$F"

dm_cleanup
nullb_destroy dmft0
ktap_end
