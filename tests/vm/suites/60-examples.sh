#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The examples of examples/, in a short form: SQLite sees its commit fail
# under a write error and keeps what it committed; fio on ext4 and xfs
# under faults, then both unmount and check clean.
. "$(dirname "$0")/../lib.sh"
ktap_begin examples

T=/tmp/dmf-examples
mkdir -p $T
check "modules load" dmf_load
NB=$(nullb_create nbex 1024 1)

out=$("$top/examples/sqlite-commit-error.sh" "$NB" 100 2>&1); rc=$?
expect "sqlite: the commit under a write error fails, the committed rows survive" \
	"0|ok: the error reached the application and the committed data is intact" \
	"$rc|$(echo "$out" | tail -n 1)"
[ $rc = 0 ] || echo "$out" | tail -n 6 | sed 's/^/# /'
for fs in ext4 xfs; do
	out=$("$top/examples/fs-stress.sh" $fs "$NB" "$(by_length 30 5)" 2>&1); rc=$?
	expect "fs-stress $fs: faults injected, unmounts and checks clean" \
		"0|ok: $fs unmounted and checks clean" "$rc|$(echo "$out" | tail -n 1)"
	inj=$(echo "$out" | sed -n 's/^injected: \([0-9]*\) errors.*/\1/p')
	within "fs-stress $fs: errors were injected" "${inj:-0}" 1 1000000
	[ $rc = 0 ] || echo "$out" | tail -n 6 | sed 's/^/# /'
done

check "modules unload" dmf_unload
nullb_destroy nbex
ktap_end
