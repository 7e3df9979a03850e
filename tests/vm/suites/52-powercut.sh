#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The power cut is exact: a flush makes durable what completed before it
# was issued and nothing later, a FUA write only itself, a discard is a
# write like others, a torn write keeps or loses whole logical blocks (or
# the set unit) on 512-byte and 4 KiB-sector disks, the limit bounds every
# bio, the flush that fires a trigger completes, a failed write-back loses
# nothing, setup's writes are not the workload's; and a recording gives
# crash states as views of the untouched disk.
. "$(dirname "$0")/../lib.sh"
ktap_begin powercut

T=/tmp/dmf-powercut
mkdir -p $T

check "modules load" dmf_load
NB=$(nullb_create nbpc 512 1 512 discard)
NB4=$(nullb_create nbpc4 64 1 4096)
S=$(dm_size "$NB")

# blk DEV N: 4 KiB block N of DEV, read past the page cache, as an md5
blk() {
	dd if="$1" bs=4k skip="$2" count=1 iflag=direct status=none | md5sum | cut -d' ' -f1
}

# fsync_dev DEV: a flush of the whole device, its exit status the flush's;
# when the flush fails, its errno's name (EIO) on stdout
fsync_dev() {
	python3 -c 'import errno, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    os.fsync(fd)
except OSError as e:
    print(errno.errorcode[e.errno])
    sys.exit(1)' "$1"
}

ZERO=$(head -c 4096 /dev/zero | md5sum | cut -d' ' -f1)
head -c $((256 * 4096)) /dev/urandom > $T/data
# data N: the md5 of 4 KiB block N of $T/data
data() {
	dd if=$T/data bs=4k skip="$1" count=1 status=none | md5sum | cut -d' ' -f1
}
# put DEV N [dsync|fsync]: block N of $T/data to block N of DEV, direct;
# dsync: a FUA write, fsync: then a flush
put() {
	local o=direct c=notrunc

	case $3 in
	dsync) o=direct,dsync ;;
	fsync) c=notrunc,fsync ;;
	esac
	dd if=$T/data of="$1" bs=4k skip="$2" seek="$2" count=1 oflag=$o conv=$c status=none
}

# --- a flush covers what completed before it was issued, nothing after -------
# The read below the cache is 12 s slow: a read partly cached waits in the
# cache's work item for it, the flush queues behind, and a write completes
# (cached, in map) after the flush was issued and before it runs.
check "a 12 s read delay below" dm_create slow "0 $S delay $NB 0 12000 $NB 0 0"
check "a cache over it" dm_create fl "0 $S fault /dev/mapper/slow 0 0 1 cache"
check "write A (block 1) cached" put /dev/mapper/fl 1
(dd if=/dev/mapper/fl of=/dev/null bs=8k skip=4096 count=1 iflag=direct,skip_bytes \
	status=none) &
rd=$!
sleep 2
(dd if=/dev/null of=/dev/mapper/fl conv=notrunc,fsync status=none; echo $? > $T/flush.rc) &
fl=$!
sleep 3
expect "the flush was issued and waits behind the read" yes:0 \
	"$(kill -0 $fl 2>/dev/null && echo yes):$(cache_field fl 7)"
check "write B (block 2) completes while the flush waits" put /dev/mapper/fl 2
wait $rd $fl
expect "the flush succeeded" 0 "$(cat $T/flush.rc)"
expect "B is still cached after the flush" 1:1 "$(cache_field fl 2):$(cache_field fl 7)"
expect "a crash then loses B only" "lost_writes=1 lost_sectors=8 ranges=1" \
	"$(dmsetup message fl 0 crash lose=all | head -n 1)"
check "recover" dmsetup message fl 0 recover
expect "A is on the disk" "$(data 1)" "$(blk "$NB" 1)"
expect "B is not" "$ZERO" "$(blk "$NB" 2)"
check "remove them" dmsetup remove fl slow

# --- FUA makes itself durable and nothing else -------------------------------
# A raw device's O_DSYNC write is a FUA write and a flush; XFS overwrites a
# written extent with O_DIRECT|O_DSYNC as a FUA write alone.
# fua_writes FILE: 35 overwrites of its blocks, every 7th with O_DSYNC
fua_writes() {
	python3 - "$1" "$T/data" <<'EOF'
import mmap, os, sys
plain = os.open(sys.argv[1], os.O_RDWR | os.O_DIRECT)
dsync = os.open(sys.argv[1], os.O_RDWR | os.O_DIRECT | os.O_DSYNC)
data = open(sys.argv[2], 'rb').read()
buf = mmap.mmap(-1, 4096)
for i in range(35):
    buf[:] = data[i * 4096:(i + 1) * 4096]
    assert os.pwrite(dsync if i % 7 == 6 else plain, buf, i * 4096) == 4096
EOF
}

check "a cache on the disk" dm_create fu "0 $S fault $NB 0 0 1 cache"
M=$T/mnt
mkdir -p $M
check "xfs with a 35-block file, written and synced" bash -c \
	"mkfs.xfs -q -f /dev/mapper/fu && mount /dev/mapper/fu $M &&
	 dd if=/dev/zero of=$M/f bs=4k count=35 conv=fsync status=none && sync -f $M"
check "one O_DSYNC overwrite first: what the file's creation left is synced" \
	python3 -c 'import mmap, os, sys
os.pwrite(os.open(sys.argv[1], os.O_RDWR | os.O_DIRECT | os.O_DSYNC), mmap.mmap(-1, 4096), 0)' \
	$M/f
check "mark" dmsetup message fu 0 mark
f0=$(cache_field fu 7) u0=$(cache_field fu 8)
check "35 direct overwrites, every 7th O_DSYNC" fua_writes $M/f
expect "5 FUA writes and no flush" 5:0 "$(($(cache_field fu 8) - u0)):$(($(cache_field fu 7) - f0))"
expect "crash lose=all loses every write but the FUA ones" \
	"lost_writes=30 lost_sectors=240 ranges=30" \
	"$(dmsetup message fu 0 crash lose=all | head -n 1)"
umount $M 2>/dev/null
check "recover" dmsetup message fu 0 recover
check "mount after the crash" mount /dev/mapper/fu $M
bad=
for i in $(seq 0 34); do
	if [ $((i % 7)) = 6 ]; then want=$(data $i); else want=$ZERO; fi
	[ "$(dd if=$M/f bs=4k skip=$i count=1 iflag=direct status=none | md5sum |
		cut -d' ' -f1)" = "$want" ] || bad="$bad $i"
done
expect "the FUA blocks hold their data, the others do not" "" "$bad"
check "unmount" umount $M

# --- a discard is a write like others: cached, and lost in a crash -----------
check "a block written and flushed" put /dev/mapper/fu 50 fsync
check "it is on the disk" test "$(blk "$NB" 50)" = "$(data 50)"
check "discard it (not flushed)" blkdiscard -o $((50 * 4096)) -l 4096 /dev/mapper/fu
expect "the discard is cached: the disk still has the data" "$(data 50)" "$(blk "$NB" 50)"
expect "the device reads zeroes there" "$ZERO" "$(blk /dev/mapper/fu 50)"
expect "a crash loses the discard" "lost_writes=1 lost_sectors=8 ranges=1" \
	"$(dmsetup message fu 0 crash lose=all | head -n 1)"
check "recover" dmsetup message fu 0 recover
expect "the data is still there" "$(data 50)" "$(blk /dev/mapper/fu 50)"
check "discard it and flush" bash -c "blkdiscard -o $((50 * 4096)) -l 4096 /dev/mapper/fu &&
	python3 -c 'import os; os.fsync(os.open(\"/dev/mapper/fu\", os.O_RDONLY))'"
expect "the flushed discard reached the disk" "$ZERO" "$(blk "$NB" 50)"

# --- setup's writes are not the workload's: mark writes them back ------------
check "an unflushed setup write" put /dev/mapper/fu 60
check "mark" dmsetup message fu 0 mark
check "a workload write" put /dev/mapper/fu 61
dmsetup message fu 0 crash lose=all > $T/reply
expect "the crash loses the workload's write only" "lost_writes=1 lost_sectors=8 ranges=1" \
	"$(head -n 1 $T/reply)"
expect "numbered 1 from the mark" "1 488+8" "$(sed -n 2p $T/reply)"
check "recover" dmsetup message fu 0 recover
expect "setup's write is on the disk" "$(data 60)" "$(blk "$NB" 60)"

# --- the flush that fires after=flush:N completes ------------------------------
check "arm after=flush:2" dmsetup message fu 0 crash after=flush:2
check "mark" dmsetup message fu 0 mark
check "the first flush succeeds" put /dev/mapper/fu 70 fsync
check "the second flush succeeds too: it fires the crash after completing" \
	put /dev/mapper/fu 71 fsync
expect "then the power is off" crashed "$(cache_field fu 1)"
io_fails "and the next write fails" fu "Input/output error" put /dev/mapper/fu 72
check "recover" dmsetup message fu 0 recover
expect "both flushed writes are on the disk" "$(data 70)$(data 71)" \
	"$(blk "$NB" 70)$(blk "$NB" 71)"
check "remove it" dmsetup remove fu

# --- the limit bounds every bio ------------------------------------------------
check "a 64k cache" dm_create lim "0 $S fault $NB 0 0 2 cache limit=64k"
check "one 256 KiB direct write" dd if=$T/data of=/dev/mapper/lim bs=256k count=1 seek=1 \
	oflag=direct status=none
within "the high-water mark stays within the limit" "$(cache_field lim 4)" 0 65536
expect "the write went through to the disk" \
	"$(dd if=$T/data bs=256k count=1 status=none | md5sum)" \
	"$(dd if="$NB" bs=256k skip=1 count=1 iflag=direct status=none | md5sum)"
check "remove it" dmsetup remove lim

# --- a failed write-back loses nothing, and fails the flush --------------------
check "a linear device below" dm_create lo "0 $S linear $NB 0"
check "a cache over it" dm_create wb "0 $S fault /dev/mapper/lo 0 0 1 cache"
check "a cached write" put /dev/mapper/wb 80
check "the disk below fails writes now" bash -c \
	"dmsetup reload lo --table '0 $S error' && dmsetup resume lo"
kmsg_mark
out=$(fsync_dev /dev/mapper/wb 2>&1)
expect "the flush fails with EIO" "1 EIO" "$? $out"
check "and says why" bash -c "dmesg | grep -q 'write-back failed'"
expect "the write is still cached" 1 "$(cache_field wb 2)"
expect "and reads back" "$(data 80)" "$(blk /dev/mapper/wb 80)"
check "the disk below works again" bash -c \
	"dmsetup reload lo --table '0 $S linear $NB 0' && dmsetup resume lo"
check "the next flush succeeds" fsync_dev /dev/mapper/wb
expect "and the write is on the disk" "$(data 80)" "$(blk "$NB" 80)"
check "remove them" dmsetup remove wb lo

# --- torn writes keep or lose whole logical blocks (4 KiB sectors) -------------
# torn DEV N SEED: N unflushed 4 KiB writes, crash lose=sectors, recover;
# every block is old or new, the lost list names the old ones, in units
# of UNIT sectors
torn() {
	local dev=$1 n=$2 seed=$3 unit=$4

	dd if=/dev/zero of="$dev" bs=4k count="$n" oflag=direct conv=fdatasync status=none &&
	dmsetup message tn 0 mark &&
	dd if=$T/data of="$dev" bs=4k count="$n" oflag=direct status=none &&
	dmsetup message tn 0 crash lose=sectors "seed=$seed" > /dev/null &&
	dmsetup message tn 0 lost > $T/lost &&
	dmsetup message tn 0 recover &&
	dd if="$dev" of=$T/after bs=4k count="$n" iflag=direct status=none &&
	python3 - "$T/data" "$T/after" "$T/lost" "$n" "$unit" <<'EOF'
import sys
data, after, lost = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read(), sys.argv[3]
n, unit = int(sys.argv[4]), int(sys.argv[5])
lines = open(lost).read().split('\n')
tot = dict(kv.split('=') for kv in lines[0].split())
gone = set()
for l in lines[1:]:
    if not l:
        continue
    w, r = l.split()
    s, c = map(int, r.split('+'))
    if s % unit or c % unit:
        sys.exit('lost range %s not in whole units of %d sectors' % (r, unit))
    gone.update(range(s, s + c))
bad = []
for b in range(n):
    new, old = data[b * 4096:(b + 1) * 4096], bytes(4096)
    blk = after[b * 4096:(b + 1) * 4096]
    secs = set(range(b * 8, b * 8 + 8))
    if secs <= gone and blk != old or not secs & gone and blk != new or \
       secs & gone and not secs <= gone:
        bad.append(b)
if bad or int(tot['lost_sectors']) != len(gone):
    sys.exit('blocks not as the lost list says: %s (lost %s, listed %d)' %
             (bad[:8], tot['lost_sectors'], len(gone)))
kept = n - len(gone) // 8
if not 0 < kept < n:
    sys.exit('kept %d of %d: no tearing seen' % (kept, n))
print('kept %d of %d blocks' % (kept, n))
EOF
}

S4=$(dm_size "$NB4")
check "a cache on a 4 KiB-sector disk" dm_create tn "0 $S4 fault $NB4 0 0 1 cache"
check "200 writes torn by logical block (seed 5)" torn /dev/mapper/tn 200 5 8
check "again with seed 6" torn /dev/mapper/tn 200 6 8
refused "a unit below the logical block is refused" \
	"cache on: Tearing unit is smaller than the disk's logical block" \
	dmsetup message tn 0 cache on unit=512
check "remove it" dmsetup remove tn
check "a cache on a 512-byte disk, torn by 16 KiB" \
	dm_create tn "0 $S fault $NB 0 0 2 cache unit=16k"
expect "the table prints the unit back" "0 2 cache unit=16384" \
	"$(dmsetup table tn | cut -d' ' -f6-)"
check "64 KiB writes torn in 16 KiB units" bash -c \
	"dd if=/dev/zero of=/dev/mapper/tn bs=64k count=8 oflag=direct conv=fdatasync status=none &&
	 dmsetup message tn 0 mark &&
	 dd if=$T/data of=/dev/mapper/tn bs=64k count=8 oflag=direct status=none &&
	 dmsetup message tn 0 crash lose=sectors seed=9 > /dev/null &&
	 dmsetup message tn 0 lost | awk 'NR > 1 && \$2 ~ /\\+/ {split(\$2, r, \"+\");
		if (r[1] % 32 || r[2] % 32) bad = 1; n++} END {exit bad || !n}'"
check "recover, remove" bash -c "dmsetup message tn 0 recover && dmsetup remove tn"

# --- record once, view many ----------------------------------------------------
check "a cache device to record on" dm_create rc "0 $S fault $NB 0 0 1 cache"
check "setup: blocks 0-7 zeroes, flushed" bash -c \
	"dd if=/dev/zero of=/dev/mapper/rc bs=4k count=8 oflag=direct conv=fdatasync status=none"
check "an unflushed setup write (block 3)" put /dev/mapper/rc 3
check "record" dmsetup message rc 0 record
expect "recording" recording "$(cache_field rc 1)"
expect "record wrote setup's write back" "$(data 3)" "$(blk "$NB" 3)"
check "write 1: block 0" put /dev/mapper/rc 0
check "write 2: block 1, then a flush" put /dev/mapper/rc 1 fsync
check "write 3: block 2, FUA" put /dev/mapper/rc 2 dsync
check "a mark" dmsetup message rc 0 mark step-two
check "write 4: block 0 again, other data" \
	dd if=$T/data of=/dev/mapper/rc bs=4k skip=9 seek=0 count=1 oflag=direct status=none
expect "nothing reached the disk" "$ZERO$ZERO$ZERO" \
	"$(blk "$NB" 0)$(blk "$NB" 1)$(blk "$NB" 2)"
expect "the device reads the newest" "$(data 9)" "$(blk /dev/mapper/rc 0)"
# (write 3 is O_DSYNC on the raw device: a FUA write and a flush)
expect "crash keeps the recording" "recorded writes=4 flushes=2 marks=1" \
	"$(dmsetup message rc 0 crash)"
io_fails "I/O fails after the crash" rc "Input/output error" \
	dd if=/dev/mapper/rc of=/dev/null bs=4k count=1 iflag=direct
expect "record list gives the writes, the flush and the mark" \
	"writes=4 flushes=2 marks=1 unit=1 overflow=0|w 1 0 8 write|w 2 8 8 write|f 2|w 3 16 8 fua|f 3|m 3 step-two|w 4 0 8 write|end" \
	"$(dmsetup message rc 0 record list 1 | paste -sd'|')"
expect "a later page starts there" "writes=4 flushes=2 marks=1 unit=1 overflow=0|w 4 0 8 write|end" \
	"$(dmsetup message rc 0 record list 4 | paste -sd'|')"
check "view keep=1,3" dmsetup message rc 0 view keep=1,3
expect "the state is view" view "$(cache_field rc 1)"
expect "blocks 0-2: write 1, nothing, write 3" "$(data 0)$ZERO$(data 2)" \
	"$(blk /dev/mapper/rc 0)$(blk /dev/mapper/rc 1)$(blk /dev/mapper/rc 2)"
check "the check writes block 5" put /dev/mapper/rc 5
expect "it reads back" "$(data 5)" "$(blk /dev/mapper/rc 5)"
check "view keep=2,4: another state, the scratch thrown away" dmsetup message rc 0 view keep=2,4
expect "blocks 0, 1, 2, 5: write 4, write 2, nothing, nothing" \
	"$(data 9)$(data 1)$ZERO$ZERO" \
	"$(blk /dev/mapper/rc 0)$(blk /dev/mapper/rc 1)$(blk /dev/mapper/rc 2)$(blk /dev/mapper/rc 5)"
check "view keep=all tear=4:3 on a 4 KiB write of 512-byte sectors" \
	dmsetup message rc 0 view keep=all tear=4:3
dd if=/dev/mapper/rc bs=512 count=8 iflag=direct status=none > $T/torn
dd if=$T/data bs=4k skip=9 count=1 status=none > $T/w4
dd if=$T/data bs=4k count=1 status=none > $T/w1
expect "each sector of block 0 is write 4's or write 1's, both seen" "ok" \
	"$(python3 -c 'import sys
t, a, b = (open(f, "rb").read() for f in sys.argv[1:4])
s = [t[i:i + 512] == a[i:i + 512] and "4" or t[i:i + 512] == b[i:i + 512] and "1" or "?"
     for i in range(0, 4096, 512)]
print("ok" if "?" not in s and len(set(s)) == 2 else "".join(s))' $T/torn $T/w4 $T/w1)"
expect "the disk below was never written" "$ZERO$ZERO$ZERO$ZERO" \
	"$(blk "$NB" 0)$(blk "$NB" 1)$(blk "$NB" 2)$(blk "$NB" 5)"
refused "a torn write must be kept" "view: A torn write must be kept" \
	dmsetup message rc 0 view keep=1-3 tear=4:1
refused "record while a recording is held" "record: the cache holds a recording" \
	dmsetup message rc 0 record
refused "cache off while a recording is held" "cache off: The cache holds a recording" \
	dmsetup message rc 0 cache off
check "recover drops the recording" dmsetup message rc 0 recover
expect "the device is the disk again, cache on" "on:$ZERO:$(data 3)" \
	"$(cache_field rc 1):$(blk /dev/mapper/rc 0):$(blk /dev/mapper/rc 3)"
refused "view without a recording" "view: no recording" dmsetup message rc 0 view keep=all
refused "record list without a recording" "record list: no recording" \
	dmsetup message rc 0 record list 1
check "record again" dmsetup message rc 0 record
refused "view while still recording" "view: crash the recording first" \
	dmsetup message rc 0 view keep=all
refused "a trigger while recording" "crash: a trigger needs the cache on, not recording" \
	dmsetup message rc 0 crash after=flush:1
check "crash, recover" bash -c "dmsetup message rc 0 crash > /dev/null &&
	dmsetup message rc 0 recover"
check "remove it" dmsetup remove rc

# a recording past its limit fails its writes and says so
check "a 64k cache" dm_create ro "0 $S fault $NB 0 0 2 cache limit=64k"
check "record" dmsetup message ro 0 record
check "4 writes fit" dd if=$T/data of=/dev/mapper/ro bs=4k count=4 oflag=direct status=none
kmsg_mark
io_fails "a 128k write does not" ro "Input/output error" \
	dd if=$T/data of=/dev/mapper/ro bs=128k count=1 seek=1 oflag=direct status=none
expect "the state is overflow" overflow "$(cache_field ro 1)"
check "and the log says why" bash -c "dmesg | grep -q 'recording overflowed after 4 writes'"
check "crash" dmsetup message ro 0 crash
expect "record list says it overflowed" "writes=4 flushes=0 marks=0 unit=1 overflow=1" \
	"$(dmsetup message ro 0 record list 1 | head -n 1)"
check "recover, remove" bash -c "dmsetup message ro 0 recover && dmsetup remove ro"

check "modules unload" dmf_unload
nullb_destroy nbpc
nullb_destroy nbpc4
ktap_end
