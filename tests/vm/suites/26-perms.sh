#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Permissions: the dmf_alloc debugfs files and /dev/mapper/control are root
# only.  An unprivileged user (nobody, no capabilities) can read no knob and
# change none: each read and write is refused with EACCES and every value
# reads back the same; dmsetup status, message and create are refused, by
# the control node's mode and, with a node anyone may open, by the kernel.
# Then every action is exercised and nothing the target prints (status
# INFO, TABLE and IMA, the log, stats and rule list replies, the kernel log
# lines of dm-fault, the engine and dmf_alloc) nor any debugfs file holds a
# raw kernel pointer.
. "$(dirname "$0")/../lib.sh"
ktap_begin perms

D=/sys/kernel/debug/dm-fault
DBG=/sys/kernel/debug
W=$(mktemp -d /dev/shm/dmfp.XXXXXX)
chmod 755 "$W"
PTR='(0x)?ffff[0-9a-f]{12}'

# as_nobody CMD [ARGS...]: CMD as nobody:nogroup, no groups, no capabilities
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		--bounding-set=-all -- "$@"
}

# denied NAME CMD [ARGS...]: CMD, run as nobody, fails with EACCES or EPERM
# (its own error text says so).
denied() {
	local name=$1 out

	shift
	if out=$(as_nobody "$@" 2>&1); then
		fail "$name" "nobody was allowed: $*" "$out"
	elif grep -Eq 'Permission denied|Operation not permitted' <<<"$out"; then
		ok "$name"
	else
		fail "$name" "refused, but not for lack of permission: $*" "$out"
	fi
}

# pointers WHAT FILE: no raw kernel pointer in FILE, which must not be empty
pointers() {
	if [ ! -s "$2" ]; then
		fail "no kernel pointer in $1" "nothing was collected"
	elif grep -Eiq "$PTR" "$2"; then
		fail "no kernel pointer in $1" "$(grep -Ei "$PTR" "$2" | head -n 5)"
	else
		ok "no kernel pointer in $1 ($(wc -l < "$2") lines)"
	fi
}

check "modules load" dmf_load
NB=$(nullb_create nbp 64 1)
check "null_blk device" test -b "$NB"
S=$(dm_size "$NB")
expect "nobody has uid 65534 and no capabilities" "65534 0000000000000000" \
	"$(as_nobody sh -c 'echo $(id -u) $(awk "/^CapEff/ {print \$2}" /proc/self/status)')"

# --- debugfs ------------------------------------------------------------------

if [ ! -d $D ]; then
	fail "dmf_alloc debugfs directory" "no $D"
	ktap_end
	exit
fi
# Debugfs itself is mounted 0700: nobody cannot even reach the knobs.
denied "debugfs as mounted: nobody cannot list $D" ls $D
# With the mount opened up, the files' own modes are what is tested.
mode=$(stat -c %a $DBG)
if mount -o remount,mode=0755 $DBG && as_nobody ls $D > /dev/null 2>&1; then
	ok "debugfs remounted 0755: nobody can list $D"
else
	fail "debugfs remounted 0755: nobody can list $D" "$(as_nobody ls $D 2>&1)"
fi

# A state that differs from the defaults, and a marked task (a count would
# arm the hooks, and their counters would move).
cp /bin/busybox "$W/busybox"
"$W/busybox" sleep 600 &
spid=$!
echo "$spid" > $D/mark
echo 1 > $D/failslab/verbose
echo 7 > $D/fail_page_alloc/min-order

mapfile -t knobs < <(cd $D && find . -type f | sed 's|^\./||' | sort)
within "debugfs knobs found" "${#knobs[@]}" 40 60
declare -A before
for k in "${knobs[@]}"; do
	# root may open any file for reading: ask the mode (unmark is 0200)
	[[ $(stat -c %A "$D/$k") == ?r* ]] && before[$k]=$(cat "$D/$k")
done

bad=()
for k in "${knobs[@]}"; do
	m=$(stat -c '%a %U %G' "$D/$k")
	[[ $m =~ ^[0-7]00\ root\ root$ ]] || bad+=("$k: $m")
done
expect "every debugfs file is owner-only, root:root" "" "${bad[*]}"

for k in "${knobs[@]}"; do
	denied "nobody cannot read $k" cat "$D/$k"
	# a value root may write to most knobs, and a pid nobody owns
	denied "nobody cannot write $k" sh -c 'echo "$1" > "$2"' sh 1 "$D/$k"
done
denied "nobody cannot mark itself" sh -c 'echo $$ > "$1"' sh $D/mark
denied "nobody cannot give root's task a fail-nth count" \
	sh -c 'echo "$1 1" > "$2"' sh "$spid" $D/fail-nth
denied "nobody cannot unmark root's task" sh -c 'echo "$1" > "$2"' sh "$spid" $D/unmark
denied "nobody cannot arm failslab" sh -c 'echo 100 > "$1"' sh $D/failslab/probability

bad=()
for k in "${!before[@]}"; do
	[ "$(cat "$D/$k")" = "${before[$k]}" ] || bad+=("$k")
done
expect "every knob reads back as before (${#before[@]} readable)" "" "${bad[*]}"
expect "root's task is still marked, with no count" "$spid|" \
	"$(cat $D/mark)|$(cat $D/fail-nth)"
echo "-$spid" > $D/mark
echo 0 > $D/failslab/verbose
echo 0 > $D/fail_page_alloc/min-order
kill $spid
wait $spid 2> /dev/null
mount -o remount,mode="$mode" $DBG

# --- the dm control device ------------------------------------------------------

dm_create pd "0 $S fault $NB 0 1 error:op=read,sectors=0-7"
check "fault device pd" dm_exists pd
expect "/dev/mapper/control is root's, mode 600" "600 root" \
	"$(stat -c '%a %U' /dev/mapper/control)"
table=$(dmsetup table pd)
denied "nobody: dmsetup status refused" dmsetup status pd
denied "nobody: dmsetup table refused" dmsetup table pd
denied "nobody: dmsetup message rule add refused" dmsetup message pd 0 rule add drop
denied "nobody: dmsetup message stats refused" dmsetup message pd 0 stats
denied "nobody: dmsetup create refused" dmsetup create pn --table "0 8 fault $NB 0"
denied "nobody: dmsetup remove refused" dmsetup remove pd
denied "nobody: cannot open the fault device" dd if=/dev/mapper/pd of=/dev/null count=1

# A control node anyone may open: the kernel still wants CAP_SYS_ADMIN.
mkdir -p "$W/dev/mapper"
read -r maj min < <(stat -c '%t %T' /dev/mapper/control)
mknod -m 666 "$W/dev/mapper/control" c $((16#$maj)) $((16#$min))
chmod 755 "$W/dev" "$W/dev/mapper"
check "a control node of mode 666" test -c "$W/dev/mapper/control"
denied "nobody, node 666: dmsetup status refused by the kernel" \
	env DM_DEV_DIR="$W/dev" dmsetup status pd
denied "nobody, node 666: dmsetup message refused by the kernel" \
	env DM_DEV_DIR="$W/dev" dmsetup message pd 0 rule add drop
denied "nobody, node 666: dmsetup create refused by the kernel" \
	env DM_DEV_DIR="$W/dev" dmsetup create pn --table "0 8 fault $NB 0"
expect "pd keeps its table" "$table" "$(dmsetup table pd)"
check "no device pn was made" test -z "$(dmsetup ls | grep -w pn)"
dmsetup remove pd

# --- no kernel pointer anywhere ---------------------------------------------------

printf 'ok\nffff888003a1c000 planted\n' > "$W/planted"
if grep -Eiq "$PTR" "$W/planted"; then
	ok "the pointer scan finds a planted pointer"
else
	fail "the pointer scan finds a planted pointer"
fi

kmsg_mark
rules="error:op=read,sectors=0-7,verbose=1 drop:op=write,sectors=8-15,verbose=1"
rules="$rules corrupt:op=read,bits=3,sectors=16-23 delay:delay=5ms,sectors=24-31"
rules="$rules stall:op=read,timeout=200ms,sectors=32-39 torn:keep=1,sectors=40-47"
dm_create pa "0 $S fault $NB 0 6 $rules"
check "fault device with every action" dm_exists pa
for i in 0 1 2 3 4 5; do
	dd if=/dev/mapper/pa of=/dev/null bs=4096 skip=$i count=1 iflag=direct 2>/dev/null
	dd if=/dev/zero of=/dev/mapper/pa bs=4096 seek=$i count=1 oflag=direct 2>/dev/null
done
dd if=/dev/mapper/pa of=/dev/null bs=4096 skip=4 count=1 iflag=direct 2>/dev/null &
rpid=$!
dmsetup message pa 0 release 5
wait $rpid
dmsetup message pa 0 rule add error:op=write,sectors=100-107,p=1/2,seed=9 > /dev/null
dmsetup message pa 0 rule disable 7
dmsetup message pa 0 rule replace 7 error:op=read,sectors=100-107 > /dev/null
dmsetup message pa 0 rule bogus 2> /dev/null
dmsetup message pa 0 nonsense 2> /dev/null
dmsetup message pa 0 release x 2> /dev/null
dmsetup create pbad --table "0 8 fault $NB 0 1 error:bogus=1" 2> /dev/null
dm_create pf "0 $S fault-flakey $NB 0 1 1 1 drop_writes"
dm_create pl "0 $S fault-delay $NB 0 1"
dm_create pe "0 $S fault-error"
dd if=/dev/mapper/pe of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null
{
	for d in pa pf pl pe; do
		dmsetup status $d
		dmsetup table $d
		dmsetup status --target fault $d
		dmsetup measure $d
		dmsetup message $d 0 stats
		dmsetup message $d 0 log
		dmsetup message $d 0 rule list
	done
} > "$W/target" 2>&1
check "the log holds the injections" \
	grep -qE '^[0-9]+\.[0-9]+ read 0 4096 1 error$' "$W/target"
check "the IMA status is there" grep -q 'target_name=fault,' "$W/target"
pointers "status (INFO, TABLE, IMA), stats, log and rule list" "$W/target"

# dmf_alloc: a fault with verbose 1 and one with verbose 2 (its call chain),
# in a shell on tmpfs, aimed at the names_cache allocation of its open
echo names_cache > $D/failslab/cache-filter
echo N > $D/failslab/ignore-gfp-wait
echo 11 > $D/fail_page_alloc/min-order
mkfifo "$W/go"
for v in 1 2; do
	echo $v > $D/failslab/verbose
	"$W/busybox" sh -c ": > $W/ready; read x < $W/go; echo x > $W/nf$v" 2> /dev/null &
	apid=$!
	while [ ! -e "$W/ready" ]; do sleep 0.1; done
	rm -f "$W/ready"
	echo "$apid 1" > $D/fail-nth
	echo go > "$W/go"
	wait $apid
	echo "-$apid" > $D/fail-nth
done
echo 0 > $D/failslab/verbose
echo > $D/failslab/cache-filter
echo Y > $D/failslab/ignore-gfp-wait
echo 0 > $D/fail_page_alloc/min-order
kmsg_since > "$W/kmsg"
expect "the marked shells' opens failed" "" "$(matching '^nf' ls "$W")"
check "dmf_alloc logged its faults with their call chains" \
	grep -qE 'dmf_alloc: +(called by|from) ' "$W/kmsg"
grep -E 'device-mapper: (fault|table: .*fault)|dmf:|dmf_alloc:|FAULT_INJECTION' "$W/kmsg" > "$W/ours"
check "dm-fault logged the refused rule and the injections" \
	grep -q "device-mapper: fault" "$W/ours"
pointers "the kernel log lines of dm-fault, the engine and dmf_alloc" "$W/ours"
for k in $(cd $D && find . -type f -perm -0400 | sort); do
	echo "== $k"
	cat "$D/$k"
done > "$W/debugfs" 2>&1
pointers "the debugfs files" "$W/debugfs"

dm_cleanup
nullb_destroy nbp
check "modules unload" dmf_unload
rm -rf "$W"
ktap_end
