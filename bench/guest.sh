#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/guest.sh [--smoke] - run inside the VM by bench/run (tests/vm/run
# --icount): the side-by-side block benchmark and the allocator-hook
# benchmark.  Every result is one console line
#
#   @@BENCH {"kind":...,...}          (compact JSON, parsed by bench/report.py)
#
# Block part: 4k randread and randwrite, iodepth 32, 2 jobs, on null_blk
# (no backing memory, completions inline: CPU-bound) and on the virtio disk
# /dev/vda, through each configuration below.  One fio process per (round,
# device, workload) runs every configuration in turn as its own stonewalled
# group, the order rotated each round, so runs are short and interleaved.
#
# To add a configuration (a new dm-fault feature), add one line to CONFIGS:
#   name|table after "0 <sectors> " with @DEV@ and @S@ substituted|fio options
# A configuration whose target type is missing is reported as skipped.

set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 2
export DM_DISABLE_UDEV=1
KVER=$(uname -r)

ROUNDS=3
NULL_IOS=20000		# per job: ~0.42 s of virtual time on null_blk (runtime in ms: +-0.25 %)
VIRTIO_IOS=2500
ALLOC_OPS=5000		# ~0.3 s of guest time per run
ALLOC_ROUNDS=3
smoke=0 only_dev='' only_cfg='.*' only_wl='' do_alloc=1 moddir=''
while (($#)); do
	case $1 in
	--smoke) smoke=1 ROUNDS=1 NULL_IOS=300 VIRTIO_IOS=100 ALLOC_OPS=500 ALLOC_ROUNDS=1 ;;
	--rounds) ROUNDS=$2; shift ;;
	--ios) NULL_IOS=$2 VIRTIO_IOS=$(($2 / 5)); shift ;;
	--devices) only_dev=$2; shift ;;	# e.g. "nullb"
	--configs) only_cfg=$2; shift ;;	# extended regex on the names
	--workloads) only_wl=$2; shift ;;	# e.g. "randread"
	--no-alloc) do_alloc=0 ;;
	--modules) moddir=$2; shift ;;	# load the modules from DIR, not build/KVER

	*) echo "usage: $0 [--smoke] [--rounds N] [--ios N] [--devices D] [--configs RE] [--workloads W] [--no-alloc] [--modules DIR]" >&2
	   exit 2 ;;
	esac
	shift
done
read -r -a WORKLOADS <<<"${only_wl:-randread randwrite}"

# Sixteen ranges in the upper half of the device, which fio (--size = half)
# never touches: rules evaluated on every bio that match nothing.
miss16() {
	local s=$1 i a rules="16"

	for ((i = 0; i < 16; i++)); do
		a=$((s / 2 + i * 8192))
		rules+=" error:sectors=$a-$((a + 4095))"
	done
	echo "$rules"
}

CONFIGS=(
	"raw||"
	"dm-linear|linear @DEV@ 0|"
	"dm-flakey|flakey @DEV@ 0 1 0|"
	"dm-delay|delay @DEV@ 0 0|"
	"fault|fault @DEV@ 0|"
	"fault-16miss|fault @DEV@ 0 @MISS16@|"
	"fault-p0|fault @DEV@ 0 1 error:p=0|"
	"fault-p0.1%|fault @DEV@ 0 1 error:p=0.1%|continue_on_error=all"
	"fault-p1%|fault @DEV@ 0 1 error:p=1%|continue_on_error=all"
	"fault-p50%|fault @DEV@ 0 1 error:p=50%|continue_on_error=all"
	"fault-p1%-percpu|fault @DEV@ 0 1 error:p=1%,streams=percpu|continue_on_error=all"
	"fault-p50%-percpu|fault @DEV@ 0 1 error:p=50%,streams=percpu|continue_on_error=all"
	"fault-flakey|fault-flakey @DEV@ 0 1 0|"
	"fault-delay|fault-delay @DEV@ 0 0|"
	"fault-cache|fault @DEV@ 0 0 2 cache limit=256m|size=64m"
	"fault-cache-cold|fault @DEV@ 0 0 2 cache limit=256m|size=64m"
	"fault-bad1k|fault @DEV@ 0|"
	"fault-bad1m|fault @DEV@ 0|"
	"fault-bad1m-mixed|fault @DEV@ 0|ba=8k"
)

# bytes of the kernel's maple tree nodes (the bad-block map's memory)
maple_bytes() {
	awk '$1 == "maple_node" {print $3 * $4}' /proc/slabinfo
}

# bad_load DMDEV FIRST STRIDE N: N one-sector bad ranges, one every STRIDE
# sectors from sector FIRST (tests/vm/bin/dmf-bad-ranges); a note gives
# the map's memory (the load time is the tool's to measure: guest time
# under -icount includes the 9p waits of every program started)
bad_load() {
	local dm=$1 m0 m1 n=$4

	m0=$(maple_bytes)
	tests/vm/bin/dmf-bad-ranges "$2" "$3" "$n" | xargs -L 1 dmsetup message "$dm" 0 ||
		{ note "$dm: bad add failed"; return 1; }
	m1=$(maple_bytes)
	[[ $(dmsetup message "$dm" 0 bad count) == "ranges=$n sectors=$n" ]] ||
		{ note "$dm: bad count: $(dmsetup message "$dm" 0 bad count), want $n"; return 1; }
	note "$dm: $n bad ranges, maple tree nodes +$((m1 - m0)) bytes: $(((m1 - m0) / n)) bytes a range"
}

emit() {	# key value key value ... (values that look numeric stay numbers)
	local args=() k v
	while (($# >= 2)); do
		k=$1 v=$2
		shift 2
		if [[ $v =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; then
			args+=(--argjson "$k" "$v")
		else
			args+=(--arg "$k" "$v")
		fi
	done
	echo "@@BENCH $(jq -cn "${args[@]}" '$ARGS.named')"
}
note() {
	emit kind note kernel "$KVER" text "$*"
}
die() {
	emit kind fatal kernel "$KVER" text "$*"
	exit 1
}

# ---- setup ---------------------------------------------------------------------

dmesg -n 1 2>/dev/null
modprobe null_blk nr_devices=1 queue_mode=2 gb=16 bs=4096 memory_backed=0 \
	irqmode=0 submit_queues=1 hw_queue_depth=128 || die "modprobe null_blk failed"
modprobe dm-mod && modprobe dm-flakey && modprobe dm-delay || die "modprobe dm-flakey/dm-delay failed"
if [[ -n $moddir ]]; then	# another build of the target, e.g. a proposed fix
	insmod "$moddir/dmf_engine.ko" && insmod "$moddir/dm-fault.ko" || die "insmod from $moddir failed"
else
	tests/vm/load dmf_engine dm-fault >/dev/null || die "tests/vm/load failed"
fi
# whether new pages come zeroed: the cold write cache's figure depends on it
autoinit=$(dmesg | grep -o 'mem auto-init:.*' | head -n 1)
[[ -n $autoinit ]] && note "$autoinit"
modinfo dm-dust >/dev/null 2>&1 ||
	note "dm-dust is not built in $KVER (CONFIG_DM_DUST is not set): not measured"

declare -A devpath=([nullb]=/dev/nullb0 [virtio]=/dev/vda)
DEVICES=()
for d in ${only_dev:-nullb virtio}; do
	if [[ -b ${devpath[$d]} ]]; then
		DEVICES+=("$d")
	else
		note "no ${devpath[$d]}: device $d not measured"
	fi
done
((${#DEVICES[@]})) || die "no device to measure"

# io_uring, or libaio if this kernel or fio cannot.
ENGINE=io_uring
if ! fio --name=probe --filename=/dev/nullb0 --ioengine=io_uring --direct=1 --rw=read \
	--bs=4k --number_ios=8 --output-format=json 2>/dev/null | jq -e '.jobs[0].error == 0' >/dev/null; then
	ENGINE=libaio
	note "io_uring unavailable, falling back to libaio"
fi

targets=$(dmsetup targets | awk '{print $1}')
have_target() { grep -qx "$1" <<<"$targets"; }

# create the dm devices: NAME-DEV for each dm configuration and device
declare -A cfg_ok=() cfg_opts=() cfg_table=() dm_table=()
cfg_names=()
for c in "${CONFIGS[@]}"; do
	IFS='|' read -r name table opts <<<"$c"
	[[ $name == dm-linear || $name =~ ^($only_cfg)$ ]] || continue
	cfg_names+=("$name")
	cfg_opts[$name]=$opts
	cfg_table[$name]=$table
	if [[ -n $table ]] && ! have_target "${table%% *}"; then
		note "target ${table%% *} is not available: $name skipped"
		continue
	fi
	cfg_ok[$name]=1
done
dmdev() { echo "bench-${1//[^a-zA-Z0-9.-]/_}-$2"; }
for d in "${DEVICES[@]}"; do
	dev=${devpath[$d]}
	S=$(blockdev --getsz "$dev")
	for name in "${cfg_names[@]}"; do
		[[ -n ${cfg_ok[$name]-} && -n ${cfg_table[$name]} ]] || continue
		t=${cfg_table[$name]//@DEV@/$dev}
		t=${t//@S@/$S}
		t=${t//@MISS16@/$(miss16 "$S")}
		dm_table[$(dmdev "$name" "$d")]="0 $S $t"
		if ! err=$(dmsetup create "$(dmdev "$name" "$d")" --table "0 $S $t" 2>&1); then
			note "cannot create $name on $d: $err"
			unset "cfg_ok[$name]"
			continue
		fi
		# bad1k, bad1m: ranges in the upper half, where fio (size=50%)
		# does not go; bad1m-mixed: one in each odd 4 KiB block of the
		# lower half, between the even blocks fio reads (ba=8k)
		n=$((smoke ? 20000 : 1000000))
		case $name in
		fault-bad1k) bad_load "$(dmdev "$name" "$d")" $((S / 2)) 1 1000 ;;
		fault-bad1m) bad_load "$(dmdev "$name" "$d")" $((S / 2)) 1 $((n > S / 2 ? S / 2 : n)) ;;
		fault-bad1m-mixed)
			bad_load "$(dmdev "$name" "$d")" 8 16 $((n > S / 32 ? S / 32 : n)) ;;
		*) continue ;;
		esac || unset "cfg_ok[$name]"
	done
done
emit kind setup kernel "$KVER" engine "$ENGINE" rounds "$ROUNDS" smoke "$smoke" \
	null_ios "$NULL_IOS" virtio_ios "$VIRTIO_IOS" numjobs 2 iodepth 32 modules "${moddir:-build/$KVER}" \
	configs "$(printf '%s\n' "${cfg_names[@]}" | paste -sd' ')" \
	devices "${DEVICES[*]}" fio "$(fio --version)"

# ---- block benchmark ---------------------------------------------------------------

# jobfile DEVICE WORKLOAD IOS ROTATION: the fio job file of one pass
jobfile() {
	local d=$1 wl=$2 ios=$3 rot=$4 n=${#cfg_names[@]} i name path

	cat <<-EOF
		[global]
		ioengine=$ENGINE
		direct=1
		bs=4k
		iodepth=32
		numjobs=2
		group_reporting=1
		rw=$wl
		size=50%
		number_ios=$ios
		randrepeat=1
		norandommap=1
		stonewall=1
	EOF
	for ((i = 0; i < n; i++)); do
		name=${cfg_names[(i + rot) % n]}
		[[ -n ${cfg_ok[$name]-} ]] || continue
		if [[ -z ${cfg_table[$name]} ]]; then
			path=${devpath[$d]}
		else
			path=/dev/mapper/$(dmdev "$name" "$d")
		fi
		printf '[%s]\nfilename=%s\n' "$name" "$path"
		[[ -n ${cfg_opts[$name]} ]] && printf '%s\n' "${cfg_opts[$name]//,/$'\n'}"
	done
}

# cache_pass DEVICE WORKLOAD: before a pass, empty the caches of the
# fault-cache configurations (suspend writes them back, and the cache keeps
# the freed pages for new blocks: warm); for randread fill fio's 64m with
# cached data, so that every read is one of cached data.  A *-cold
# configuration gets its table loaded again instead: a new cache, switched
# on with no block and no kept page, as crashtest and a recording start;
# its reads find nothing cached
cache_pass() {
	local name dev

	for name in "${cfg_names[@]}"; do
		[[ -n ${cfg_ok[$name]-} && ${cfg_table[$name]} == *" cache"* ]] || continue
		dev=$(dmdev "$name" "$1")
		if [[ $name == *-cold ]]; then
			dmsetup suspend "$dev" && dmsetup reload "$dev" --table "${dm_table[$dev]}" &&
				dmsetup resume "$dev" || note "cannot load $name's table again"
			continue
		fi
		dmsetup suspend "$dev" && dmsetup resume "$dev" || note "cannot empty $name's cache"
		[[ $2 == randread ]] || continue
		dd if=/dev/zero of="/dev/mapper/$dev" bs=1M count=64 oflag=direct status=none ||
			note "cannot fill $name's cache"
	done
}

# injected faults so far on a dm-fault device (sum over its rules)
injected() {
	dmsetup message "$1" 0 stats 2>/dev/null |
		sed -n 's/.* injected=\([0-9]*\).*/\1/p' | awk '{s += $1} END {print s + 0}'
}

for ((round = 1; round <= ROUNDS; round++)); do
	for d in "${DEVICES[@]}"; do
		ios=$NULL_IOS
		[[ $d == virtio ]] && ios=$VIRTIO_IOS
		for wl in "${WORKLOADS[@]}"; do
			declare -A inj0=()
			for name in "${cfg_names[@]}"; do
				[[ -n ${cfg_ok[$name]-} && ${cfg_table[$name]} == fault* ]] &&
					inj0[$name]=$(injected "$(dmdev "$name" "$d")")
			done
			cache_pass "$d" "$wl"
			jobfile "$d" "$wl" "$ios" "$round" >/tmp/bench.fio
			if ! fio --output-format=json --output=/tmp/bench.json /tmp/bench.fio >/tmp/bench.err 2>&1; then
				note "fio failed on $d $wl round $round: $(tail -n 3 /tmp/bench.err | paste -sd' ')"
			fi
			dir='read'
			[[ $wl == *write ]] && dir='write'
			# fio writes its warnings into the output file, before the JSON
			sed -i -n '/^{/,$p' /tmp/bench.json
			jq -e . /tmp/bench.json >/dev/null 2>&1 ||
				note "fio's output on $d $wl round $round is not JSON: $(head -c 200 /tmp/bench.json)"
			jq -c --arg dir "$dir" '.jobs[] | {name: .jobname, iops: .[$dir].iops,
				ios: .[$dir].total_ios, runtime_ms: .[$dir].runtime,
				lat_ns: .[$dir].lat_ns.mean, error: .error,
				total_err: (.total_err // 0)}' /tmp/bench.json 2>/dev/null |
				while IFS= read -r line; do
					name=$(jq -r .name <<<"$line")
					inj=
					[[ -n ${inj0[$name]-} ]] &&
						inj=$(($(injected "$(dmdev "$name" "$d")") - ${inj0[$name]}))
					echo "@@BENCH $(jq -c --arg k "$KVER" --arg d "$d" --arg wl "$wl" \
						--argjson r "$round" --arg e "$ENGINE" --arg inj "$inj" \
						'{kind: "fio", kernel: $k, device: $d, workload: $wl,
						 round: $r, engine: $e, config: .name} + del(.name) +
						 (if $inj == "" then {} else {injected: ($inj | tonumber)} end)' <<<"$line")"
				done
		done
	done
done

for d in "${DEVICES[@]}"; do
	for name in "${cfg_names[@]}"; do
		[[ -n ${cfg_ok[$name]-} && -n ${cfg_table[$name]} ]] || continue
		dmsetup remove "$(dmdev "$name" "$d")" || note "cannot remove $name on $d"
	done
done

# ---- allocator hooks ------------------------------------------------------------------

((do_alloc)) && bench/alloc.sh "$ALLOC_OPS" "$ALLOC_ROUNDS" "${moddir:-build/$KVER}"

emit kind "done" kernel "$KVER"
