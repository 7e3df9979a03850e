#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The fault target: pass-through, each action, matching, statistics, the
# table round trip, messages, and teardown.
. "$(dirname "$0")/../lib.sh"
ktap_begin target

MB=1048576
check "modules load" dmf_load
NB=$(nullb_create nb0 256 1)
check "null_blk device" test -b "$NB"
S=$(dm_size "$NB")

# --- pass-through ---------------------------------------------------------
for dev in "$NB" "${VM_DISKS%% *}"; do
	[ -b "$dev" ] || { skip "pass-through on $dev" "no such disk"; continue; }
	sz=$(dm_size "$dev")
	dm_create pt "0 $sz fault $dev 0"
	dmf-pattern write /dev/mapper/pt 0 $((16 * MB)) 11 65536 >/dev/null
	check "no rule: data written through the device reads back ($dev)" \
		dmf-pattern verify /dev/mapper/pt 0 $((16 * MB)) 11 65536
	check "no rule: the disk holds exactly that data ($dev)" \
		dmf-pattern verify "$dev" 0 $((16 * MB)) 11 65536
	dmsetup remove pt
done

# offset remap: sector 0 of the device is sector 2048 of the disk
dm_create off "0 $((S - 2048)) fault $NB 2048"
dmf-pattern write /dev/mapper/off 0 $MB 12 >/dev/null
check "offset: data lands 2048 sectors in" env DMF_PATTERN_BASE=$((2048 * 512)) \
	dmf-pattern verify "$NB" $((2048 * 512)) $MB 12
dmsetup remove off

# --- failures from below, no rules ----------------------------------------
# A bio no rule took still has its failure counted when the device below
# fails it: end_io's short way out is only for bios that succeeded.
dm_create eb "0 $S error"
dm_create fb "0 $S fault /dev/mapper/eb 0"
check "no rule, failing device below: the device exists" test -b /dev/mapper/fb
refused "no rule, failing device below: a read fails with EIO" "Input/output error" \
	dd if=/dev/mapper/fb of=/dev/null bs=4096 count=1 iflag=direct
refused "no rule, failing device below: a write fails with EIO" "Input/output error" \
	dd if=/dev/zero of=/dev/mapper/fb bs=8192 count=1 oflag=direct
expect "no rule: the failed read and write are counted, with their bytes" \
	"read bios=1 failed=1 failed_bytes=4096 write bios=1 failed=1 failed_bytes=8192" \
	"$(dmsetup message fb 0 stats | awk '$1 == "op" && ($2 == "read" || $2 == "write") {
		printf "%s%s %s %s %s", sep, $2, $3, $5, $6; sep = " " }')"
dmsetup remove fb
dmsetup remove eb

# A bio map sends below as through dm-linear carries its class and size to
# end_io in the clone, not in per-bio data; end_io takes the long way while
# a bio a rule took is in flight.  Here a stall rule holds a read, the rule
# is removed, and bios that map then passes straight through complete, one
# failing below, while the held read keeps end_io on the long way.
dm_create eb "0 $S fault $NB 0 1 error:op=read,sectors=0-7"
dm_create fb "0 $S fault /dev/mapper/eb 0 1 stall:op=read,sectors=2048-2055"
check "held read, rule gone: the device exists" test -b /dev/mapper/fb
dd if=/dev/mapper/fb of=/dev/null bs=4096 count=1 skip=256 iflag=direct status=none &
pid=$!
sleep 1
expect "held read, rule gone: the read is held" "held 1" \
	"$(dmsetup message fb 0 stats | head -n 1)"
check "held read, rule gone: the stall rule is removed" dmsetup message fb 0 rule remove 1
expect "held read, rule gone: no rule left" "" "$(dmsetup message fb 0 rule list)"
refused "held read, rule gone: a read failing below fails with EIO" "Input/output error" \
	dd if=/dev/mapper/fb of=/dev/null bs=8192 count=1 iflag=direct
check "held read, rule gone: a read that succeeds below" \
	dd if=/dev/mapper/fb of=/dev/null bs=4096 count=1 skip=8 iflag=direct status=none
check "held read, rule gone: a 16k write" \
	dd if=/dev/zero of=/dev/mapper/fb bs=16384 count=1 oflag=direct status=none
check "held read, rule gone: the read is still held" kill -0 $pid
dmsetup message fb 0 release
wait $pid
expect "held read, rule gone: the released read completes" 0 $?
expect "held read, rule gone: each bio counted once, the failure with its bytes" \
	"read bios=3 failed=1 failed_bytes=8192 write bios=1 failed=0 failed_bytes=0" \
	"$(dmsetup message fb 0 stats | awk '$1 == "op" && ($2 == "read" || $2 == "write") {
		printf "%s%s %s %s %s", sep, $2, $3, $5, $6; sep = " " }')"
expect "held read, rule gone: nothing left held" "held 0" \
	"$(dmsetup message fb 0 stats | head -n 1)"
dmsetup remove fb
dmsetup remove eb

# The same count on a disk of 4 KiB sectors, for a read of 1 MiB, which
# may reach the target as several bios: each fails below, and the failed
# bytes add up to the read.
NB4=$(nullb_create nb4k 64 1 4096)
check "4k sectors: a null_blk disk of 4 KiB sectors" test "$(blockdev --getss "$NB4")" = 4096
S4=$(dm_size "$NB4")
dm_create eb "0 $S4 fault $NB4 0 1 error:op=read,sectors=0-8191"
dm_create fb "0 $S4 fault /dev/mapper/eb 0"
check "4k sectors, no rule: the device exists" test -b /dev/mapper/fb
refused "4k sectors, no rule: a 1 MiB read failing below fails with EIO" "Input/output error" \
	dd if=/dev/mapper/fb of=/dev/null bs=1M count=1 iflag=direct
st=$(dmsetup message fb 0 stats | awk '$1 == "op" && $2 == "read" {print $3, $4, $5, $6}')
n=$(echo "$st" | sed -n 's/^bios=\([0-9]*\) .*/\1/p')
check "4k sectors, no rule: the read reached the target" test "${n:-0}" -ge 1
expect "4k sectors, no rule: every bio of the read failed, with all its bytes" \
	"bios=$n bytes=1048576 failed=$n failed_bytes=1048576" "$st"
dmsetup remove fb
dmsetup remove eb
nullb_destroy nb4k

# --- a device below that grows its logical blocks ------------------------
# dm stacks queue limits at a table load: a device stacked on another keeps
# 512-byte blocks when the one below is reloaded onto a disk of 4 KiB.  A
# fault device fails a bio that is not whole blocks of its device below,
# with the reason.  The disk of 4 KiB here is a loop device, which fails
# such a write itself where null_blk would write past its page: the
# target's refusal is told from the loop's by the reason logged.
growing_blocks() {
	local LS=131072

	# the fault device in the middle, dm-linear above it
	dm_create ga "0 $LS fault $NB 0"
	dm_create gc "0 $LS linear /dev/mapper/ga 0"
	check "growing blocks: the middle device is reloaded onto the 4 KiB disk" \
		dmsetup reload ga --table "0 $LS fault $L4 0"
	check "growing blocks: and resumed" dmsetup resume ga
	expect "growing blocks: 4 KiB blocks in the middle, 512 bytes above" "4096 512" \
		"$(blockdev --getss /dev/mapper/ga) $(blockdev --getss /dev/mapper/gc)"
	refused "growing blocks: a write of 4 KiB at sector 6 from above is refused" \
		"fault: [0-9]+:[0-9]+: write of 4096 bytes at sector 6 refused: not whole 4096-byte blocks of ${L4#/dev/}" \
		dd if=/dev/zero of=/dev/mapper/gc bs=4096 seek=3072 count=1 oflag=direct,seek_bytes status=none
	check "growing blocks: a write of whole blocks from above goes through" \
		dd if=/dev/zero of=/dev/mapper/gc bs=4096 seek=1 count=1 oflag=direct status=none
	expect "growing blocks: the refused write counted as a failed write" \
		"bios=2 bytes=8192 failed=1 failed_bytes=4096" \
		"$(dmsetup message ga 0 stats | awk '$1 == "op" && $2 == "write" {print $3, $4, $5, $6}')"
	dmsetup remove gc
	dmsetup remove ga
	# the fault device on top, dm-linear below it
	dm_create ga "0 $LS linear $NB 0"
	dm_create gc "0 $LS fault /dev/mapper/ga 0 1 error:op=write,p=100%"
	dmsetup reload ga --table "0 $LS linear $L4 0" && dmsetup resume ga
	expect "growing blocks: 4 KiB blocks below the fault device, 512 bytes in it" "4096 512" \
		"$(blockdev --getss /dev/mapper/ga) $(blockdev --getss /dev/mapper/gc)"
	refused "growing blocks: the fault device on top refuses before its rules" \
		"fault: [0-9]+:[0-9]+: write of 512 bytes at sector 7 refused: not whole 4096-byte blocks of dm-[0-9]+" \
		dd if=/dev/zero of=/dev/mapper/gc bs=512 seek=7 count=1 oflag=direct status=none
	expect "growing blocks: the rule did not act on the refused write" "injected=0" \
		"$(dmsetup message gc 0 stats | awk '/^rule 1/ {print $7}')"
	dmsetup remove gc
	dmsetup remove ga
	# the fault device on top with a write cache: a block it cached while
	# the disk below took 512-byte blocks is not written back as a piece
	# of a 4 KiB one; the flush fails with the reason
	dm_create ga "0 $LS linear $NB 0"
	dm_create gc "0 $LS fault /dev/mapper/ga 0 0 1 cache"
	check "growing blocks: a write of 512 bytes at sector 7 is cached" \
		dd if=/dev/urandom of=/dev/mapper/gc bs=512 seek=7 count=1 oflag=direct status=none
	dmsetup reload ga --table "0 $LS linear $L4 0" && dmsetup resume ga
	refused "growing blocks: its write-back to the 4 KiB disk is refused, and the flush fails" \
		"fault: [0-9]+:[0-9]+: write-back of 512 bytes at sector 7 refused: not whole 4096-byte blocks of dm-[0-9]+" \
		dd if=/dev/zero of=/dev/mapper/gc bs=512 count=0 conv=fsync status=none
	expect "growing blocks: the block stays cached" 1 \
		"$(cache_field gc 2)"
	dmsetup remove gc
	dmsetup remove ga
}
modprobe loop 2>/dev/null
truncate -s 64M /dev/shm/lbs4k.img
L4=$(losetup -f --show --sector-size 4096 /dev/shm/lbs4k.img)
if [ -b "$L4" ] && [ "$(blockdev --getss "$L4")" = 4096 ]; then
	ok "growing blocks: a loop disk of 4 KiB sectors"
	growing_blocks
	losetup -d "$L4"
else
	fail "growing blocks: a loop disk of 4 KiB sectors" "loop device: '$L4'"
fi
rm -f /dev/shm/lbs4k.img

# --- error rule at a rate ------------------------------------------------
dm_create er "0 $S fault $NB 0 1 error:op=read,p=1%,seed=99"
fio --name=r --filename=/dev/mapper/er --rw=randread --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=16 --number_ios=20000 --size=200M \
	--continue_on_error=all --randseed=1 --output=/dev/null >/dev/null 2>&1
st=$(dmsetup message er 0 stats)
matched=$(echo "$st" | awk '/^rule 1/ {sub("matched=", "", $6); print $6}')
injected=$(echo "$st" | awk '/^rule 1/ {sub("injected=", "", $7); print $7}')
failed=$(echo "$st" | awk '/^op read/ {sub("failed=", "", $5); print $5}')
# fio does not count failed I/Os against number_ios: it reads until 20000 succeed
within "1% rule: reads evaluated" "$matched" 20000 20500
# binomial with p = 0.01: 5 standard deviations either side of the mean
lo=$(awk -v n="$matched" 'BEGIN {m = n * 0.01; printf "%d", m - 5 * sqrt(m * 0.99)}')
hi=$(awk -v n="$matched" 'BEGIN {m = n * 0.01; printf "%d", m + 5 * sqrt(m * 0.99) + 1}')
within "1% rule: injected within 5 sigma of 1% of $matched" "$injected" "$lo" "$hi"
expect "failed reads equal injected faults" "$injected" "$failed"
dmsetup remove er

# --- seed reproducibility ------------------------------------------------
# A rule draws from one stream: the same seed and the same bios, in the
# same order, fail the same bios on whichever CPUs they are submitted.
# With streams=percpu each CPU has a stream of its own: the same seed and
# the same bios on each CPU fail the same bios, whatever the other CPUs do
# meanwhile.
# seed_run SEED KEYS CPU...: one psync reader pinned to each CPU, 1000
# blocks of a region of its own each, under a rule with the extra KEYS;
# prints the reads the target saw (bios=N), then the failing sectors, sorted.
seed_run() {
	local seed=$1 keys=$2 cpu jobs=()

	shift 2
	for cpu; do
		jobs+=(--name=s$cpu --cpus_allowed=$cpu --offset=$((cpu * 64))M)
	done
	dm_create sd "0 $S fault $NB 0 1 error:op=read,p=2%,seed=$seed$keys"
	fio --filename=/dev/mapper/sd --rw=read --bs=4k --direct=1 --ioengine=psync \
		--number_ios=1000 --size=32M --continue_on_error=all --output=/dev/null \
		"${jobs[@]}" >/dev/null 2>&1
	dmsetup message sd 0 stats | awk '$1 == "op" && $2 == "read" {print $3}'
	dmsetup message sd 0 log | awk '{print $3}' | sort -n
	dmsetup remove sd
}
a=$(seed_run 4242 "" 0 | tr '\n' ' ')
b=$(seed_run 4242 "" 0 | tr '\n' ' ')
n=$(($(echo "$a" | wc -w) - 1))
# fio counts 1000 good reads; each failed one adds a read
expect "seed: the target saw the pinned reader's reads" "bios=$((1000 + n))" "${a%% *}"
within "seed: faults in 1000 reads at 2% (the log keeps 64)" "$n" 5 63
expect "seed: same seed, one pinned reader: same failing sectors" "$a" "$b"
a=$(seed_run 4242 ,streams=percpu 0 1 | tr '\n' ' ')
b=$(seed_run 4242 ,streams=percpu 0 1 | tr '\n' ' ')
c=$(seed_run 4243 ,streams=percpu 0 1 | tr '\n' ' ')
n=$(($(echo "$a" | wc -w) - 1))
expect "seed, percpu: the target saw both readers' reads" "bios=$((2000 + n))" "${a%% *}"
within "seed, percpu: faults in 2 x 1000 reads at 2% (the log keeps 64)" "$n" 10 63
expect "seed, percpu: same seed, readers on two CPUs at once: same failing sectors" "$a" "$b"
check "seed, percpu: another seed, other failing sectors" test "$a" != "$c"

# One dd on a disk, pinned to CPU 0, to CPU 1, and moved between them while
# it runs: with the rule's one stream the same reads fail each time; with
# a stream a CPU, CPU 0 and CPU 1 fail other reads.
# dd_run KEYS WHERE: 2048 sequential 4 KiB O_DIRECT reads through a fault
# device over the first disk, error:op=read,p=3%,seed=424242 and KEYS;
# WHERE is a CPU, or "moved": the affinity switched between CPUs 0 and 1
# every 20 ms.  Prints the CPUs the reader was seen on (moved only), the
# faults injected, then the failing sectors in the order of the log.
dd_run() {
	local keys=$1 where=$2 disk=${VM_DISKS%% *} pid cpus=''

	dm_create sd "0 $(dm_size "$disk") fault $disk 0 1 error:op=read,p=3%,seed=424242$keys"
	taskset -c "${where/moved/0}" dd if=/dev/mapper/sd of=/dev/null bs=4096 count=2048 \
		iflag=direct conv=noerror status=none 2>/dev/null &
	pid=$!
	if [ "$where" = moved ]; then
		while kill -0 "$pid" 2>/dev/null; do
			for cpu in 1 0; do
				taskset -p -c $cpu "$pid" >/dev/null 2>&1
				sleep 0.02
				cpus+=" $(ps -o psr= -p "$pid" 2>/dev/null)"
			done
		done
		echo "$cpus" | tr ' ' '\n' | grep . | sort -nu | paste -sd+
	fi
	wait "$pid"
	dmsetup message sd 0 stats | awk '/^rule 1/ {print $7}'
	dmsetup message sd 0 log | awk '{print $3}'
	dmsetup remove sd
}
if [ "$(nproc)" -lt 2 ] || [ ! -b "${VM_DISKS%% *}" ]; then
	skip "seed: one dd moved between CPUs replays" "needs 2 CPUs and a disk"
else
	a=$(dd_run "" 0 | tr '\n' ' ')
	b=$(dd_run "" 1 | tr '\n' ' ')
	m=$(dd_run "" moved | tr '\n' ' ')
	n=$(($(echo "$a" | wc -w) - 1))
	within "seed: faults in 2048 reads at 3% (the log keeps 64)" "$n" 20 64
	expect "seed: one dd on CPU 0, then on CPU 1: same failing sectors" "$a" "$b"
	expect "seed: the moved dd ran on CPUs 0 and 1" "0+1" "${m%% *}"
	expect "seed: one dd moved between CPUs: same failing sectors" "$a" "${m#* }"
	a=$(dd_run ,streams=percpu 0 | tr '\n' ' ')
	b=$(dd_run ,streams=percpu 1 | tr '\n' ' ')
	check "seed, percpu: one dd on CPU 0, then on CPU 1: other failing sectors" \
		test "$a" != "$b"
fi

# --- table round trip ----------------------------------------------------
t1="0 $S fault $NB 0 4 error:op=read+flush,sectors=8-15,status=enospc,p=0.1%,times=5,seed=1 drop:size=4k-64k,interval=3,seed=2 corrupt:op=write,bits=3,p=1/3,seed=3 delay:op=write,delay=2ms,jitter=500us,dist=exp,enabled=0,seed=4"
dm_create rt "$t1"
dmsetup table rt > /tmp/rt.table
dmsetup remove rt
dmsetup create rt2 < /tmp/rt.table
expect "table: printed line recreates the same table" "$(cat /tmp/rt.table)" \
	"$(dmsetup table rt2)"
expect "table: rule list matches" "4" "$(dmsetup message rt2 0 rule list | wc -l)"
dmsetup remove rt2

# --- bad tables ----------------------------------------------------------
# bad NAME REASON TABLE: refused, with the fault constructor's REASON logged
bad() {
	dm_refused "bad table rejected: $1" fault "$2" "$3"
}
bad "unknown action" "Unknown rule action" "0 $S fault $NB 0 1 explode"
bad "unknown key" "Unknown rule key" "0 $S fault $NB 0 1 error:colour=red"
bad "p over 100%" "Invalid value in rule" "0 $S fault $NB 0 1 error:p=101"
bad "rule count mismatch" "Rule count does not match the rules given" \
	"0 $S fault $NB 0 2 error"
bad "drop on reads" "drop applies to write, flush, discard and write-zeroes only" \
	"0 $S fault $NB 0 1 drop:op=read"
bad "negative offset" "Invalid device sector" "0 $S fault $NB -1"
bad "missing device" "Device lookup failed" "0 $S fault /dev/nonexistent 0"
bad "empty value" "Rule arguments are key=value" "0 $S fault $NB 0 1 error:p="
bad "inverted range" "Invalid value in rule" "0 $S fault $NB 0 1 error:sectors=9-3"
bad "error status ok" "error needs a failing status" "0 $S fault $NB 0 1 error:status=ok"
bad "rule too long" "Rule too long" \
	"0 $S fault $NB 0 1 error:$(printf 'p=1,%.0s' $(seq 80))p=1"

# --- error statuses ------------------------------------------------------
dm_create st "0 $S fault $NB 0 1 error:op=write,status=enospc"
out=$(dmf-pattern write /dev/mapper/st 0 4096 1)
expect "status=enospc reaches the caller" "error=28 (No space left on device) at=0" "$out"
dmsetup message st 0 rule replace 1 error:op=read,status=medium
out=$(dmf-pattern verify /dev/mapper/st 0 4096 1)
expect "status=medium reaches the caller as ENODATA" \
	"error=61 (No data available) at=0" "$out"
dmsetup message st 0 rule replace 1 error:op=read,status=etimedout
out=$(dmf-pattern verify /dev/mapper/st 0 4096 1)
expect "status=etimedout reaches the caller" "error=110 (Connection timed out) at=0" "$out"
dmsetup remove st

# --- drop ----------------------------------------------------------------
dmf-pattern write "$NB" 0 $MB 20 >/dev/null
dm_create dr "0 $S fault $NB 0 1 drop:sectors=256-511"
check "drop: the write is acknowledged" dmf-pattern write /dev/mapper/dr 0 $MB 21
check "drop: outside the range the new data landed" dmf-pattern verify "$NB" 0 $((128 * 1024)) 21
check "drop: inside the range the old data stayed" \
	dmf-pattern verify "$NB" $((128 * 1024)) $((128 * 1024)) 20
check "drop: after the range the new data landed" \
	dmf-pattern verify "$NB" $((256 * 1024)) $((768 * 1024)) 21
dmsetup remove dr

# --- corrupt -------------------------------------------------------------
dmf-pattern write "$NB" 0 $MB 30 >/dev/null
dm_create cr "0 $S fault $NB 0 1 corrupt:op=read,byte=0,offset=100,sectors=0-7,seed=5"
out=$(dmf-pattern verify /dev/mapper/cr 0 4096 30)
expect "corrupt read byte: exactly byte 100 differs" "bytes=1 bits=$(
	dmf-pattern verify "$NB" 0 4096 30 >/dev/null; dd if="$NB" bs=1 skip=100 count=1 \
	status=none | od -An -tu1 | awk '{n=0; for (v=$1; v; v=int(v/2)) n+=v%2; print n}') first=100" "$out"
check "corrupt read: the disk is untouched" dmf-pattern verify "$NB" 0 $MB 30
dmsetup message cr 0 rule replace 1 corrupt:op=read,bits=3,sectors=0-7,seed=5
out=$(dmf-pattern verify /dev/mapper/cr 0 4096 30)
expect "corrupt read bits=3: three bits differ" "3" "$(echo "$out" | sed 's/.*bits=\([0-9]*\).*/\1/')"
dmsetup message cr 0 rule replace 1 corrupt:op=write,bits=5,sectors=0-7,seed=6
check "corrupt write: acknowledged" dmf-pattern write /dev/mapper/cr 0 4096 31
out=$(dmf-pattern verify "$NB" 0 4096 31)
expect "corrupt write bits=5: five bits differ on disk" "5" \
	"$(echo "$out" | sed 's/.*bits=\([0-9]*\).*/\1/')"
check "corrupt write: the next block is untouched" dmf-pattern verify "$NB" 4096 4096 30
dmsetup remove cr

# --- torn ----------------------------------------------------------------
dmf-pattern write "$NB" 0 $MB 40 >/dev/null
dm_create tw "0 $S fault $NB 0 1 torn:keep=8,sectors=0-127"
out=$(dmf-pattern write /dev/mapper/tw 0 65536 41 65536)
expect "torn write fails with EIO" "error=5 (Input/output error) at=0" "$out"
check "torn: the first 8 sectors landed" dmf-pattern verify "$NB" 0 4096 41
check "torn: the rest did not" dmf-pattern verify "$NB" 4096 $((65536 - 4096)) 40
dmsetup message tw 0 rule replace 1 torn:keep=3,status=ok,sectors=0-127
check "torn status=ok: the write succeeds" dmf-pattern write /dev/mapper/tw 0 65536 42 65536
check "torn status=ok: only 3 sectors landed" dmf-pattern verify "$NB" 0 1536 42 512
check "torn status=ok: the rest kept old data" dmf-pattern verify "$NB" 1536 $((4096 - 1536)) 41 512
check "torn status=ok: and beyond the first tear too" dmf-pattern verify "$NB" 4096 $((65536 - 4096)) 40
dmsetup remove tw

# --- skip and times ------------------------------------------------------
dm_create sk "0 $S fault $NB 0 1 error:op=read,skip=3,times=1"
res=
for i in 1 2 3 4 5; do
	if dd if=/dev/mapper/sk of=/dev/null bs=4k count=1 skip=$i iflag=direct status=none \
		2>/dev/null; then res="${res}p"; else res="${res}F"; fi
done
expect "skip=3,times=1: three pass, one fails, then pass" "pppFp" "$res"
dmsetup remove sk

# --- delay ---------------------------------------------------------------
dm_create dl "0 $S fault $NB 0 1 delay:op=read,delay=40ms"
lat=$(fio --name=d --filename=/dev/mapper/dl --rw=randread --bs=4k --direct=1 \
	--ioengine=psync --number_ios=20 --size=10M --output-format=terse --terse-version=3 \
	2>/dev/null | awk -F';' '{print int($16 / 1000)}')
within "delay=40ms: mean read completion latency in ms" "$lat" 40 400
dmsetup message dl 0 rule replace 1 delay:op=read,jitter=20ms,dist=uniform,delay=10ms
lat=$(fio --name=d --filename=/dev/mapper/dl --rw=randread --bs=4k --direct=1 \
	--ioengine=psync --number_ios=40 --size=10M --output-format=terse --terse-version=3 \
	2>/dev/null | awk -F';' '{print int($16 / 1000)}')
within "delay 10ms + uniform 0-20ms: mean latency in ms" "$lat" 15 300
dmsetup remove dl

# --- stall, release, suspend ---------------------------------------------
dm_create sl "0 $S fault $NB 0 1 stall:op=read,sectors=0-7"
dd if=/dev/mapper/sl of=/dev/null bs=4k count=1 iflag=direct status=none &
pid=$!
sleep 1
expect "stall: the read is held" "held 1" "$(dmsetup message sl 0 stats | head -n 1)"
check "stall: reader still waiting" kill -0 $pid
dmsetup message sl 0 release 1
wait $pid
expect "stall: released read completes successfully" 0 $?
dd if=/dev/mapper/sl of=/dev/null bs=4k count=1 iflag=direct status=none &
pid=$!
sleep 1
dmsetup suspend sl
wait $pid
expect "stall: suspend releases held bios" 0 $?
dmsetup resume sl
# Two releases at once, each of its own rule's stalls: neither may be lost
# (as it would be if both went through one field, the second overwriting
# the first).
dmsetup message sl 0 rule add stall:op=read,sectors=8-15 >/dev/null
lost=0
for i in $(seq 15); do
	dd if=/dev/mapper/sl of=/dev/null bs=4k count=1 iflag=direct status=none &
	p1=$!
	dd if=/dev/mapper/sl of=/dev/null bs=4k skip=1 count=1 iflag=direct status=none &
	p2=$!
	wait_until 50 held_is sl 2
	dmsetup message sl 0 release 1 &
	r1=$!
	dmsetup message sl 0 release 2 &
	wait $r1 $!
	timeout 10 tail --pid=$p1 -f /dev/null && timeout 10 tail --pid=$p2 -f /dev/null ||
		{ lost=$((lost + 1)); dmsetup message sl 0 release; }
	wait $p1 $p2
done
expect "stall: two releases at once, 15 rounds: none lost" 0 "$lost"
dmsetup message sl 0 rule remove 2
dmsetup message sl 0 rule replace 1 stall:op=read,sectors=0-7,timeout=300ms
check "stall timeout=300ms: the read completes by itself" \
	timeout 20 dd if=/dev/mapper/sl of=/dev/null bs=4k count=1 iflag=direct status=none
dmsetup remove sl

# --- an interrupted suspend: the rules hold bios again ---------------------
# The disk below (a linear device) is suspended, so a write in flight keeps
# the fault device's suspend waiting; a signal (SIGTERM: a background job
# ignores SIGINT) ends that suspend, dm undoes it, and a stall rule must hold
# the next read (without presuspend_undo it would pass to the suspended disk
# below: "held 0").
dm_create lo "0 $S linear $NB 0"
dm_create up "0 $S fault /dev/mapper/lo 0 1 stall:op=read,sectors=0-7"
dmsetup suspend lo
dd if=/dev/zero of=/dev/mapper/up bs=4k seek=16 count=1 oflag=direct status=none &
wpid=$!
# the write has passed our map (counted) and waits below before the suspend
write_counted() {
	dmsetup message up 0 stats | grep -q '^op write bios=1 '
}
wait_until 100 write_counted
dmsetup suspend up &
spid=$!
check "interrupted suspend: the suspend is waiting for the write" \
	wait_until 100 grep -qs dm_suspend /proc/$spid/stack
kill -TERM $spid
check "interrupted suspend: the signal ends it" timeout 20 tail --pid=$spid -f /dev/null
kill -KILL $spid 2>/dev/null
wait $spid
expect "interrupted suspend: the device is live" Active \
	"$(dmsetup info -c --noheadings -o suspended up)"
dd if=/dev/mapper/up of=/dev/null bs=4k count=1 iflag=direct status=none &
rpid=$!
wait_until 50 held_is up 1
expect "interrupted suspend: a stall rule holds the read again" "held 1" \
	"$(dmsetup message up 0 stats | head -n 1)"
dmsetup resume up	# a no-op when the suspend was undone; else no hang below
dmsetup resume lo
dmsetup message up 0 release 1
wait $wpid
expect "interrupted suspend: the write completes after the disk resumes" 0 $?
wait $rpid
expect "interrupted suspend: the released read completes" 0 $?
dmsetup remove up
dmsetup remove lo

# --- messages --------------------------------------------------------------
dm_create ms "0 $S fault $NB 0 1 error:op=read,sectors=100-200"
before=$(dmsetup message ms 0 rule list)
check "messages: device ms exists" dm_exists ms
# MESSAGE|REASON: what the kernel logs ("rule" alone: nothing, only EINVAL)
while IFS='|' read -r m why; do
	# shellcheck disable=SC2086
	refused "malformed message rejected: $m" "$why" dmsetup message ms 0 $m
done <<'EOM'
rule add bogus|fault: [0-9]+:[0-9]+: rule add 'bogus': Unknown rule action
rule remove 99|fault: [0-9]+:[0-9]+: rule remove '99': No rule with that id
rule remove x|fault: [0-9]+:[0-9]+: rule remove 'x': Invalid rule id
rule enable|fault: [0-9]+:[0-9]+: rule enable 'enable': Invalid rule message
frobnicate|fault: [0-9]+:[0-9]+: unrecognised message 'frobnicate'
rule replace 1 error:p=200|fault: [0-9]+:[0-9]+: rule replace 'error:p=200': Invalid value in rule
rule add error:id=1|fault: [0-9]+:[0-9]+: rule add 'error:id=1': Rule id already in use
release 0|fault: [0-9]+:[0-9]+: release: invalid rule id '0'
rule|message ioctl on ms +failed: Invalid argument
EOM
expect "rules unchanged after malformed messages" "$before" "$(dmsetup message ms 0 rule list)"
id=$(dmsetup message ms 0 rule add error:op=write,sectors=0-7)
expect "rule add returns the next id" 2 "$id"
dmsetup message ms 0 rule disable 2
check "disabled rule does not fire" dmf-pattern write /dev/mapper/ms 0 4096 1
dmsetup message ms 0 rule enable 2
io_fails "enabled rule fires" ms "error=5 (Input/output error)" \
	dmf-pattern write /dev/mapper/ms 0 4096 1
dmsetup message ms 0 rule remove 2
check "removed rule no longer fires" dmf-pattern write /dev/mapper/ms 0 4096 1
# a rule on every sector and size is tested by its operation alone: its
# switch must still count
id=$(dmsetup message ms 0 rule add error:op=write)
check "disable a rule on every sector" dmsetup message ms 0 rule disable "$id"
check "disabled rule on every sector does not fire" dmf-pattern write /dev/mapper/ms 0 4096 1
check "enable it again" dmsetup message ms 0 rule enable "$id"
io_fails "enabled rule on every sector fires" ms "error=5 (Input/output error)" \
	dmf-pattern write /dev/mapper/ms 0 4096 1
dmsetup message ms 0 rule remove "$id"
dmsetup message ms 0 reset
expect "reset clears the counters" "rule 1 action=error enabled=1 seen=0 matched=0 injected=0" \
	"$(dmsetup message ms 0 stats | grep '^rule 1' | sed 's/ seed=.*//')"
expect "status: the stats reply's rule and held counters, as words, no cache, no bad map" \
	"$(dmsetup message ms 0 stats | awk '/^rule 1/ {sub("seed=", "", $8); s = $8}
		/^held/ {h = $2} END {print "1:0:0:0:error:1:" s, h, "-", "-"}')" \
	"$(dmsetup status ms | awk '{print $(NF - 3), $(NF - 2), $(NF - 1), $NF}')"
dmsetup remove ms

# --- seen: bios a rule was consulted for, skipped ones included -----------
# seen RULE: the rule's seen count from the stats reply
seen() {
	dmsetup message sn 0 stats | awk -v r="$1" '$1 == "rule" && $2 == r {sub("seen=", "", $5); print $5}'
}
rd() {
	dd if=/dev/mapper/sn of=/dev/null bs=4k count=1 skip="$1" iflag=direct status=none 2>/dev/null
}
dm_create sn "0 $S fault $NB 0 1 error:op=write,sectors=0-7"
for i in 1 2 3 4; do rd $((i * 8)); done
expect "seen: reads the set's bounds skip are seen by its rule" 4 "$(seen 1)"
dmsetup message sn 0 rule add error:op=read,sectors=8-15 >/dev/null
rd 16
rd 24
rd 1
expect "seen: a rule added later sees only what came after it" 3 "$(seen 2)"
expect "seen: a rule keeps what it saw across a rule change" 7 "$(seen 1)"
dmsetup message sn 0 rule remove 2
rd 16
expect "seen: and across the removal of another rule" 8 "$(seen 1)"
dmsetup remove sn

# --- the walk: rules settled in map's scan, then the rest of the walk -----
# A p=0 rule on every bio is settled without the engine; the rule after it,
# on sectors 8-15, goes to the engine and takes the read it matches.  Their
# counters are those of a whole walk; with the p=0 rule gone, the bounds
# (the second rule's sectors) rule out the reads outside them.
# hw RULE: "seen matched injected" of a rule
hw() {
	dmsetup message hw 0 stats | awk -v r="$1" '$1 == "rule" && $2 == r {
		print $5, $6, $7 }'
}
dm_create hw "0 $S fault $NB 0 2 error:p=0 error:op=read,sectors=8-15"
check "walk: device hw exists" test -b /dev/mapper/hw
hw_rc=""
for b in 0 2 3 1; do
	dd if=/dev/mapper/hw of=/dev/null bs=4k count=1 skip=$b iflag=direct status=none 2>/dev/null
	hw_rc+="$? "
done
expect "walk: only the read of sectors 8-15 fails" "0 0 0 1 " "$hw_rc"
check "walk: a write to sectors 8-15 goes through" \
	dd if=/dev/zero of=/dev/mapper/hw bs=4k count=1 seek=1 oflag=direct status=none
expect "walk: the p=0 rule saw and evaluated every bio, fired on none" \
	"seen=5 matched=5 injected=0" "$(hw 1)"
expect "walk: the range rule saw every bio, matched and failed the one read" \
	"seen=5 matched=1 injected=1" "$(hw 2)"
dmsetup message hw 0 rule remove 1
dd if=/dev/mapper/hw of=/dev/null bs=4k count=1 iflag=direct status=none
hw_rc=$?
dd if=/dev/mapper/hw of=/dev/null bs=4k count=1 skip=1 iflag=direct status=none 2>/dev/null
expect "walk: with the p=0 rule gone, a read outside the bounds passes, one in fails" \
	"0 1" "$hw_rc $?"
expect "walk: the range rule saw both, matched and failed the second" \
	"seen=7 matched=2 injected=2" "$(hw 2)"
dmsetup remove hw

# --- FUA and flush rules: a write with O_DSYNC is FUA, an fsync an empty flush
# (on a disk with a write-back cache: without one the block layer strips both)
VD=${VM_DISKS%% *}
if [ -b "$VD" ]; then
	sz=$(dm_size "$VD")
	dm_create fu "0 $sz fault $VD 0 1 error:op=fua,sectors=0-7"
	wc=$(cat "/sys/block/$(dmsetup info -c -o blkdevname --noheadings fu)/queue/write_cache")
fi
if [ ! -b "$VD" ] || [ "$wc" != "write back" ]; then
	skip "FUA and flush rules" "no disk with a write-back cache (${wc:-no disk})"
else
	check "fua rule: a direct write without O_DSYNC goes through" \
		dd if=/dev/zero of=/dev/mapper/fu bs=4k count=1 oflag=direct status=none
	refused "fua rule: a direct write with O_DSYNC (FUA) fails" "Input/output error" \
		dd if=/dev/zero of=/dev/mapper/fu bs=4k count=1 oflag=direct,dsync status=none
	check "fua rule: a FUA write outside its sectors goes through" \
		dd if=/dev/zero of=/dev/mapper/fu bs=4k count=1 seek=1 oflag=direct,dsync status=none
	dmsetup remove fu
	dm_create fl "0 $sz fault $VD 0 1 error:op=flush"
	check "flush rule: a direct write goes through" \
		dd if=/dev/zero of=/dev/mapper/fl bs=4k count=1 oflag=direct status=none
	refused "flush rule: the fsync after a write (an empty flush) fails" \
		"fsync failed.*Input/output error" \
		dd if=/dev/zero of=/dev/mapper/fl bs=4k count=1 oflag=direct conv=fsync status=none
	expect "flush rule: one flush injected" "injected=1" \
		"$(dmsetup message fl 0 stats | awk '$1 == "rule" {print $7}')"
	dmsetup remove fl
fi
[ -e /dev/mapper/fu ] && dmsetup remove fu

# --- verbose: a rule's faults in the kernel log ----------------------------
dm_create vb "0 $S fault $NB 0 2 error:op=read,sectors=0-7,verbose=1,seed=5 error:op=read,sectors=8-15,seed=6"
check "verbose: device vb exists" test -b /dev/mapper/vb
kmsg_mark
vb_err=$(dd if=/dev/mapper/vb of=/dev/null bs=4k count=1 iflag=direct status=none 2>&1)
vb_rc=$?
vb_err+=$'\n'$(dd if=/dev/mapper/vb of=/dev/null bs=4k count=1 skip=1 iflag=direct status=none 2>&1)
vb_rc+=" $?"
expect "verbose: a read each rule fails, with EIO" "1 1 2" \
	"$vb_rc $(grep -c 'Input/output error' <<<"$vb_err")"
vb_dev=$(dmsetup info -c --noheadings -o major,minor --separator : vb)
expect "verbose: one line, for the verbose rule's fault, named by the device" \
	"dmf: $vb_dev: injecting fault (probability 1/1, interval 1, times left -1, seed 5)" \
	"$(kmsg_since | grep -o 'dmf: .*injecting fault.*')"
dmsetup remove vb

# --- tracepoint ------------------------------------------------------------
T=/sys/kernel/tracing
if [ -d $T/events/dm_fault/fault_inject ]; then
	dm_create tp "0 $S fault $NB 0 1 error:op=read,sectors=0-7"
	echo 1 > $T/events/dm_fault/fault_inject/enable
	echo > $T/trace
	dd if=/dev/mapper/tp of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null
	echo 0 > $T/events/dm_fault/fault_inject/enable
	check "tracepoint: one event per injection" grep -q "rule=1 action=error op=read sector=0 bytes=4096 error=-5" $T/trace
	dmsetup remove tp
else
	fail "tracepoint dm_fault/fault_inject exists"
fi

# --- teardown ----------------------------------------------------------------
dm_cleanup
nullb_destroy nb0
check "modules unload" dmf_unload
ktap_end
