#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What the kernel writes after a program returns (crashtest --settle), and
# the catalogue of programs people run (crashtest --entry).  git committing
# with its default core.fsync on ext4 mounted with its defaults: recorded
# as it exits, no state leaves the repository corrupt; with --settle 8 the
# journal commit that follows makes the loose objects' names and sizes
# durable before their data, and git fsck finds them empty.  The catalogue,
# installed and run by entry on ext4: the safe configurations pass, the
# unsafe ones lose acknowledged data, and the reproduce line names the
# entry and fails again: the rename entries in make check's short form,
# the SQLite ones too in the long form.  (make crashtest-catalogue runs
# every entry on each of its filesystems.)
. "$(dirname "$0")/../lib.sh"
ktap_begin catalogue

C=$top/tests/vm/crashtest
T=/tmp/dmf-catalogue
mkdir -p $T

check "modules load" dmf_load
NB=$(nullb_create nbcat 512 1)

# --- --settle ----------------------------------------------------------------------
# Two commits, done in less than ext4's 5 s between journal commits, so
# that the commit that makes their files durable comes after the workload.
# gitct [ARGS...]: crashtest of git.sh (default core.fsync, ext4), JSON in $T/git.json
gitct() {
	dmfault crashtest --max-states "$(by_length 40 20)" --minimise 8 --json "$@" \
		--setup "$C/git.sh setup ext4 default 2" --workload "$C/git.sh workload ext4 default 2" \
		--check "$C/git.sh check ext4 default 2" "$NB" > $T/git.json 2> $T/git.err
}

gitct
rc=$?
if [ $rc = 0 ]; then
	ok "git, default core.fsync, recorded as it exits: no state leaves the store corrupt"
else
	fail "git, default core.fsync, recorded as it exits: no state leaves the store corrupt" \
		"exit $rc" "$(tail -n 3 $T/git.err)" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["states"], [x["output"] for x in d["failures"]][:2])' $T/git.json 2>&1)"
fi
gitct --settle 8
expect "git, default core.fsync, with --settle 8: some state does" 1 $?
check "... git fsck finds a loose object empty or missing, and the reproduce line keeps --settle" \
	python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
f = d["failures"]
assert f and d["states"]["failed"] == len(f), d["states"]
assert all(x["output"].startswith("git fsck") for x in f), [x["output"] for x in f]
assert any(re.search("is empty|missing|bad object|invalid sha1 pointer", x["output"]) for x in f), \
	[x["output"] for x in f]
assert " --settle 8 " in f[0]["repro"], f[0]["repro"]' $T/git.json
refused "--settle takes seconds" "--settle: '8s' is not a number of seconds" \
	dmfault crashtest --setup true --workload true --check true --settle 8s "$NB"

# --- the catalogue, installed ------------------------------------------------------
I=$T/inst
out=$(make -s -C "$top" install-tools DESTDIR=$I PREFIX=/usr 2>&1)
expect "make install-tools: crashtest's catalogue and helpers too" "0 2" \
	"$? $(ls $I/usr/share/dmfault/crashtest.catalog $I/usr/share/dmfault/crashtest.sh | wc -l)"
D=$I/usr/sbin/dmfault
S=$(by_length 40 12)

# entry NAME EXIT WHAT: the installed tool, run outside the checkout, checks
# entry NAME on ext4 and exits EXIT (0: every state passed, 1: one failed)
entry() {
	local rc

	(cd / && "$D" crashtest --entry "$1" --fs ext4 --max-states "$S" --minimise 8 "$NB") \
		> "$T/$1.out" 2>&1
	rc=$?
	if [ $rc = "$2" ]; then
		ok "$1 on ext4: $3: $(tail -n 1 "$T/$1.out")"
	else
		fail "$1 on ext4: $3" "exit $rc, expected $2" "$(tail -n 8 "$T/$1.out")"
	fi
}

cat=$I/usr/share/dmfault/crashtest.catalog
n=0
for e in $(sed -n 's/^\[\(.*\)\]$/\1/p' "$cat"); do
	for fs in $(sed -n "/^\[$e\]\$/,/^\[/s/^fs *= *//p" "$cat"); do
		out=$("$D" crashtest --entry "$e" --fs "$fs" /etc/passwd 2>&1)
		[[ $out == *"not a block device"* ]] && n=$((n + 1)) || echo "# $e $fs: $out"
	done
done
expect "every entry of the installed catalogue loads, on each of its filesystems" \
	"$(sed -n 's/^fs *= *//p' "$cat" | wc -w)" "$n"
if [ "${DMF_LONG:-0}" = 1 ]; then
	entry sqlite-wal-full 0 "no committed row is lost in any state"
	entry sqlite-wal-off 1 "committed rows are lost"
fi
entry rename-sh-fsync-both 0 "every state holds the acknowledged version"
entry rename-sh 1 "a file replaced without fsync goes back to an older version"
if grep -q "^  dmfault crashtest --entry 'rename-sh' --fs 'ext4' --state 'keep=" \
	$T/rename-sh.out; then
	ok "the reproduce line names the entry and its filesystem"
else
	fail "the reproduce line names the entry and its filesystem" \
		"$(grep -A1 '^  reproduce:' $T/rename-sh.out | head -n 2)"
fi
refused "an entry the catalogue does not have is refused" "no entry 'nosuch' in the catalogue" \
	"$D" crashtest --entry nosuch "$NB"
refused "--fs is one of the entry's filesystems" \
	"--fs btrfs: entry 'git-default' runs on ext4 xfs" \
	"$D" crashtest --entry git-default --fs btrfs "$NB"
refused "--entry gives the commands" "--entry gives the setup, workload and check" \
	"$D" crashtest --entry git-default --check true "$NB"
printf '[a]\nfs = ext4\nsetup = true\nworkload = true\n' > $T/bad.catalog
refused "a catalogue's entry needs its check" "$T/bad.catalog:1: entry 'a' has no check" \
	"$D" crashtest --catalog $T/bad.catalog --entry a "$NB"
refused "--catalog without --entry is refused" "--catalog goes with --entry" \
	"$D" crashtest --catalog $T/bad.catalog --setup true --workload true --check true "$NB"

check "modules unload" dmf_unload
nullb_destroy nbcat
ktap_end
