#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The bad-block map: ranges that merge and split, the four modes, per-range
# status, heals and write fail counts with the data read back, partial
# completion on 512-byte and 4 KiB disks, refused input with its reason,
# the fault-dust target with dm-dust's replies and fstests' common/dmdust
# calls, and ext4 and xfs under fio on a device with bad ranges.
. "$(dirname "$0")/../lib.sh"
ktap_begin bad

T=$(mktemp -d)
check "modules load" dmf_load
NB=$(nullb_create nbb 64 1)
NB4=$(nullb_create nbb4 64 1 4096)
S=$(dm_size "$NB")
check "fault device on a 512-byte disk" dm_create b "0 $S fault $NB 0"

msg() { dmsetup message b 0 "$@"; }

# rd DEV SECTOR COUNT: read COUNT 512-byte sectors with O_DIRECT; dd's error or nothing
rd() {
	dd if="/dev/mapper/$1" of=/dev/null bs=512 skip="$2" count="$3" iflag=direct \
		status=none 2>&1
}

# wr DEV SECTOR COUNT FILE: write COUNT sectors of FILE at SECTOR with O_DIRECT
wr() {
	dd if="$4" of="/dev/mapper/$1" bs=512 seek="$2" count="$3" oflag=direct conv=notrunc \
		status=none 2>&1
}

# sum FILE SECTOR COUNT [BS]: md5 of COUNT blocks of BS bytes (512) from block
# SECTOR of a file or a block device (read directly), or dd's error
sum() {
	local direct= out

	[ -b "$1" ] && direct=iflag=direct
	out=$(set -o pipefail; dd if="$1" bs="${4:-512}" skip="$2" count="$3" $direct status=none |
		md5sum) || { echo "read of $1 failed"; return; }
	echo "${out:0:32}"
}

# fails_with NAME ERRTEXT CMD...: CMD fails and says ERRTEXT
fails_with() {
	local name=$1 want=$2 out

	shift 2
	if out=$("$@" 2>&1); then
		fail "$name" "succeeded: $*"
	elif [[ $out == *"$want"* ]]; then
		ok "$name"
	else
		fail "$name" "failed, but not with '$want'" "$out"
	fi
}

head -c 1048576 /dev/urandom > $T/data
head -c 1048576 /dev/urandom > $T/data2

# --- the map: empty, add, merge, split --------------------------------------------
expect "no map: count" "ranges=0 sectors=0" "$(msg bad count)"
expect "no map: the status's bad word is -" "-" "$(dmsetup status b | awk '{print $NF}')"
check "add 100-107" msg bad add 100-107
expect "one range of 8" "ranges=1 sectors=8" "$(msg bad count)"
fails_with "a read of sector 100 fails with the medium error" "No data available" rd b 100 1
fails_with "a read of sector 107 fails" "No data available" rd b 107 1
check "sectors 0-99 read" rd b 0 100
check "sector 108 reads" rd b 108 1
fails_with "a 64 KiB read over the range fails whole" "No data available" rd b 64 128
check "add 108+8: adjacent, the same kind" msg bad add 108+8
check "add 90-100: overlapping" msg bad add 90-100
expect "merged into one range" "ranges=1 sectors=26" "$(msg bad count)"
expect "listed as one" "90-115 mode=heal status=medium wr_fail=0" "$(msg bad list)"
check "remove 100-101" msg bad remove 100-101
expect "split in two" "ranges=2 sectors=24" "$(msg bad count)"
expect "listed as two" "90-99 mode=heal status=medium wr_fail=0
102-115 mode=heal status=medium wr_fail=0" "$(msg bad list)"
check "add mode=sticky 116-119: another kind" msg bad add mode=sticky 116-119
expect "kept apart" "ranges=3 sectors=28" "$(msg bad count)"
expect "query a bad sector" "95 bad 90-99 mode=heal status=medium wr_fail=0" \
	"$(msg bad query 95)"
expect "query a good one" "100 ok" "$(msg bad query 100)"
expect "list from 103" "103-115 mode=heal status=medium wr_fail=0
116-119 mode=sticky status=medium wr_fail=0" "$(msg bad list 103)"

# --- heal, wr_fail, sticky, read, write, status -------------------------------------
check "a write to sector 95 heals it" wr b 95 1 $T/data
expect "95 is good" "95 ok" "$(msg bad query 95)"
expect "90-99 split around it" "ranges=4 sectors=27" "$(msg bad count)"
expect "95 reads back what was written" "$(sum $T/data 0 1)" "$(sum /dev/mapper/b 95 1)"
fails_with "94 still fails" "No data available" rd b 94 1
expect "one heal counted" 1 "$(msg stats | sed -n 's/^bad .*heals=\([0-9]*\).*/\1/p')"

check "add wr_fail=2 200" msg bad add wr_fail=2 200
fails_with "the first write to 200 fails" "No data available" wr b 200 1 $T/data
expect "one write left to fail" "200 bad 200-200 mode=heal status=medium wr_fail=1" \
	"$(msg bad query 200)"
fails_with "the second write to 200 fails" "No data available" wr b 200 1 $T/data
check "the third heals" wr b 200 1 $T/data2
expect "200 reads back the third write" "$(sum $T/data2 0 1)" "$(sum /dev/mapper/b 200 1)"

fails_with "a write to a sticky range fails" "No data available" wr b 116 1 $T/data
fails_with "and a read" "No data available" rd b 117 1
expect "the sticky range stays" "116 bad 116-119 mode=sticky status=medium wr_fail=0" \
	"$(msg bad query 116)"

check "add mode=read 300-303" msg bad add mode=read 300-303
check "a write to a read-bad range passes" wr b 300 4 $T/data
expect "and heals nothing" "300 bad 300-303 mode=read status=medium wr_fail=0" \
	"$(msg bad query 300)"
fails_with "a read fails" "No data available" rd b 300 1
check "add mode=write 400" msg bad add mode=write 400
check "a read of a write-bad sector passes" rd b 400 1
fails_with "a write fails" "No data available" wr b 400 1 $T/data
check "add status=eio 500" msg bad add status=eio 500
fails_with "a read fails with EIO" "Input/output error" rd b 500 1
check "add status=enospc mode=write 510" msg bad add status=enospc mode=write 510
fails_with "a write fails with ENOSPC" "No space left on device" wr b 510 1 $T/data

# io_uring submits with REQ_NOWAIT: the heal cannot happen without waiting,
# so the map sends the write back and io_uring issues it again from a worker
check "add 8000-8007 (heal)" msg bad add 8000-8007
out=$(fio --name=nowait --filename=/dev/mapper/b --ioengine=io_uring --direct=1 --rw=write \
	--bs=4k --offset=4096000 --size=4k --output-format=terse 2>&1); rc=$?
expect "an io_uring write heals 8000-8007: fio's status and error" "0|0" \
	"$rc|$(echo "$out" | awk -F';' 'NR == 1 {print $5}')"
expect "8000 is good after it" "8000 ok" "$(msg bad query 8000)"
check "and reads" rd b 8000 8

# --- partial completion -----------------------------------------------------------
check "the disk below holds data2 at 600-607" \
	dd if=$T/data2 of="$NB" bs=512 seek=600 count=8 oflag=direct conv=notrunc status=none
check "add mode=sticky 604" msg bad add mode=sticky 604
# one 4 KiB write at sector 600
wr4k() {
	dd if=$T/data of=/dev/mapper/b bs=4096 seek=75 count=1 oflag=direct conv=notrunc \
		status=none 2>&1
}
fails_with "partial off: a 4 KiB write over 604 fails" "No data available" wr4k
expect "and writes nothing" "$(sum $T/data2 0 8)" "$(sum "$NB" 600 8)"
check "bad partial on" msg bad partial on
fails_with "partial on: the write still fails" "No data available" wr4k
expect "the 4 sectors before 604 are written" "$(sum $T/data 0 4)" "$(sum "$NB" 600 4)"
expect "604-607 are not" "$(sum $T/data2 4 4)" "$(sum "$NB" 604 4)"
check "a direct read of 600-603 passes" rd b 600 4
fails_with "a 4 KiB read over 604 fails" "No data available" \
	dd if=/dev/mapper/b of=/dev/null bs=4096 skip=75 count=1 iflag=direct status=none
check "bad partial off" msg bad partial off

check "fault device on a 4 KiB disk" dm_create b4 "0 $(dm_size "$NB4") fault $NB4 0"
check "4 KiB disk: the disk below holds data2" \
	dd if=$T/data2 of="$NB4" bs=4096 count=4 oflag=direct conv=notrunc status=none
check "4 KiB disk: sticky sector 19 (block 2), partial on" \
	sh -c "dmsetup message b4 0 bad add mode=sticky 19 && dmsetup message b4 0 bad partial on"
fails_with "4 KiB disk: a 16 KiB write over it fails" "No data available" \
	dd if=$T/data of=/dev/mapper/b4 bs=16384 count=1 oflag=direct conv=notrunc status=none
expect "blocks 0 and 1 are written" "$(sum $T/data 0 2 4096)" "$(sum "$NB4" 0 2 4096)"
expect "blocks 2 and 3 are not: the whole logical block of 19 fails" \
	"$(sum $T/data2 2 2 4096)" "$(sum "$NB4" 2 2 4096)"
check "remove b4" dmsetup remove b4

# --- refused input ----------------------------------------------------------------
before=$(msg bad count)
refused "past the end" "range '$S' is not within the device's $S sectors" msg bad add "$S"
refused "reversed" "bad add: invalid range" msg bad add 10-5
refused "a count of 0" "bad add: invalid range" msg bad add 5+0
refused "2^64" "bad add: invalid range" msg bad add 18446744073709551616
refused "a wrapping count" "bad add: invalid range" msg bad add 18446744073709551615+2
refused "garbage" "bad add: invalid range" msg bad add 12abc
refused "a sign" "bad add: invalid range" msg bad add +5
refused "no range" "bad add: expected a range" msg bad add mode=sticky
refused "a bad mode" "mode= takes heal, sticky, read or write" msg bad add mode=bogus 5
refused "status ok" "status= takes an error status" msg bad add status=ok 5
refused "wr_fail on sticky" "wr_fail= is for mode=heal" msg bad add mode=sticky wr_fail=3 5
refused "wr_fail past 2^32" "wr_fail= takes a count" msg bad add wr_fail=4294967296 5
refused "keys on remove" "bad remove takes ranges only" msg bad remove mode=sticky 5
refused "one good range and one past the end: nothing added" "is not within the device" \
	msg bad add 5 "$((S + 10))"
refused "an unknown word" "expected 'bad add" msg bad frob
refused "query of garbage" "expected 'bad add" msg bad query x
expect "the map is unchanged by the refusals" "$before" "$(msg bad count)"

# --- many ranges in one message, enable, disable, clear -----------------------------
check "add 10000 ranges in one message" msg bad add $(seq 20000 2 39998)
expect "10000 more ranges" "ranges=$(( $(echo "$before" | sed 's/ranges=\([0-9]*\).*/\1/') + 10000 ))" \
	"$(msg bad count | cut -d' ' -f1)"
fails_with "a read of 20000 fails" "No data available" rd b 20000 1
check "a read of 20001 passes" rd b 20001 1
# a page is bounded by 1024 ranges and by the reply buffer
page=$(msg bad list 20000)
n=$(($(echo "$page" | wc -l) - 1))
within "a list page holds many ranges, not all" "$n" 100 1024
expect "and ends with where to go on" "next $((20000 + 2 * n))" "$(echo "$page" | tail -n 1)"
expect "the next page starts there" "$((20000 + 2 * n))-$((20000 + 2 * n))" \
	"$(msg bad list $((20000 + 2 * n)) | head -n 1 | cut -d' ' -f1)"
check "remove 20000-39998" msg bad remove 20000-39998
check "bad disable" msg bad disable
check "a disabled map fails nothing" rd b 100 1
expect "the status word says off" off "$(dmsetup status b | awk '{print $NF}' | cut -d: -f1)"
check "bad enable" msg bad enable
fails_with "enabled again" "No data available" rd b 105 1
within "lookups counted" "$(dmsetup status b | awk '{print $NF}' | cut -d: -f5)" 20 100000
within "hits counted" "$(dmsetup status b | awk '{print $NF}' | cut -d: -f6)" 10 1000
check "bad clear" msg bad clear
expect "cleared" "ranges=0 sectors=0" "$(msg bad count)"
check "sector 105 reads after the clear" rd b 105 1
check "remove b" dmsetup remove b

# --- a large map: loaded in batches, a spanning remove, clear, removed full ------------
# bad_load DEV FIRST N: N one-sector ranges from FIRST, kinds alternating
# so that none merge, 8192 a message
bad_load() {
	"$top/tests/vm/bin/dmf-bad-ranges" "$2" 1 "$3" | xargs -L 1 dmsetup message "$1" 0
}
NBG=$(nullb_create nbbg 1024 0)
kmsg_mark
check "a device for a large map" dm_create g "0 $(dm_size "$NBG") fault $NBG 0"
check "load 400000 ranges" bad_load g 0 400000
expect "400000 ranges, none merged" "ranges=400000 sectors=400000" "$(dmsetup message g 0 bad count)"
fails_with "sector 123456 fails with its kind's status (medium)" "No data available" \
	dd if=/dev/mapper/g of=/dev/null bs=512 skip=123457 count=1 iflag=direct status=none
fails_with "sector 123456 (eio)" "Input/output error" \
	dd if=/dev/mapper/g of=/dev/null bs=512 skip=123456 count=1 iflag=direct status=none
check "sector 400000 reads" \
	dd if=/dev/mapper/g of=/dev/null bs=512 skip=400000 count=1 iflag=direct status=none
check "remove 100000-299999: one store over 200000 ranges" dmsetup message g 0 bad remove 100000-299999
expect "200000 left" "ranges=200000 sectors=200000" "$(dmsetup message g 0 bad count)"
check "sector 200000 reads" \
	dd if=/dev/mapper/g of=/dev/null bs=512 skip=200000 count=1 iflag=direct status=none
check "bad clear of 200000 ranges" dmsetup message g 0 bad clear
expect "empty" "ranges=0 sectors=0" "$(dmsetup message g 0 bad count)"
check "load 300000 again" bad_load g 1000 300000
check "remove the device with its map full" dmsetup remove g
check "a fault-dust device" dm_create gd "0 $(dm_size "$NBG") fault-dust $NBG 0 512"
check "quiet" dmsetup message gd 0 quiet
check "40000 blocks by the fault target's bad add" bad_load gd 0 40000
expect "countbadblocks" "countbadblocks: 40000 badblock(s) found" \
	"$(dmsetup message gd 0 countbadblocks)"
expect "clearbadblocks" "dust_clear_badblocks: badblocks cleared" \
	"$(dmsetup message gd 0 clearbadblocks)"
check "40000 again" bad_load gd 0 40000
check "remove the dust device with its map full" dmsetup remove gd
expect "no kernel problem reported" "" "$(kernel_reports)"
nullb_destroy nbbg

# --- the summary in front of the tree: chunks of 32 sectors on a 4 GiB disk ---------------
# rdg DEV SECTOR: read one sector of DEV directly; dd's error or nothing
rdg() {
	dd if="/dev/mapper/$1" of=/dev/null bs=512 skip="$2" count=1 iflag=direct status=none 2>&1
}
NBS=$(nullb_create nbbs 4096 0)
check "a fault device on a 4 GiB disk" dm_create s "0 $(dm_size "$NBS") fault $NBS 0"
check "add 1000 and 1010, one chunk (992-1023), two ranges" dmsetup message s 0 bad add 1000 1010
check "remove 1000" dmsetup message s 0 bad remove 1000
check "sector 1000 reads" rdg s 1000
fails_with "sector 1010, in the same chunk, still fails" "No data available" rdg s 1010
check "remove 1010" dmsetup message s 0 bad remove 1010
check "sector 1010 reads" rdg s 1010
check "add 2000-2199 (chunks 62-68)" dmsetup message s 0 bad add 2000-2199
check "remove 2010-2189: the chunks between lose their bits" \
	dmsetup message s 0 bad remove 2010-2189
fails_with "sector 2005 still fails" "No data available" rdg s 2005
fails_with "sector 2195 still fails" "No data available" rdg s 2195
check "sector 2100 reads" rdg s 2100
check "add 3000 and 3005, heal" dmsetup message s 0 bad add 3000 3005
check "a write heals 3000" dd if=$T/data of=/dev/mapper/s bs=512 seek=3000 count=1 \
	oflag=direct conv=notrunc status=none
check "sector 3000 reads" rdg s 3000
fails_with "sector 3005, in the same chunk, still fails" "No data available" rdg s 3005
check "bad clear" dmsetup message s 0 bad clear
check "sector 3005 reads after the clear" rdg s 3005
check "add 4000 after the clear" dmsetup message s 0 bad add 4000
fails_with "sector 4000 fails" "No data available" rdg s 4000
check "remove it" dmsetup remove s
check "fault-dust at offset 2048, 512-byte blocks" \
	dm_create sd "0 $(($(dm_size "$NBS") - 2048)) fault-dust $NBS 2048 512"
check "enable" dmsetup message sd 0 enable
check "addbadblock 10: before the target's start, no bio reaches it" \
	dmsetup message sd 0 addbadblock 10
check "addbadblock 2100: target sector 52" dmsetup message sd 0 addbadblock 2100
check "target sector 0 reads" rdg sd 0
fails_with "target sector 52 fails with EIO" "Input/output error" rdg sd 52
check "removebadblock 2100" dmsetup message sd 0 removebadblock 2100
check "target sector 52 reads" rdg sd 52
expect "block 10 is still listed" "dust_query_block: block 10 found in badblocklist" \
	"$(dmsetup message sd 0 queryblock 10)"
check "remove the dust device" dmsetup remove sd
nullb_destroy nbbs

# --- fault-dust: dm-dust's interface ------------------------------------------------
check "fault-dust device" dm_create d "0 $S fault-dust $NB 0 512"
NBDEV=$(lsblk -dno MAJ:MIN "$NB" | tr -d ' ')
expect "dust's table line" "0 $S fault-dust $NBDEV 0 512" "$(dmsetup table d)"
expect "dust's status line" "0 $S fault-dust $NBDEV bypass verbose" "$(dmsetup status d)"
dmsg() { dmsetup message d 0 "$@"; }
kmsg_mark
check "addbadblock 60" dmsg addbadblock 60
check "addbadblock 67" dmsg addbadblock 67
check "addbadblock 72" dmsg addbadblock 72
expect "logged as dm-dust logs it" \
	"device-mapper: dust: dust_add_block: badblock added at block 60 with write fail count 0" \
	"$(kmsg_since | grep -o 'device-mapper: dust: dust_add_block.*block 60.*')"
expect "countbadblocks" "countbadblocks: 3 badblock(s) found" "$(dmsg countbadblocks)"
expect "listbadblocks" "60
67
72" "$(dmsg listbadblocks)"
expect "queryblock 72" "dust_query_block: block 72 found in badblocklist" "$(dmsg queryblock 72)"
expect "queryblock 73" "dust_query_block: block 73 not found in badblocklist" \
	"$(dmsg queryblock 73)"
check "disabled: block 60 reads" rd d 60 1
check "enable" dmsg enable
expect "status: fail_read_on_bad_block" "0 $S fault-dust $NBDEV fail_read_on_bad_block verbose" \
	"$(dmsetup status d)"
fails_with "block 60 fails with EIO" "Input/output error" rd d 60 1
check "block 61 reads" rd d 61 1
refused "addbadblock 60 again" "dust: dust_add_block: block 60 already in badblocklist" \
	dmsg addbadblock 60
check "removebadblock 67" dmsg removebadblock 67
refused "removebadblock 67 again" "dust: dust_remove_block: block 67 not found in badblocklist" \
	dmsg removebadblock 67
refused "a block past the end" "dust: selected block value out of range" \
	dmsg addbadblock $((S + 1))
refused "a write fail count past 255" "dust: selected write fail count out of range" \
	dmsg addbadblock 80 256
refused "addbadblock alone" "dust: addbadblock requires an additional argument" dmsg addbadblock
refused "four words" "dust: invalid number of arguments '4'" dmsg addbadblock 1 2 3
refused "enable 5" "dust: unrecognized message 'enable' received" dmsg enable 5
check "addbadblock 80 2" dmsg addbadblock 80 2
fails_with "write 1 to block 80 fails" "Input/output error" wr d 80 1 $T/data
fails_with "write 2 fails" "Input/output error" wr d 80 1 $T/data
kmsg_mark
check "write 3 heals" wr d 80 1 $T/data2
expect "logged" "device-mapper: dust: block 80 removed from badblocklist by write" \
	"$(kmsg_since | grep -o 'device-mapper: dust: block 80 removed.*')"
expect "80 reads back write 3" "$(sum $T/data2 0 1)" "$(sum /dev/mapper/d 80 1)"
check "write to block 72 heals it" wr d 72 1 $T/data
expect "countbadblocks after heals" "countbadblocks: 1 badblock(s) found" "$(dmsg countbadblocks)"
check "quiet" dmsg quiet
expect "status: quiet" "0 $S fault-dust $NBDEV fail_read_on_bad_block quiet" "$(dmsetup status d)"
kmsg_mark
check "quiet: addbadblock 90" dmsg addbadblock 90
expect "quiet: nothing logged" "" "$(kmsg_since | grep 'dust_add_block')"
expect "clearbadblocks" "dust_clear_badblocks: badblocks cleared" "$(dmsg clearbadblocks)"
expect "clearbadblocks, none left" "dust_clear_badblocks: no badblocks found" \
	"$(dmsg clearbadblocks)"
expect "listbadblocks, none" "No blocks in badblocklist" "$(dmsg listbadblocks)"
expect "the fault target's own messages work too" "ranges=0 sectors=0" "$(dmsg bad count)"
check "disable" dmsg disable
check "remove d" dmsetup remove d

check "fault-dust with 4 KiB blocks" dm_create d4 "0 $S fault-dust $NB 0 4096"
check "enable" dmsetup message d4 0 enable
check "addbadblock 3" dmsetup message d4 0 addbadblock 3
fails_with "sector 24 (block 3) fails" "Input/output error" rd d4 24 1
fails_with "sector 31 (block 3) fails" "Input/output error" rd d4 31 1
check "sector 32 reads" rd d4 32 1
check "sector 23 reads" rd d4 23 1
expect "one block" "countbadblocks: 1 badblock(s) found" "$(dmsetup message d4 0 countbadblocks)"
check "addbadblock 4: beside 3" dmsetup message d4 0 addbadblock 4
kmsg_mark
check "a 512-byte write to sector 33, in block 4" wr d4 33 1 $T/data
expect "it heals block 4 whole, logged once" \
	"device-mapper: dust: block 4 removed from badblocklist by write" \
	"$(kmsg_since | grep -o 'device-mapper: dust: block.*removed.*')"
check "sector 32 (block 4) reads" rd d4 32 1
check "sector 39 (block 4) reads" rd d4 39 1
fails_with "sector 31 (block 3) still fails" "Input/output error" rd d4 31 1
expect "listbadblocks: block 3" "3" "$(dmsetup message d4 0 listbadblocks)"
expect "queryblock 4" "dust_query_block: block 4 not found in badblocklist" \
	"$(dmsetup message d4 0 queryblock 4)"
expect "bad list: block 3's sectors" "24-31 mode=heal status=eio wr_fail=0" \
	"$(dmsetup message d4 0 bad list)"
kmsg_mark
check "a 512-byte write to sector 26, in block 3" wr d4 26 1 $T/data
expect "it heals block 3 whole" "device-mapper: dust: block 3 removed from badblocklist by write" \
	"$(kmsg_since | grep -o 'device-mapper: dust: block.*removed.*')"
check "sectors 24-31 (block 3) read" rd d4 24 8
expect "countbadblocks: none" "countbadblocks: 0 badblock(s) found" \
	"$(dmsetup message d4 0 countbadblocks)"
expect "queryblock 3" "dust_query_block: block 3 not found in badblocklist" \
	"$(dmsetup message d4 0 queryblock 3)"
expect "listbadblocks: none" "No blocks in badblocklist" "$(dmsetup message d4 0 listbadblocks)"
refused "removebadblock 3: not found" "dust: dust_remove_block: block 3 not found in badblocklist" \
	dmsetup message d4 0 removebadblock 3
expect "clearbadblocks: none" "dust_clear_badblocks: no badblocks found" \
	"$(dmsetup message d4 0 clearbadblocks)"
expect "bad count: the map is empty" "ranges=0 sectors=0" "$(dmsetup message d4 0 bad count)"
expect "two heals counted, one a block" "heals=2" \
	"$(dmsetup message d4 0 stats | awk '$1 == "bad" {print $NF}')"
check "bad add 41: a sector of block 5" dmsetup message d4 0 bad add 41
expect "it marks block 5 whole" "ranges=1 sectors=8" "$(dmsetup message d4 0 bad count)"
fails_with "sector 40 (block 5) fails, medium error" "No data available" rd d4 40 1
expect "queryblock 5" "dust_query_block: block 5 found in badblocklist" \
	"$(dmsetup message d4 0 queryblock 5)"
check "bad remove 47: a sector of block 5" dmsetup message d4 0 bad remove 47
expect "it removes block 5 whole" "countbadblocks: 0 badblock(s) found" \
	"$(dmsetup message d4 0 countbadblocks)"
check "sector 41 reads" rd d4 41 1
check "remove d4" dmsetup remove d4

# 8 KiB blocks on a 4 KiB-sector disk: a 4 KiB write is half a block
check "fault-dust with 8 KiB blocks on a 4 KiB disk" \
	dm_create d8 "0 $(dm_size "$NB4") fault-dust $NB4 0 8192"
check "enable" dmsetup message d8 0 enable
check "addbadblock 2" dmsetup message d8 0 addbadblock 2
check "addbadblock 3" dmsetup message d8 0 addbadblock 3
check "a 4 KiB write to sector 40, the second half of block 2" \
	dd if=$T/data of=/dev/mapper/d8 bs=4096 seek=5 count=1 oflag=direct conv=notrunc status=none
check "sector 32 (block 2's first half) reads" \
	dd if=/dev/mapper/d8 of=/dev/null bs=4096 skip=4 count=1 iflag=direct status=none
expect "listbadblocks: block 3" "3" "$(dmsetup message d8 0 listbadblocks)"
expect "countbadblocks: 1" "countbadblocks: 1 badblock(s) found" \
	"$(dmsetup message d8 0 countbadblocks)"
expect "bad count: one range of 16 sectors" "ranges=1 sectors=16" \
	"$(dmsetup message d8 0 bad count)"
check "remove d8" dmsetup remove d8
dm_refused "dust: a block size not a power of 2" fault-dust "Block size must be a power of 2" \
	"0 $S fault-dust $NB 0 1000"
dm_refused "dust: a block size under 512" fault-dust "Block size must be at least 512" \
	"0 $S fault-dust $NB 0 256"
dm_refused "dust: two arguments" fault-dust "Invalid argument count" "0 $S fault-dust $NB 0"

# --- fstests' common/dmdust, as btrfs/142 calls it, on ext4 -------------------------
dmf_unload >/dev/null 2>&1
check "the engine loads" insmod "$BUILD/dmf_engine.ko"
check "compat_names=1: dm-fault serves dust" insmod "$BUILD/dm-fault.ko" compat_names=1
check "dmsetup targets lists dust" sh -c 'dmsetup targets | grep -q "^dust "'
DUST_NAME=dust-test.142
check "_init_dust" dmsetup create $DUST_NAME --table "0 $(blockdev --getsz "$NB") dust $NB 0 512"
check "mkfs.ext4" mkfs.ext4 -q -F /dev/mapper/$DUST_NAME
mkdir -p $T/mnt
check "_mount_dust" mount -t ext4 /dev/mapper/$DUST_NAME $T/mnt
check "a 128 KiB file" dd if=$T/data of=$T/mnt/foobar bs=128k count=1 oflag=direct status=none
phys=$(filefrag -v -b512 $T/mnt/foobar | awk '$1 == "0:" {sub(/\.\..*/, "", $4); print $4}')
check "its first sector ($phys)" test -n "$phys"
check "addbadblock" dmsetup message $DUST_NAME 0 addbadblock "$phys"
check "enable" dmsetup message $DUST_NAME 0 enable
fails_with "a direct read of the file fails" "Input/output error" \
	dd if=$T/mnt/foobar of=/dev/null bs=128k iflag=direct status=none
check "_cleanup_dust: resume" dmsetup resume $DUST_NAME
check "_cleanup_dust: unmount" umount $T/mnt
check "_cleanup_dust: remove" dmsetup remove $DUST_NAME
dmf_unload >/dev/null 2>&1
check "modules load" dmf_load

# --- ext4 and xfs under fio with bad ranges -----------------------------------------
fs_under_fio() {
	local fs=$1 out SF

	SF=$(dm_size "$NBF")
	check "$fs: fault device" dm_create f "0 $SF fault $NBF 0"
	case $fs in
	ext4) check "$fs: mkfs" mkfs.ext4 -q -F /dev/mapper/f ;;
	xfs) check "$fs: mkfs" mkfs.xfs -q -f /dev/mapper/f ;;
	esac
	check "$fs: mount" mount /dev/mapper/f $T/mnt
	check "$fs: a 16 MiB file" fio --name=lay --filename=$T/mnt/file --size=16m --rw=write \
		--bs=64k --direct=1 --output=/dev/null
	check "$fs: sticky ranges under the file and beside it" \
		dmsetup message f 0 bad add mode=sticky status=eio \
		"$(filefrag -v -b512 $T/mnt/file | awk '$1 == "0:" {sub(/\.\..*/, "", $4); print $4 + 64 "+64"}')" \
		"$((SF / 2))+512"
	out=$(fio --name=rw --filename=$T/mnt/file --size=16m --rw=randrw --bs=4k --direct=1 \
		--ioengine=psync --time_based --runtime=5 --continue_on_error=all \
		--output-format=terse 2>&1)
	check "$fs: fio ran" test -n "$out"
	within "$fs: the map failed bios" "$(dmsetup status f | awk '{print $NF}' | cut -d: -f6)" \
		1 100000000
	check "$fs: unmount" umount $T/mnt
	check "$fs: remove" dmsetup remove f
}
NBF=$(nullb_create nbbf 512 1)
kmsg_mark
fs_under_fio ext4
fs_under_fio xfs
expect "no kernel problem reported" "" "$(kernel_reports)"

dm_cleanup
nullb_destroy nbb
nullb_destroy nbb4
nullb_destroy nbbf
rm -rf $T
ktap_end
