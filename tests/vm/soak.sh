#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make soak, in the guest: SOAK_SECONDS (default
# 3600) of everything at once on two fault devices over the two virtio
# disks, sa (its table swapped among fault, fault-flakey, fault-delay and
# fault with the write cache) and sb (fault, its rules changed):
#
#  - fio writes and verifies (crc32c) the first half of each, round after
#    round; the rules that change data (error, drop, corrupt, torn) only
#    cover the other half, where a second fio (no verify) makes them fire.
#    Delay and stall rules cover everything: they hold bios, they change
#    nothing, so every verify must pass;
#  - rules of sb change at run time (dmsetup message and dmfault rule);
#  - sa's table is swapped (suspend, load, resume) among six tables, with
#    delay and stall rules holding bios across the suspends; every tenth
#    swap a scratch device with a stalled read is removed with --force;
#  - messages and counters are read (dmsetup status, dmfault stats, the
#    stats, log and release messages);
#  - a device is created and removed with O_DIRECT writes in flight,
#    removed with retries or with --force;
#  - a watchdog: a loop without progress for SOAK_STALL (120) s is a hang:
#    the stacks, sysrq w and the tables are printed and the soak fails.
#
# Then dmfault hunt sweeps dm-fault's own control paths (create with rules
# and with the cache, load, the messages, suspend and resume with bios
# held, remove) with fail-nth over the allocator hooks, SOAK_HUNT_STEPS
# (default 40, 0: none) steps a path: every failure must be handled.
#
# KTAP, a summary of what ran, and "P passed, F failed" last.
#
# usage: tests/vm/run --kernel K --mem 2048 --disk 1G --disk 256M --timeout T -- \
#            env SOAK_SECONDS=N tests/vm/soak.sh
. "$(dirname "$0")/lib.sh"
SECS=${SOAK_SECONDS:-3600}
ktap_begin soak "$SECS s"
HUNT_STEPS=${SOAK_HUNT_STEPS:-40}
STALL=${SOAK_STALL:-120}
W=/run/dmf-soak
rm -rf $W
mkdir -p $W
dmesg -n 1
FIO="fio --minimal --ioengine=libaio --direct=1"
LOOPS="verify_a verify_b gen swap rules msgs crrm"

soak_end() {
	ktap_end
	echo "$_ktap_pass passed, $_ktap_fail failed"
	[ "$_ktap_fail" -eq 0 ]
	exit
}

check "modules load" dmf_load
read -r DA DB _ <<< "$VM_DISKS"
if [ ! -b "$DA" ] || [ ! -b "$DB" ]; then
	fail "two disks" "VM_DISKS: '$VM_DISKS'"
	soak_end
fi
# sa: verified [0, AF), faults [AF, AL].  sb: verified [0, BF), faults
# [BF, SC), scratch devices on [SC, end) of its disk.
SA=$(dm_size "$DA") SB=$(dm_size "$DB")
AF=$((SA / 2)) AL=$((SA - 1))
BF=$((SB / 2)) SC=$((SB * 3 / 4))
BL=$((SC - 1)) SN=$((SB - SC))
ta=("0 $SA fault $DA 0 4 error:op=write,sectors=$AF-$AL,p=5% corrupt:op=read,sectors=$AF-$AL,p=5%,bits=3 delay:delay=1ms,jitter=3ms,p=10% stall:op=write,p=2%"
	"0 $SA fault $DA 0 4 drop:sectors=$AF-$AL,p=10% torn:sectors=$AF-$AL,p=5% delay:op=read,delay=2ms,jitter=2ms,dist=exp,p=20% stall:op=write,p=1%"
	"0 $SA fault $DA 0 3 stall:op=read,p=2% error:op=read,sectors=$AF-$AL,p=10%,status=medium corrupt:op=write,sectors=$AF-$AL,p=5%"
	"0 $SA fault-flakey $DA 0 180 0"
	"0 $SA fault-delay $DA 0 5 $DA 0 10"
	"0 $SA fault $DA 0 2 error:op=write,sectors=$AF-$AL,p=5% stall:op=write,timeout=20ms,p=5% 2 cache limit=4m")
# The stall rules without a timeout hold their bios until a release
# message or the next suspend.
# sb delays reads by 1 ms: its read rule comes first and takes every read,
# so the rules added at run time act on writes.  (dmfault works on 'fault'
# devices only: the compat tables are among sa's.)
TB="0 $SB fault $DB 0 1 delay:op=read,delay=1ms"
if ! dm_create sa "${ta[0]}" || ! dm_create sb "$TB"; then
	fail "devices sa and sb created on $DA and $DB"
	dm_cleanup
	soak_end
fi
ok "devices sa and sb created on $DA and $DB"
base_b=$(dmsetup message sb 0 rule list | wc -l)

# --- the loops ------------------------------------------------------------------
# Each runs until $W/stop, and after each iteration saves its counters
# (save NAME VAR...) to $W/NAME.vars, which the watchdog reads as progress.

save() {
	local name=$1 v

	shift
	for v; do echo "$v=${!v}"; done > $W/$name.tmp
	mv $W/$name.tmp $W/$name.vars
}

running() {
	[ ! -e $W/stop ]
}

# bad NAME WHAT: count a failure of loop NAME, keep the first few
bad() {
	eval "$1_bad=\$((\$1_bad + 1))"
	[ "$(cat $W/$1.bad 2>/dev/null | wc -l)" -lt 5 ] && echo "$2" >> $W/$1.bad
}

# verify NAME DEV MIB: fio rounds that write MIB MiB of DEV's verified half
# (each round at the next MIB boundary, 16 places) with crc32c checksums,
# then read them back, all of them.  Size-based: a time-based fio verifies
# only the passes it finished.
verify() {
	local name=$1 dev=$2 mib=$3 kb
	local -n rounds=$1_rounds kib=$1_kib
	eval "$1_bad=0"

	rounds=0 kib=0
	while running; do
		rounds=$((rounds + 1))
		if $FIO --name=v --filename="$dev" --rw=randwrite --bsrange=4k-64k \
			--offset=$(((rounds % 16) * mib))M --size=${mib}M --iodepth=16 \
			--verify=crc32c --verify_fatal=1 --do_verify=1 \
			--output=$W/$name.out > $W/$name.err 2>&1; then
			kb=$(awk -F';' 'NF > 40 {print $6}' $W/$name.out)
			kib=$((kib + ${kb:-0}))
			[ "${kb:-0}" -ge $((mib * 1024)) ] ||
				bad "$name" "round $rounds verified ${kb:-0} KiB of $((mib * 1024))"
		else
			bad "$name" "round $rounds: $(grep -hiE 'verify|bad|error' $W/$name.err $W/$name.out | head -n 3)"
		fi
		save "$name" "$1_rounds" "$1_kib" "$1_bad"
	done
}

# gen: fio without verify on the fault halves, so the data rules fire
gen() {
	local gen_rounds=0

	while running; do
		gen_rounds=$((gen_rounds + 1))
		$FIO --rw=randrw --bs=4k --iodepth=8 --continue_on_error=all --time_based \
			--runtime=8 --output=/dev/null \
			--name=ga --filename=/dev/mapper/sa --offset=$((AF * 512)) \
			--size=$(((SA - AF) * 512)) --name=gb --filename=/dev/mapper/sb \
			--offset=$((BF * 512)) --size=$(((SC - BF) * 512)) > /dev/null 2>&1
		save gen gen_rounds
	done
}

# msg NAME DMSETUP-OR-DMFAULT-ARGS...: one rule change or message of loop
# NAME; its output is in $reply
msg() {
	local name=$1

	shift
	if reply=$("$@" 2>&1); then
		eval "$name=\$(($name + 1))"
	else
		bad "${name%%_*}" "$* failed: $reply"
		reply=
	fi
}

# rules: sb's rules added, disabled, enabled, replaced and removed, half
# through dmsetup message and half through dmfault; the counters are read
# and reset before the rules go
rules() {
	local rules_changes=0 rules_bad=0 rules_data=0 rules_held=0 r1 r2 r3 r4 d h n
	local range=sectors=$BF-$BL

	while running; do
		msg rules_changes dmsetup message sb 0 rule add "error:op=write,$range,p=10%"
		r1=$reply
		msg rules_changes dmfault rule add sb "drop:$range,p=10%"
		r2=$reply
		msg rules_changes dmsetup message sb 0 rule add "stall:op=write,timeout=20ms,p=1%"
		r3=$reply
		msg rules_changes dmfault rule add sb "delay:delay=500us,jitter=1ms,p=5%"
		r4=$reply
		msg rules_changes dmsetup message sb 0 rule disable "$r1"
		msg rules_changes dmfault rule enable sb "$r1"
		msg rules_changes dmsetup message sb 0 rule replace "$r1" "torn:$range,p=10%"
		msg rules_changes dmfault rule disable sb "$r2"
		msg rules_changes dmfault rule replace sb "$r2" "corrupt:op=write,$range,p=5%"
		msg rules_changes dmsetup message sb 0 rule enable "$r2"
		sleep 1
		read -r d h _ <<< "$(dm_injected sb)"
		rules_data=$((rules_data + d)) rules_held=$((rules_held + h))
		msg rules_changes dmsetup message sb 0 reset
		msg rules_changes dmsetup message sb 0 rule remove "$r1"
		msg rules_changes dmfault rule remove sb "$r2" "$r3"
		msg rules_changes dmsetup message sb 0 rule remove "$r4"
		n=$(dmsetup message sb 0 rule list | wc -l)
		[ "$n" = "$base_b" ] || bad rules "$n rules left on sb, not $base_b"
		save rules rules_changes rules_bad rules_data rules_held
	done
}

# scratch_force: a device whose read is stalled, removed with --force while
# the read holds it open: the read completes, the device goes
scratch_force() {
	local pid rc i

	dm_create sc "0 $SN fault $DB $SC 1 stall:op=read" > /dev/null || return 1
	dd if=/dev/mapper/sc of=/dev/null bs=4k count=1 iflag=direct status=none &
	pid=$!
	for i in $(seq 50); do
		[ "$(dm_held sc)" = 1 ] && break
		sleep 0.1
	done
	[ "$(dm_held sc)" = 1 ] || echo "no read held"
	dmsetup remove --force sc > /dev/null 2>&1
	wait $pid
	rc=$?
	dmsetup remove --retry sc > /dev/null 2>&1
	[ $rc -eq 0 ] || echo "the held read failed ($rc)"
	! dmsetup info sc > /dev/null 2>&1 || echo "sc is still there"
}

# swap: sa's table swapped, suspend, load and resume; the counters read
# before each; every tenth a scratch device removed with --force
swap() {
	local swap_cycles=0 swap_bad=0 swap_held=0 swap_forced=0 swap_data=0 swap_hold=0
	local scratch_bad=0 swap_max_ms=0 d h held out t ms

	while running; do
		read -r d h held <<< "$(dm_injected sa)"
		swap_data=$((swap_data + d)) swap_hold=$((swap_hold + h))
		t=$(date +%s%N)
		if dmsetup suspend sa && echo "${ta[$(((swap_cycles + 1) % ${#ta[@]}))]}" |
			dmsetup load sa && dmsetup resume sa; then
			swap_cycles=$((swap_cycles + 1))
			ms=$((($(date +%s%N) - t) / 1000000))
			[ $ms -gt $swap_max_ms ] && swap_max_ms=$ms
			[ "${held:-0}" -gt 0 ] && swap_held=$((swap_held + 1))
		else
			bad swap "cycle $((swap_cycles + 1)) failed"
			dmsetup resume sa
		fi
		if [ $((swap_cycles % 10)) -eq 1 ]; then
			out=$(scratch_force 2>&1)
			swap_forced=$((swap_forced + 1))
			[ -z "$out" ] || bad scratch "scratch remove --force $swap_forced: $out"
		fi
		save swap swap_cycles swap_bad swap_held swap_forced swap_data swap_hold scratch_bad \
			swap_max_ms
	done
}

# msgs: status, stats, log and release, through dmsetup and dmfault
msgs() {
	local msgs_n=0 msgs_bad=0

	while running; do
		msg msgs_n dmsetup status sa
		msg msgs_n dmsetup status sb
		msg msgs_n dmfault stats
		msg msgs_n dmsetup message sa 0 stats
		msg msgs_n dmsetup message sb 0 log
		msg msgs_n dmsetup message sa 0 rule list
		msg msgs_n dmfault stats --json sb
		[ $((msgs_n % 5)) -eq 0 ] && msg msgs_n dmsetup message sa 0 release
		sleep 0.2
		save msgs msgs_n msgs_bad
	done
}

# crrm: create a device, write to it with O_DIRECT, remove it while the
# writes are in flight: with retries (the writes end, then it goes) or,
# every other cycle, with --force (its table becomes an error table)
crrm() {
	local crrm_cycles=0 crrm_bad=0 crrm_forced=0 crrm_busy=0 pid i

	while running; do
		crrm_cycles=$((crrm_cycles + 1))
		if ! dm_create cr "0 $SN fault $DB $SC 2 delay:delay=2ms,jitter=4ms error:op=write,p=1%" \
			> /dev/null; then
			bad crrm "cycle $crrm_cycles: create failed"
			save crrm crrm_cycles crrm_bad crrm_forced crrm_busy
			sleep 1
			continue
		fi
		dd if=/dev/zero of=/dev/mapper/cr bs=64k count=128 oflag=direct status=none \
			2> /dev/null &
		pid=$!
		sleep 0.2
		if [ $((crrm_cycles % 2)) -eq 1 ]; then
			dmsetup remove --force cr > /dev/null 2>&1
			crrm_forced=$((crrm_forced + 1))
		else
			for i in $(seq 300); do
				dmsetup remove cr > /dev/null 2>&1 && break
				crrm_busy=$((crrm_busy + 1))
				sleep 0.1
			done
		fi
		wait $pid
		dm_exists cr && dmsetup remove --retry cr > /dev/null 2>&1
		dm_exists cr && bad crrm "cycle $crrm_cycles: cr not removed"
		save crrm crrm_cycles crrm_bad crrm_forced crrm_busy
	done
}

# --- run them, under the watchdog ---------------------------------------------

summary() {
	local gib

	gib=$(awk -v k=$((${verify_a_kib:-0} + ${verify_b_kib:-0})) 'BEGIN {printf "%.2f", k / 1048576}')
	cat <<-EOT
	# soak summary, kernel $KVER
	#   seconds run:              $secs (SOAK_SECONDS $SECS)
	#   fio verify rounds:        $((${verify_a_rounds:-0} + ${verify_b_rounds:-0})) (sa ${verify_a_rounds:-0}, sb ${verify_b_rounds:-0}), $((${verify_a_bad:-0} + ${verify_b_bad:-0})) failed, $gib GiB verified
	#   fio rounds on the faults: ${gen_rounds:-0}
	#   rule changes:             ${rules_changes:-0}
	#   suspend/load/resume:      ${swap_cycles:-0} swaps (${swap_held:-0} with bios held; the slowest ${swap_max_ms:-0} ms)
	#   messages and stats reads: ${msgs_n:-0}
	#   create/remove cycles:     ${crrm_cycles:-0} (${crrm_forced:-0} --force, ${crrm_busy:-0} busy retries)
	#   forced removes:           $((${crrm_forced:-0} + ${swap_forced:-0})) (${swap_forced:-0} with a stalled read)
	#   faults injected:          $inj_data error/drop/corrupt/torn, $inj_held delay/stall
	#   $hunt_line
	EOT
}

kmsg_mark
t0=$(date +%s)
verify verify_a /dev/mapper/sa 16 &
verify verify_b /dev/mapper/sb 4 &
gen &
swap &
rules &
msgs &
crrm &
declare -A seen last
hang=
while :; do
	sleep 5
	now=$(date +%s)
	[ $((now - t0)) -ge "$SECS" ] && [ ! -e $W/stop ] && touch $W/stop && t1=$now
	# After the stop, swap and msgs do not run, and nothing else releases
	# what sa's stall rules without a timeout hold (stall:op=write,p=1%):
	# release it here, or a verify round whose write is held never ends
	# and the watchdog reports a hang.
	[ -e $W/stop ] && dmsetup message sa 0 release > /dev/null 2>&1
	for l in $LOOPS; do
		v=$(cat $W/$l.vars 2>/dev/null)
		if [ "$v" != "${seen[$l]}" ]; then
			seen[$l]=$v last[$l]=$now
		fi
	done
	jobs -rp > $W/jobs
	[ -s $W/jobs ] || break
	for l in $LOOPS; do
		[ $((now - ${last[$l]:-$t0})) -ge "$STALL" ] && { hang=$l; break; }
	done
	[ -n "$hang" ] && break
done
t1=${t1:-$(date +%s)}
secs=$((t1 - t0))
for l in $LOOPS; do
	# shellcheck disable=SC1090
	[ -e $W/$l.vars ] && . $W/$l.vars
done
inj_data=$((${swap_data:-0} + ${rules_data:-0})) inj_held=$((${swap_hold:-0} + ${rules_held:-0}))
hunt_line="hunt: not run"
if [ -n "$hang" ]; then
	fail "no loop hung (watchdog: $STALL s)" "HANG: $hang made no progress for $STALL s" \
		"its last counters: ${seen[$hang]//$'\n'/ }"
	dump_stacks
	touch $W/stop
	summary
	soak_end
fi
ok "no loop hung (watchdog: $STALL s), all ended by themselves"
wait

# --- results --------------------------------------------------------------------

# result NAME COUNTS-OK TEST: ok if COUNTS-OK (a shell test) holds and loop
# NAME counted no failure; else its first failures
result() {
	local b=${1}_bad lines

	if [ "${!b:-0}" -eq 0 ] && eval "$2"; then
		ok "$3"
	else
		mapfile -t lines < <(cat $W/$1.bad 2>/dev/null)
		fail "$3" "${!b:-0} failures" "${lines[@]}"
	fi
}
result verify_a '[ "${verify_a_rounds:-0}" -ge 1 ] && [ "${verify_a_kib:-0}" -gt 0 ]' \
	"fio verify on sa: ${verify_a_rounds:-0} rounds, every one passed"
result verify_b '[ "${verify_b_rounds:-0}" -ge 1 ] && [ "${verify_b_kib:-0}" -gt 0 ]' \
	"fio verify on sb: ${verify_b_rounds:-0} rounds, every one passed"
for dev in sa sb; do
	read -r d h _ <<< "$(dm_injected $dev)"
	inj_data=$((inj_data + d)) inj_held=$((inj_held + h))
done
within "the data rules fired outside the verified ranges ($inj_data faults)" "$inj_data" 1 \
	1000000000000
result rules '[ "${rules_changes:-0}" -ge 1 ]' \
	"${rules_changes:-0} rule changes on sb, every one accepted, no rule left over"
result swap '[ "${swap_cycles:-0}" -ge 1 ] && [ "${swap_held:-0}" -ge 1 ]' \
	"${swap_cycles:-0} suspend/load/resume cycles of sa, ${swap_held:-0} with bios held"
result scratch '[ "${swap_forced:-0}" -ge 1 ]' \
	"${swap_forced:-0} scratch removes --force with a stalled read: the read completed"
result msgs '[ "${msgs_n:-0}" -ge 1 ]' "${msgs_n:-0} messages and stats reads, every one answered"
result crrm '[ "${crrm_cycles:-0}" -ge 1 ]' \
	"${crrm_cycles:-0} create/remove cycles with I/O in flight (${crrm_forced:-0} --force), every device removed"
r=$(kernel_reports)
check "the kernel log still holds the soak's start (nothing rotated out)" kmsg_marked
expect "no kernel report during the soak" "" "$r"
[ -n "$r" ] && kmsg_since | grep -E -B 5 -A 30 "$KERNEL_REPORT_RE" | head -n 200 | sed 's/^/# /'
dmsetup message sa 0 release > /dev/null 2>&1
for d in sa sb; do
	dmsetup remove --retry $d > /dev/null 2>&1
done
expect "every device removed" "" "$(dmsetup ls | grep -v '^No devices')"

# --- fail-nth over dm-fault's own control paths ---------------------------------
# Each path's command is one dmsetup call (fail-nth counts the allocations
# of that process only), scoped to allocations under dm_mod: the dm ioctls,
# the fault target's constructor, messages, suspend, resume and destructor.
# The post line of each step puts things back and checks the device still
# works; if not it removes $H/alive, which is in every path's probe, so the
# step is lasting damage, and keeps the device's state in $H/damage (printed
# after the hunt).  Each path's setup makes $H/alive again.

hunt_paths() {
	local t=$H/table r=$H/rules c=$H/cache k m rej="" f alive gone fill held

	for f in kmem_cache_create_usercopy __kmem_cache_create_args; do
		grep -qE " $f\$" /proc/kallsyms && rej+=",$f"
	done
	k="require-module=dm_mod,dm_fault probe=$H/alive"
	[ -n "$rej" ] && k+=" reject-symbol=${rej#,}"
	m="dmsetup message hm 0"
	# (no '|' in a field) hm still reads; hc is gone
	# what the device looked like is kept in $H/damage for the report
	why="{ date; cat $H/dd.err; dmsetup info hm; dmsetup table hm; dmsetup status hm; } >> $H/damage 2>&1"
	alive="if ! dd if=/dev/mapper/hm of=/dev/null bs=4k count=1 iflag=direct 2> $H/dd.err; then $why; rm -f $H/alive; fi"
	gone="dmsetup remove hc; if dmsetup info hc >> $H/damage; then rm -f $H/alive; fi"
	fill="dd if=/dev/zero of=/dev/mapper/hm bs=4k count=8 oflag=direct"
	held="dmsetup create hm $r; $H/reader & sleep 1"
	echo "0 16384 fault $DB 0" > $t
	echo "0 16384 fault $DB 0 3 error:op=read,sectors=8000-8100,p=1%,seed=7 delay:op=write,delay=1ms stall:op=write,sectors=9000-9100,timeout=10ms" > $r
	echo "0 16384 fault $DB 0 1 drop:sectors=8000-8100,p=1% 2 cache limit=1m" > $c
	cat <<-EOT
	# name|setup|command|post|teardown|knobs
	ctr-rules|:|dmsetup create hc $r|$gone||$k
	ctr-cache|:|dmsetup create hc $c|$gone||$k
	load|dmsetup create hm $t|dmsetup load hm $c|dmsetup clear hm; $alive|dmsetup remove hm|$k
	rule-add|dmsetup create hm $r|$m rule add error:id=50,op=read,sectors=100-200,p=1%|$m rule remove 50; $alive|dmsetup remove hm|$k
	rule-remove|dmsetup create hm $r|$m rule remove 2|$m rule add delay:id=2,op=write,delay=1ms; $alive|dmsetup remove hm|$k
	rule-replace|dmsetup create hm $r|$m rule replace 1 corrupt:op=read,sectors=1-2,bits=2|$alive|dmsetup remove hm|$k
	stats|dmsetup create hm $r|$m stats|$alive|dmsetup remove hm|$k
	log|dmsetup create hm $r|$m log|$alive|dmsetup remove hm|$k
	cache-on|dmsetup create hm $r|$m cache on limit=2m|$m cache off; $alive|dmsetup remove hm|$k
	cache-off|dmsetup create hm $c; $fill|$m cache off|$m cache on; $fill; $alive|dmsetup remove hm|$k
	crash|dmsetup create hm $c; $fill|$m crash lose=sectors seed=7|$m recover; $fill; $alive|dmsetup remove hm|$k
	recover|dmsetup create hm $c; $fill; $m crash lose=writes seed=3|$m recover|$m recover; $alive; $fill; $m crash lose=writes seed=3|dmsetup remove hm|$k
	mark|dmsetup create hm $c; $fill|$m mark|$alive|dmsetup remove hm|$k
	suspend-held|$held|dmsetup suspend hm|dmsetup resume hm; $alive|$H/unread; dmsetup remove --retry hm|$k
	resume-held|$held; dmsetup suspend hm|dmsetup resume hm|dmsetup resume hm; $alive; dmsetup suspend hm|dmsetup resume hm; $H/unread; dmsetup remove --retry hm|$k
	swap|$held; dmsetup suspend hm; dmsetup load hm $c|dmsetup resume hm|dmsetup resume hm; $alive; dmsetup suspend hm; dmsetup load hm $r|dmsetup resume hm; $H/unread; dmsetup remove --retry hm|$k
	dtr|dmsetup create hm $c; $fill|dmsetup remove hm|dmsetup remove hm; dmsetup create hm $c; $fill|dmsetup remove hm|$k
	EOT
}

if [ "$HUNT_STEPS" -gt 0 ] && [ -d /sys/kernel/debug/dm-fault ]; then
	H=/dev/shm/dmf-soak-hunt
	rm -rf $H
	mkdir -p $H
	: > $H/alive
	# I/O that the delay and stall rules hold while hm is suspended
	cat > $H/reader <<-EOT
	#!/bin/sh
	: > $H/reader.on
	: > $H/reading
	while [ -e $H/reading ]; do
		dd if=/dev/mapper/hm of=/dev/null bs=4k count=64 iflag=direct 2>/dev/null
		dd if=/dev/zero of=/dev/mapper/hm bs=4k count=16 seek=1120 oflag=direct 2>/dev/null
	done
	rm -f $H/reader.on
	EOT
	# the teardown stops the reader and waits (60 s at most) for its last
	# dd to close hm: else hm is still open when it is removed, stays, and
	# the next path's setup cannot create it
	cat > $H/unread <<-EOT
	#!/bin/sh
	rm -f $H/reading
	i=0
	while [ -e $H/reader.on ] && [ \$i -lt 600 ]; do
		sleep 0.1
		i=\$((i + 1))
	done
	EOT
	chmod +x $H/reader $H/unread
	# a stanza a line of hunt_paths; the probe file is made again by each
	# path's setup: damage found in one path does not fail the next paths'
	# probes
	hunt_paths | awk -F'|' -v a=": > $H/alive; " '!/^#/ && NF {
		printf "[%s]\nsetup = %s%s\nstep = %s\n", $1, a, $2, $3
		if ($4 != "") print "post = " $4
		if ($5 != "") print "teardown = " $5
		if ($6 != "") print "knobs = " $6
	}' > $H/catalog
	npaths=$(grep -c '^\[' $H/catalog)
	kmsg_mark
	out=$(dmfault hunt "${HUNT_VM[@]}" --catalog $H/catalog --dir $H/scratch \
		--max-steps "$HUNT_STEPS" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	for p in $(sed -n 's/^\[\(.*\)\]$/\1/p' $H/catalog); do
		row=$(echo "$out" | awk -v p="$p" '$1 == p {n = $2; $1 = $2 = $3 = $4 = ""
			sub(/^ +/, ""); print n, $0}')
		if [[ $row =~ ^([0-9]+)\ (completed|max\ steps)\ 0$ ]] && [ "${BASH_REMATCH[1]}" -ge 1 ]; then
			ok "hunt $p: ${BASH_REMATCH[1]} faulted steps, ${BASH_REMATCH[2]}, no finding"
		else
			fail "hunt $p: swept without a finding" "row: $row"
		fi
	done
	expect "hunt: every path's teardown succeeded" "" "$(echo "$out" | grep 'teardown failed')"
	expect "hunt: $npaths paths, no finding (exit 0)" "0 0" \
		"$rc $(echo "$out" | sed -n 's/^hunt: .* \([0-9][0-9]*\) findings\{0,1\} in .*/\1/p')"
	[ -s $H/damage ] && sed 's/^/# damage: /' $H/damage
	hunt_line=$(echo "$out" | grep '^hunt: ')
	rm -f $H/reading
	dm_cleanup
	expect "hunt: every device removed" "" "$(dmsetup ls | grep -v '^No devices')"
	rm -rf $H
else
	skip "hunt over dm-fault's control paths" "SOAK_HUNT_STEPS=0 or no dmf_alloc"
fi

check "modules unload" dmf_unload

summary
soak_end
