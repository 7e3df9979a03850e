# SPDX-License-Identifier: GPL-2.0-only
#
# tests/vm/modules.sh - sourced by tests/vm/load and tests/vm/unload (run inside
# the VM): finds the project's modules for the running kernel in
# build/$(uname -r)/ of the checkout (or $DMF_BUILD) and orders them by their
# dependencies (dmf_engine first, then dm_fault, dmf_alloc, then any others by
# name).

prog=${0##*/}
die() {
	echo "$prog: ERROR: $*" >&2
	exit 1
}

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kver=$(uname -r)
moddir=${DMF_BUILD:-$top/build/$kver}	# DMF_BUILD: see lib.sh
preferred=(dmf_engine dm_fault dmf_alloc)

declare -A file_of=() deps_of=() seen=()
order=()

norm() {	# dm-fault.ko, build/x/dm-fault.ko -> dm_fault
	local n=${1##*/}
	n=${n%.ko}
	echo "${n//-/_}"
}

scan_modules() {
	local f n
	[[ -d $moddir ]] ||
		die "no modules built for kernel $kver: $moddir does not exist (build the project for $kver first)"
	for f in "$moddir"/*.ko; do
		[[ -e $f ]] || continue
		n=$(modinfo -F name "$f" 2>/dev/null) || die "$f is not a kernel module"
		n=$(norm "${n:-$f}")
		file_of[$n]=$f
		deps_of[$n]=$(modinfo -F depends "$f" | tr ',' ' ')
	done
	((${#file_of[@]})) || die "no *.ko in $moddir"
}

# Append NAME to order[] after the project modules it depends on.
visit() {
	local d
	[[ -n ${seen[$1]-} ]] && return
	seen[$1]=1
	for d in ${deps_of[$1]}; do
		[[ -n ${file_of[$d]-} ]] && visit "$d"
	done
	order+=("$1")
}

# Set order[] for the named modules (all project modules if none), deps first.
order_modules() {
	local n
	if (($# == 0)); then
		for n in "${preferred[@]}" $(printf '%s\n' "${!file_of[@]}" | sort); do
			[[ -n ${file_of[$n]-} ]] && visit "$n"
		done
		return 0
	fi
	for n in "$@"; do
		n=$(norm "$n")
		[[ -n ${file_of[$n]-} ]] || die "module $n not found in $moddir (have: ${!file_of[*]})"
		visit "$n"
	done
}

is_loaded() {
	grep -q "^$1 " /proc/modules
}
