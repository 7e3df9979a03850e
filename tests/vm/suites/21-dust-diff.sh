#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fault-dust beside the real dm-dust: the in-tree dm-dust.c of this kernel's
# linux-source (scripts/dm-dust-ref.sh, make dust-ref) and then dm-fault
# with compat_names=1 each serve "dust", and one scripted sequence runs on
# each: table lines, messages, I/O of 512 bytes and 4 KiB on a 512-byte and
# a 4 KiB-sector disk, empty flushes and a discard.  Its transcript holds,
# step by step, the command, its standard output and error, its exit status
# and the kernel's lines with their levels.  Every step must read the same
# on both, but for the differences decided below, each with its reason
# (dm-fault.rst, the dust section, lists them).
. "$(dirname "$0")/../lib.sh"
ktap_begin dust-diff

T=$(mktemp -d)
REF=$BUILD/ref/dm-dust.ko
[ -e "$REF" ] || "$top/scripts/dm-dust-ref.sh" "$KVER" >/dev/null
check "dm-dust.ko built from linux-source" test -e "$REF"

# discard, and a write cache: an empty flush reaches the target
NB=$(nullb_create nbd 16 1 512 discard cache)
NB4=$(nullb_create nbd4 16 1 4096 discard cache)
S=$(dm_size "$NB")
S4=$(dm_size "$NB4")
head -c 65536 /dev/urandom > $T/data

# kmsg_levels: the lines of device-mapper and of its devices that the kernel
# logged since kmsg_mark, each with its level (<3> err); not the lines of a
# clock or a watchdog, which come as they please in a VM
kmsg_levels() {
	dmesg -r | sed -E 's/^(<[0-9]+>)\[ *[0-9.]+\] ?/\1/' |
		awk -v t="$_kmsg_tag" 'index($0, t) {b = ""; f = 1; next}
			f && /device-mapper|dm-[0-9]/ {b = b $0 "\n"} END {printf "%s", b}'
}

# step NAME CMD...: append one step to the transcript $TR
step() {
	local name=$1 rc

	shift
	kmsg_mark
	"$@" > $T/out 2> $T/err
	rc=$?
	{
		echo "## $name"
		echo "\$ $*"
		cat $T/out
		sed 's/^/! /' $T/err
		echo "= exit $rc"
		kmsg_levels | sed 's/^/k /'
	} >> "$TR"
}

create() { echo "$2" | dmsetup create "$1"; }
msg() { dmsetup message "$@"; }
# rd DEV BS BLOCK, wr DEV BS BLOCK: one direct read or write of BS bytes
rd() { dd if="/dev/mapper/$1" of=/dev/null bs="$2" skip="$3" count=1 iflag=direct status=none; }
wr() {
	dd if=$T/data of="/dev/mapper/$1" bs="$2" seek="$3" count=1 oflag=direct conv=notrunc \
		status=none
}
# flush DEV: fsync of the device with nothing written: one empty flush
flush() { dd if=/dev/null of="/dev/mapper/$1" conv=fsync,notrunc status=none; }

# transcript FILE: the sequence, on whichever module serves "dust" now
transcript() {
	TR=$1
	: > "$TR"
	step "offset abc" create d "0 $S dust $NB abc 512"
	step "offset +8" create d "0 $S dust $NB +8 512"
	step "no such device" create d "0 $S dust /dev/nonexistent 0 512"
	step "block size 1000" create d "0 $S dust $NB 0 1000"
	step "block size 256" create d "0 $S dust $NB 0 256"
	step "two arguments" create d "0 $S dust $NB 0"
	step "create, 512-byte blocks" create d "0 $S dust $NB 0 512"
	step "table" dmsetup table d
	step "status" dmsetup status d
	step "addbadblock 60" msg d 0 addbadblock 60
	step "addbadblock 67 2" msg d 0 addbadblock 67 2
	step "addbadblock 60 again" msg d 0 addbadblock 60
	step "addbadblock alone" msg d 0 addbadblock
	step "addbadblock 1 2 3" msg d 0 addbadblock 1 2 3
	step "a block past the end" msg d 0 addbadblock $((S + 1))
	step "write fail count 256" msg d 0 addbadblock 5 256
	step "addbadblock x" msg d 0 addbadblock x
	step "unknown message" msg d 0 foo
	step "unknown message, a block" msg d 0 foo 5
	step "unknown message, a block past the end" msg d 0 foo $((S + 1))
	step "enable 5" msg d 0 enable 5
	step "queryblock 60" msg d 0 queryblock 60
	step "queryblock 61" msg d 0 queryblock 61
	step "countbadblocks" msg d 0 countbadblocks
	step "listbadblocks" msg d 0 listbadblocks
	step "read block 60, disabled" rd d 512 60
	step "enable" msg d 0 enable
	step "status, enabled" dmsetup status d
	step "read block 60" rd d 512 60
	step "read block 61" rd d 512 61
	step "read 4 KiB over block 60" rd d 4096 7
	step "write block 67: fails" wr d 512 67
	step "write block 67: fails again" wr d 512 67
	step "write block 67: heals" wr d 512 67
	step "write 4 KiB over block 60: heals" wr d 4096 7
	step "read block 60, healed" rd d 512 60
	step "countbadblocks, none" msg d 0 countbadblocks
	step "removebadblock 60: not found" msg d 0 removebadblock 60
	step "quiet" msg d 0 quiet
	step "status, quiet" dmsetup status d
	step "addbadblock 70, quiet" msg d 0 addbadblock 70
	step "addbadblock 70 again, quiet" msg d 0 addbadblock 70
	step "quiet again: verbose" msg d 0 quiet
	step "addbadblock 80" msg d 0 addbadblock 80
	step "listbadblocks, two" msg d 0 listbadblocks
	step "clearbadblocks" msg d 0 clearbadblocks
	step "clearbadblocks, none" msg d 0 clearbadblocks
	step "listbadblocks, none" msg d 0 listbadblocks
	step "addbadblock 0 1" msg d 0 addbadblock 0 1
	step "empty flush" flush d
	step "empty flush again" flush d
	step "queryblock 0 after the flushes" msg d 0 queryblock 0
	step "remove" dmsetup remove d
	step "create, 512-byte blocks, again" create d "0 $S dust $NB 0 512"
	step "enable" msg d 0 enable
	step "addbadblock 97" msg d 0 addbadblock 97
	step "addbadblock 99" msg d 0 addbadblock 99
	step "addbadblock 101" msg d 0 addbadblock 101
	# -f: no probe for a signature, which would read the bad blocks first
	step "discard of sectors 96-103" blkdiscard -f -o $((96 * 512)) -l 4096 /dev/mapper/d
	step "listbadblocks after the discard" msg d 0 listbadblocks
	step "remove, blocks left" dmsetup remove d
	step "create, 4 KiB blocks" create d4 "0 $S dust $NB 0 4096"
	step "enable" msg d4 0 enable
	step "addbadblock 3" msg d4 0 addbadblock 3
	step "addbadblock 4" msg d4 0 addbadblock 4
	step "read sector 24" rd d4 512 24
	step "read sector 33" rd d4 512 33
	step "512-byte write to sector 26" wr d4 512 26
	step "countbadblocks after it" msg d4 0 countbadblocks
	step "queryblock 3 after it" msg d4 0 queryblock 3
	step "listbadblocks after it" msg d4 0 listbadblocks
	step "read sectors 24-31" rd d4 4096 3
	step "read sector 31" rd d4 512 31
	step "512-byte write to sector 39" wr d4 512 39
	step "read sector 32" rd d4 512 32
	step "clearbadblocks, none left" msg d4 0 clearbadblocks
	step "removebadblock 3: not found" msg d4 0 removebadblock 3
	step "remove d4" dmsetup remove d4
	step "create, 8 KiB blocks on a 4 KiB disk" create d8 "0 $S4 dust $NB4 0 8192"
	step "enable" msg d8 0 enable
	step "addbadblock 2" msg d8 0 addbadblock 2
	step "addbadblock 3" msg d8 0 addbadblock 3
	step "read 4 KiB at sector 32" rd d8 4096 4
	step "4 KiB write to sector 40" wr d8 4096 5
	step "read 4 KiB at sector 32, healed" rd d8 4096 4
	step "read 4 KiB at sector 48" rd d8 4096 6
	step "countbadblocks" msg d8 0 countbadblocks
	step "listbadblocks" msg d8 0 listbadblocks
	step "remove d8" dmsetup remove d8
}

# The decided differences: a step, the reason, a piece of dm-dust's
# transcript of the step and what fault-dust's has in its place.
declare -A why from to
differs() {
	why[$1]=$2 from[$1]=$3 to[$1]=$4
}
heal() { printf 'k <6>device-mapper: dust: block %s removed from badblocklist by write' "$1"; }
differs "empty flush" "an empty flush writes no block: dm-dust takes it for a write to block 0" \
	$'! dd: fsync failed for \'/dev/mapper/d\': Input/output error\n= exit 1' "= exit 0"
differs "empty flush again" "an empty flush heals nothing" $'\n'"$(heal 0)" ""
differs "queryblock 0 after the flushes" "block 0 was never written" \
	"block 0 not found" "block 0 found"
differs "discard of sectors 96-103" "a discard covers all its blocks, not its first only" \
	"= exit 0" "= exit 0"$'\n'"$(heal 97)"$'\n'"$(heal 99)"$'\n'"$(heal 101)"
differs "listbadblocks after the discard" "the discard healed them" \
	$'97\n99\n101' "No blocks in badblocklist"
differs "512-byte write to sector 26" "the heal line names the block: dm-dust divides it twice" \
	"$(heal 0)" "$(heal 3)"
differs "512-byte write to sector 39" "the heal line names the block" "$(heal 0)" "$(heal 4)"
differs "4 KiB write to sector 40" "the heal line names the block" "$(heal 0)" "$(heal 2)"

# split FILE DIR: each step of a transcript into DIR/NNN, its name in DIR/NNN.name
split_steps() {
	mkdir -p "$2"
	awk -v d="$2" '/^## / {n++; f = sprintf("%s/%03d", d, n);
		print substr($0, 4) > (f ".name")} {print > f}' "$1"
}

dm_cleanup
dmf_unload >/dev/null 2>&1
modprobe dm-mod
check "dm-dust loads" insmod "$REF"
check "dm-dust serves dust" sh -c 'dmsetup targets | grep -q "^dust "'
transcript $T/dm-dust
dm_cleanup
check "dm-dust unloads" rmmod dm_dust
check "the engine loads" insmod "$BUILD/dmf_engine.ko"
check "dm-fault loads, compat_names=1" insmod "$BUILD/dm-fault.ko" compat_names=1
check "fault-dust serves dust" sh -c 'dmsetup targets | grep -q "^dust "'
transcript $T/fault-dust
dm_cleanup

# same NAME WANT GOT: a step reads as wanted, or the lines that differ
same() {
	local d

	if [ "$2" = "$3" ]; then
		ok "$1"
		return
	fi
	mapfile -t d < <(diff <(echo "$2") <(echo "$3"))
	fail "$1" "want (<) and fault-dust's (>):" "${d[@]}"
}

split_steps $T/dm-dust $T/a
split_steps $T/fault-dust $T/b
expect "both ran the same steps" "$(cat $T/a/*.name)" "$(cat $T/b/*.name)"
for f in $T/a/[0-9][0-9][0-9]; do
	n=$(basename "$f")
	name=$(cat "$f.name")
	a=$(cat "$f")
	b=$(cat "$T/b/$n" 2>/dev/null)
	if [ -z "${why[$name]+set}" ]; then
		same "step $n the same: $name" "$a" "$b"
		continue
	fi
	want=${a/"${from[$name]}"/"${to[$name]}"}
	if [ "$want" = "$a" ]; then
		mapfile -t d <<< "$a"
		fail "step $n differs as decided: $name (${why[$name]})" \
			"dm-dust's step lacks the piece that differs:" "${d[@]}"
	else
		same "step $n differs as decided: $name (${why[$name]})" "$want" "$b"
	fi
done

nullb_destroy nbd
nullb_destroy nbd4
rm -rf $T
check "modules unload" dmf_unload
ktap_end
