#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make crashtest-catalogue, in the guest: dmfault crashtest --entry over
# every entry of the catalogue that comes with the tool (or the entries
# named), on each of its filesystems (CT_FSES: only these), on the first
# disk of the VM, at most CT_STATES states a run (default 60) and
# CT_MINIMISE checks to minimise a failure (default 32).  One line a
# run, the row of the verdict table in dm-fault-crashtest-catalogue.rst:
#
#   ENTRY FS KERNEL: S states, F failed | minimal state | files | check said | reproduce
#
#   tests/vm/run --kernel 6.12 --mem 2048 --disk 1G --timeout 3600 -- \
#	tests/vm/crashtest-catalogue.sh [ENTRY...]
top=$(cd "$(dirname "$0")/../.." && pwd)
export PATH="$top/tools/dmfault:$PATH"
cat=$top/tools/dmfault/crash/crashtest.catalog
disk=${VM_DISKS%% *}
"$top/tests/vm/load" > /dev/null || exit 1
dmesg -n 1
[ -b "$disk" ] || { echo "no disk: give the VM --disk 1G"; exit 1; }
[ $# -gt 0 ] || set -- $(sed -n 's/^\[\(.*\)\]$/\1/p' "$cat")
k=$(uname -r)
rc=0
for e in "$@"; do
	fses=$(sed -n "/^\[$e\]\$/,/^\[/s/^fs *= *//p" "$cat")
	for fs in ${CT_FSES:-$fses}; do
		dmfault crashtest --entry "$e" --fs "$fs" --max-states "${CT_STATES:-60}" \
			--minimise "${CT_MINIMISE:-32}" --json "$disk" > /tmp/ct.json 2> /tmp/ct.err
		r=$?
		[ $r -le 1 ] || rc=1
		python3 - "$e" "$fs" "$k" "$r" /tmp/ct.json /tmp/ct.err <<'PY'
import json, sys
e, fs, k, r, jf, ef = sys.argv[1:]
try:
    d = json.load(open(jf))
except ValueError:
    print("%s %s %s: error (exit %s): %s" % (e, fs, k, r, open(ef).read().strip()[-300:]))
    sys.exit(0)
s = d["states"]
line = "%s %s %s: %d states, %d failed" % (e, fs, k, s["checked"], s["failed"])
f = [x for x in d["failures"] if x.get("minimal_spec") or x.get("minimal") is not None
     or x.get("after_point")]
if f:
    x = f[0]
    said = [l for l in x["output"].splitlines() if l.strip()]
    ws = x.get("minimal") or x.get("after_point") or []
    line += " | %s | %s | %s | %s" % (
        x.get("minimal_spec", x["spec"]),
        "; ".join(sorted(set(x["files"]))) or "-",
        said[-1] if said else "-", x["repro"])
print(line)
PY
	done
done
exit $rc
