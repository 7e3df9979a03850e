# SPDX-License-Identifier: GPL-2.0-only
#
# Shell helpers for the entries of dmfault crashtest's catalogue
# (crashtest.catalog): each line sources them with . "$DMF_LIB".  They work
# on the filesystem $DMF_FS on $DMF_DEV at $DMF_MNT, as crashtest sets them,
# and read what the workload had acknowledged from the marks crashtest
# hands the check (DMF_STEP, DMF_MARKS).

# dmf_mkfs: make $DMF_FS.  ext4's inode tables and journal are zeroed by
# mkfs, not by a kernel thread in the background of the workload.
dmf_mkfs() {
	case $DMF_FS in
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DMF_DEV" ;;
	xfs) mkfs.xfs -q -f "$DMF_DEV" ;;
	*) echo "crashtest.sh: cannot make $DMF_FS" >&2; return 1 ;;
	esac
}

# dmf_mount [OPTIONS]: mount it as a user would, with the filesystem's
# defaults (ext4 commits its journal every 5 s) unless OPTIONS are given.
dmf_mount() {
	mount ${1:+-o "$1"} "$DMF_DEV" "$DMF_MNT"
}

# dmf_fsck: after the check's mount replayed the log and its unmount, a
# read-only fsck; fails the check if the filesystem is not clean.
dmf_fsck() {
	case $DMF_FS in
	ext4) fsck.ext4 -fn "$DMF_DEV" > /dev/null 2>&1 || dmf_fail "fsck.ext4 -fn failed" ;;
	xfs) xfs_repair -n "$DMF_DEV" > /dev/null 2>&1 || dmf_fail "xfs_repair -n failed" ;;
	esac
}

# dmf_ack N: the workload's N-th acknowledgement (a commit returned, a file
# replaced), marked in the recording as acked-N.  A refused mark ends the
# workload: the check could not know what was acknowledged.
dmf_ack() {
	dmsetup message "${DMF_DEV##*/}" 0 mark "acked-$1" > /dev/null ||
		{ echo "crashtest.sh: mark acked-$1 refused on ${DMF_DEV##*/}" >&2; exit 1; }
}

# dmf_acked: how many acknowledgements the workload had made when the power
# failed: N after the mark acked-N, every one (the marks but the end mark)
# once the workload was over, 0 before the first.
dmf_acked() {
	case ${DMF_STEP-} in
	acked-*) echo "${DMF_STEP#acked-}" ;;
	dmfault-end) echo $((DMF_MARKS - 1)) ;;
	*) echo 0 ;;
	esac
}

# dmf_fail WHY: the check fails, saying why, with nothing left mounted.
dmf_fail() {
	cd / && umount "$DMF_MNT" 2> /dev/null
	echo "$*"
	exit 1
}

# dmf_want HAVE WHAT: fail unless HAVE (the rows, commits or version the
# state holds) covers every acknowledgement made before the crash.
dmf_want() {
	[ "$1" -ge "$(dmf_acked)" ] 2> /dev/null ||
		dmf_fail "$2 $1 < acknowledged $(dmf_acked)"
}

# PostgreSQL.  The server refuses to run as root, so its binaries run as
# the user postgres (Debian's package makes it).  The cluster lives in
# $DMF_MNT/pg; the server listens on no TCP port and puts its socket and
# its log in a directory of its own under /tmp, so that it meets no other
# server and writes nothing to the device but the cluster.

# dmf_pg PROGRAM ARGS...: a program of the newest PostgreSQL installed, as
# postgres.
dmf_pg() {
	dmf_pg_bin=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
	[ -d "$dmf_pg_bin" ] || dmf_pg_bin=$(pg_config --bindir 2> /dev/null) ||
		{ echo "crashtest.sh: no PostgreSQL installed" >&2; return 1; }
	dmf_pg_prog=$1
	shift
	runuser -u postgres -- "$dmf_pg_bin/$dmf_pg_prog" "$@"
}

# dmf_pg_start: start the server on $DMF_MNT/pg (a crashed cluster is
# recovered first, as a restart recovers it) and wait until it takes
# connections; the shell stops it when it exits.  PGHOST is its socket's
# directory.
dmf_pg_start() {
	PGHOST=$(mktemp -d /tmp/dmfault-pg.XXXXXX) && chown postgres: "$PGHOST" || return 1
	export PGHOST
	trap 'dmf_pg_stop immediate' EXIT
	dmf_pg pg_ctl -D "$DMF_MNT/pg" -l "$PGHOST/log" -o "-k $PGHOST" -w -t 120 start \
		> "$PGHOST/ctl" 2>&1 && return 0
	# why: the server's last FATAL or PANIC, else what pg_ctl said last
	dmf_pg_why=$(grep -hE 'FATAL|PANIC' "$PGHOST/log" 2> /dev/null | tail -n 1 |
		sed 's/^[^]]*\] //' | grep .) || dmf_pg_why=$(tail -n 1 "$PGHOST/ctl")
	echo "server did not start: $dmf_pg_why"
	return 1
}

# dmf_pg_stop MODE: stop the server dmf_pg_start started (MODE as pg_ctl's
# -m: fast makes a checkpoint, as a service stop does; immediate does not)
# and remove its directory.
dmf_pg_stop() {
	[ -n "${PGHOST-}" ] || return 0
	trap - EXIT
	[ ! -e "$DMF_MNT/pg/postmaster.pid" ] ||
		dmf_pg pg_ctl -D "$DMF_MNT/pg" -m "$1" -w stop > /dev/null 2>&1
	rm -rf "$PGHOST"
	unset PGHOST
}

# dmf_pg_sql SQL: run SQL in one psql session; fails on its first error.
dmf_pg_sql() {
	dmf_pg psql -X -q -A -t -v ON_ERROR_STOP=1 -c "$1" postgres
}

# dmf_pg_init [SETTING...]: a cluster in $DMF_MNT/pg with the SETTINGs
# ("fsync = off") in its postgresql.conf, small buffers and WAL, and the
# table t(i, v) the workload fills, stopped cleanly.
dmf_pg_init() {
	mkdir "$DMF_MNT/pg" && chown postgres: "$DMF_MNT/pg" &&
		dmf_pg initdb -D "$DMF_MNT/pg" -A trust -U postgres -E UTF8 --locale=C > /dev/null ||
		return 1
	for dmf_pg_set in "listen_addresses = ''" "shared_buffers = 1MB" "min_wal_size = 32MB" \
		"max_wal_size = 64MB" "$@"; do
		echo "$dmf_pg_set" >> "$DMF_MNT/pg/postgresql.conf" || return 1
	done
	dmf_pg_start && dmf_pg_sql 'CREATE TABLE t(i integer PRIMARY KEY, v text)' &&
		dmf_pg_stop fast
}

# dmf_pg_rows: the server started on the crashed cluster (recovery); the
# rows of t that hold what the workload wrote, or why there are none.
dmf_pg_rows() {
	dmf_pg_start && dmf_pg_sql "SELECT count(*) FROM t WHERE v = 'row ' || i"
}
