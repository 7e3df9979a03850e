#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Random operation sequences against the live targets (tests/seqfuzz):
# table loads, suspends, removes, every message, I/O of every kind from
# worker threads and allocation faults, over 512-byte and 4 KiB null_blk
# disks, a loop device and a virtio disk.  First the oracles are shown to
# find what they look for (a kernel report, data changed behind the
# devices' back, a line that minimises away), then the sequences run (make
# check: 40 from a fixed seed; make check-long and make fuzz-seq: for
# SEQFUZZ_SECONDS from SEQFUZZ_SEED), and every message of the target's
# table must have been sent.
. "$(dirname "$0")/../lib.sh"
ktap_begin seqfuzz

T=$(mktemp -d)
SF=$top/tests/seqfuzz/dmf-seqfuzz
# make check is a gate: the same 40 sequences each run, from a seed whose
# sequences pass on both kernels.  make check-long and make fuzz-seq explore:
# SEQFUZZ_SECONDS of sequences from SEQFUZZ_SEED (default: the time).
if [ -n "${SEQFUZZ_SECONDS:-}" ] || [ "${DMF_LONG:-0}" = 1 ]; then
	secs=${SEQFUZZ_SECONDS:-900} seed=${SEQFUZZ_SEED:-$(date +%s)} bound=()
	what="random sequences for $secs s"
else
	secs=900 seed=${SEQFUZZ_SEED:-1796602623} bound=(--sequences 40)
	what="40 sequences"
fi

check "dmf-seqfuzz is built" test -x "$SF"
check "modules load" dmf_load
NB=$(nullb_create sfz 64 1)
NB4=$(nullb_create sfz4 64 1 4096)
modprobe loop 2>/dev/null
truncate -s 48M /dev/shm/sfz.img
LOOP=$(losetup -f --show /dev/shm/sfz.img)
check "disks: null_blk with 512-byte and 4 KiB blocks, loop" test -b "$NB" -a -b "$NB4" -a -b "$LOOP"
disks=("$NB" "$NB4" "$LOOP")
for v in $VM_DISKS; do
	[ "$(blockdev --getsize64 "$v")" -le $((512 << 20)) ] && { disks+=("$v"); break; }
done
echo "# disks: ${disks[*]}"

# The same seed gives the same lines; another seed other lines.
a=$("$SF" print --seed 77 --lines 300 --alloc "${disks[@]}" | md5sum)
b=$("$SF" print --seed 77 --lines 300 --alloc "${disks[@]}" | md5sum)
c=$("$SF" print --seed 78 --lines 300 --alloc "${disks[@]}" | md5sum)
if [ "$a" = "$b" ] && [ "$a" != "$c" ]; then
	ok "a seed gives its lines, and only its seed"
else
	fail "a seed gives its lines, and only its seed" "$a / $b / $c"
fi

# replay NAME WANT FILE [ARGS]: a written sequence is replayed and ends with
# a finding that says WANT
replay_finds() {
	local name=$1 want=$2 file=$3 out rc

	shift 3
	out=$("$SF" replay "$@" "$file" "${disks[@]}" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && [[ $out == *"$want"* ]]; then
		ok "$name"
	else
		fail "$name" "exit $rc, wanted a finding with '$want'" "$(echo "$out" | tail -n 5)"
	fi
}

# The data oracle: a sector written through a clean device reads back as
# written; the same sector changed on the disk behind the device's back
# is a finding that names the write.
cat > $T/data.seq <<EOF
create dmfz0 fault 8192 d0 2048
io dmfz0 write 4096 8192 - 4242
io dmfz0 read 0 65536 - 2
EOF
out=$("$SF" replay "$T/data.seq" "${disks[@]}" 2>&1)
if [ $? -eq 0 ] && [[ $out == *" 16 sectors checked"* ]]; then
	ok "data written through a clean device is checked when read back"
else
	fail "data written through a clean device is checked when read back" "$out"
fi
{ cat $T/data.seq; echo "disk-write d0 2058 1"; echo "io dmfz0 read 0 65536 - 2"; } > $T/bad.seq
replay_finds "data changed behind the device is a finding" \
	"disk ${disks[0]} sector 2058 is not write 4242's data" $T/bad.seq

# The kernel oracle: a log line that matches is a finding.  Writes to
# /dev/kmsg are ratelimited (10 in 5 s) unless printk_devkmsg is on, and
# minimising replays the line many times.
devkmsg=$(cat /proc/sys/kernel/printk_devkmsg)
echo on > /proc/sys/kernel/printk_devkmsg
printf 'create dmfz0 fault 8192 d0 0\nkmsg dmf-seqfuzz self-test %s\n' "$seed" > $T/kmsg.seq
replay_finds "a kernel report during a sequence is a finding" \
	"kernel: dmf-seqfuzz self-test $seed" $T/kmsg.seq --problem "self-test $seed"

# Minimisation: 60 random lines and the one that finds; what is left is short.
{ "$SF" print --seed 5 --lines 60 "${disks[@]}"; echo "kmsg dmf-seqfuzz minimise $seed"; } \
	> $T/long.seq
out=$("$SF" replay --minimise --problem "minimise $seed" --out $T/min.txt "$T/long.seq" \
	"${disks[@]}" 2>&1)
rc=$?
n=$(grep -vc '^#' $T/min.txt.min 2>/dev/null)
if [ $rc -eq 1 ] && [ "$(grep -vc '^#' $T/min.txt)" = 61 ] && [ -n "$n" ] && [ "$n" -le 3 ] &&
	grep -q "^kmsg dmf-seqfuzz minimise" $T/min.txt.min; then
	ok "a failing sequence is written out and minimised ($n of 61 lines left)"
else
	fail "a failing sequence is written out and minimised" "exit $rc" "$(echo "$out" | tail -n 4)" \
		"$(cat $T/min.txt.min 2>&1)"
fi

# ... and stops at its time bound with what it has shrunk so far: every
# run that keeps the delayed read takes 1.5 s, so the bound of 1 s is
# passed after the first.
{
	for i in $(seq 30); do echo "kmsg dmf-seqfuzz filler $i"; done
	echo "create dmfz0 fault 8192 d0 0 1 delay:op=read,delay=1500ms"
	echo "io dmfz0 read 0 4096 - 7"
	echo "kmsg dmf-seqfuzz bound $seed"
} > $T/slow.seq
out=$("$SF" replay --minimise --minimise-seconds 1 --problem "bound $seed" \
	--out $T/min1.txt "$T/slow.seq" "${disks[@]}" 2>&1)
rc=$?
n1=$(grep -vc '^#' $T/min1.txt.min 2>/dev/null)
if [ $rc -eq 1 ] && [[ $out == *"(stopped at --minimise-seconds 1)"* ]] && [ -n "$n1" ] &&
	[ "$n1" -ge 3 ] && grep -q "^kmsg dmf-seqfuzz bound" $T/min1.txt.min; then
	ok "minimising stops at --minimise-seconds ($n1 of 33 lines left)"
else
	fail "minimising stops at --minimise-seconds" "exit $rc, $n1 lines left" \
		"$(echo "$out" | grep '^# minimised')" "$(echo "$out" | tail -n 4)"
fi

echo "$devkmsg" > /proc/sys/kernel/printk_devkmsg

# A write of 4 MiB from huge-page memory is one bio of multi-page segments:
# a copy corrupted for a rule holds it (it once took one page a segment).
for sz in 512 4096; do
	d=d0
	[ $sz = 4096 ] && d=d1
	printf '%s\n' "create dmfz0 fault 16384 $d 0 1 corrupt:op=write,bits=1,seed=1" \
		"io dmfz0 write 0 4194304 - 99" "io dmfz0 fua 0 2097152 - 98" \
		"io dmfz0 write 4096 4194304 - 97" > $T/big.seq
	out=$("$SF" replay "$T/big.seq" "${disks[@]}" 2>&1)
	if [ $? -eq 0 ] && [[ $out == *" 3 I/Os (0 failed)"* ]]; then
		ok "4 MiB and 2 MiB writes through corrupt:op=write ($sz-byte blocks)"
	else
		fail "4 MiB and 2 MiB writes through corrupt:op=write ($sz-byte blocks)" "$out"
	fi
done

# A write that is not whole blocks of the 4 KiB disk below, to a fault-dust
# device loaded while the fault device under it was on 512-byte blocks: dm
# splits it at the dust blocks, the fault target refuses the pieces that
# are not whole blocks and passes the others to null_blk, whose blocks they
# fill whole only if each piece's memory starts where its sector does in a
# block (null_blk copies in whole blocks; from a buffer placed otherwise
# it leaves part of a block unwritten and writes past its page).
printf '%s\n' "create dmfz0 fault 16384 d0 0" "create dmfz1 fault-dust 16384 m0 0 8192" \
	"suspend dmfz0" "load dmfz0 fault 16384 d1 32768" "resume dmfz0" \
	"io dmfz1 write 3072 53248 - 50" > $T/split.seq
kmsg_mark
out=$("$SF" replay "$T/split.seq" "${disks[@]}" 2>&1)
rc=$?
# the disk's 4 KiB blocks the write reached, as 512-byte sectors: 0 zeroes, 1 data
blocks=$(dd if="$NB4" bs=4096 skip=$((32768 / 8)) count=15 iflag=direct status=none |
	python3 -c 'import sys; b = sys.stdin.buffer.read()
print(" ".join("".join("1" if any(b[i + j:i + j + 512]) else "0" for j in range(0, 4096, 512))
	       for i in range(0, len(b), 4096)))')
expect "a split write to 4 KiB null_blk: refused pieces, the rest whole 4 KiB blocks" \
	"0 1 I/Os (1 failed) 00000000 00000000$(printf ' 11111111%.0s' {1..10}) 00000000 00000000 00000000" \
	"$rc $(echo "$out" | grep -o ' 1 I/Os ([0-9]* failed)' | sed 's/^ //') $blocks"
expect "... the first piece is refused with its reason" \
	"write of 5120 bytes at sector 6 refused: not whole 4096-byte blocks" \
	"$(kmsg_since | grep -o 'write of [0-9]* bytes at sector 6 refused: not whole 4096-byte blocks' | tail -n 1)"

# io_uring: writes and a flush through a ring, read back through a ring and
# checked.
for sz in 512 4096; do
	d=d0
	[ $sz = 4096 ] && d=d1
	printf '%s\n' "create dmfz0 fault 16384 $d 0" "io dmfz0 write 8192 65536 uring 41" \
		"io dmfz0 fua 1048576 4096 uring 42" "io dmfz0 flush 0 4096 uring 43" \
		"io dmfz0 read 8192 65536 uring 44" "io dmfz0 read 1048576 4096 uring 45" \
		"remove dmfz0" > $T/uring.seq
	out=$("$SF" replay "$T/uring.seq" "${disks[@]}" 2>&1)
	if [ $? -eq 0 ] && [[ $out == *" 5 I/Os (0 failed), 5 through io_uring, "* ]] &&
		[[ $out == *" 136 sectors checked"* ]]; then
		ok "reads, writes, FUA and flush through io_uring, data checked ($sz-byte blocks)"
	else
		fail "reads, writes, FUA and flush through io_uring ($sz-byte blocks)" "$out"
	fi
done

# The end of a sequence removes a device whose write-back a stall rule
# below holds: the watchdog releases it, as a user would from another
# shell, and the end does not hang.
printf '%s\n' "create dmfz0 fault 16384 d0 0 1 stall:p=100%" \
	"create dmfz1 fault 16384 m0 0 0 1 cache" "io dmfz1 write 8192 65536 - 46" > $T/stall.seq
# A remove stuck in the kernel cannot be killed: past 120 s the rule is
# removed and its bios released here, and the test fails.
"$SF" replay "$T/stall.seq" "${disks[@]}" > $T/stall.out 2>&1 &
pid=$! hung=
for i in $(seq 120); do
	kill -0 $pid 2>/dev/null || break
	sleep 1
done
if kill -0 $pid 2>/dev/null; then
	hung="hung for 120 s: the stall rule removed and its bios released by the suite"
	dmsetup message dmfz0 0 rule remove 1
	dmsetup message dmfz0 0 release
fi
wait $pid
rc=$?
out=$(cat $T/stall.out)
if [ $rc -eq 0 ] && [ -z "$hung" ] &&
	[[ $out == *"watchdog: 'end: remove dmfz1' waited 10 s"* ]] &&
	[[ $out == *" 1 I/Os (0 failed)"* ]]; then
	ok "a remove whose write-back a stall rule below holds is released at the end"
else
	fail "a remove whose write-back a stall rule below holds is released at the end" \
		"exit $rc $hung" "$out"
fi

# A loaded table longer than its disk fails only as it goes live, and its
# device stays suspended: the watchdog drops that table and resumes the
# live one, and the remove whose write-back waits on the device returns.
printf '%s\n' "create dmfz0 fault 16384 d2 0 0" "create dmfz1 fault 8192 m0 0 0 1 cache" \
	"io dmfz1 write 0 4096 - 5" "suspend dmfz0" "load dmfz0 fault 98304 d2 100 0" \
	"remove dmfz1" > $T/clear.seq
"$SF" replay --hung-seconds 20 "$T/clear.seq" "${disks[@]}" > $T/clear.out 2>&1 &
pid=$!
# past 60 s the suite frees it as the watchdog should have
if ! wait_until 600 eval '! kill -0 $pid 2>/dev/null'; then
	dmsetup clear dmfz0
	dmsetup resume dmfz0
fi
wait $pid
rc=$?
out=$(cat $T/clear.out)
if [ $rc -eq 0 ] && [[ $out == *"watchdog: 'remove dmfz1' waited 10 s"* ]] &&
	[ "$(dmsetup ls 2>/dev/null | grep -c '^dmfz')" = 0 ]; then
	ok "a suspended device whose loaded table cannot go live is resumed with its live one"
else
	fail "a suspended device whose loaded table cannot go live is resumed with its live one" \
		"exit $rc" "$(echo "$out" | grep -v '^# message' | tail -n 8)"
	dmsetup remove dmfz1 2>/dev/null
	dmsetup remove dmfz0 2>/dev/null
fi

# A line the watchdog cannot help is a finding, printed after every blocked
# task's stack and the devices: here a remove whose write-back goes to a disk the fuzzer
# does not own, suspended by the suite.  The suite then resumes the disk
# and the stuck thread returns.
lin=sfzlin
if dmsetup create $lin --table "0 32768 linear $NB 0" && dmsetup suspend $lin; then
	printf '%s\n' "create dmfz0 fault 16384 d0 0 0 1 cache" "io dmfz0 write 8192 65536 - 46" \
		> $T/hang.seq
	# the blocked stacks it prints are asked for, not a kernel problem
	echo "dmf-vm: expected trace begin" > /dev/kmsg
	"$SF" replay --hung-seconds 3 "$T/hang.seq" /dev/mapper/$lin > $T/hang.out 2>&1 &
	pid=$!
	wait_until 600 grep -q "^not ok - hung" $T/hang.out
	dmsetup resume $lin
	wait $pid
	rc=$?
	echo "dmf-vm: expected trace end" > /dev/kmsg
	out=$(cat $T/hang.out)
	if [ $rc -eq 1 ] &&
		[[ $out == *"not ok - hung: 'end: remove dmfz0' has not returned in 13 s"* ]] &&
		echo "$out" | grep -q '^#   blocked: .*dev_remove' &&
		echo "$out" | grep -q "^#   block: dm-$(dmsetup info -c --noheadings -o minor $lin) ($lin) suspended, in flight 0 0"; then
		ok "a line still stuck after the watchdog's help is a hang, shown with the blocked stacks and the devices"
	else
		fail "a line still stuck after the watchdog's help is a hang, shown with the blocked stacks and the devices" \
			"exit $rc" "$(echo "$out" | grep -v '^# message' | tail -n 30)"
	fi
	dmsetup remove dmfz0 2>/dev/null
else
	fail "a line still stuck after the watchdog's help is a hang" "no suspended $lin"
	dmsetup resume $lin 2>/dev/null
fi
dmsetup remove $lin

# The sequences.
echo "# seed $seed, $secs s (replay: SEQFUZZ_SEED=$seed)"
# each sequence's line as it ends, so that a hang shows where it is, and a
# finding's reason (the line after its "not ok") before minimising starts.
# A hung line's thread stays in the kernel, and its process can never be
# waited for: the suite goes on without it.
(cd $T && exec "$SF" run --alloc --minimise --seed "$seed" --lines 150 --seconds "$secs" \
	"${bound[@]}" --out $T/fail.txt "${disks[@]}" > $T/run.out 2>&1) &
sf=$!
exec {follow}< <(tail -n +1 -f --pid=$sf $T/run.out)
follower=$!
hung=
while IFS= read -r -u $follow l; do
	case $l in
	"not ok - hung"*) echo "#   $l"; hung=1; break ;;
	"not ok"*) echo "#   $l"; IFS= read -r -u $follow l && echo "#   $l" ;;
	ok* | "#   watchdog"* | "#   blocked"* | "#   device"* | "#   block:"* | \
	"# minimised"* | "# written"* | \
	"# "[0-9]*" sequences"*)
		echo "#   $l" ;;
	esac
done
kill $follower 2>/dev/null
exec {follow}<&-
if [ -n "$hung" ]; then
	rc=1
else
	wait $sf
	rc=$?
fi
out=$(cat $T/run.out)
if [ $rc -eq 0 ]; then
	ok "$what: no finding"
elif [ -n "$hung" ]; then
	# no sequence written: the process that would write it is stuck
	fail "$what: no finding" "$(echo "$out" | grep '^not ok - hung')" \
		"$(echo "$out" | grep '^# sequence' | tail -n 1) (replay: dmf-seqfuzz run --seed S --sequences 1)" \
		"$(echo "$out" | grep -E '^#   (blocked|device|block:)' | tail -n 240)"
else
	fail "$what: no finding" "$(echo "$out" | grep -A3 '^not ok')" \
		"sequence:" "$(cat $T/fail.txt.min 2>/dev/null || tail -n 20 $T/fail.txt)"
fi
missing=$(echo "$out" | awk '$2 == "message" && $(NF - 2) == 0 {
	n = ""; for (i = 3; i <= NF - 4; i++) n = n (n ? " " : "") $i; print n }')
if [ -z "$missing" ] && echo "$out" | grep -q '^# message'; then
	ok "every message of the target's table was sent"
else
	fail "every message of the target's table was sent" "never sent: $missing"
fi
checked=$(echo "$out" | sed -n 's/.* \([0-9]*\) sectors checked.*/\1/p')
uring=$(echo "$out" | sed -n 's/.* \([0-9]*\) through io_uring.*/\1/p')
within "I/O went through io_uring (${uring:-0} I/Os)" "${uring:-0}" 1 100000000
if [ "${checked:-0}" -gt 0 ]; then
	ok "data was checked ($checked sectors)"
else
	fail "data was checked" "$(echo "$out" | grep '^# [0-9]* sequences')"
fi

expect "no fuzzer device is left" "" "$(dmsetup ls 2>/dev/null | grep '^dmfz')"
losetup -d "$LOOP"
rm -f /dev/shm/sfz.img
nullb_destroy sfz
nullb_destroy sfz4
check "modules unload" dmf_unload
rm -rf "$T"
ktap_end
