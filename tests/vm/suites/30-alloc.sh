#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The allocator hooks (dmf_alloc): probe sets, arming, a marked command
# failing with ENOMEM while the rest of the system is untouched, each
# filter including and excluding, fail-nth, a fail-nth sweep over dmsetup
# create/message/remove of a fault device, arming under fio, the module
# parameters, and a clean unload.  Every fault is aimed at one process
# (marked or given a fail-nth count) and kept off the 9p root.
. "$(dirname "$0")/../lib.sh"
ktap_begin alloc

D=/sys/kernel/debug/dm-fault
SL=$D/failslab
PG=$D/fail_page_alloc
W=$(mktemp -d /dev/shm/dmfa.XXXXXX)
SYS=$W/sys
DMSETUP=$(command -v dmsetup)
ENOMEM=12

# The first of what dkms.conf asks for dmf_alloc that the kernel lacks, or nothing.
alloc_lacks() {
	(
		set +u
		kernel_source_dir=/lib/modules/$KVER/build
		. "$top/dkms.conf"
		dmf_alloc_lacks
	)
}

check "modules load" dmf_load
if [ ! -e "$BUILD/dmf_alloc.ko" ]; then
	# built everywhere the kernel allows: absent only where it does not
	lacks=$(alloc_lacks)
	if [ -n "$lacks" ]; then
		ok "dmf_alloc not built for $KVER: the kernel has no $lacks"
		# modprobe.d's line says so when asked for it
		out=$(MODPROBE_OPTIONS="-C $top/mm/dmf-alloc.modprobe.conf" modprobe dmf_alloc 2>&1)
		expect "modprobe dmf_alloc fails, saying why" \
			"1 modprobe: dmf_alloc is not built for kernel $KVER: the allocator hooks need" \
			"$? $(grep -o "modprobe: dmf_alloc is not built for kernel $KVER: [a-z ]*need" <<< "$out")"
	else
		fail "dmf_alloc not built for $KVER" "its config has all Kbuild asks for"
	fi
	ktap_end
	exit
fi
if [ ! -d $D ]; then
	fail "dmf_alloc debugfs directory" "no $D"
	ktap_end
	exit
fi
check "helper on tmpfs" cp "$top/tests/vm/bin/dmf-allocsys" "$SYS"
cp /bin/busybox "$W/busybox"
NB=$(nullb_create dmfa0 64 1)
S=$(dm_size "$NB")

# --- helpers -----------------------------------------------------------------

# put FILE VALUE: write a knob, complaining on stdout if it is refused
put() {
	echo "$2" > "$1" || echo "# write '$2' > $1 failed"
}

# Everything off, no filter: the state each test starts from.
reset() {
	local h k p

	for h in $SL $PG; do
		put $h/probability 0
		put $h/times -1
		put $h/interval 1
		put $h/space 0
		put $h/verbose 0
		put $h/task-filter N
		put $h/ignore-gfp-wait N
		for k in require-module reject-module require-symbol reject-symbol; do
			put $h/$k ""
		done
		put $h/require-start 0
		put $h/require-end 18446744073709551615
		put $h/reject-start 0
		put $h/reject-end 0
		put $h/stacktrace-depth 32
	done
	put $SL/cache-filter ""
	# no page allocation has order 11: a fail-nth count sees slab ones only
	put $PG/min-order 11
	put $PG/ignore-gfp-highmem Y
	for p in $(cat $D/mark); do
		put $D/mark "-$p"
	done
	for p in $(awk '{print $1}' $D/fail-nth); do
		put $D/fail-nth "-$p"
	done
}

counter() {	# counter HOOKDIR NAME
	awk -v k="$2" '$1 == k {print $2}' "$1/counters"
}

counters() {	# counters HOOKDIR: "SEEN EVALUATED PASSED INJECTED"
	awk '{print $2}' "$1/counters" | paste -sd' '
}

# sys MARK NTH OP... [-- PROG ARGS]: run the helper held at a fifo until
# it is marked (MARK=1) and/or given fail-nth NTH (> 0).  Sets spid (its
# pid), src (its exit status), errs (the errno of each OP, in order) and
# sarmed ("FAILSLAB FAIL_PAGE_ALLOC", each armed or off, as the helper was
# let go: a test that nothing fails first shows the hook was armed).
sys() {
	local mark=$1 nth=$2 i

	shift 2
	rm -f $W/ready $W/fifo $W/res
	mkfifo $W/fifo
	"$SYS" $W/res $W/ready $W/fifo "$@" > $W/out 2>&1 &
	spid=$!
	for ((i = 0; i < 300; i++)); do
		[ -e $W/ready ] && break
		sleep 0.1
	done
	[ "$mark" = 1 ] && put $D/mark $spid
	[ "$nth" -gt 0 ] && put $D/fail-nth "$spid $nth"
	sarmed="$(armed $SL) $(armed $PG)"
	echo go > $W/fifo
	wait $spid
	src=$?
	errs=$(tr -d '\0' < $W/res | awk '{print $2}' | paste -sd' ')
}

# nth_left PID: what fail-nth reports for PID ("LEFT" or "LEFT exited")
nth_left() {
	awk -v p="$1" '$1 == p {$1 = ""; sub(/^ /, ""); print}' $D/fail-nth
}

# Kernel problems logged since the last kmsg_mark (a mark, not a line
# number: once the log is full, line numbers no longer point at new lines).
kernel_trouble() {
	matching 'WARNING:|BUG:|Oops|Call Trace|general protection|refcount_t|list_(add|del) corruption|KASAN|UBSAN' \
		kmsg_since
}

armed() {	# armed HOOKDIR: "armed" or "off"
	awk 'NR == 1 {print $2}' "$1/probes"
}

# --- probe sets and arming ---------------------------------------------------

if grep -qw should_failslab /proc/kallsyms; then
	expect "failslab probes should_failslab where the kernel has it" \
		"should_failslab" "$(awk '{print $1}' $SL/probes | paste -sd' ')"
else
	n=$(grep -cE '^(kmem_cache_alloc|__kmalloc)' $SL/probes)
	within "failslab probes the slab entry points where should_failslab is compiled out" \
		"$n" 8 9
fi
if grep -qw should_fail_alloc_page /proc/kallsyms; then
	expect "fail_page_alloc probes should_fail_alloc_page where the kernel has it" \
		"should_fail_alloc_page" "$(awk '{print $1}' $PG/probes | paste -sd' ')"
else
	expect "fail_page_alloc probes the page allocator entry points" \
		"__alloc_pages_noprof alloc_pages_bulk_noprof" \
		"$(awk '{print $1}' $PG/probes | paste -sd' ')"
fi
expect "every probe is an ftrace callback" "" \
	"$(output awk '!/site=ftrace$/' $SL/probes $PG/probes)"

reset
# enabled_functions lists the functions whose ftrace site calls out: while a
# hook is disarmed none of its functions may be there (the text unpatched)
TR=/sys/kernel/tracing
[ -r $TR/enabled_functions ] || TR=/sys/kernel/debug/tracing
patched() {	# patched HOOKDIR: how many of its probed functions are patched in
	output awk 'NR == FNR {f[$1]; next} $1 in f {n++} END {print n + 0}' \
		"$1/probes" $TR/enabled_functions
}
nsl=$(wc -l < $SL/probes)
npg=$(wc -l < $PG/probes)
expect "disarmed: no probed function patched" "0 0" "$(patched $SL) $(patched $PG)"
put $SL/task-filter Y
put $SL/probability 1/1000000000
expect "probability set: armed" "armed" "$(armed $SL)"
expect "armed: every failslab function patched, no fail_page_alloc one" "$nsl 0" \
	"$(patched $SL) $(patched $PG)"
put $SL/probability 0
expect "probability 0: disarmed, nothing patched" "off 0 0" \
	"$(armed $SL) $(patched $SL) $(patched $PG)"
put $PG/task-filter Y
put $PG/probability 1/1000000000
expect "fail_page_alloc armed: every one of its functions patched" "armed $npg 0" \
	"$(armed $PG) $(patched $PG) $(patched $SL)"
put $PG/probability 0
expect "fail_page_alloc disarmed: nothing patched" "off 0" "$(armed $PG) $(patched $PG)"

for p in "5:5%" "0.1%:0.1%" "1/1000:0.1%" "1/3:1/3" "1e-6:0.0001%" "100:100%"; do
	put $SL/probability "${p%%:*}"
	expect "probability '${p%%:*}' reads back '${p#*:}'" "${p#*:}" "$(cat $SL/probability)"
done
write_refused "probability 101 is refused (ERANGE)" $SL/probability 101 \
	"Numerical result out of range"
write_refused "probability abc is refused (EINVAL)" $SL/probability abc "Invalid argument"
expect "refused probabilities change nothing" "100%" "$(cat $SL/probability)"
put $SL/probability 0
put $SL/interval 5
expect "interval 0 is taken, as 1 (the kernel's reading)" "taken 1" \
	"$(echo 0 > $SL/interval 2> /dev/null && echo taken || echo refused) $(cat $SL/interval)"
sleep 60 &
sp=$!
write_refused "a mark list with a PID that does not exist is refused (ESRCH)" $D/mark \
	"$sp 999999" "No such process"
write_refused "a mark list with a PID that is not a number is refused (EINVAL)" $D/mark \
	"$sp x" "Invalid argument"
expect "a mark list with a bad PID is refused whole: the good one (alive) is not marked" \
	"alive " "$(kill -0 $sp && echo alive) $(grep -x "$sp" $D/mark)"
put $D/mark $sp
write_refused "an unmark list with a PID that does not exist is refused (ESRCH)" $D/unmark \
	"$sp 999999" "No such process"
expect "an unmark list with a bad PID is refused whole: the good one stays marked" \
	"$sp" "$(grep -x "$sp" $D/mark)"
kill $sp
wait $sp 2> /dev/null

# --- plain knobs where the kernel's debugfs helpers fall short ---------------
# verbose and min-order are u32s, task-filter a bool.  debugfs_create_u32()
# stores 4294967296 as 0, the attribute write under it reads a 27-byte
# zero-padded 1 as 0 and refuses " 5", debugfs_create_bool() reports
# success for "maybe" (see mm/dmf-alloc-debugfs.c).  Each write is checked
# for its exit status and error text, then the value read back.

# knob_write FILE VALUE: write VALUE (no newline added) to FILE; prints the
# write's exit status and, if it failed, the shell's error text
knob_write() {
	local err r

	err=$(printf '%s' "$2" 2>&1 > "$1")
	r=$?
	echo "$r${err:+ ${err##*: }}"
}

reset
check "dmf_alloc is loaded" grep -q '^dmf_alloc ' /proc/modules
for f in $SL/verbose $PG/min-order; do
	k=${f#$D/}
	if [ ! -f $f ]; then
		fail "$k: the knob exists" "no $f"
		continue
	fi
	old=$(cat $f)
	for v in 4294967296 18446744073709551616; do
		expect "$k: 7 taken, then $v refused (EINVAL), 7 kept" \
			"0|1 Invalid argument|7" "$(knob_write $f 7)|$(knob_write $f $v)|$(cat $f)"
	done
	expect "$k: ' 5' is taken as 5" "0|5" "$(knob_write $f ' 5')|$(cat $f)"
	v=$(printf '%026d1')
	expect "$k: 1 zero-padded to ${#v} bytes is taken as 1" "0|1" \
		"$(knob_write $f "$v")|$(cat $f)"
	expect "$k: $old written back" "0|$old" "$(knob_write $f "$old")|$(cat $f)"
done
f=$SL/task-filter
if [ -f $f ]; then
	old=$(cat $f)
	for b in N Y; do
		expect "failslab/task-filter: $b taken, then maybe refused (EINVAL), $b kept" \
			"0|1 Invalid argument|$b" "$(knob_write $f $b)|$(knob_write $f maybe)|$(cat $f)"
	done
	expect "failslab/task-filter: N taken, then ' Y' taken as Y" "0|0|Y" \
		"$(knob_write $f N)|$(knob_write $f ' Y')|$(cat $f)"
	expect "failslab/task-filter: $old written back" "0|$old" \
		"$(knob_write $f "$old")|$(cat $f)"
else
	fail "failslab/task-filter: the knob exists" "no $f"
fi
# streams: the hook's one stream of draws (shared, the default) or a stream a CPU
for f in $SL/streams $PG/streams; do
	r="$(cat $f)|$(knob_write $f percpu)|$(knob_write $f cpu)|$(cat $f)"
	expect "${f#$D/}: shared; percpu taken, cpu refused (EINVAL); shared taken" \
		"shared|0|1 Invalid argument|percpu|0|shared" "$r|$(knob_write $f shared)|$(cat $f)"
done

# --- a marked shell command gets ENOMEM, nothing else does -------------------

reset
put $SL/task-filter Y
put $SL/times 3
put $SL/probability 100
inj0=$(counter $SL injected)
mkdir -p $W/u
nfail=0
for i in $(seq 200); do
	: > $W/u/f$i || nfail=$((nfail + 1))
	cat /proc/self/stat > /dev/null || nfail=$((nfail + 1))
done
expect "armed at 100%, unmarked: 200 creates and /proc reads all succeed" "0" "$nfail"
expect "unmarked: nothing injected (the hook armed)" "armed $inj0" \
	"$(armed $SL) $(counter $SL injected)"

mkdir -p $W/t
rm -f $W/ready $W/fifo
mkfifo $W/fifo
# The shell's close of the fifo frees a file: with CONFIG_SLUB_RCU_DEBUG
# (the 6.12 debug kernel) kmem_cache_free() allocates 32 bytes there and
# falls back silently if that fails, a fault no create would see.  Out of
# scope, so that the three faults are the three creates' (the
# documentation's "fall back silently").
put $SL/reject-symbol kmem_cache_free
"$W/busybox" sh -c ": > $W/ready; read x < $W/fifo
	for i in 1 2 3 4 5; do echo hi > $W/t/f\$i && echo ok || echo fail; done" > $W/out 2>&1 &
pid=$!
for ((i = 0; i < 300; i++)); do [ -e $W/ready ] && break; sleep 0.1; done
put $D/mark $pid
expect "mark lists the marked shell" "$pid" "$(cat $D/mark)"
echo go > $W/fifo
wait $pid
expect "marked shell (times=3): three creates fail, two succeed" "fail fail fail ok ok" \
	"$(grep -E '^(ok|fail)$' $W/out | paste -sd' ')"
seen=$(grep -c "can't create $W/t/f[123]: Cannot allocate memory" $W/out)
expect "marked shell: each failure is ENOMEM from open(2)" "3" "$seen"
expect "counters agree: injected == failures seen" "$seen" \
	"$(($(counter $SL injected) - inj0))"
expect "times counts down to 0" "0" "$(cat $SL/times)"
# armed_wait HOOKDIR STATE: the hook reaches STATE within 5 s (the
# handler disarms through a work item); prints the state it ends in
armed_wait() {
	local i

	for ((i = 0; i < 50; i++)); do
		[ "$(armed $1)" = "$2" ] && break
		sleep 0.1
	done
	armed $1
}
expect "times used up: the hook disarms itself" "off" "$(armed_wait $SL off)"
put $SL/times 1
expect "times written again: armed again" "armed" "$(armed $SL)"
c=$(counters $SL)
read -r cs ce cp ci <<< "$c"
if [ "$cs" -ge "$ce" ] && [ "$ce" -ge "$cp" ] && [ "$cp" -ge "$ci" ] && [ "$ci" -ge 3 ]; then
	ok "counters: seen >= evaluated >= passed >= injected ($c)"
else
	fail "counters: seen >= evaluated >= passed >= injected" "$c"
fi
expect "the mark is gone when the task exits" "" "$(output cat $D/mark)"

# counters: writing 0 zeroes them, any other write is refused and changes
# nothing (the hook is disarmed here, so nothing counts in between)
put $SL/probability 0
c1=$(counters $SL)
for v in 1 -1 00 zero; do
	write_refused "counters: $v is refused (EINVAL)" $SL/counters "$v" "Invalid argument"
done
expect "counters: the refused writes change nothing" "$c1" "$(counters $SL)"
put $SL/counters 0
expect "counters: 0 zeroes seen, evaluated, passed, injected (were $c1)" "0 0 0 0" "$(counters $SL)"

# --- marks: inheritance, unmark ----------------------------------------------

# The fork and exit probes run with preemption off: on PREEMPT_RT a
# sleeping lock or an allocation there is "BUG: sleeping function called
# from invalid context" (checked after the marked children below)
kmsg_mark
reset
put $SL/task-filter Y
put $SL/cache-filter names_cache
put $SL/probability 100
sys 1 0 "fork:$W/c1" "creat:$W/c2"
expect "mark inherited: a child forked after marking fails too" "$ENOMEM $ENOMEM" "$errs"
sys 0 0 "fork:$W/c3" "creat:$W/c4"
expect "unmarked: the same child and parent succeed (failslab armed)" "armed 0 0" \
	"${sarmed%% *} $errs"
expect "no mark left after the marked tasks exited" "" "$(output cat $D/mark)"
# Disarmed first: a child marked before its exec is done would have its
# exec failed (names_cache at 100 %), as it should.
put $SL/probability 0
sleep 30 &
pid=$!
put $D/mark $pid
m1=$(cat $D/mark)
put $D/mark "-$pid"
a=$(cat $D/mark)
put $D/mark $pid
m2=$(cat $D/mark)
put $D/unmark $pid
expect "mark, unmark by -PID, mark, unmark by the unmark file" "$pid||$pid|" \
	"$m1|$a|$m2|$(cat $D/mark)"
write_refused "marking a pid that does not exist is refused (ESRCH)" $D/mark 4000000 \
	"No such process"
kill $pid
wait $pid 2>/dev/null

# More children of a marked shell than the pool of entries for them holds
# (128), all alive at once: each is marked or, when the pool was empty at
# its fork, counted in mark-missed.  Forked while the hook is disarmed,
# they wait on an inherited fifo; let go with names_cache failing at
# 100 %, the marked ones cannot create a file, the others can.  The
# shell's errors go to /dev/null, not between the children's lines.
NKIDS=300
missed0=$(cat $D/mark-missed)
rm -rf $W/ready $W/fifo $W/hold $W/k
mkdir $W/k
mkfifo $W/fifo $W/hold
"$W/busybox" sh -c "exec 3<> $W/hold; : > $W/ready; read x < $W/fifo; i=0
	while [ \$i -lt $NKIDS ]; do
		i=\$((i + 1))
		(read y <&3; echo hi > $W/k/\$i && echo \"res \$i ok\" || echo \"res \$i fail\") &
		echo \"pid \$i \$!\"
	done
	echo forked; wait" > $W/out 2> /dev/null &
pid=$!
for ((i = 0; i < 300; i++)); do [ -e $W/ready ] && break; sleep 0.1; done
put $D/mark $pid
echo go > $W/fifo
for ((i = 0; i < 1200; i++)); do grep -qx forked $W/out && break; sleep 0.1; done
marks=$(cat $D/mark)
missed=$(($(cat $D/mark-missed) - missed0))
put $SL/probability 100
for ((i = 0; i < NKIDS; i++)); do echo; done > $W/hold
wait $pid
put $SL/probability 0
# what each child did, "I PID marked|unmarked ok|fail"; then the tally
awk 'NR == FNR {m[$1]; next} $1 == "pid" {p[$2] = $3} $1 == "res" {r[$2] = $3}
	END {for (i in p) print i, p[i], (p[i] in m ? "marked" : "unmarked"), r[i]}' \
	<(echo "$marks") $W/out > $W/kids
nmarked=$(grep -c ' marked ' $W/kids)
echo "# $NKIDS children of a marked shell: $nmarked marked, $missed missed"
expect "marks: every child of a marked shell is marked or counted in mark-missed" \
	"$NKIDS $NKIDS" "$(wc -l < $W/kids) $((nmarked + missed))"
expect "marks: every marked child fails to create, every unmarked one creates" "" \
	"$(output awk '!($3 == "marked" && $4 == "fail" || $3 == "unmarked" && $4 == "ok")' \
	$W/kids | head -n 5)"
expect "no mark left after the children exited" "" "$(output cat $D/mark)"
expect "no kernel report while marked tasks forked and exited" "" "$(kernel_trouble)"

# --- cache-filter --------------------------------------------------------------

reset
put $SL/task-filter Y
put $SL/probability 100
: > $W/exist
put $SL/cache-filter dentry
sys 1 0 "open:$W/exist" "creat:$W/new1"
expect "cache-filter dentry: opening a cached file passes, creating one fails" \
	"0 $ENOMEM" "$errs"
put $SL/cache-filter "no_such_cache names_cache"
expect "cache-filter holds several names" "no_such_cache names_cache" "$(cat $SL/cache-filter)"
sys 1 0 "open:$W/exist"
expect "cache-filter 'no_such_cache names_cache': path lookups fail (2nd name)" \
	"$ENOMEM" "$errs"
put $SL/cache-filter no_such_cache
s0=$(counter $SL seen) e0=$(counter $SL evaluated)
sys 1 0 "creat:$W/new2" "open:$W/exist"
expect "cache-filter no_such_cache: everything passes" "0 0" "$errs"
s1=$(counter $SL seen) e1=$(counter $SL evaluated)
if [ $((s1 - s0)) -gt 0 ] && [ "$e1" = "$e0" ]; then
	ok "cache-filter excludes before the engine (seen +$((s1 - s0)), evaluated +0)"
else
	fail "cache-filter excludes before the engine" "seen $s0 -> $s1, evaluated $e0 -> $e1"
fi
put $SL/cache-filter N
expect "cache-filter N clears the list" "" "$(output cat $SL/cache-filter)"

# --- ignore-gfp-wait (slab) -----------------------------------------------------

reset
put $SL/task-filter Y
put $SL/cache-filter names_cache
put $SL/probability 100
put $SL/ignore-gfp-wait Y
sys 1 0 "creat:$W/w1"
expect "failslab ignore-gfp-wait=Y: GFP_KERNEL allocations are not failed (armed)" "armed 0" \
	"${sarmed%% *} $errs"
put $SL/ignore-gfp-wait N
sys 1 0 "creat:$W/w2"
expect "failslab ignore-gfp-wait=N: they are" "$ENOMEM" "$errs"

# --- the page hook: min-order, ignore-gfp-wait, ignore-gfp-highmem -------------
# F_SETPIPE_SZ of 1 MiB kcallocs 256 pipe_buffers (10 KiB): an order-2 page
# allocation, GFP_KERNEL.  A pipe write allocates an order-0 GFP_HIGHUSER page.

reset
put $PG/task-filter Y
put $PG/probability 100
put $PG/min-order 3
sys 1 0 "setpipe:1048576"
expect "min-order=3: an order-2 allocation passes (fail_page_alloc armed)" "armed 0" \
	"${sarmed##* } $errs"
put $PG/min-order 2
sys 1 0 "setpipe:1048576"
expect "min-order=2: the order-2 allocation fails" "$ENOMEM" "$errs"
put $PG/ignore-gfp-wait Y
sys 1 0 "setpipe:1048576"
expect "fail_page_alloc ignore-gfp-wait=Y: the GFP_KERNEL one passes (armed)" "armed 0" \
	"${sarmed##* } $errs"
reset
put $PG/task-filter Y
put $PG/probability 100
put $PG/min-order 0
put $PG/require-symbol pipe_write
i0=$(counter $PG injected)
sys 1 0 "pipewrite"
expect "ignore-gfp-highmem=Y: a GFP_HIGHUSER page for a pipe write passes (armed)" \
	"armed 0 0" "${sarmed##* } $errs $(($(counter $PG injected) - i0))"
put $PG/ignore-gfp-highmem N
sys 1 0 "pipewrite"
expect "ignore-gfp-highmem=N: it fails, one fault" \
	"$ENOMEM 1" "$errs $(($(counter $PG injected) - i0))"

# --- stack scoping: modules and symbols ----------------------------------------

reset
put $SL/task-filter Y
put $SL/times 1
put $SL/probability 100
put $SL/require-module dm-mod
expect "require-module reads back normalised" "dm_mod" "$(cat $SL/require-module)"
i0=$(counter $SL injected)
sys 1 0 "creat:$W/m1" "mkdir:$W/m2"
expect "require-module=dm_mod: tmpfs creat and mkdir are out of scope (armed)" \
	"armed 0 0 0" "${sarmed%% *} $errs $(($(counter $SL injected) - i0))"
sys 1 0 -- "$DMSETUP" create dmfa-m --table "0 $S linear $NB 0"
r=$src
expect "require-module=dm_mod: a marked dmsetup create fails, one fault" \
	"fail 1 absent" "$([ $r -ne 0 ] && echo fail || echo ok) \
$(($(counter $SL injected) - i0)) $($DMSETUP info dmfa-m > /dev/null 2>&1 && echo present || echo absent)"
$DMSETUP remove dmfa-m > /dev/null 2>&1
put $SL/times 1
put $SL/reject-module dm_mod
i0=$(counter $SL injected)
sys 1 0 -- "$DMSETUP" create dmfa-m --table "0 $S linear $NB 0"
expect "reject-module=dm_mod overrides the require: dmsetup create succeeds (armed)" \
	"armed 0 0" "${sarmed%% *} $src $(($(counter $SL injected) - i0))"
$DMSETUP remove dmfa-m
put $SL/reject-module ""
put $SL/require-module ""

put $SL/times -1
put $SL/require-symbol dm_mod:dm_table_create
i0=$(counter $SL injected)
sys 1 0 -- "$DMSETUP" ls
expect "require-symbol=dm_mod:dm_table_create: dmsetup ls is out of scope (armed)" \
	"armed 0 0" "${sarmed%% *} $src $(($(counter $SL injected) - i0))"
sys 1 0 -- "$DMSETUP" create dmfa-s --table "0 $S linear $NB 0"
if [ $src -ne 0 ] && [ $(($(counter $SL injected) - i0)) -ge 1 ] &&
	grep -q "Cannot allocate memory" $W/out; then
	ok "require-symbol=dm_mod:dm_table_create: dmsetup create fails with ENOMEM"
else
	fail "require-symbol=dm_mod:dm_table_create: dmsetup create fails" "exit $src" \
		"$(cat $W/out)"
fi
$DMSETUP remove dmfa-s > /dev/null 2>&1
put $SL/require-symbol ""
write_refused "require-symbol of an unknown symbol is refused, the symbol named" \
	$SL/require-symbol no_such_symbol_dmfa "dmf_alloc: failslab: no symbol no_such_symbol_dmfa"

put $SL/cache-filter dentry
put $SL/require-symbol do_mkdirat
sys 1 0 "creat:$W/y1" "mkdir:$W/y2"
expect "require-symbol=do_mkdirat: creat passes, mkdir fails" "0 $ENOMEM" "$errs"
put $SL/require-symbol ""
put $SL/reject-symbol do_mkdirat
sys 1 0 "creat:$W/y3" "mkdir:$W/y4"
expect "reject-symbol=do_mkdirat: creat fails, mkdir passes" "$ENOMEM 0" "$errs"
put $SL/reject-symbol ""
put $SL/stacktrace-depth 0
put $SL/require-symbol do_mkdirat
sys 1 0 "creat:$W/y6" "mkdir:$W/y7"
a="$errs"
put $SL/require-symbol ""
put $SL/reject-symbol do_mkdirat
sys 1 0 "creat:$W/y8" "mkdir:$W/y9"
expect "stacktrace-depth 0, as the kernel: a require fails nothing, a reject refuses nothing" \
	"0 0|$ENOMEM $ENOMEM" "$a|$errs"
put $SL/reject-symbol ""
put $SL/stacktrace-depth 32
put $SL/cache-filter ""
put $SL/require-start 1
put $SL/require-end 1
sys 1 0 "creat:$W/y5"
expect "require-start/end with an empty range: nothing in scope (armed)" "armed 0" \
	"${sarmed%% *} $errs"

# Naming the allocators themselves while the hooks are armed and other
# tasks allocate: resolving a name must not place a probe on it (this
# crashed 6.12 and soft-locked 6.1 when it did).
reset
for h in $SL $PG; do
	put $h/task-filter Y
	put $h/probability 100
done
names=$(awk '{print $1}' $SL/probes $PG/probes)
for f in __kmalloc __kmalloc_noprof kmem_cache_alloc kmem_cache_alloc_noprof; do
	grep -qE " $f\$" /proc/kallsyms && names+=" $f"
done
names=$(echo $names | tr ' ' '\n' | sort -u | paste -sd' ')
kmsg_mark
# the load: a shell creating a file over and over, no exec in the loop
"$W/busybox" sh -c "while :; do : > $W/load; done" &
bg=$!
refused=0
for i in 1 2 3; do
	for f in $names; do
		for k in require-symbol reject-symbol; do
			echo "$f" > $SL/$k 2> /dev/null || refused=$((refused + 1))
			echo "$f" > $PG/$k 2> /dev/null || refused=$((refused + 1))
		done
		last=$(cat $SL/require-symbol)
		for k in require-symbol reject-symbol; do
			put $SL/$k ""
			put $PG/$k ""
		done
	done
done
kill $bg
wait $bg 2> /dev/null
expect "naming each allocator ($names) 3 times while armed under load: all taken, no kernel trouble" \
	"0 ${names##* }|" "$refused $last|$(kernel_trouble)"
expect "... and the hooks stayed armed" "armed armed" "$(armed $SL) $(armed $PG)"

# require-module for a module that is not loaded yet: resolved when it loads
reset
if tests_unload_ok=$("$top/tests/vm/unload" dm-fault 2>&1); then
	put $SL/require-module dm_fault
	expect "require-module of a module not loaded is kept" "dm_fault" \
		"$(cat $SL/require-module)"
	dmf_load dm-fault
	put $SL/task-filter Y
	put $SL/times 1
	put $SL/probability 100
	sys 1 0 -- "$DMSETUP" create dmfa-l --table "0 $S linear $NB 0"
	expect "require-module=dm_fault (loaded later): dm-linear is out of scope (armed)" \
		"armed 0" "${sarmed%% *} $src"
	$DMSETUP remove dmfa-l
	sys 1 0 -- "$DMSETUP" create dmfa-f --table "0 $S fault $NB 0"
	expect "require-module=dm_fault (loaded later): the fault target's create fails" \
		"fail absent" "$([ $src -ne 0 ] && echo fail || echo ok) \
$($DMSETUP info dmfa-f > /dev/null 2>&1 && echo present || echo absent)"
	$DMSETUP remove dmfa-f > /dev/null 2>&1
else
	skip "require-module of a module loaded later" "cannot unload dm-fault: $tests_unload_ok"
fi

# --- fail-nth -----------------------------------------------------------------

reset
put $SL/cache-filter names_cache
put $SL/verbose 1
kmsg_mark
sys 0 3 "creat:$W/n1" "creat:$W/n2" "creat:$W/n3" "creat:$W/n4" "creat:$W/n5"
expect "fail-nth 3 (probability 0): exactly the third creat fails" \
	"0 0 $ENOMEM 0 0" "$errs"
expect "fail-nth reads back 0 (the fault fired) for the exited task" "0 exited" \
	"$(nth_left $spid)"
if kmsg_since |
	grep -q "FAULT_INJECTION: forcing a failure: failslab .*(cache names_cache, .*pid $spid"; then
	ok "verbose=1 logs the fault with its cache and pid"
else
	fail "verbose=1 logs the fault with its cache and pid" "$(dmesg | tail -n 3)"
fi
put $D/fail-nth "-$spid"
expect "fail-nth -PID drops the entry" "" "$(output cat $D/fail-nth)"
# the hook asks the task's count before its task filter: no mark is needed
put $SL/task-filter Y
sys 0 1 "creat:$W/n0"
expect "fail-nth with task-filter Y: an unmarked task's count fires" "$ENOMEM|0 exited" \
	"$errs|$(nth_left $spid)"
put $D/fail-nth "-$spid"
put $SL/task-filter N

# a count that fires disarms the hooks while its task lives on
rm -f $W/ready $W/fifo $W/fifo2 $W/done
mkfifo $W/fifo $W/fifo2
"$W/busybox" sh -c ": > $W/ready; read x < $W/fifo
	for i in 1 2 3 4 5; do echo x > $W/nf\$i && echo ok || echo fail; done
	echo > $W/done; read x < $W/fifo2" > $W/out 2>&1 &
pid=$!
for ((i = 0; i < 300; i++)); do [ -e $W/ready ] && break; sleep 0.1; done
put $D/fail-nth "$pid 2"
a=$(armed $SL)
echo go > $W/fifo
for ((i = 0; i < 300; i++)); do [ -e $W/done ] && break; sleep 0.1; done
expect "fail-nth 2 in a live shell: the second creat fails; armed, then off once it fired" \
	"ok fail ok ok ok|armed|off|0" \
	"$(grep -E '^(ok|fail)$' $W/out | paste -sd' ')|$a|$(armed_wait $SL off)|$(nth_left $pid)"
kill $pid 2> /dev/null
wait $pid 2> /dev/null
put $D/fail-nth "-$pid"

put $SL/verbose 2
kmsg_mark
sys 0 1 "creat:$W/v1"
if kmsg_since | grep -qE "dmf_alloc: +(called by|from) getname"; then
	ok "verbose=2 prints the call chain from the allocator's caller (getname)"
	kmsg_since | grep -E "FAULT_INJECTION|dmf_alloc: +(called by|from)" |
		head -n 5 | sed 's/^/# /'
else
	fail "verbose=2 prints the call chain" "$(kmsg_since | head -n 12)"
fi
put $D/fail-nth "-$spid"
put $SL/verbose 0
expect "no count pending and probability 0: the hooks disarm" "off off" \
	"$(armed $SL) $(armed $PG)"
sys 0 10 "creat:$W/n6" "creat:$W/n7" "creat:$W/n8" "creat:$W/n9" "creat:$W/n10"
expect "fail-nth 10 over five allocations: no fault, 5 left reported" \
	"0 0 0 0 0|5 exited" "$errs|$(nth_left $spid)"
put $D/fail-nth "-$spid"
sys 0 1 "fork:$W/n11" "creat:$W/n12"
expect "fail-nth is not inherited: the child's creat is not counted" "0 $ENOMEM" "$errs"
put $D/fail-nth "-$spid"
write_refused "fail-nth refuses a negative count (EINVAL)" $D/fail-nth "1 -3" "Invalid argument"
write_refused "fail-nth refuses a word (EINVAL)" $D/fail-nth x "Invalid argument"

# --- fail-nth sweeps over dmsetup create / message / remove -------------------
# Both hooks count the allocations made under dm_mod (the fault target's
# constructor and message handler run under it) and fail the Nth; N runs
# from 1 until a run completes without a fault.

reset
for h in $SL $PG; do
	put $h/require-module dm_mod
done
put $PG/min-order 0
# A failed kmem_cache_create() dump_stack()s by design (mm/slab_common.c);
# the trace is the kernel reporting the failure, not a bug in the error path,
# so the sweeps leave the allocations under it alone.
kcc=""
for f in kmem_cache_create_usercopy __kmem_cache_create_args; do
	grep -qE " $f\$" /proc/kallsyms && kcc+=" $f"
done
for h in $SL $PG; do
	put $h/reject-symbol "${kcc# }"
done
TABLE="0 $S fault $NB 0 1 error:op=read,p=1%"

# Under make check (DMF_LONG unset) a sweep takes every step up to
# SWEEP_HEAD, then every SWEEP_STRIDE-th one, still until a run that
# completes without a fault; make check-long (DMF_LONG=1) takes every step.
SWEEP_HEAD=$(by_length 2000 20)
SWEEP_STRIDE=$(by_length 1 13)

# sweep NAME SETUP CLEANUP -- DMSETUP-ARGS: one sweep; SETUP and CLEANUP run
# unmarked.  A step that fails must have had its fault injected, and say
# so: an allocation failure's errno (ENOMEM, or ENXIO when dm cannot
# allocate the device itself); a step without a fault must succeed.
sweep() {
	local name=$1 setup=$2 cleanup=$3 n left faulted=0 failed=0 bad="" t steps=0
	local why="failed: (Cannot allocate memory|No such device or address)"

	shift 4
	for ((n = 1; n <= 2000; n += n < SWEEP_HEAD ? 1 : SWEEP_STRIDE)); do
		steps=$((steps + 1))
		if ! eval "$setup"; then
			bad+="step $n: setup failed; "
			break
		fi
		kmsg_mark
		sys 0 $n -- "$DMSETUP" "$@"
		left=$(nth_left $spid)
		put $D/fail-nth "-$spid"
		t=$(kernel_trouble)
		[ -n "$t" ] && bad+="step $n: kernel: $t; "
		if [ "$src" -ne 0 ]; then
			failed=$((failed + 1))
			[ "${left%% *}" = 0 ] ||
				bad+="step $n: exit $src with no fault injected: $(head -n 2 $W/out); "
			grep -qE "$why" $W/out ||
				bad+="step $n: exit $src, not for a failed allocation: $(head -n 2 $W/out); "
		fi
		eval "$cleanup" || bad+="step $n: cleanup failed; "
		[ "${left%% *}" = 0 ] || break
		faulted=$((faulted + 1))
	done
	if [ -z "$bad" ] && [ "$n" -le 2000 ]; then
		ok "sweep $name: $steps steps, $faulted faulted runs ($failed failed cleanly), run $n clean"
	else
		fail "sweep $name" "$bad" "stopped at step $n"
	fi
}

# each cleanup also checks what the step left behind
sweep_create_cleanup() {
	if $DMSETUP info dmfa-sw > /dev/null 2>&1; then
		[ "$src" -eq 0 ] || echo "# step $n: create failed but left dmfa-sw"
		$DMSETUP remove dmfa-sw
	else
		[ "$src" -ne 0 ]
	fi
}
sweep create ":" sweep_create_cleanup -- create dmfa-sw --table "$TABLE"

sweep_message_cleanup() {
	local nr

	nr=$($DMSETUP message dmfa-sw 0 rule list | wc -l)
	# the rule from the table, plus the new one if the message succeeded
	[ "$nr" -eq $((src == 0 ? 2 : 1)) ] || { echo "# step $n: $nr rules"; return 1; }
	# a failed add uses up no rule id: the next add still gets id 2
	if [ "$src" -ne 0 ]; then
		id=$($DMSETUP message dmfa-sw 0 rule add drop:op=write,p=1/2)
		[ "$id" = 2 ] || { echo "# step $n: the add after a failed one got id $id"; return 1; }
	fi
	$DMSETUP remove dmfa-sw
}
sweep message "$DMSETUP create dmfa-sw --table '$TABLE'" sweep_message_cleanup \
	-- message dmfa-sw 0 "rule add drop:op=write,p=1/2"

sweep_remove_cleanup() {
	if $DMSETUP info dmfa-sw > /dev/null 2>&1; then
		[ "$src" -ne 0 ] || { echo "# step $n: removed, still there"; return 1; }
		$DMSETUP table dmfa-sw > /dev/null && $DMSETUP remove dmfa-sw
	else
		[ "$src" -eq 0 ]
	fi
}
sweep remove "$DMSETUP create dmfa-sw --table '$TABLE'" sweep_remove_cleanup -- remove dmfa-sw
# the write cache's recording and views: a failed step leaves the state it found
CTABLE="$TABLE 1 cache"
sweep_record_cleanup() {
	local st

	st=$(cache_field dmfa-sw 1)
	[ "$st" = "$([ "$src" -eq 0 ] && echo recording || echo on)" ] ||
		{ echo "# step $n: exit $src, the cache is $st"; return 1; }
	$DMSETUP remove dmfa-sw
}
sweep record "$DMSETUP create dmfa-sw --table '$CTABLE'" sweep_record_cleanup \
	-- message dmfa-sw 0 record
record_setup() {
	$DMSETUP create dmfa-sw --table "$CTABLE" && $DMSETUP message dmfa-sw 0 record &&
	dd if=/dev/zero of=/dev/mapper/dmfa-sw bs=4k count=3 oflag=direct status=none &&
	$DMSETUP message dmfa-sw 0 crash > /dev/null
}
sweep_view_cleanup() {
	local st

	st=$(cache_field dmfa-sw 1)
	[ "$st" = "$([ "$src" -eq 0 ] && echo view || echo crashed)" ] ||
		{ echo "# step $n: exit $src, the cache is $st"; return 1; }
	$DMSETUP remove dmfa-sw
}
sweep view record_setup sweep_view_cleanup -- message dmfa-sw 0 "view keep=1,3 tear=3:7"
expect "sweeps leave no dm device" "" "$(matching dmfa $DMSETUP ls)"

# --- arming and disarming under I/O --------------------------------------------

reset
for h in $SL $PG; do
	put $h/task-filter Y
done
a0=$(awk 'NR == 1 {print $3}' $SL/probes)
i0=$(($(counter $SL injected) + $(counter $PG injected)))
fio --name=arm --filename="$NB" --ioengine=libaio --direct=1 --rw=randrw --bs=4k \
	--iodepth=16 --numjobs=2 --time_based --runtime=600 --output-format=json \
	--output=$W/fio.json > /dev/null 2>&1 &
fpid=$!
sleep 2
t0=$(date +%s)
cycles=$(by_length 100 30)
for i in $(seq $cycles); do
	put $SL/probability 1/1000
	put $PG/probability 1/1000
	put $SL/probability 0
	put $PG/probability 0
done
t1=$(date +%s)
running=$(kill -0 $fpid 2>/dev/null && echo running || echo stopped)
kill -INT $fpid
wait $fpid
expect "fio ran through $cycles arm/disarm cycles ($((t1 - t0)) s)" "running" "$running"
# fio may put a line such as "fio: terminating on signal 2" before the JSON
sed -n '/^{/,$p' $W/fio.json > $W/fio.clean.json
ios=$(jq '[.jobs[] | .read.total_ios + .write.total_ios] | add' $W/fio.clean.json)
expect "fio saw no I/O error ($ios I/Os), nothing injected" "0 0" \
	"$(jq '[.jobs[].error] | add' $W/fio.clean.json) $(($(counter $SL injected) + $(counter $PG injected) - i0))"
expect "$cycles arms counted, both hooks off, nothing patched" \
	"arms=$(( ${a0#arms=} + cycles )) off off 0 0" \
	"$(awk 'NR == 1 {print $3}' $SL/probes) $(armed $SL) $(armed $PG) $(patched $SL) $(patched $PG)"

# --- module parameters -------------------------------------------------------------

reset
ko="$BUILD/dmf_alloc.ko"
if "$top/tests/vm/unload" dmf_alloc; then
	insmod "$ko" failslab=2,1/1000000000,0,-1 fail_page_alloc=0,5,4096,0
	expect "failslab=2,1/1000000000,0,-1: interval, probability, space, times; armed" \
		"2 0.0000001% 0 -1 armed" \
		"$(cat $SL/interval) $(cat $SL/probability) $(cat $SL/space) $(cat $SL/times) $(armed $SL)"
	expect "fail_page_alloc=0,5,4096,0: 5 is 5%, interval 0 is 1; times 0: not armed" \
		"1 5% 4096 0 off" \
		"$(cat $PG/interval) $(cat $PG/probability) $(cat $PG/space) $(cat $PG/times) $(armed $PG)"
	# disarmed before the unload, as everywhere else: an unload while armed
	# can meet a stray int3 under multi-threaded TCG
	# (tests/vm/repro/alloc-armed-rmmod.sh)
	put $SL/probability 0
	rmmod dmf_alloc
	check "the module file is there" test -f "$ko"
	refused "failslab=1,2,3 (three fields) is refused, the format named" \
		"dmf_alloc: failslab=1,2,3: expected <interval>,<probability>,<space>,<times>" \
		insmod "$ko" failslab=1,2,3
	grep -q '^dmf_alloc ' /proc/modules && rmmod dmf_alloc
	insmod "$ko" entry_probes=1
	expect "entry_probes=1: the entry points even where should_failslab exists" \
		"0 should_, probes listed" \
		"$(output awk '/^should_/ {s++} END {print s + 0 " should_, " (NR ? "probes" : "none") " listed"}' \
			$SL/probes $PG/probes)"
	reset
	put $SL/task-filter Y
	put $SL/cache-filter names_cache
	put $SL/probability 100
	sys 1 0 "creat:$W/e1"
	a="$errs"
	put $SL/cache-filter dentry
	sys 1 0 "open:$W/exist" "creat:$W/e2"
	a+="|$errs"
	put $SL/cache-filter kmalloc-no-such
	sys 1 0 "creat:$W/e3"
	expect "entry_probes=1: cache-filter includes and excludes through the entry points" \
		"$ENOMEM|0 $ENOMEM|0" "$a|$errs"
	reset
	rmmod dmf_alloc
	dmf_load dmf_alloc
else
	skip "module parameters" "cannot unload dmf_alloc"
fi

# --- clean up -------------------------------------------------------------------

reset
dm_cleanup
nullb_destroy dmfa0
rm -rf "$W"
check "modules unload" dmf_unload
# a device's line of dmsetup ls ends in its (major:minor)
expect "no dm device left" "" "$(matching '\(' dmsetup ls)"
expect "no module left" "" "$(matching '^(dmf_alloc|dmf_engine|dm_fault) ' lsmod)"
ktap_end
