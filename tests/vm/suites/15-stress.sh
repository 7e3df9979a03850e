#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The fault target under load: filesystems with faults, live table swaps,
# messages racing I/O, suspend and remove with bios held.
. "$(dirname "$0")/../lib.sh"
ktap_begin stress

check "modules load" dmf_load
DISK=${VM_DISKS%% *}
[ -b "$DISK" ] || DISK=$(nullb_create nbs 1024 1)
S=$(dm_size "$DISK")
FIO="fio --output=/dev/null --minimal"

# --- filesystems under fio with faults ---------------------------------------
fs_with_faults() {
	local fs=$1 mkfs=$2 errs

	dm_create fsd "0 $S fault $DISK 0"
	$mkfs /dev/mapper/fsd >/dev/null 2>&1
	mkdir -p /mnt/fs
	if ! mount /dev/mapper/fsd /mnt/fs; then
		fail "$fs: mount"
		dmsetup remove fsd
		return
	fi
	kmsg_mark
	$FIO --name=w --directory=/mnt/fs --rw=randwrite --bs=4k --size=32M --numjobs=2 \
		--ioengine=libaio --iodepth=8 --time_based --runtime=8 --fsync=32 \
		--continue_on_error=all >/dev/null 2>&1 &
	local pid=$!
	sleep 3
	dmsetup message fsd 0 rule add "error:op=write+flush,p=2%,seed=7" >/dev/null
	wait $pid
	errs=$(dmsetup message fsd 0 stats | awk '/^rule 1/ {sub("injected=", "", $7); print $7}')
	dmsetup message fsd 0 rule remove 1
	within "$fs: faults were injected under fio" "${errs:-0}" 1 100000000
	# a failed data write of XFS is iomap's "writeback error on inode",
	# a failed log write "log I/O error" and a shutdown
	if kmsg_since | grep -Eiq 'I/O error|error.*writ|writeback error|metadata I/O|shutting down|EXT4-fs'; then
		ok "$fs: the kernel logged the I/O errors"
	else
		fail "$fs: the kernel logged the I/O errors" "$(kmsg_since | tail -n 15)"
	fi
	check "$fs: umount after faults" umount /mnt/fs
	check "$fs: device removed" dmsetup remove fsd
}
fs_with_faults ext4 "mkfs.ext4 -q -F"
fs_with_faults xfs "mkfs.xfs -f -q"

# --- live table swaps under fio (fstests style) ------------------------------
# fio writes with checksums and verifies them, in short runs, until the swaps
# are done; every run must end cleanly and have read back what it wrote.  A
# time-based run verifies only the passes it finished (none, at this speed):
# verify_backlog reads back every 32 blocks as it goes.
dm_create sw "0 $S fault $DISK 0"
rm -f /tmp/sw.stop /tmp/sw.bad /tmp/sw.runs
(
	while [ ! -e /tmp/sw.stop ]; do
		fio --minimal --name=v --filename=/dev/mapper/sw --rw=randwrite --bs=4k \
			--size=32M --ioengine=libaio --iodepth=16 --verify=crc32c \
			--verify_fatal=1 --do_verify=1 --verify_backlog=32 --time_based \
			--runtime=3 >/tmp/sw.fio 2>&1 || cp /tmp/sw.fio /tmp/sw.bad
		# the KiB read back (verified) by the run: terse field 6
		awk -F';' 'NF > 40 {print $6}' /tmp/sw.fio | tail -n 1 >> /tmp/sw.runs
	done
) &
pid=$!
tables=("0 $S fault $DISK 0"
	"0 $S fault $DISK 0 2 error:p=0,sectors=0-1000 delay:op=write,delay=1ms,p=10%"
	"0 $S fault $DISK 0 1 stall:op=write,sectors=0-130000,timeout=20ms"
	"0 $S fault-flakey $DISK 0 180 0"
	"0 $S fault-delay $DISK 0 0 $DISK 0 1")
# make check: 25 swaps (each table five times); make check-long: 100
nswaps=$(by_length 100 25)
swaps=0
for i in $(seq $nswaps); do
	dmsetup suspend --nolockfs sw || break
	echo "${tables[$((i % ${#tables[@]}))]}" | dmsetup load sw || break
	dmsetup resume sw || break
	swaps=$((swaps + 1))
done
expect "$nswaps live table swaps under fio" $nswaps "$swaps"
touch /tmp/sw.stop
wait $pid
# a run that never happened is not a clean run: count them
runs=$(cat /tmp/sw.runs 2>/dev/null | wc -l)
expect "every fio run with verify ended cleanly during the swaps ($runs runs)" \
	"runs clean" "$([ "$runs" -ge 1 ] && echo runs) $([ -e /tmp/sw.bad ] && echo bad || echo clean)"
expect "every fio run read back what it wrote ($(awk '{s += $1} END {print s + 0}' \
	/tmp/sw.runs 2>/dev/null) KiB verified)" 0 "$(awk '!($1 > 0) {n++} END {print n + 0}' /tmp/sw.runs)"
[ -e /tmp/sw.bad ] && sed 's/^/# /' /tmp/sw.bad | tail -n 10
dmsetup remove sw

# --- messages racing fio -------------------------------------------------------
dm_create mr "0 $S fault $DISK 0"
$FIO --name=m --filename=/dev/mapper/mr --rw=randrw --bs=4k --size=64M --ioengine=libaio \
	--iodepth=16 --time_based --runtime=900 --continue_on_error=all >/dev/null 2>&1 &
pid=$!
# make check: 30 rounds; make check-long: 60 (a reset every 10th either way)
rounds=$(by_length 60 30)
bad=0
for i in $(seq $rounds); do
	id=$(dmsetup message mr 0 rule add "error:p=1%,sectors=$((i * 8))-$((i * 8 + 4000))") || bad=$((bad + 1))
	dmsetup message mr 0 rule disable "$id" || bad=$((bad + 1))
	dmsetup message mr 0 rule enable "$id" || bad=$((bad + 1))
	dmsetup message mr 0 rule replace "$id" "delay:delay=100us,p=5%" || bad=$((bad + 1))
	dmsetup message mr 0 stats >/dev/null || bad=$((bad + 1))
	[ $((i % 3)) -eq 0 ] && { dmsetup message mr 0 rule remove "$id" || bad=$((bad + 1)); }
	[ $((i % 10)) -eq 0 ] && { dmsetup message mr 0 reset || bad=$((bad + 1)); }
done
expect "$((rounds * 5 + rounds / 3 + rounds / 10)) messages racing fio all succeeded" 0 "$bad"
expect "rules left: $rounds added, $((rounds / 3)) removed" $((rounds - rounds / 3)) \
	"$(dmsetup message mr 0 rule list | wc -l)"
kill $pid 2>/dev/null
wait $pid
check "device removes after the race" dmsetup remove mr

# --- suspend and remove with bios held ---------------------------------------
dm_create dh "0 $S fault $DISK 0 1 delay:delay=50ms"
$FIO --name=d --filename=/dev/mapper/dh --rw=randread --bs=4k --size=64M --ioengine=libaio \
	--iodepth=32 --time_based --runtime=8 >/dev/null 2>&1 &
pid=$!
n=0
for i in $(seq 10); do
	sleep 0.3
	dmsetup suspend dh && dmsetup resume dh && n=$((n + 1))
done
expect "suspend/resume with delayed bios in flight" 10 "$n"
wait $pid
expect "fio with delayed reads ended cleanly" 0 $?
dmsetup remove dh

dm_create rm "0 $S fault $DISK 0 1 stall:op=read"
dd if=/dev/mapper/rm of=/dev/null bs=4k count=1 iflag=direct status=none &
pid=$!
sleep 1
expect "remove --force: the device is there, its read held" "held 1" \
	"$(dm_exists rm && dmsetup message rm 0 stats | head -n 1)"
# the reader holds the device open: --force swaps in an error table, which
# suspends the device, and presuspend lets the held read go first
dmsetup remove --force rm >/dev/null 2>&1
wait $pid
expect "remove --force: the stalled read completed successfully" 0 $?
dmsetup remove rm >/dev/null 2>&1
check "the device is gone" sh -c '! dmsetup info rm >/dev/null 2>&1' 

# --- time window ---------------------------------------------------------------
dm_create tw "0 $S fault $DISK 0 1 error:op=read,after=3"
check "after=3: reads pass at first" dd if=/dev/mapper/tw of=/dev/null bs=4k count=1 \
	iflag=direct status=none
sleep 4
io_fails "after=3: reads fail 4 s later" tw "Input/output error" \
	dd if=/dev/mapper/tw of=/dev/null bs=4k count=1 iflag=direct status=none
dmsetup remove tw

dm_cleanup
nullb_destroy nbs
check "modules unload" dmf_unload
ktap_end
