#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dmfault badblocks on a live fault device: every subcommand, with I/O that
# fails where the map says and reads back what was written where it heals;
# merges, splits, paging through a long list; the map in dmfault stats
# (human and --json); input refused on the host with the target's reason
# and nothing sent; a kernel refusal reported with its reason; and a
# badblocks(8) list of 1,000,000 blocks loaded in batches, timed.
. "$(dirname "$0")/../lib.sh"
ktap_begin badblocks-tool

# refused_rc NAME RC TEXT CMD...: CMD exits RC, and is refused for TEXT, as
# it is (refused with TEXT as an ERE that matches it alone).  CMD runs twice:
# only where running it again changes nothing.
refused_rc() {
	local name=$1 rc=$2 re r

	re=$(printf '%s' "$3" | sed 's/[][\.*^$+?(){}|]/\\&/g')
	shift 3
	"$@" >/dev/null 2>&1
	r=$?
	if [ "$r" != "$rc" ]; then
		fail "$name" "exit $r, want $rc: $*"
		return 0
	fi
	refused "$name" "$re" "$@"
}

# stats_json EXPR: EXPR (Python, with b the bad object of device b0 in
# dmfault stats --json) printed, or the failure.
stats_json() {
	dmfault stats --json b0 | python3 -c "import json, sys; b = json.load(sys.stdin)['devices'][0].get('bad'); print(*(lambda *a: a)($1))" 2>&1
}

# sectors FILE FIRST COUNT: COUNT sectors of FILE from FIRST as hex (a block
# device read with O_DIRECT).
sectors() {
	local direct=

	[ -b "$1" ] && direct=iflag=direct
	dd if="$1" bs=512 skip="$2" count="$3" $direct status=none | od -An -tx1 | tr -d ' \n'
}

F=$(mktemp -d /tmp/dmf-bad.XXXXXX)
kmsg_mark
check "modules load" dmf_load
NB=$(nullb_create dmfbb0 64 1)
check "null_blk device" test -b "$NB"
S=$(dm_size "$NB")
head -c $((S * 512)) /dev/urandom > "$F/data"
check "fill the disk with random data" dd if="$F/data" of="$NB" bs=1M oflag=direct status=none
check "create b0" dmfault create b0 "$NB"
D=/dev/mapper/b0

# --- help, man page, completion -------------------------------------------
for c in add remove clear enable disable partial count query list load; do
	check "help of 'badblocks $c'" dmfault badblocks "$c" --help
done
refused_rc "badblocks without a subcommand lists them" 2 "add remove clear enable disable partial" \
	dmfault badblocks
check "man page has a BADBLOCKS section" grep -q '^\.SH BADBLOCKS' "$top/tools/dmfault/dmfault.8"
expect "completion script offers the subcommands" 1 \
	"$(grep -c 'badblocks) echo "add remove clear enable disable partial count query list load"' \
		"$top/tools/dmfault/dmfault.bash-completion")"

# --- refused on the host: the target's reason, exit 2, nothing sent --------
refused_rc "reversed range" 2 "'9-1': invalid range: <sector>, <first>-<last> or <first>+<count>" \
	dmfault badblocks add b0 5 9-1
refused_rc "count of zero" 2 "'8+0': invalid range" dmfault badblocks add b0 8+0
refused_rc "range past 2^64" 2 "'18446744073709551615+2': invalid range" \
	dmfault badblocks add b0 18446744073709551615+2
refused_rc "sector past 2^64" 2 "'18446744073709551616': invalid range" \
	dmfault badblocks add b0 18446744073709551616
refused_rc "garbage range" 2 "'x7': invalid range" dmfault badblocks add b0 x7
refused_rc "unknown mode" 2 "'mode=often': mode= takes heal, sticky, read or write" \
	dmfault badblocks add b0 --mode often 5
refused_rc "status ok is not an error" 2 "'status=ok': status= takes an error status" \
	dmfault badblocks add b0 --status ok 5
refused_rc "wr_fail with sticky" 2 "wr_fail= is for mode=heal" \
	dmfault badblocks add b0 --mode sticky --wr-fail 2 5
refused_rc "wr_fail past 2^32" 2 "'wr_fail=4294967296': wr_fail= takes a count of writes" \
	dmfault badblocks add b0 --wr-fail 4294967296 5
refused_rc "remove takes no mode" 2 "option --mode does not apply here" \
	dmfault badblocks remove b0 --mode sticky 5
refused_rc "partial takes on or off" 2 "'maybe': expected 'bad add|remove|clear" \
	dmfault badblocks partial b0 maybe
refused_rc "query takes a sector" 2 "'1-2': expected 'bad add|remove" dmfault badblocks query b0 1-2
expect "nothing was sent" "ranges=0 sectors=0" "$(output dmfault badblocks count b0)"
expect "no map was made: the status's bad word is -" "-" \
	"$(dmsetup status b0 | awk '{print $NF}')"
refused_rc "no such device" 1 "nosuch: no such device" dmfault badblocks count nosuch
dm_create lin "0 $S linear $NB 0"
refused_rc "not a fault device" 1 "lin: not a fault device" dmfault badblocks count lin
dmsetup remove lin
refused_rc "a range past the device's end: the kernel's reason" 1 \
	"b0: bad add failed: range '$S' is not within the device's $S sectors" \
	dmfault badblocks add b0 "$S"

# --- add, query, I/O -------------------------------------------------------
check "add 100-107 (heal, medium)" dmfault badblocks add b0 100-107
expect "count" "ranges=1 sectors=8" "$(output dmfault badblocks count b0)"
expect "query a bad sector" "103 bad 100-107 mode=heal status=medium wr_fail=0" \
	"$(output dmfault badblocks query b0 103)"
expect "query a good sector" "99 ok" "$(output dmfault badblocks query b0 99)"
io_fails "a read of a bad sector fails with the medium error" b0 "No data available" \
	dd if=$D of=/dev/null bs=512 skip=104 count=1 iflag=direct
expect "the sectors before it read the disk's data" "$(sectors "$F/data" 90 10)" \
	"$(sectors $D 90 10)"
head -c 4096 /dev/urandom > "$F/w"
check "a write over the range heals it" dd if="$F/w" of=$D bs=512 seek=100 count=8 \
	oflag=direct status=none
expect "the healed sectors read back what was written" "$(sectors "$F/w" 0 8)" \
	"$(sectors $D 100 8)"
expect "healed: the sector is good" "103 ok" "$(output dmfault badblocks query b0 103)"
expect "healed: the map is empty" "ranges=0 sectors=0" "$(output dmfault badblocks count b0)"

check "add sticky, eio" dmfault badblocks add b0 --mode sticky --status eio 2048+8
io_fails "sticky: a write fails" b0 "Input/output error" \
	dd if="$F/w" of=$D bs=4096 seek=256 count=1 oflag=direct status=none
io_fails "sticky: a read still fails" b0 "Input/output error" \
	dd if=$D of=/dev/null bs=4096 skip=256 count=1 iflag=direct
check "add write-only" dmfault badblocks add b0 --mode write 4000
check "write-only: a read passes" dd if=$D of=/dev/null bs=512 skip=4000 count=1 iflag=direct \
	status=none
io_fails "write-only: a write fails" b0 "No data available" \
	dd if="$F/w" of=$D bs=512 seek=4000 count=1 oflag=direct status=none

# --- merges, splits, list ------------------------------------------------------
check "add two adjacent ranges" dmfault badblocks add b0 5000-5009 5010+10
expect "adjacent ranges of one kind merge" "5000-5019 mode=heal status=medium wr_fail=0" \
	"$(output dmfault badblocks list b0 | grep '^5000-')"
check "remove the middle" dmfault badblocks remove b0 5005-5009
expect "the range split in two" "5000-5004 5010-5019" \
	"$(output dmfault badblocks list b0 | awk -F'[- ]' '$1 >= 5000 && $1 < 6000 {printf "%s%s-%s", s, $1, $2; s = " "}')"
expect "list: every range, in order" \
	"2048-2055 mode=sticky status=eio wr_fail=0|4000-4000 mode=write status=medium wr_fail=0|5000-5004 mode=heal status=medium wr_fail=0|5010-5019 mode=heal status=medium wr_fail=0" \
	"$(output dmfault badblocks list b0 | paste -sd'|')"
expect "the device first, then the subcommand" "ranges=4 sectors=24" \
	"$(output dmfault badblocks b0 count)"

# --- enable, disable, partial, stats ---------------------------------------
check "disable" dmfault badblocks disable b0
check "disabled: a bad sector reads" dd if=$D of=/dev/null bs=512 skip=5001 count=1 iflag=direct \
	status=none
check "enable" dmfault badblocks enable b0
io_fails "enabled again: it fails" b0 "No data available" \
	dd if=$D of=/dev/null bs=512 skip=5001 count=1 iflag=direct
check "partial on" dmfault badblocks partial b0 on
out=$(dmfault stats b0)
expect "stats: the map's line" "bad on partial=1 ranges=4 sectors=24" \
	"$(echo "$out" | awk '$1 == "bad" {print $1, $2, $3, $4, $5}')"
hits=$(echo "$out" | awk '$1 == "bad" {for (i = 2; i <= NF; i++) if ($i ~ /^hits=/) print substr($i, 6)}')
within "stats: hits counted" "${hits:-0}" 5 1000
expect "stats --json: the map's object" "True True 4 24 True True True" \
	"$(stats_json "b['enabled'], b['partial'], b['ranges'], b['sectors'], b['hits'] >= 5, b['lookups'] >= b['hits'], b['heals'] >= 1")"
check "partial off" dmfault badblocks partial b0 off
check "disable, to show off" dmfault badblocks disable b0
expect "stats --json: off" "False" "$(stats_json "b['enabled']")"
check "enable" dmfault badblocks enable b0

# --- load: refusals, stdin, paging -------------------------------------------
printf '10\n11\n  \nx2\n' > "$F/garbage"
refused_rc "load: a line that is not a block number" 1 \
	"$F/garbage:4: 'x2' is not a block number (one a line, in decimal); nothing loaded" \
	dmfault badblocks load b0 "$F/garbage"
printf '10\n%s\n' $((S / 2)) > "$F/past"
refused_rc "load: a block past the end (1 KiB blocks)" 1 \
	"$F/past:2: block $((S / 2)) is past the end of the device ($((S / 2)) blocks)" \
	dmfault badblocks load b0 "$F/past"
refused_rc "load: a missing file" 1 "$F/none: No such file or directory" \
	dmfault badblocks load b0 "$F/none"
refused_rc "load: a block size that is not whole sectors" 2 "--block-size: 1000 is not a multiple of 512" \
	dmfault badblocks load b0 "$F/past" --block-size 1000
expect "load: nothing was sent" "ranges=4 sectors=24" "$(output dmfault badblocks count b0)"
check "clear" dmfault badblocks clear b0
expect "cleared" "ranges=0 sectors=0" "$(output dmfault badblocks count b0)"
out=$(printf ' 7\n8\n\n9\t\n20\n' | dmfault badblocks load b0 - --block-size 4k --mode read)
expect "load from stdin, 4 KiB blocks: consecutive blocks merged" \
	"b0: loaded 4 blocks of 4096 bytes (4 entries): 2 ranges, 32 sectors, 1 message" "$out"
expect "load: the ranges and their kind" \
	"56-79 mode=read status=medium wr_fail=0|160-167 mode=read status=medium wr_fail=0" \
	"$(output dmfault badblocks list b0 | paste -sd'|')"
check "clear" dmfault badblocks clear b0
seq 0 3 8999 > "$F/3000"
check "load 3000 blocks apart" dmfault badblocks load b0 "$F/3000"
expect "list pages through 3000 ranges (1024 a reply)" "3000 0-1 17994-17995" \
	"$(output dmfault badblocks list b0 | awk 'NR == 1 {f = $1} {l = $1} END {print NR, f, l}')"
check "clear" dmfault badblocks clear b0

# --- 1,000,000 entries ---------------------------------------------------------
BIG=$(nullb_create dmfbb1 4096 0)
check "a 4 GiB null_blk (no memory)" test -b "$BIG"
check "create big" dmfault create big "$BIG"
seq 0 2 1999998 > "$F/million"
t0=$(date +%s.%N)
out=$(dmfault badblocks load big "$F/million")
rc=$?
t1=$(date +%s.%N)
echo "# load 1000000 entries: $(echo "$t1 - $t0" | bc | xargs printf '%.2f') s"
expect "load 1,000,000 blocks" \
	"0 big: loaded 1000000 blocks of 1024 bytes (1000000 entries): 1000000 ranges, 2000000 sectors" \
	"$rc ${out%, * message*}"
echo "# ${out##*, }"
expect "count after the load" "ranges=1000000 sectors=2000000" \
	"$(output dmfault badblocks count big)"
expect "query: block 2 is bad, block 1 is not" "4 bad 4-5 mode=heal status=medium wr_fail=0|2 ok" \
	"$(output dmfault badblocks query big 4)|$(output dmfault badblocks query big 2)"
io_fails "a read of the last listed block fails" big "No data available" \
	dd if=/dev/mapper/big of=/dev/null bs=1024 skip=1999998 count=1 iflag=direct
check "a read of the block after it passes" dd if=/dev/mapper/big of=/dev/null bs=1024 \
	skip=1999999 count=1 iflag=direct status=none
t0=$(date +%s.%N)
n=$(dmfault badblocks list big | wc -l)
t1=$(date +%s.%N)
echo "# list 1000000 ranges: $(echo "$t1 - $t0" | bc | xargs printf '%.2f') s"
expect "list gives every range" 1000000 "$n"
check "clear the million" dmfault badblocks clear big
expect "cleared" "ranges=0 sectors=0" "$(output dmfault badblocks count big)"

expect "no kernel problem" "" "$(kernel_reports)"
dm_cleanup
nullb_destroy dmfbb1
nullb_destroy dmfbb0
rm -rf "$F"
ktap_end
