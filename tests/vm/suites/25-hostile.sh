#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Hostile input, generated: malformed tables for the fault target and the
# compat targets, and malformed messages to a live device.  Each one must
# be refused with the reason the kernel logs for it (checked in dmesg; for
# a rule, the reason is what the target's parser says on the host, through
# dmfault), a live device must keep its rules and keep working, and the
# kernel must log no WARN or oops.  Cases are counted, not listed: a
# failure prints the case.
. "$(dirname "$0")/../lib.sh"
ktap_begin hostile

check "modules load" dmf_load
NB=$(nullb_create nbh 64 1)
check "null_blk device" test -b "$NB"
S=$(dm_size "$NB")

# reasons[i]: why the target's parser refuses rules[i] ("" if it takes
# it), from one "dmfault rule check" on the host-built parser.
rule_reasons() {
	local line

	reasons=()
	while IFS= read -r line; do
		line=${line#*$'\t'}
		[ "$line" = ok ] && line=
		reasons+=("${line% (at *}")
	done < <(dmfault rule check "${rules[@]/#/--rule=}")
}

# Counters of the generated cases; the first failures are shown.
n_cases=0 n_bad=0 shown=0
case_fail() {
	n_bad=$((n_bad + 1))
	[ $shown -lt 30 ] && { shown=$((shown + 1)); printf '# %s\n' "$@"; }
	return 0
}

# Each case marks the log before it runs; the log is read once for a batch
# of cases (reading it per case is most of the time under TCG) and each
# case's part of it must hold the case's reason.  The log is not cleared:
# the harness reads it after the suite.
declare -A want what
case_mark() {
	n_cases=$((n_cases + 1))
	echo "dmf-hostile: case $n_cases" >/dev/kmsg
}

# case_refused CASE REASON: the case was refused; check its log part later.
case_refused() {
	what[$n_cases]=$1
	want[$n_cases]=$2
	[ ${#want[@]} -ge 50 ] && check_logs
	return 0
}

check_logs() {
	local -A part
	local n text

	while IFS=$'\t' read -r n text; do
		part[$n]=$text
	done < <(dmesg | awk '/dmf-hostile: case [0-9]+$/ {n = $NF; next}
			      n {t[n] = t[n] " " $0} END {for (k in t) print k "\t" t[k]}')
	for n in "${!want[@]}"; do
		[[ ${part[$n]} == *"${want[$n]}"* ]] ||
			case_fail "${what[$n]:0:200}" "wanted in the log: ${want[$n]}" \
				"log: ${part[$n]:0:300}"
	done
	want=() what=()
}

# refused_table TABLE REASON: dmsetup create fails, the kernel says REASON.
refused_table() {
	case_mark
	if echo "$1" | dmsetup create hx >/dev/null 2>&1; then
		dmsetup remove hx >/dev/null 2>&1
		case_fail "accepted: ${1:0:200}"
		return
	fi
	case_refused "table: $1" "$2"
}

# refused_msg MESSAGE... : dmsetup message to d0 fails and logs $reason.
refused_msg() {
	case_mark
	if dmsetup message d0 0 -- "$@" >/dev/null 2>&1; then
		case_fail "message accepted: $*"
		return
	fi
	case_refused "message: $*" "$reason"
}

# --- rules: every refused rule of the unit corpus and of a generated set --
rules=()
while IFS= read -r l; do
	r=${l#bad }
	# a table splits at white space, and a rule over 4 KiB is a table case
	[[ $r == *[[:space:]]* || -z $r || ${#r} -gt 4000 || $r == *'\x'* ]] && continue
	rules+=("$r")
done < <(grep '^bad ' "$top/tests/unit/rules.corpus")
keys=(id op sectors size up down after skip bits byte offset delay jitter timeout keep p
      interval times space seed verbose enabled status dist colour)
vals=(-1 18446744073709551616 1x 9-1 1e-30)
for k in "${keys[@]}"; do
	for v in "${vals[@]}"; do
		rules+=("error:$k=$v")
	done
done
rules+=("error:p=1%,p=2%,p=" "error:op=read,op=reads" "corrupt:bits=1,byte=1,bits=2")
rules+=("error:up=4294967296,down=1" "error:p=é" "error:$(printf '\001')=1")
rules+=("$(printf 'error:seed=%0300d' 1)" "error:$(printf 'p=1,%.0s' $(seq 70))p=1")
rule_reasons
check "the host parser gave a verdict for each rule" test "${#reasons[@]}" -eq "${#rules[@]}"

nrules=0
for i in "${!rules[@]}"; do
	r=${rules[$i]} reason=${reasons[$i]}
	[ -n "$reason" ] || continue
	nrules=$((nrules + 1))
	refused_table "0 $S fault $NB 0 1 $r" ": fault: $reason"
	refused_table "0 $S fault $NB 0 2 error:op=flush,enabled=0 $r" ": fault: $reason"
done
within "malformed rules generated (each in two tables and two messages)" "$nrules" 120 100000

# --- table lines -----------------------------------------------------------
big=18446744073709551616
for off in -1 0x10 1x "$big" 99999999999999999999999 1.5 +1; do
	refused_table "0 $S fault $NB $off" "Invalid device sector"
done
refused_table "0 $S fault $NB 18446744073709551615" "too small for target"
refused_table "0 $S fault $NB $S" "too small for target"
refused_table "0 $((S + 1)) fault $NB 0" "too small for target"
refused_table "0 $S fault" "Invalid argument count"
refused_table "0 $S fault $NB" "Invalid argument count"
refused_table "0 $S fault /dev/nonexistent 0" "Device lookup failed"
for nr in -1 x 4294967296 257 "$big"; do
	refused_table "0 $S fault $NB 0 $nr error" "Invalid number of rules"
done
refused_table "0 $S fault $NB 0 2 error" "Rule count does not match the rules given"
refused_table "0 $S fault $NB 0 1 error error" "Rule count does not match the rules given"
refused_table "0 $S fault $NB 0 2 error:id=5 drop:id=5" "Rule id already in use"
full="0 $S fault $NB 0 256 $(for i in $(seq 256); do printf 'error:op=flush,enabled=0 '; done)"
check "256 rules, the limit, are taken" dm_create full "$full"
case_mark
if dmsetup message full 0 rule add error:op=flush >/dev/null 2>&1; then
	case_fail "a 257th rule was added"
else
	case_refused "message: a 257th rule" "Too many rules"
fi
dmsetup remove full

# fault-flakey: <dev> <offset> <up> <down> [<#features> <feature>...]
for ud in "-1 1" "1 -1" "4294967296 1" "1 4294967296" "x 1" "1 1x"; do
	refused_table "0 $S fault-flakey $NB 0 $ud" "Invalid"
done
refused_table "0 $S fault-flakey $NB 0 0 0" "Invalid up and down intervals"
refused_table "0 $S fault-flakey $NB 0 4294967295 1" "Invalid up and down intervals"
refused_table "0 $S fault-flakey $NB 0 1" "Invalid argument count"
refused_table "0 $S fault-flakey $NB 0 1 1 1 frob" "Unrecognised flakey feature requested"
refused_table "0 $S fault-flakey $NB 0 1 1 12 drop_writes" "Invalid number of feature args"
refused_table "0 $S fault-flakey $NB 0 1 1 3 drop_writes" "Invalid number of feature args"
refused_table "0 $S fault-flakey $NB 0 1 1 2 drop_writes error_writes" \
	"Only one of drop_writes and error_writes is allowed"
refused_table "0 $S fault-flakey $NB 0 1 1 1 corrupt_bio_byte" \
	"Feature corrupt_bio_byte requires parameters"
refused_table "0 $S fault-flakey $NB 0 1 1 5 corrupt_bio_byte 0 r 1 0" "Invalid corrupt bio byte"
refused_table "0 $S fault-flakey $NB 0 1 1 5 corrupt_bio_byte 1 x 1 0" \
	"Invalid corrupt bio direction (r or w)"
refused_table "0 $S fault-flakey $NB 0 1 1 5 corrupt_bio_byte 1 r 256 0" \
	"Invalid corrupt value to write into bio byte (0-255)"
refused_table "0 $S fault-flakey $NB 0 1 1 5 corrupt_bio_byte 1 r 1 4294967296" \
	"Invalid corrupt bio flags mask"
# fault-delay: <dev> <offset> <delay> [x2 [x3]]
refused_table "0 $S fault-delay $NB 0" "Requires exactly 3, 6 or 9 arguments"
refused_table "0 $S fault-delay $NB 0 1 $NB" "Requires exactly 3, 6 or 9 arguments"
for d in -1 x 4294967296 1x; do
	refused_table "0 $S fault-delay $NB 0 $d" "Invalid delay"
done
refused_table "0 $S fault-delay $NB 0 1 $NB 8 1" \
	"Every delay class must map the same device and offset"
refused_table "0 $S fault-error x" "fault-error takes no arguments"

# --- messages to a live device ---------------------------------------------
dm_create d0 "0 $S fault $NB 0 2 error:op=flush,enabled=0 delay:op=discard,delay=1ms"
check "a live device for the messages" test -b /dev/mapper/d0
before=$(dmsetup table d0)
for i in "${!rules[@]}"; do
	r=${rules[$i]} reason=${reasons[$i]}
	[ -n "$reason" ] || continue
	refused_msg rule add "$r"
	refused_msg rule replace 1 "$r"
done
reason="No rule with that id"
for id in 3 99 4294967295; do
	for verb in remove enable disable replace; do
		if [ $verb = replace ]; then refused_msg rule $verb $id error; else refused_msg rule $verb $id; fi
	done
done
reason="Invalid rule id"
for id in -1 x 4294967296 1x "$big" 0x1; do
	refused_msg rule remove "$id"
done
reason="No rule with that id"
refused_msg rule remove 0
reason="Invalid rule message"
refused_msg rule remove
refused_msg rule frob 1
refused_msg rule add error error
refused_msg rule replace 1 error error
reason="replace keeps the rule id"
refused_msg rule replace 1 "error:id=7"
reason="Rule id already in use"
refused_msg rule add "error:id=2"
reason="unrecognised message"
for m in frob "rule" "stats x y" "log 1" "reset 1" "$(printf 'x%.0s' $(seq 4096))" "é" \
	 "$(printf 'rule\001')"; do
	refused_msg $m
done
reason="invalid rule id"
for id in -1 x 4294967296; do
	refused_msg release "$id"
done
expect "the device keeps its rules after every refused message" "$before" \
	"$(dmsetup table d0)"
check "the device still reads" dd if=/dev/mapper/d0 of=/dev/null bs=4k count=16 \
	iflag=direct status=none
check "the device still writes" dd if=/dev/zero of=/dev/mapper/d0 bs=4k count=16 \
	oflag=direct status=none

check_logs
expect "every generated case refused with its reason ($n_cases cases)" 0 "$n_bad"
within "generated cases" "$n_cases" 500 100000
check "no WARN, BUG or oops logged" bash -c \
	'log=$(dmesg) || exit 1; ! grep -E "WARNING:|BUG:|Oops|RIP:" <<< "$log"'
dmsetup remove d0
dm_cleanup
nullb_destroy nbh
check "modules unload" dmf_unload
ktap_end
