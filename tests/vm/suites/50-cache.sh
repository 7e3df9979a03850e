#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The volatile write cache (power-cut mode): writes complete when cached,
# reads see them, flush and FUA make them durable, a crash loses what the
# policy says and lists it, same seed = same crash, triggers, limits, and
# filesystems that fsync keep what they fsynced.
. "$(dirname "$0")/../lib.sh"
ktap_begin cache

BIN=$top/tests/vm/bin
REGION=2048			# sectors the direct-I/O checker writes in
NW=$(by_length 600 250)		# writes per checker run
SEEDS=$(by_length "1 2 3 4 5 6 7 8" "1 2 3")
T=/tmp/dmf-cache
mkdir -p $T

check "modules load" dmf_load
NB=$(nullb_create nbcache 512 1)
S=$(dm_size "$NB")

# direct_read DEV SKIP COUNT: COUNT 4k blocks from block SKIP, past the page
# cache (the cache writes back below the disk's page cache)
direct_read() {
	dd if="$1" bs=4k skip="$2" count="$3" iflag=direct status=none
}

# direct_cmp FILE DEV SKIP COUNT: 0 if those blocks of DEV (direct_read) are
# FILE's bytes, 1 if not, or why the read failed (which is neither)
direct_cmp() {
	local err

	err=$(direct_read "$2" "$3" "$4" 2>&1 > $T/direct) || { echo "read of $2: $err"; return; }
	cmp -s "$1" $T/direct
	echo $?
}

# direct_sum DEV SKIP COUNT: the md5 of those blocks (direct_read), or why
# the read failed, naming DEV: two failed reads do not look alike
direct_sum() {
	local err

	err=$(direct_read "$@" 2>&1 > $T/direct) || { echo "read of $1: $err"; return; }
	md5sum < $T/direct
}

# --- the table and the status ------------------------------------------------
check "a table with the cache feature" dm_create c "0 $S fault $NB 0 0 1 cache"
expect "the table prints the feature back" "$NB 0 0 1 cache" \
	"$(dmsetup table c | cut -d' ' -f4- | sed "s|^[0-9]*:[0-9]*|$NB|")"
expect "the status's cache word: on, empty, default limit" \
	"on:0:0:0:67108864" "$(dmsetup status c | awk '{c = 5 + $4; print $(c + $c + 2)}' | cut -d: -f1-5)"
expect "the device says it has a write cache" "write back" \
	"$(cat "/sys/block/$(dmsetup info -c -o blkdevname --noheadings c)/queue/write_cache")"

# --- write, read, crash, recover -----------------------------------------------
check "random data" dd if=/dev/urandom of=$T/w bs=64k count=1 status=none
check "16 writes complete" dd if=$T/w of=/dev/mapper/c bs=4k count=16 oflag=direct status=none
check "and read back from the cache" cmp -n 65536 $T/w /dev/mapper/c
expect "the disk below does not have them" 1 "$(direct_cmp $T/w "$NB" 0 16)"
expect "16 cached blocks" 16 "$(cache_field c 2)"
expect "crash lose=all loses the 16 writes" "lost_writes=16 lost_sectors=128 ranges=16" \
	"$(dmsetup message c 0 crash lose=all | head -n 1)"
expect "the state is crashed" crashed "$(cache_field c 1)"
io_fails "a read while crashed fails" c "Input/output error" \
	dd if=/dev/mapper/c of=/dev/null bs=4k count=1 iflag=direct
io_fails "a write while crashed fails" c "Input/output error" \
	dd if=/dev/zero of=/dev/mapper/c bs=4k count=1 oflag=direct
refused "crash twice without recover is refused" "crash: the cache is crashed" \
	dmsetup message c 0 crash
check "recover" dmsetup message c 0 recover
expect "after recover the written data is gone" 1 "$(cmp -s -n 65536 $T/w /dev/mapper/c; echo $?)"
refused "recover when not crashed is refused" "recover: the cache has not crashed" \
	dmsetup message c 0 recover

# write with an fsync: durable; crash: kept
check "a write and a flush" dd if=/dev/urandom of=$T/blk bs=64k count=1 status=none
check "written with fdatasync" dd if=$T/blk of=/dev/mapper/c bs=64k count=1 oflag=direct \
	conv=fdatasync status=none
expect "the flush left nothing cached" 0 "$(cache_field c 2)"
expect "crash loses nothing flushed" "lost_writes=0 lost_sectors=0 ranges=0" \
	"$(dmsetup message c 0 crash | head -n 1)"
check "recover" dmsetup message c 0 recover
expect "the flushed data is on the disk" 0 "$(direct_cmp $T/blk "$NB" 0 16)"

# suspend writes the cache back
check "a cached write" dd if=/dev/urandom of=/dev/mapper/c bs=4k count=4 oflag=direct \
	seek=100 status=none
check "suspend and resume" bash -c 'dmsetup suspend c && dmsetup resume c'
expect "suspend wrote the cache back" 0 "$(cache_field c 2)"
expect "the data is on the disk" "$(direct_sum /dev/mapper/c 100 4)" \
	"$(direct_sum "$NB" 100 4)"

# a table reload with cached data: the old table's cache is written back
check "a cached write" dd if=$T/w of=/dev/mapper/c bs=4k count=4 seek=200 oflag=direct \
	status=none
expect "it is cached" 4 "$(cache_field c 2)"
check "reload the same table and resume" bash -c "dmsetup table c | dmsetup reload c &&
	dmsetup resume c"
expect "the reload wrote it back: on the disk" "$(head -c 16384 $T/w | md5sum)" \
	"$(direct_sum "$NB" 200 4)"

# --- the direct-I/O checker: every policy, several seeds ---------------------
# checker POLICY SEED: init, mark, the writes, crash, lost, recover, verify
checker() {
	"$BIN/dmf-crashcheck" init /dev/mapper/c $REGION &&
	dmsetup message c 0 mark &&
	"$BIN/dmf-crashcheck" write /dev/mapper/c $REGION "$NW" "$2" $T/log > $T/wout &&
	dmsetup message c 0 crash "lose=$1" "seed=$2" > $T/reply &&
	dmsetup message c 0 lost > $T/lost &&
	dmsetup message c 0 recover &&
	"$BIN/dmf-crashcheck" verify /dev/mapper/c $REGION $T/log $T/lost "$1"
}

for p in all none writes sectors; do
	lost=0
	for s in $SEEDS; do
		if out=$(checker $p $s 2>&1); then
			lost=$((lost + $(sed -n 's/.*lost_sectors=\([0-9]*\).*/\1/p' <<< "$out")))
			ok "checker lose=$p seed=$s: $out"
		else
			fail "checker lose=$p seed=$s" "$out" "$(cat $T/wout 2>/dev/null)"
		fi
	done
	case $p in
	none) expect "lose=none lost nothing" 0 $lost ;;
	*) within "lose=$p lost sectors over the seeds" $lost 1 1000000 ;;
	esac
done

# same seed, same writes: the same crash; another seed: another crash
checker sectors 11 > /dev/null 2>&1; cp $T/lost $T/lost1
checker sectors 11 > /dev/null 2>&1; cp $T/lost $T/lost2
checker sectors 12 > /dev/null 2>&1; cp $T/lost $T/lost3
check "same seed and writes: the same lost list" cmp $T/lost1 $T/lost2
expect "another seed: another lost list" 1 "$(cmp -s $T/lost1 $T/lost3; echo $?)"
within "the list is not empty" "$(wc -l < $T/lost1)" 2 100000

# --- triggers ------------------------------------------------------------------
check "arm: crash after the 3rd flush" dmsetup message c 0 crash after=flush:3 lose=all
check "mark" dmsetup message c 0 mark
for i in 1 2 3; do
	dd if=/dev/zero of=/dev/mapper/c bs=4k count=1 seek=$i oflag=direct \
		conv=fdatasync status=none
done
expect "crashed right after the 3rd flush" crashed "$(cache_field c 1)"
io_fails "the next write fails" c "Input/output error" \
	dd if=/dev/zero of=/dev/mapper/c bs=4k count=1 oflag=direct
check "recover" dmsetup message c 0 recover

check "arm: crash after the 10th write" dmsetup message c 0 crash after=write:10
check "mark" dmsetup message c 0 mark
n=0
for i in $(seq 1 20); do
	dd if=/dev/zero of=/dev/mapper/c bs=4k count=1 seek=$i oflag=direct status=none \
		2>/dev/null && n=$i
done
expect "10 writes went in, then the power failed" 10 $n
expect "and lost all 10" "lost_writes=10 lost_sectors=80 ranges=10" \
	"$(dmsetup message c 0 lost | head -n 1)"
check "recover" dmsetup message c 0 recover

check "arm: crash after 64k written" dmsetup message c 0 crash after=bytes:64k
check "mark" dmsetup message c 0 mark
io_fails "a 128k write passes the trigger; the one after fails" c "Input/output error" \
	bash -c "dd if=/dev/zero of=/dev/mapper/c bs=128k count=1 oflag=direct status=none &&
		 dd if=/dev/zero of=/dev/mapper/c bs=4k count=1 oflag=direct status=none"
check "recover" dmsetup message c 0 recover
check "arm and disarm" bash -c "dmsetup message c 0 crash after=write:1 &&
	dmsetup message c 0 crash after=none"
check "disarmed: writes go on" dd if=/dev/zero of=/dev/mapper/c bs=4k count=4 oflag=direct \
	status=none

# --- bad input -------------------------------------------------------------------
refused "an unknown policy is refused" "crash: Unknown crash policy" \
	dmsetup message c 0 crash lose=maybe
refused "a trigger of 0 is refused" "crash: Crash trigger is" \
	dmsetup message c 0 crash after=flush:0
refused "an unknown trigger is refused" "crash: Unknown crash trigger" \
	dmsetup message c 0 crash after=reads:3
refused "a bad seed is refused" "crash: Invalid crash seed" \
	dmsetup message c 0 crash seed=12x
refused "a limit below 64k is refused" "cache on: Invalid cache limit" \
	dmsetup message c 0 cache on limit=4k
refused "a limit above half the memory is refused" "cache on: Cache limit is more than half" \
	dmsetup message c 0 cache on limit=1024g
refused "mark takes one label" "mark takes one label of up to 32 letters, digits and \._:-" \
	dmsetup message c 0 mark now later
expect "refusals left the cache on" on "$(cache_field c 1)"
dm_refused "an unknown feature is refused" fault "Unknown feature \(cache\)" \
	"0 $S fault $NB 0 0 1 cachez"
dm_refused "a bad cache option in the table is refused" fault "Unknown cache option" \
	"0 $S fault $NB 0 0 2 cache size=1m"
dm_refused "words after the features are refused" fault "Words after the feature args" \
	"0 $S fault $NB 0 0 1 cache limit=1m"
check "a device without the cache" dm_create nc "0 $S fault $NB 0"
refused "crash without the cache is refused" "crash: the cache is off" \
	dmsetup message nc 0 crash
refused "recover without the cache is refused" "recover: the cache is off" \
	dmsetup message nc 0 recover
check "cache on by message" dmsetup message nc 0 cache on limit=1m
expect "it is on, with the limit" on:1048576 "$(cache_field nc 1):$(cache_field nc 5)"
check "cache off writes back and stops" bash -c "dd if=/dev/zero of=/dev/mapper/nc bs=4k \
	count=8 oflag=direct status=none && dmsetup message nc 0 cache off"
expect "off: nothing cached" off:0 "$(cache_field nc 1):$(cache_field nc 2)"
refused "crash when off is refused" "crash: the cache is off" dmsetup message nc 0 crash
check "remove it" dmsetup remove nc

# --- the limit under fio, and a crash under load --------------------------------
check "a 1 MiB cache" dm_create lim "0 $S fault $NB 0 0 2 cache limit=1m"
check "fio randwrite with verify through the limit" fio --name=lim \
	--filename=/dev/mapper/lim --rw=randwrite --bs=4k --size=16m --direct=1 \
	--ioengine=psync --verify=crc32c --verify_fatal=1 --output=$T/fio.out
within "writes were forced back by the limit" "$(cache_field lim 9)" 1 100000000
hwm=$(cache_field lim 4)
within "the high-water mark stays within the limit" "$hwm" 4096 1048576
fio --name=busy --filename=/dev/mapper/lim --rw=randwrite --bs=4k --size=64m --direct=1 \
	--ioengine=libaio --iodepth=8 --time_based --runtime=30 > $T/busy.out 2>&1 &
fiopid=$!
sleep 2
check "crash while fio writes" dmsetup message lim 0 crash lose=sectors seed=3
wait $fiopid
check "fio saw the power fail" grep -q 'Input/output error' $T/busy.out
check "recover after a crash under load" dmsetup message lim 0 recover
check "crash again (twice)" dmsetup message lim 0 crash lose=writes seed=4
check "remove while crashed" dmsetup remove lim
expect "the crashed device is gone" no "$(dm_exists lim && echo yes || echo no)"

# --- no memory for a block: nothing acknowledged is lost ------------------------
# Our own slab hook fails half of dm-fault's slab allocations (the stack
# filter: the slab merges our block cache with others of its size, so a
# cache-filter would not name it): a write whose block cannot be had waits
# for the work item, which tries again and otherwise writes it through;
# fio's verify finds every block.
SL=/sys/kernel/debug/dm-fault/failslab
if [ -d "$SL" ]; then
	check "a cache device for the allocation test" dm_create am "0 $S fault $NB 0 0 1 cache"
	check "arm failslab on the cache's blocks, 50 %" bash -c "echo 0 > $SL/counters &&
		echo dm_fault > $SL/require-module && echo N > $SL/ignore-gfp-wait &&
		echo -1 > $SL/times && echo 0 > $SL/verbose && echo 50 > $SL/probability"
	check "fio randwrite with verify while block allocations fail" fio --name=am \
		--filename=/dev/mapper/am --rw=randwrite --bs=4k --size=8m --direct=1 \
		--ioengine=psync --verify=crc32c --verify_fatal=1 --output=$T/am.out
	inj=$(awk '$1 == "injected" {print $2}' $SL/counters)
	# none: what the hook was set to and saw (a knob another suite left?)
	[ "${inj:-0}" -gt 0 ] || (cd $SL && grep -H . ./* ../fail-nth ../mark 2>/dev/null | sed 's/^/# /')
	echo 0 > $SL/probability
	echo > $SL/require-module
	echo Y > $SL/ignore-gfp-wait
	within "block allocations failed" "$inj" 10 100000000
	check "remove it" dmsetup remove am
elif [ ! -e "$BUILD/dmf_alloc.ko" ]; then
	# Kbuild builds the allocator hooks only for the kernels they can hook.
	skip "allocation failures in the cache" "dmf_alloc is not built for $KVER"
else
	fail "allocation failures in the cache" "no $SL (dmf_alloc not loaded)"
fi

# --- filesystems: fsynced files survive every seed -----------------------------
# fs_round FS SEED: files fsynced, more written without fsync, crash (lose=
# sectors SEED), recover: the fsynced files are intact, the fs checks clean.
fs_round() {
	local fs=$1 seed=$2 i
	mkdir -p $T/mnt
	mount /dev/mapper/c $T/mnt || return 1
	for i in 1 2 3 4; do
		head -c $((i * 37000)) /dev/urandom > $T/f$i
		cp $T/f$i $T/mnt/f$i && sync -f $T/mnt/f$i || return 1
	done
	sync -f $T/mnt
	for i in 1 2 3 4 5 6; do
		head -c 90000 /dev/urandom > $T/mnt/u$i
	done
	dmsetup message c 0 crash lose=sectors "seed=$seed" > /dev/null || return 1
	umount $T/mnt 2>/dev/null
	dmsetup message c 0 recover || return 1
	mount /dev/mapper/c $T/mnt || { echo "mount after the crash failed"; return 1; }
	for i in 1 2 3 4; do
		cmp $T/f$i $T/mnt/f$i || { echo "fsynced file f$i differs"; umount $T/mnt; return 1; }
	done
	umount $T/mnt
	case $fs in
	ext4) fsck.ext4 -fn /dev/mapper/c > $T/fsck.out 2>&1 ;;
	xfs) xfs_repair -n /dev/mapper/c > $T/fsck.out 2>&1 ;;
	esac || { echo "fsck: $(tail -n 5 $T/fsck.out)"; return 1; }
}

for fs in ext4 xfs; do
	case $fs in
	ext4) mkfs.ext4 -q -F /dev/mapper/c ;;
	xfs) mkfs.xfs -q -f /dev/mapper/c ;;
	esac
	for s in $SEEDS; do
		check "$fs: fsynced files survive a crash (lose=sectors seed=$s), fsck clean" \
			fs_round $fs $s
	done
done
check "remove with cached data" bash -c "dd if=/dev/zero of=/dev/mapper/c bs=4k count=8 \
	oflag=direct status=none && dmsetup remove c"
check "modules unload" dmf_unload
nullb_destroy nbcache
ktap_end
