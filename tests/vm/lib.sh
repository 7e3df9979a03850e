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
BUILD="$top/build/$KVER"
_ktap_n=0 _ktap_pass=0 _ktap_fail=0 _ktap_skip=0

ktap_begin() {
	_ktap_suite=$1
	echo "TAP version 13"
	echo "# suite: $1 (kernel $KVER)"
}

ok() {
	_ktap_n=$((_ktap_n + 1)) _ktap_pass=$((_ktap_pass + 1))
	echo "ok $_ktap_n $*"
}

# fail NAME [DIAGNOSTIC...]
fail() {
	local name=$1

	shift
	_ktap_n=$((_ktap_n + 1)) _ktap_fail=$((_ktap_fail + 1))
	echo "not ok $_ktap_n $name"
	[ $# -gt 0 ] && printf '# %s\n' "$@"
	return 0
}

skip() {
	_ktap_n=$((_ktap_n + 1)) _ktap_skip=$((_ktap_skip + 1))
	echo "ok $_ktap_n $1 # SKIP $2"
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

ktap_end() {
	echo "1..$_ktap_n"
	echo "# Totals: pass:$_ktap_pass fail:$_ktap_fail xfail:0 xpass:0 skip:$_ktap_skip error:0"
	[ "$_ktap_fail" -eq 0 ]
}

# --- devices ---------------------------------------------------------------

dmf_load() {
	"$top/tests/vm/load" "$@" >/dev/null
}

dmf_unload() {
	"$top/tests/vm/unload" "$@"
}

# nullb_create NAME SIZE_MB [memory_backed(0|1)]: a null_blk device through
# configfs; prints its /dev path.
nullb_create() {
	local d=/sys/kernel/config/nullb/$1

	modprobe null_blk nr_devices=0 >/dev/null 2>&1 || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir "$d" || return 1
	echo "$2" > "$d/size"
	echo "${3:-1}" > "$d/memory_backed"
	echo 512 > "$d/blocksize" 2>/dev/null
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
	echo "$2" | dmsetup create "$1"
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
