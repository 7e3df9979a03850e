#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Compatibility targets: dm-flakey, dm-delay and dm-error table lines give
# the same table output and the same behaviour as the in-tree targets, with
# dm-fault statistics on top; compat_names=1 serves the in-tree names.
. "$(dirname "$0")/../lib.sh"
ktap_begin compat

MB=1048576
check "modules load" dmf_load
check "dm-flakey and dm-delay load" modprobe -a dm-flakey dm-delay
NB=$(nullb_create nbc 256 1)
S=$(dm_size "$NB")

# table_of TYPE ARGS: create a device from "0 $S TYPE $NB ARGS" and print
# its table (the part after the type), or "REJECTED: REASON" with the reason
# the kernel logged for TYPE ("REJECTED: nothing logged" if none).
table_of() {
	local type=$1 args=$2 why

	kmsg_mark
	if echo "0 $S $type $NB $args" | dmsetup create ref 2>/dev/null; then
		dmsetup table ref | cut -d' ' -f4-
		dmsetup remove ref
		return
	fi
	# dm core ends the line with the error: (-EINVAL), or (-22) in a
	# kernel without CONFIG_SYMBOLIC_ERRNAME (the debug kernel)
	why=$(kmsg_since | sed -nE "s/.*table: [0-9]+:[0-9]+: $type: //p" | tail -n 1 |
		sed -E 's/ \(-?(E[A-Z0-9]+|[0-9]+)\)$//')
	echo "REJECTED: ${why:-nothing logged}"
}

# same_table TARGET NAME ARGS [OUR-REASON]: the in-tree target and ours print
# the same table, or both reject the line, each logging why: ours the same
# reason as the in-tree one, or OUR-REASON where the words differ.
same_table() {
	local target=$1 name=$2 args=$3 want got

	want=$(table_of "$target" "$args")
	got=$(table_of "fault-$target" "$args")
	case $want in
	"REJECTED: nothing logged")
		fail "$target table '$args' ($name)" "the in-tree $target logged no reason"
		return ;;
	REJECTED:*) [ -n "$4" ] && want="REJECTED: $4" ;;
	esac
	expect "$target table '$args' ($name)" "$want" "$got"
}

same_table flakey "fstests up" "0 180 0"
same_table flakey "drop_writes" "0 0 180 1 drop_writes"
same_table flakey "error_writes" "0 0 180 1 error_writes"
same_table flakey "corrupt_bio_byte" "0 0 180 5 corrupt_bio_byte 32 r 1 0"
same_table flakey "corrupt write + drop" "0 0 180 6 corrupt_bio_byte 32 w 1 0 drop_writes" \
	"drop_writes and error_writes are incompatible with corrupt_bio_byte w"
same_table flakey "error_reads" "0 0 180 1 error_reads"
same_table flakey "random_read_corrupt" "0 0 180 2 random_read_corrupt 100000"
same_table flakey "random_write_corrupt" "0 0 180 2 random_write_corrupt 500000000"
# 6.12's flakey names the feature that lacks its parameter; ours does not
same_table flakey "several" "0 5 7 3 error_reads error_writes random_read_corrupt" \
	"Unrecognised flakey feature requested"
same_table flakey "error_reads + error_writes" "0 5 7 2 error_reads error_writes"
same_table flakey "zero intervals" "0 0 0" "Invalid up and down intervals"
same_table flakey "unknown feature" "0 0 180 1 explode" "Unrecognised flakey feature requested"
same_table flakey "short" "0 180" "Invalid argument count"
same_table delay "no delay" "0 0"
same_table delay "10 s" "0 10000"
same_table delay "reads and writes" "0 0 $NB 0 100"
same_table delay "three classes" "0 10 $NB 0 20 $NB 0 30"
same_table delay "bad count" "0 10 $NB" "Requires exactly 3, 6 or 9 arguments"

# --- flakey behaviour ------------------------------------------------------
dmf-pattern write "$NB" 0 $MB 1 >/dev/null
dm_create fl "0 $S fault-flakey $NB 0 180 0"
check "flakey up: data passes unchanged" dmf-pattern verify /dev/mapper/fl 0 $MB 1
check "flakey up: writes pass" dmf-pattern write /dev/mapper/fl 0 $MB 2
dmsetup remove fl

dm_create fl "0 $S fault-flakey $NB 0 0 180"
io_fails "flakey down, no features: reads fail" fl "error=5 (Input/output error)" \
	dmf-pattern verify /dev/mapper/fl 0 4096 2
io_fails "flakey down, no features: writes fail" fl "error=5 (Input/output error)" \
	dmf-pattern write /dev/mapper/fl 0 4096 3
dmsetup remove fl

dm_create fl "0 $S fault-flakey $NB 0 0 180 1 drop_writes"
check "drop_writes: reads pass" dmf-pattern verify /dev/mapper/fl 0 $MB 2
check "drop_writes: writes are acknowledged" dmf-pattern write /dev/mapper/fl 0 $MB 3
check "drop_writes: nothing reached the disk" dmf-pattern verify "$NB" 0 $MB 2
st=$(dmsetup message fl 0 stats | awk '/^rule/ && /action=drop/ {print $7}')
expect "drop_writes: our statistics count the dropped writes" "injected=$(dmsetup message fl 0 stats | awk '/^op write / {sub("bios=", "", $3); print $3}')" "$st"
dmsetup remove fl

dm_create fl "0 $S fault-flakey $NB 0 0 180 1 error_writes"
check "error_writes: reads pass" dmf-pattern verify /dev/mapper/fl 0 $MB 2
io_fails "error_writes: writes fail" fl "error=5 (Input/output error)" \
	dmf-pattern write /dev/mapper/fl 0 4096 3
dmsetup remove fl

dm_create fl "0 $S fault-flakey $NB 0 0 180 5 corrupt_bio_byte 32 r 1 0"
out=$(dmf-pattern verify /dev/mapper/fl 0 4096 2)
got=$(dd if=/dev/mapper/fl bs=4096 count=1 iflag=direct status=none | od -An -tu1 -j31 -N1 | tr -d ' ')
expect "corrupt_bio_byte 32 r 1: byte 32 of each read is 1" "1" "$got"
case $out in bytes=1\ *first=31) ok "corrupt_bio_byte: only that byte differs" ;;
*) fail "corrupt_bio_byte: only that byte differs" "$out" ;;
esac
check "corrupt_bio_byte r: the disk is untouched" dmf-pattern verify "$NB" 0 $MB 2
dmsetup remove fl

# --- delay behaviour -------------------------------------------------------
lat_ms() {
	fio --name=d --filename="$1" --rw="$2" --bs=4k --direct=1 --ioengine=psync \
		--number_ios=10 --size=10M --output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' -v rw="$2" '{print int((rw == "randread" ? $16 : $57) / 1000)}'
}
dm_create dl "0 $S fault-delay $NB 0 0 $NB 0 100"
within "delay 0/100: reads are not delayed (ms)" "$(lat_ms /dev/mapper/dl randread)" 0 60
within "delay 0/100: writes are delayed 100 ms" "$(lat_ms /dev/mapper/dl randwrite)" 100 1000
dmsetup remove dl
dm_create dl "0 $S fault-delay $NB 0 0"
check "delay 0: writes pass" dmf-pattern write /dev/mapper/dl 0 $MB 5
check "delay 0: data reached the disk unchanged" dmf-pattern verify "$NB" 0 $MB 5
dmsetup remove dl

# --- error -------------------------------------------------------------------
dm_create er "0 $S fault-error"
io_fails "fault-error: reads fail" er "Input/output error" \
	dd if=/dev/mapper/er of=/dev/null bs=4k count=1 iflag=direct status=none
expect "fault-error: the failure is counted" "1" \
	"$(dmsetup message er 0 stats | awk '/^rule 1/ {sub("injected=", "", $7); print $7}')"
dmsetup message er 0 rule disable 1
io_fails "fault-error: still fails with its rule disabled" er "Input/output error" \
	dd if=/dev/mapper/er of=/dev/null bs=4k count=1 iflag=direct status=none
# A rule added there chooses how a bio fails, or drops a write; an action
# that would send the bio below has nowhere to send it: the bio fails.
for r in torn:op=write corrupt:op=write,bits=1 delay:op=write,delay=10 stall:op=write \
	corrupt:op=read,bits=1 delay:op=read,delay=10; do
	id=$(dmsetup message er 0 rule add "$r")
	check "fault-error: rule add $r" test -n "$id"
	case $r in
	*op=read*) cmd=(dd if=/dev/mapper/er of=/dev/null bs=4k count=1 iflag=direct status=none) ;;
	*) cmd=(dd if=/dev/zero of=/dev/mapper/er bs=4k count=1 oflag=direct status=none) ;;
	esac
	io_fails "fault-error: $r fails the bio" er "Input/output error" "${cmd[@]}"
	expect "fault-error: $r took the bio" "injected=1" \
		"$(dmsetup message er 0 stats | awk -v id="$id" '$1 == "rule" && $2 == id {print $7}')"
	dmsetup message er 0 rule remove "$id"
done
id=$(dmsetup message er 0 rule add error:op=write,status=enospc)
io_fails "fault-error: an error rule's status" er "No space left on device" \
	dd if=/dev/zero of=/dev/mapper/er bs=4k count=1 oflag=direct status=none
dmsetup message er 0 rule remove "$id"
dmsetup message er 0 rule add drop:op=write >/dev/null
check "fault-error: a dropped write is done" \
	dd if=/dev/zero of=/dev/mapper/er bs=4k count=1 oflag=direct status=none
dmsetup remove er

# --- in-tree names, fstests style -------------------------------------------
# dmfault reads a flakey device only when dm-fault serves that name
dm_create itf "0 $S flakey $NB 0 180 0"
expect "the in-tree flakey serves 'flakey'" "1" "$(dmsetup table itf | grep -c ' flakey ')"
err=$(dmfault stats itf 2>&1)
expect "dmfault: the in-tree flakey's device is not a fault device" \
	"itf: not a fault device" "${err#dmfault: }"
dmsetup remove itf
dm_cleanup
rmmod dm-flakey dm-delay 2>/dev/null
dmf_unload >/dev/null 2>&1
insmod "$BUILD/dmf_engine.ko"
check "compat_names=1 loads" insmod "$BUILD/dm-fault.ko" compat_names=1
check "flakey is served by dm-fault" sh -c 'dmsetup targets | grep -q "^flakey .*v1.0.0"'
mkfs.ext4 -q -F "$NB" >/dev/null 2>&1
dm_create flakey-test "0 $S flakey $NB 0 180 0"
mkdir -p /mnt/fl
mount /dev/mapper/flakey-test /mnt/fl
echo durable > /mnt/fl/a
sync
dmsetup suspend --nolockfs flakey-test
echo "0 $S flakey $NB 0 0 180 1 drop_writes" | dmsetup load flakey-test
dmsetup resume flakey-test
echo lost > /mnt/fl/b
sync
expect "dmfault stats on dm-fault's flakey: the target and its disk" \
	"flakey-test: flakey on $NB," "$(dmfault stats flakey-test | head -n 1 | cut -d' ' -f1-4)"
drops=$(dmfault stats --json flakey-test | python3 -c \
	'import json, sys; print(sum(r["injected"] for r in json.load(sys.stdin)["devices"][0]["rules"]))')
within "and it counts the writes it dropped" "$drops" 1 1000000
umount /mnt/fl
dmsetup suspend --nolockfs flakey-test
echo "0 $S flakey $NB 0 180 0" | dmsetup load flakey-test
dmsetup resume flakey-test
mount /dev/mapper/flakey-test /mnt/fl
expect "fstests drop_writes: the synced file survived" durable "$(cat /mnt/fl/a 2>&1)"
expect "fstests drop_writes: the file written while dropping is gone (flakey-test mounted)" \
	"/dev/mapper/flakey-test absent" \
	"$(findmnt -no SOURCE /mnt/fl) $([ -e /mnt/fl/b ] && echo present || echo absent)"
umount /mnt/fl
dmsetup remove flakey-test

dm_cleanup
nullb_destroy nbc
check "modules unload" dmf_unload
ktap_end
