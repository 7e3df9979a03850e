#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make lint: the kernel's style gates on every kernel C file.
#   - checkpatch.pl --strict --no-tree (from the linux-source package)
#   - a full build per kernel with W=1, C=1 (sparse) and frames of at most 1 KiB
#   - calls between the files of a module go one way: no file calls a
#     file that calls it, directly or round a loop (tsort on nm's edges)
#   - the same for tools/dmfault, between its object files and between its
#     folders (tools/dmfault/README: main.c on top, base/ at the bottom)
# Any finding fails the run.  With ARCH=arm64 (make lint ARCH=arm64) the
# build trees are those of the arm64 root in KROOT, built with
# CROSS_COMPILE, as make ARCH=arm64 builds.
#
# usage: scripts/lint.sh KVER...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
cp_dir=build/checkpatch
problems=0

if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	[ -n "$tarball" ] || { echo "lint: no /usr/src/linux-source-*.tar.xz" >&2; exit 2; }
	mkdir -p "$cp_dir"
	tar -xJf "$tarball" -C "$cp_dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' || exit 2
fi

files=$(git ls-files -co --exclude-standard 'lib/*.[ch]' 'drivers/*.[ch]' 'mm/*.[ch]' \
	'include/*.h')
echo "# checkpatch --strict on $(echo "$files" | wc -w) files"
for f in $files; do
	# TRACE_EVENT() bodies are laid out as every kernel trace header is.
	case $f in
	*_trace.h) ign=OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT ;;
	*) ign=NONE ;;
	esac
	out=$("$cp_dir/scripts/checkpatch.pl" --strict --no-tree --quiet --show-types \
		--ignore "$ign" -f "$f" 2>&1)
	if [ -n "$out" ]; then
		echo "$out"
		problems=$((problems + 1))
	fi
done

# calls DIR OBJ...: the edges "caller callee" between the objects, named by
# their path below DIR
calls() {
	local dir=$1

	shift
	{ "${CROSS_COMPILE:-}nm" -A --defined-only "$@" | awk '$2 ~ /^[TDBR]$/ {print "D", $1, $3}'
	  "${CROSS_COMPILE:-}nm" -A -u "$@" | awk '{print "U", $1, $3}'; } |
	awk -v dir="$dir/" '{sub(/:[^:]*$/, "", $2)
			     if (index($2, dir) == 1) $2 = substr($2, length(dir) + 1)}
	     $1 == "D" {def[$3] = $2; next}
	     {use[$2 " " $3] = 1}
	     END {for (k in use) {split(k, a, " ");
		  if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]]}}' | sort -u
}

# one_way WHAT: the edges on stdin; a loop fails (run in this shell, not in a
# pipeline, so that it counts)
one_way() {
	local loop

	loop=$(tsort 2>&1 >/dev/null | grep -v 'input contains a loop' |
		sed 's/^tsort: //' | paste -sd' ')
	if [ -n "$loop" ]; then
		echo "lint: calls between these $1 go both ways: $loop"
		problems=$((problems + 1))
	fi
}

# folders: object edges on stdin to edges between their folders
# ("main" for the top)
folders() {
	awk '{a = $1; b = $2
	      if (!sub(/\/.*/, "", a)) a = "main"
	      if (!sub(/\/.*/, "", b)) b = "main"
	      if (a != b) print a, b}' | sort -u
}

# tools/dmfault, built as make builds it
echo "# calls one way between the files and the folders of tools/dmfault"
tool=$top/tools/dmfault
out=$(make -s -C "$tool" dmfault 2>&1)
if [ -n "$out" ]; then
	echo "$out"
	problems=$((problems + 1))
else
	tool_edges=$(calls "$tool" $(make -s -C "$tool" --no-print-directory objects |
				     tr ' ' '\n' | sed "s|^|$tool/|"))
	one_way "files of tools/dmfault" <<<"$tool_edges"
	one_way "folders of tools/dmfault" < <(folders <<<"$tool_edges")
fi

# arm64's own asm/percpu.h casts 0xffffffff to u8 and u16 in the cmpxchg
# cases it builds for every size: sparse warns on each file that uses a
# per-CPU counter.
sparse_flags=
[ "${ARCH:-}" = arm64 ] && sparse_flags=-Wno-cast-truncate

for k in "$@"; do
	s=$top/build/lint-$k
	rm -rf "$s"
	mkdir -p "$s"
	cp -rs "$top"/{Kbuild,lib,drivers,mm,include} "$s/"
	echo "# W=1 C=1 build for $k"
	# frames over 1 KiB warn: Debian's kernels warn at 2 KiB
	# (CONFIG_FRAME_WARN=2048), the debug kernels of
	# scripts/debug-kernel.sh at 1 KiB
	out=$(make -s -C "${KROOT:-}/lib/modules/$k/build" M="$s" W=1 C=1 \
		KCFLAGS=-Wframe-larger-than=1024 ${sparse_flags:+CF="$sparse_flags"} modules 2>&1 |
		grep -v '^Skipping BTF generation')
	if [ -n "$out" ]; then
		echo "$out"
		problems=$((problems + 1))
	fi
	echo "# calls one way between the files of each module ($k)"
	one_way "files of dm-fault.ko" < <(calls "$s/drivers/md" "$s"/drivers/md/dm-fault*.o)
	# not built where the kernel lacks what the allocator hooks need
	if compgen -G "$s/mm/dmf-alloc*.o" >/dev/null; then
		one_way "files of dmf_alloc.ko" < <(calls "$s/mm" "$s"/mm/dmf-alloc*.o)
	fi
	rm -rf "$s"
done

if [ "$problems" -ne 0 ]; then
	echo "lint: $problems finding(s)"
	exit 1
fi
echo "lint: clean"
