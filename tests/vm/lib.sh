# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers for the VM test suites (sourced, run inside the guest).
#
# A suite is tests/vm/suites/NN-name.sh: it sources this file, calls
# ktap_begin, reports each test with ok/fail/skip/check, and ends with
# ktap_end, which prints the KTAP plan and totals and sets the exit status.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PATH="$top/tools/dmfault:$top/tests/vm/bin:$PATH"
KVER=$(uname -r)
# DMF_BUILD: the modules of a kernel built here (make check-debug).
BUILD="${DMF_BUILD:-$top/build/$KVER}"
_ktap_n=0 _ktap_pass=0 _ktap_fail=0 _ktap_skip=0

# ktap_begin SUITE [FORM]: FORM (default: make check's short or make
# check-long's long form) says how long a run this is.
ktap_begin() {
	_ktap_suite=$1
	echo "TAP version 13"
	echo "# suite: $1 (kernel $KVER, ${2:-$(by_length long short) form})"
}

# _ktap_time: with DMF_TEST_TIMES=1, a comment after each test with the
# seconds since the one before, to find what makes a suite long
_ktap_time() {
	[ "${DMF_TEST_TIMES:-0}" = 1 ] || return 0
	echo "# $((SECONDS - ${_ktap_t:-0})) s"
	_ktap_t=$SECONDS
}

ok() {
	_ktap_n=$((_ktap_n + 1)) _ktap_pass=$((_ktap_pass + 1))
	echo "ok $_ktap_n $*"
	_ktap_time
}

# fail NAME [DIAGNOSTIC...]
fail() {
	local name=$1

	shift
	_ktap_n=$((_ktap_n + 1)) _ktap_fail=$((_ktap_fail + 1))
	echo "not ok $_ktap_n $name"
	# every line of every argument a comment: an output shown here may
	# hold lines a KTAP reader would count
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /'
	_ktap_time
}

skip() {
	_ktap_n=$((_ktap_n + 1)) _ktap_skip=$((_ktap_skip + 1))
	echo "ok $_ktap_n $1 # SKIP $2"
	_ktap_time
}

# check NAME CMD [ARGS...]: ok if CMD exits 0; its output is shown on failure.
check() {
	local name=$1 out

	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		fail "$name" "command: $*" "$(echo "$out" | tail -n 15)"
	fi
}

# expect NAME EXPECTED ACTUAL
expect() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1" "expected: $2" "actual:   $3"
	fi
}

# within NAME VALUE LOW HIGH: LOW <= VALUE <= HIGH (integers)
within() {
	if [ "$2" -ge "$3" ] 2>/dev/null && [ "$2" -le "$4" ]; then
		ok "$1 ($2 in [$3, $4])"
	else
		fail "$1" "value $2 not in [$3, $4]"
	fi
}

# --- negative tests --------------------------------------------------------
# A test that something fails or is refused first asserts that the thing
# under test exists, and then checks why it failed: the text the kernel
# logged, or the errno text or message of the command, never just a
# non-zero exit (a device that was never created fails every I/O too).

# kmsg_mark: put a line of our own in the kernel log.  kmsg_since prints what
# the kernel logged after the last mark (whatever dmesg -C did before).
kmsg_mark() {
	_kmsg_tag="dmf-test: mark $BASHPID.$RANDOM.$RANDOM"
	echo "$_kmsg_tag" > /dev/kmsg
}

# kmsg_marked: the last mark is still in the kernel log
kmsg_marked() {
	dmesg | grep -qF "$_kmsg_tag"
}

kmsg_since() {
	local log

	log=$(dmesg) || { echo "kmsg_since: dmesg failed"; return 1; }
	printf '%s\n' "$log" |
		awk -v t="$_kmsg_tag" 'index($0, t) {b = ""; f = 1; next} f {b = b $0 "\n"}
			END {printf "%s", b}'
}

# output CMD [ARGS...]: CMD's standard output, then, if CMD failed, a line
# "CMD...: exit N"; CMD's status.  For $(...) compared with an expected
# output (often none): a command that failed cannot pass for one that ran
# and printed that.
output() {
	local out r

	out=$("$@")
	r=$?
	[ -n "$out" ] && printf '%s\n' "$out"
	[ $r -eq 0 ] || echo "$*: exit $r"
	return $r
}

# matching ERE CMD [ARGS...]: the lines of CMD's output that match ERE (as
# grep -E does), then the line output adds if CMD failed; CMD's status.
# "$(matching RE cmd)" = "" holds only when cmd ran and printed no such line,
# which "$(cmd | grep RE)" = "" does not tell from cmd failing.
matching() {
	local re=$1 out r

	shift
	out=$("$@")
	r=$?
	[ -n "$out" ] && printf '%s\n' "$out" | grep -E -- "$re"
	[ $r -eq 0 ] || echo "$*: exit $r"
	return $r
}

# refused NAME REASON CMD [ARGS...]: CMD fails, and REASON (an extended
# regular expression) is in what the kernel logged while it ran or in CMD's
# own output.
refused() {
	local name=$1 reason=$2 out log

	shift 2
	kmsg_mark
	if out=$("$@" 2>&1); then
		fail "$name" "accepted: $*" "$out"
		return 0
	fi
	log=$(kmsg_since)
	if printf '%s\n%s\n' "$log" "$out" | grep -Eq -- "$reason"; then
		ok "$name"
	else
		fail "$name" "refused, but not for: $reason" "command: $*" "output: $out" \
			"kernel: $(echo "$log" | tail -n 5)"
	fi
}

# write_refused NAME FILE VALUE REASON: FILE (a knob) exists, and writing
# VALUE to it is refused for REASON (see refused: the errno text of the
# write, such as "Invalid argument", or what the kernel logged).
write_refused() {
	if [ ! -e "$2" ]; then
		fail "$1" "$2 does not exist: nothing to refuse"
		return 0
	fi
	refused "$1" "$4" bash -c 'echo "$1" > "$2"' write "$3" "$2"
}

# dm_exists NAME: the dm device NAME is there, and so is its node.
dm_exists() {
	dmsetup info "$1" > /dev/null 2>&1 && [ -b "/dev/mapper/$1" ]
}

# io_fails NAME DM-NAME ERROR CMD [ARGS...]: the dm device DM-NAME exists,
# and CMD fails with ERROR (a string such as "Input/output error") in its
# output.
io_fails() {
	local name=$1 dev=$2 why=$3 out

	shift 3
	if ! dm_exists "$dev"; then
		fail "$name" "device $dev does not exist: nothing to fail"
		return 0
	fi
	if out=$("$@" 2>&1); then
		fail "$name" "succeeded: $*" "$out"
	elif [[ $out == *"$why"* ]]; then
		ok "$name"
	else
		fail "$name" "failed, but not with '$why': $*" "$out"
	fi
}

# dm_refused NAME TYPE REASON TABLE: the kernel refuses to create a device
# from TABLE, and logs "table: MAJ:MIN: TYPE: REASON" (REASON a regular
# expression).  A device it made anyway is removed.
dm_refused() {
	refused "$1" "table: [0-9]+:[0-9]+: $2: $3" dmsetup create dmf-refused --table "$4"
	dmsetup remove dmf-refused > /dev/null 2>&1
	return 0
}

ktap_end() {
	echo "1..$_ktap_n"
	echo "# Totals: pass:$_ktap_pass fail:$_ktap_fail xfail:0 xpass:0 skip:$_ktap_skip error:0"
	[ "$_ktap_fail" -eq 0 ]
}

# --- test length -------------------------------------------------------------
# make check runs the short forms of the long sweeps and loops, make
# check-long (DMF_LONG=1) the full ones.

# by_length LONG SHORT: prints LONG under DMF_LONG=1, SHORT otherwise
by_length() {
	if [ "${DMF_LONG:-0}" = 1 ]; then echo "$1"; else echo "$2"; fi
}

# --- devices ---------------------------------------------------------------

dmf_load() {
	"$top/tests/vm/load" "$@" >/dev/null
}

dmf_unload() {
	"$top/tests/vm/unload" "$@"
}

# nullb_create NAME SIZE_MB [memory_backed(0|1) [BLOCKSIZE [discard] [cache]]]:
# a null_blk device through configfs (512-byte blocks unless BLOCKSIZE says;
# cache: a 1 MiB volatile write cache, so that empty flushes reach the
# device above); prints its /dev path.
nullb_create() {
	local d=/sys/kernel/config/nullb/$1 o

	modprobe null_blk nr_devices=0 >/dev/null 2>&1 || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir "$d" || return 1
	echo "$2" > "$d/size"
	echo "${3:-1}" > "$d/memory_backed"
	echo "${4:-512}" > "$d/blocksize" 2>/dev/null
	for o in "${@:5}"; do
		case $o in
		discard) echo 1 > "$d/discard" ;;
		cache) echo 1 > "$d/cache_size" ;;
		esac
	done
	echo 1 > "$d/power"
	echo "/dev/$1"
}

nullb_destroy() {
	local d=/sys/kernel/config/nullb/$1

	[ -d "$d" ] || return 0
	echo 0 > "$d/power"
	rmdir "$d"
}

# dm_create NAME TABLE: create a device and wait for its node.
dm_create() {
	local out

	out=$(echo "$2" | dmsetup create "$1" 2>&1) && return 0
	echo "# dm_create $1 failed: $out" | head -n 3
	return 1
}

dm_size() {
	blockdev --getsz "$1"
}

# Remove every dm device this suite left behind.
dm_cleanup() {
	local d

	for d in $(dmsetup ls 2>/dev/null | awk '$1 != "No" {print $1}'); do
		dmsetup remove --retry "$d" >/dev/null 2>&1
	done
}

# --- long runs -----------------------------------------------------------------

# The guest's root is the host's / over 9p (tests/vm/run): a failed clunk
# allocation breaks a 9p mount for good (a known kernel bug every path
# would find again), so every hunt here keeps the 9p client out.
HUNT_VM=(--set "reject-module=9p 9pnet")

# What the kernel reports when something is wrong (tests/vm/init looks for
# the same): kernel_reports prints the lines of them logged since kmsg_mark,
# or that the log could not be read.
KERNEL_REPORT_RE='WARNING:|BUG:|kernel BUG|Oops|general protection fault|Call Trace|KASAN|UBSAN'
KERNEL_REPORT_RE+='|blocked for more than|hung_task|soft lockup|hard LOCKUP|rcu_sched self-detected'
KERNEL_REPORT_RE+='|RCU stall|self-detected stall|detected stalls|refcount_t|list_(add|del) corruption'
kernel_reports() {
	matching "$KERNEL_REPORT_RE" kmsg_since
}

# emulator_flags: the saved EFLAGS since kmsg_mark that have a reserved bit
# set (3, 5, 15, 22-31): no x86 CPU holds them, only an emulator's flags
# computation gone wrong makes them (tests/vm/README.md, "Kernel reports
# under rule churn").
emulator_flags() {
	local f

	for f in $(kmsg_since | sed -n 's/.*EFLAGS: \([0-9a-f]\{1,16\}\).*/\1/p' | sort -u); do
		(((0x$f & 0xffffffffffc08028) != 0)) && echo "$f"
	done
}

# dump_stacks: the kernel stacks of dmsetup, dd, fio and the kworkers, then
# every blocked task (sysrq w), then the dm tables and status: what a hang
# looks like from the inside.
dump_stacks() {
	local t c s

	echo "# tables:"; dmsetup table 2>&1 | sed 's/^/#   /'
	echo "# status:"; dmsetup status 2>&1 | sed 's/^/#   /'
	for t in /proc/[0-9]*; do
		c=$(cat "$t/comm" 2>/dev/null)
		case $c in
		dmsetup|dmfault|dd|fio|kworker*|kdmflush*)
			s=$(cat "$t/stack" 2>/dev/null)
			[ -n "$s" ] || continue
			echo "# $c ${t#/proc/} $(cat "$t/wchan" 2>/dev/null) $(awk '{print $3}' "$t/stat")"
			echo "$s" | sed 's/^/#   /'
			;;
		esac
	done
	echo 1 > /proc/sys/kernel/sysrq
	kmsg_mark
	echo w > /proc/sysrq-trigger
	sleep 1
	echo "# sysrq w:"; kmsg_since | tail -n 300 | sed 's/^/#   /'
}

# dm_injected DEV: "DATA HELD NOW": faults DEV's rules injected since its
# table was loaded (or reset), those that change data or fail the bio
# (error, drop, corrupt, torn) and those that hold it (delay, stall), and
# the bios held now.  From one status line: 6 op words, the number of
# rules, a word <id>:<seen>:<matched>:<injected>:<action>:... a rule, held.
dm_injected() {
	dmsetup status "$1" 2>/dev/null |
		awk '{	for (i = 12; i < 12 + $11; i++) {
				split($i, w, ":")
				if (w[5] == "delay" || w[5] == "stall") h += w[4]; else d += w[4]
			}
			n = $(12 + $11) }
		END {print d + 0, h + 0, n + 0}'
}

# cache_field DEV N: the N-th field of the status's cache word, after the
# rules and the held count (1: state, 2: cached blocks, 4: its high-water
# mark, 5: the limit, 7: flushes, 8: FUA writes, 9: forced write-backs)
cache_field() {
	dmsetup status "$1" | awk -v n="$2" '{c = 5 + $4; split($(c + $c + 2), f, ":"); print f[n]}'
}

# wait_until N CMD...: run CMD every 0.1 s until it succeeds, N times at
# most; CMD's last status.
wait_until() {
	local n=$1 i

	shift
	for ((i = 1; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

# held_is DEV N: DEV's rules hold N bios now.
held_is() {
	[ "$(dm_held "$1")" = "$2" ]
}

# dm_held DEV: the bios DEV's delay and stall rules hold now.
dm_held() {
	dmsetup message "$1" 0 stats 2>/dev/null | awk '$1 == "held" {print $2}'
}
