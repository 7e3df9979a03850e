#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Put dm-fault into a kernel source tree: the sources where they belong
# (drivers/md, lib, mm, include/dmf), Kconfig entries CONFIG_DM_FAULT and
# CONFIG_DM_FAULT_ALLOC_HOOKS, and the Makefile lines that build
# dm-fault.ko, dmf_engine.ko and dmf_alloc.ko from them.  Running it again
# replaces the sources and leaves the entries as they are.
#
# usage: scripts/in-tree.sh KERNEL-SOURCE-DIR
#
# Then: make menuconfig (Device Drivers -> Multiple devices driver support
# -> Fault injection target), or scripts/config -m DM_FAULT -m
# DM_FAULT_ALLOC_HOOKS, and build as usual.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
k=${1:?usage: $0 KERNEL-SOURCE-DIR}
[ -f "$k/drivers/md/Kconfig" ] && [ -f "$k/Makefile" ] ||
	{ echo "$0: $k is not a kernel source tree" >&2; exit 1; }

# the target's main file is dm-fault-target.c in the tree: a composite
# object cannot contain an object of its own name
for f in "$top"/drivers/md/dm-fault*.[ch] "$top"/drivers/md/dm_fault_trace.h; do
	b=${f##*/}
	[ "$b" = dm-fault.c ] && b=dm-fault-target.c
	cp "$f" "$k/drivers/md/$b"
done
cp "$top/lib/dmf-engine.c" "$k/lib/"
cp "$top"/mm/dmf-alloc*.[ch] "$k/mm/"
mkdir -p "$k/include/dmf"
cp "$top"/include/dmf/*.h "$k/include/dmf/"

# add LINES to FILE once, before the line matching BEFORE (or at the end)
add_once() {
	local file=$1 mark=$2 before=$3 lines=$4

	grep -qF "$mark" "$file" && return 0
	if [ -n "$before" ] && grep -q "$before" "$file"; then
		awk -v b="$before" -v l="$lines" '!done && $0 ~ b {print l; print ""; done = 1} {print}' \
			"$file" > "$file.new" && mv "$file.new" "$file"
	else
		printf '%s\n' "$lines" >> "$file"
	fi
}

add_once "$k/drivers/md/Kconfig" "config DM_FAULT" "^config DM_FLAKEY" "$(cat <<'EOF'
config DM_FAULT
	tristate "Fault injection target (dm-fault)"
	depends on BLK_DEV_DM
	help
	  A target that fails, drops, corrupts, delays and tears bios by
	  rules changed at run time, keeps a bad-block map, emulates a
	  volatile write cache and power cuts, and also takes dm-flakey,
	  dm-delay and dm-error tables.  See
	  Documentation/admin-guide/device-mapper/dm-fault.rst.

config DM_FAULT_ALLOC_HOOKS
	tristate "Slab and page allocator failure hooks for dm-fault"
	depends on DM_FAULT && X86_64 && KPROBES && DYNAMIC_FTRACE
	depends on HAVE_DYNAMIC_FTRACE_WITH_ARGS
	help
	  failslab and fail_page_alloc on kernels built without them: an
	  ftrace callback on the allocators, driven by dm-fault's decision
	  engine through debugfs, with per-task marks, fail-nth and
	  call-chain filters.

EOF
)"

# the target's objects as Kbuild lists them, dm-fault.o as dm-fault-target.o
objs=$(sed -n '/^dm-fault-y/,/^$/p' "$top/Kbuild" | grep -o 'drivers/md/[a-z-]*\.o' |
	sed 's|drivers/md/||; s|^dm-fault\.o$|dm-fault-target.o|' | paste -sd' ')
[ -n "$objs" ] || { echo "in-tree: no dm-fault objects in Kbuild" >&2; exit 1; }
add_once "$k/drivers/md/Makefile" "dm-fault-target.o" "" "
dm-fault-y	+= $objs
$(cat <<'EOF'
obj-$(CONFIG_DM_FAULT)		+= dm-fault.o
CFLAGS_dm-fault-target.o	+= -I$(src)
ccflags-y			+= -DFAULT_FLAKEY_V2=$(shell [ $(VERSION) -gt 6 ] || \
	{ [ $(VERSION) -eq 6 ] && [ $(PATCHLEVEL) -ge 6 ]; } && echo 1 || echo 0)
EOF
)"

add_once "$k/lib/Makefile" "dmf_engine" "" "$(cat <<'EOF'

dmf_engine-y			:= dmf-engine.o
obj-$(CONFIG_DM_FAULT)		+= dmf_engine.o
EOF
)"

# the allocator hooks' objects and header checks as Kbuild has them
mm_objs=$(sed -n '/^dmf_alloc-y/,/[^\\]$/p' "$top/Kbuild" | grep -o 'mm/[a-z0-9-]*\.o' |
	sed 's|mm/||' | paste -sd' ')
mm_flags=$(sed -n '/^dmf-alloc-has =/,/^\$(foreach/p' "$top/Kbuild")
[ -n "$mm_objs" ] && [ -n "$mm_flags" ] ||
	{ echo "in-tree: no dmf_alloc objects in Kbuild" >&2; exit 1; }
add_once "$k/mm/Makefile" "dmf_alloc" "" "
dmf_alloc-y := $mm_objs
obj-\$(CONFIG_DM_FAULT_ALLOC_HOOKS) += dmf_alloc.o
$mm_flags"
echo "dm-fault is in $k: enable CONFIG_DM_FAULT (and CONFIG_DM_FAULT_ALLOC_HOOKS)"
