// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest: record a workload once, then check the crash states it
 * can leave.
 *
 * A fault device with the volatile write cache goes on DEV.  --setup runs
 * (mkfs, mount); the "record" message writes the cache back and from then on
 * keeps every completed write in memory, numbered, with the flushes between
 * them, while nothing reaches DEV; --workload runs; --settle seconds pass
 * (what the kernel writes after the program returned: journal commits,
 * writeback); "mark dmfault-end" ends it; what is mounted is unmounted
 * cleanly (recorded too); "crash" cuts the power.  The recording is read
 * with "record list" (record.c), and explore.c picks the crash states
 * worth checking.  Each is shown with
 * "view" (DEV plus the writes the state keeps; the check's own writes go to
 * a scratch overlay) and judged by --check.  So the workload runs once,
 * however many states are checked, and a state costs one check.
 *
 * keep=all (the whole workload and the clean unmount) must pass first: a
 * check that fails without a crash cannot judge one.  The first failing
 * state of each epoch is shrunk by delta debugging to the fewest lost
 * writes that still fail, and those are named: number, sectors, kind,
 * epoch, the step the workload marked, and the files that hold them in the
 * keep=all state.  Every failure comes with one command that repeats it
 * (--state), since a deterministic workload records the same writes again.
 *
 * The commands run with sh -c, with DMF_DEV (the fault device) and DMF_MNT
 * (an empty directory) in the environment, and for --entry DMF_FS and
 * DMF_LIB (entry.c); the check also gets DMF_STATE (the state's view
 * spec), DMF_STEP and DMF_MARKS (the last mark the workload made before
 * the crash, and how many it made): the workload ran once, so this is how
 * a check knows what it had acknowledged by then.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "crash/crash.h"
#include "dev/dev.h"

#define DFT_CT_NAME		"dmfault-crashtest"
#define DFT_CT_RC_NAME		DFT_CT_NAME "-rc"	/* the check's recording */
#define DFT_CT_SUBSET_MAX	20	/* 2^20 subsets in an epoch are already too many to check */
#define DFT_CT_LIMIT		100000	/* --samples and --minimise */

/*
 * Run "sh -c @cmd" (the @what line) with the environment, and @more
 * ("NAME=value" strings, up to 3, NULL-terminated) if not NULL.  Its exit
 * status, or -1.  Past --step-timeout it is
 * killed (with what it started), @ct->hung says where it hung and the status
 * is 124, as timeout(1) gives; a task that SIGKILL does not end is an error
 * (-1): the next checks would pile up on it.
 */
static int dft_ct_sh(struct dft_ct *ct, const char *what, const char *cmd, char *const *more)
{
	char dev[80], mnt[80], fs[48], lib[4096 + 8], hung[600];
	char *env[8] = { dev, mnt };
	int status, fd, r, i, n = 2;

	snprintf(dev, sizeof(dev), "DMF_DEV=%s", ct->dev);
	snprintf(mnt, sizeof(mnt), "DMF_MNT=%s", ct->mnt);
	if (*ct->fs) {
		snprintf(fs, sizeof(fs), "DMF_FS=%s", ct->fs);
		snprintf(lib, sizeof(lib), "DMF_LIB=%s", ct->lib);
		env[n++] = fs;
		env[n++] = lib;
	}
	for (i = 0; more && more[i] && i < 3; i++)
		env[n++] = more[i];
	r = dft_sh_timeout(cmd, ct->o->verbose ? NULL : ct->out, env, ct->o->step_timeout,
			   &status, hung, sizeof(hung));
	if (*hung) {
		snprintf(ct->hung, sizeof(ct->hung), "the %s hung: %s", what, hung);
		fd = open(ct->out, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (fd >= 0) {
			dprintf(fd, "dmfault: %s\n", ct->hung);
			close(fd);
		}
	}
	if (r == -ETIMEDOUT)
		return 124;
	if (r) {
		dft_err("%s: %s", what, *hung ? ct->hung : strerror(-r));
		return -1;
	}
	return dft_exit_code(status);
}

/* The cache's state and counters from the INFO status. */
static int dft_ct_cache(const struct dft_ct *ct, struct dft_cache_stat *c)
{
	struct dft_stats st = { .cache = NULL };
	struct dft_dev dev;
	const char *err = "the cache is off";
	int r;

	r = dft_dm_get(ct->name, false, &dev);
	if (r)
		return r;
	r = dev.fault < 0 ? -EPROTO : dft_parse_info(dev.segs[dev.fault].params, &st, &err);
	if (!r && dft_parse_cache(st.cache, c))
		r = -EPROTO;
	if (r)
		dft_err("%s: cannot read the cache's status: %s", ct->name, err);
	dft_stats_free(&st);
	dft_dm_put(&dev);
	return r;
}

/* A recording that passed the cache's limit holds too little to explore: -1, said why. */
static int dft_ct_overflow(const struct dft_ct *ct, bool known)
{
	struct dft_cache_stat c;

	if (dft_ct_cache(ct, &c))
		return -1;
	if (!known && strcmp(c.state, "overflow"))
		return 0;
	dft_err("the recording passed the cache limit (%llu bytes): raise --limit",
		(unsigned long long)c.v[DFT_C_LIMIT]);
	return -1;
}

/* Unmount everything mounted from the device, innermost first. */
static void dft_ct_unmount(struct dft_ct *ct)
{
	char line[4096], mnt[2][1024], *m;
	unsigned int maj, min, n, i;
	FILE *f;

	for (n = 0; n < 16; n++) {
		f = fopen("/proc/self/mountinfo", "r");
		if (!f)
			return;
		i = 0;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%*u %*u %u:%u %*s %1023s", &maj, &min, mnt[i & 1]) != 3 ||
			    maj != ct->major || min != ct->minor)
				continue;
			i++;
		}
		fclose(f);
		if (!i)
			return;
		m = mnt[(i - 1) & 1];
		if (umount2(m, 0) && umount2(m, MNT_DETACH)) {
			dft_err("cannot unmount %s: %s", m, strerror(errno));
			return;
		}
	}
}

/* After a view: nothing the page cache holds from another state may be read. */
static int dft_ct_drop_caches(struct dft_ct *ct)
{
	int fd = open(ct->dev, O_RDONLY);

	if (fd < 0 || ioctl(fd, BLKFLSBUF, 0)) {
		dft_err("%s: cannot drop its page cache (BLKFLSBUF): %s", ct->dev, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static void dft_ct_print_tail(struct dft_ct *ct)
{
	char buf[DFT_CT_TAIL + 1];

	if (dft_file_tail(ct->out, buf, sizeof(buf)))
		fprintf(stderr, "%s", buf);
}

/* The setup or the workload failed or hung: -1, said why with its output. */
static int dft_ct_step_failed(struct dft_ct *ct, const char *what, int r)
{
	if (r < 0)
		return -1;
	if (*ct->hung)
		dft_err("%s", ct->hung);
	else
		dft_err("the %s exited %d", what, r);
	dft_ct_print_tail(ct);
	return -1;
}

/* Every page of "record list", checked, and the epochs. */
static int dft_ct_read(struct dft_ct *ct)
{
	uint64_t from = 1, next = 0;
	const char *err = "out of memory";
	char *reply;
	int r;

	do {
		if (dft_ct_send(ct, &reply, "record list %llu", (unsigned long long)from))
			return -1;
		r = dft_record_page(&ct->rec, reply, from, &next, &err);
		free(reply);
		if (r)
			return dft_ct_err("%s: record list %llu: %s", ct->name,
				       (unsigned long long)from, err);
		from = next;
	} while (next);
	if (ct->rec.overflow)
		return dft_ct_overflow(ct, true);
	if (dft_record_done(&ct->rec, &err))
		return dft_ct_err("%s: record list: %s", ct->name, err);
	return 0;
}

/*
 * Wait @secs with the recording on: ext4 commits its journal every 5 s and
 * the flusher writes data back after 30 s, so what a program left in the
 * page cache reaches the disk after it exits, metadata before data.
 */
static void dft_ct_settle(unsigned int secs)
{
	while (secs)
		secs = sleep(secs);
}

/*
 * Setup, record, workload, the settle time, the end mark, a clean unmount,
 * the crash; then read it all.
 */
static int dft_ct_record(struct dft_ct *ct)
{
	const struct dft_opts *o = ct->o;
	int r;

	unlink(ct->out);
	ct->hung[0] = '\0';
	r = dft_ct_sh(ct, "setup", o->ct_setup, NULL);
	if (r)
		return dft_ct_step_failed(ct, "setup", r);
	if (dft_ct_send(ct, NULL, "record"))
		return -1;
	r = dft_ct_sh(ct, "workload", o->ct_workload, NULL);
	/* past the limit writes fail: that, not the workload, is the news */
	if (r >= 0 && dft_ct_overflow(ct, false))
		return -1;
	if (r)
		return dft_ct_step_failed(ct, "workload", r);
	dft_ct_settle(o->ct_settle);
	if (dft_ct_send(ct, NULL, "mark " DFT_END_MARK))
		return -1;
	dft_ct_unmount(ct);
	if (dft_ct_overflow(ct, false) || dft_ct_send(ct, NULL, "crash"))
		return -1;
	return dft_ct_read(ct);
}

/*
 * What the check is told of a state: DMF_STATE (the view spec), DMF_STEP
 * (the label of the last mark made before the crash: what the workload had
 * done, e.g. acknowledged) and DMF_MARKS (how many were made).
 */
static int dft_ct_env(const struct dft_ct *ct, const char *spec, unsigned int marks,
		      char **env)
{
	const char *step = marks && marks <= ct->rec.nr_m ? ct->rec.m[marks - 1].label : "";

	if (asprintf(&env[0], "DMF_STATE=%.*s", (int)dft_spec_view_len(spec), spec) < 0)
		env[0] = NULL;
	if (asprintf(&env[1], "DMF_STEP=%s", step) < 0)
		env[1] = NULL;
	if (asprintf(&env[2], "DMF_MARKS=%u", marks) < 0)
		env[2] = NULL;
	return env[0] && env[1] && env[2] ? 0 : dft_ct_err("out of memory");
}

/* Show the state @spec on @ct's device and run the check with @env on it. */
static int dft_ct_look(struct dft_ct *ct, const char *spec, char *const *env)
{
	int r = 0;

	unlink(ct->out);
	ct->hung[0] = '\0';
	if (dft_ct_send(ct, NULL, "view %.*s", (int)dft_spec_view_len(spec), spec) ||
	    dft_ct_drop_caches(ct))
		r = -1;
	if (!r) {
		r = dft_ct_sh(ct, "check", ct->o->ct_check, env);
		dft_ct_unmount(ct);
	}
	return r < 0 || !*ct->hung ? r : 124;
}

/*
 * Show the state @spec, after whose crash the workload had made @marks
 * marks, and run the check on it: its exit status (124: it hung), or -1.
 */
static int dft_ct_check(struct dft_ct *ct, const char *spec, unsigned int marks)
{
	char *env[4] = { NULL };
	int r = dft_ct_env(ct, spec, marks, env);

	if (!r)
		r = dft_ct_look(ct, spec, env);
	free(env[0]);
	free(env[1]);
	free(env[2]);
	return r;
}

/* keep=all: the workload and its clean unmount.  A check must pass it. */
static int dft_ct_control(struct dft_ct *ct)
{
	int r = dft_ct_check(ct, "keep=all", ct->rec.nr_m);

	if (r < 0)
		return -1;
	if (r) {
		dft_err("the check fails without a crash (exit %d): it cannot judge crashes", r);
		dft_ct_print_tail(ct);
		return -1;
	}
	return 0;
}

static void dft_ct_progress(const struct dft_ct *ct, const char *fmt, ...) __printf(2, 3);

/* A line on standard error, on a terminal only, overwritten by the next. */
static void dft_ct_progress(const struct dft_ct *ct, const char *fmt, ...)
{
	va_list ap;

	(void)ct;
	if (!dft_tty(stderr))
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* Keep what a failing state was: its output, and the writes it lost. */
static int dft_ct_fail_add(struct dft_ct *ct, const struct dft_state *st, int status)
{
	struct dft_ct_fail *f, *grown;
	char tail[DFT_CT_TAIL + 1];
	const char *err;
	struct dft_spec s;
	int r;

	grown = realloc(ct->fail, (ct->nr_fail + 1) * sizeof(*ct->fail));
	if (!grown)
		return dft_ct_err("out of memory");
	ct->fail = grown;
	f = &ct->fail[ct->nr_fail++];
	memset(f, 0, sizeof(*f));
	f->st = st;
	f->status = status;
	dft_file_tail(ct->out, tail, sizeof(tail));
	f->tail = strdup(tail);
	r = dft_spec_parse(st->spec, &s, &err);
	if (!r)
		r = dft_spec_lost(&ct->rec, &s, st->point, &f->lost, &f->nr_lost);
	dft_spec_free(&s);
	ct->failed++;
	ct->ep_failed[st->epoch]++;
	return r || !f->tail ? dft_ct_err("out of memory") : 0;
}

/* One state checked: a FAIL line (ok with -v), and the progress line. */
static void dft_ct_state_done(struct dft_ct *ct, const struct dft_state *st, int r)
{
	if (!ct->o->json && (r || ct->o->verbose)) {
		dft_ct_progress(ct, "%s", "");
		printf("%s epoch %u %s %s: ", r ? "FAIL" : "ok", st->epoch,
		       dft_state_kind_name(st->kind), st->spec);
		if (*ct->hung)
			printf("%s\n", ct->hung);
		else
			printf("check exited %d\n", r);
		fflush(stdout);
	}
	dft_ct_progress(ct, "%u/%u states, %u failed", ct->checked, ct->plan.nr, ct->failed);
}

static void dft_ct_intro(const struct dft_ct *ct)
{
	const struct dft_plan *plan = &ct->plan;

	if (ct->o->json)
		return;
	printf("%s: recorded %llu writes (%llu in the workload), %zu flush points, %u epoch%s\n",
	       ct->disk, (unsigned long long)ct->rec.nr_w, (unsigned long long)ct->rec.end,
	       ct->rec.nr_bar, plan->nr_epochs, plan->nr_epochs == 1 ? "" : "s");
	printf("%u states to check; skipped: %llu the same as another, %llu past --max-states\n",
	       plan->nr, (unsigned long long)plan->dups, (unsigned long long)plan->capped);
	if (ct->shards)
		printf("shard %u/%u of run %s: the states i with i %% %u == %u\n", ct->shard,
		       ct->shards, ct->run, ct->shards, ct->shard);
	fflush(stdout);
}

/* Check every state of the plan. */
static int dft_ct_explore(struct dft_ct *ct)
{
	struct dft_plan *plan = &ct->plan;
	unsigned int i;
	int r;

	if (dft_plan_build(&ct->rec, &ct->cfg, plan))
		return dft_ct_err("out of memory");
	ct->ep_failed = calloc(plan->nr_epochs, sizeof(*ct->ep_failed));
	ct->ep_checked = calloc(plan->nr_epochs, sizeof(*ct->ep_checked));
	if (!ct->ep_failed || !ct->ep_checked)
		return dft_ct_err("out of memory");
	dft_ct_intro(ct);
	for (i = ct->shard; i < plan->nr; i += ct->shards ? ct->shards : 1) {
		r = dft_ct_check(ct, plan->st[i].spec, plan->st[i].marks);
		if (r < 0)
			return -1;
		ct->checked++;
		ct->ep_checked[plan->st[i].epoch]++;
		if (r && dft_ct_fail_add(ct, &plan->st[i], r))
			return -1;
		dft_ct_state_done(ct, &plan->st[i], r);
	}
	return 0;
}

/* ---- crash during recovery -------------------------------------------------- */

static int dft_ct_create(struct dft_ct *ct);
static void dft_ct_free(struct dft_ct *ct);

/*
 * Record the check of the first state @st as a second recording: @rc, a
 * fault device with a cache of its own, is stacked on @ct's, which shows
 * @st.  What the check writes (its mount's journal replay, fsck's repairs,
 * with their flushes and FUA) stays in @rc's cache, so @st stays as it is
 * below, however many recovery states are shown on top.  What the check
 * leaves mounted is unmounted before the end mark: that is recovery too.
 * 0, or -1 said why.
 */
static int dft_ct_rc_record(struct dft_ct *ct, struct dft_ct *rc, const struct dft_state *st,
			    char *const *env)
{
	int r;

	if (dft_ct_send(ct, NULL, "view %.*s", (int)dft_spec_view_len(st->spec), st->spec) ||
	    dft_ct_drop_caches(ct) || dft_ct_create(rc) || dft_ct_send(rc, NULL, "record"))
		return -1;
	unlink(rc->out);
	rc->hung[0] = '\0';
	r = dft_ct_sh(rc, "check", ct->o->ct_check, env);
	if (r >= 0 && dft_ct_overflow(rc, false))
		return -1;
	/* it passed on @st: a check that does not repeat itself cannot be explored */
	if (r > 0 && !*rc->hung) {
		dft_err("the check passed on %s, then exited %d when its writes were recorded: it does not repeat itself",
			st->spec, r);
		dft_ct_print_tail(rc);
		return -1;
	}
	if (r)
		return dft_ct_step_failed(rc, "check", r);
	dft_ct_unmount(rc);
	if (dft_ct_send(rc, NULL, "mark " DFT_END_MARK) || dft_ct_overflow(rc, false) ||
	    dft_ct_send(rc, NULL, "crash"))
		return -1;
	return dft_ct_read(rc);
}

/* Keep a recovery state @st that fails on top of @first, with its output. */
static int dft_ct_rfail_add(struct dft_ct *ct, const struct dft_state *first,
			    const struct dft_state *st, int status)
{
	struct dft_ct_rfail *f, *grown;
	char tail[DFT_CT_TAIL + 1];

	grown = realloc(ct->rc.fail, (ct->rc.nr_fail + 1) * sizeof(*ct->rc.fail));
	if (!grown)
		return dft_ct_err("out of memory");
	ct->rc.fail = grown;
	f = &ct->rc.fail[ct->rc.nr_fail++];
	dft_file_tail(ct->out, tail, sizeof(tail));
	*f = (struct dft_ct_rfail){ first, strdup(st->spec), st->kind, st->epoch, st->point,
				    status, strdup(tail) };
	ct->rc.failed++;
	return f->spec && f->tail ? 0 : dft_ct_err("out of memory");
}

/* A recovery state checked: a FAIL line with both states (ok with -v). */
static void dft_ct_rc_done(struct dft_ct *ct, const struct dft_ct *rc, const struct dft_state *first,
			   const struct dft_state *st, int r)
{
	if (!ct->o->json && (r || ct->o->verbose)) {
		dft_ct_progress(ct, "%s", "");
		printf("%s epoch %u %s %s, recovery epoch %u %s %s: ", r ? "FAIL" : "ok",
		       first->epoch, dft_state_kind_name(first->kind), first->spec, st->epoch,
		       dft_state_kind_name(st->kind), st->spec);
		if (*rc->hung)
			printf("%s\n", rc->hung);
		else
			printf("check exited %d\n", r);
		fflush(stdout);
	}
	dft_ct_progress(ct, "recovery of %u first states: %u states, %u failed", ct->rc.firsts,
			ct->rc.checked, ct->rc.failed);
}

/* --recovery-state: that state of the check's recording; its exit status in *@status. */
static int dft_ct_rc_state(struct dft_ct *rc, const char *rspec, char *const *env, int *status)
{
	const char *err = "out of memory";
	struct dft_spec s;
	uint64_t point;
	int r;

	r = dft_spec_parse(rspec, &s, &err);
	point = r ? 0 : dft_spec_point(&s, rc->rec.nr_w);
	dft_spec_free(&s);
	if (r)
		return dft_ct_err("--recovery-state: %s", err);
	/* a check that does not repeat itself records other writes */
	if (point > rc->rec.nr_w)
		return dft_ct_err("the recovery state keeps write %llu, but the check recorded %llu writes this time: it does not repeat itself",
				  (unsigned long long)point, (unsigned long long)rc->rec.nr_w);
	*status = dft_ct_look(rc, rspec, env);
	return *status < 0 ? -1 : 0;
}

/*
 * Check the crash states of @rc's recording (the check of @first) with the
 * same check and @first's environment: a crash during recovery.  With
 * @rspec, only that state: its exit status in *@status.
 */
static int dft_ct_rc_explore(struct dft_ct *ct, struct dft_ct *rc, const struct dft_state *first,
			     char *const *env, const char *rspec, int *status)
{
	struct dft_plan *plan = &rc->plan;
	unsigned int i;
	int r;

	if (rspec)
		return dft_ct_rc_state(rc, rspec, env, status);
	rc->cfg = ct->cfg;
	rc->cfg.max_states = ct->rc_max;
	if (dft_plan_build(&rc->rec, &rc->cfg, plan))
		return dft_ct_err("out of memory");
	ct->rc.firsts++;
	ct->rc.writes += rc->rec.end;
	ct->rc.dups += plan->dups;
	ct->rc.capped += plan->capped;
	/* a check that wrote nothing has no recovery to crash */
	for (i = 0; rc->rec.end && i < plan->nr; i++) {
		r = dft_ct_look(rc, plan->st[i].spec, env);
		if (r < 0)
			return -1;
		ct->rc.checked++;
		if (r && dft_ct_rfail_add(ct, first, &plan->st[i], r))
			return -1;
		dft_ct_rc_done(ct, rc, first, &plan->st[i], r);
	}
	return 0;
}

/*
 * Record the check of @first and check the states its recording can leave
 * (or only @rspec, its status in *@status); the second device goes again.
 */
static int dft_ct_rc_run(struct dft_ct *ct, const struct dft_state *first, const char *rspec,
			 int *status)
{
	struct dft_ct rc = { .o = ct->o, .disk = ct->dev, .name = DFT_CT_RC_NAME };
	char *env[4] = { NULL };
	int r;

	memcpy(rc.mnt, ct->mnt, sizeof(rc.mnt));
	memcpy(rc.out, ct->out, sizeof(rc.out));
	r = dft_ct_env(ct, first->spec, first->marks, env);
	if (!r)
		r = dft_ct_rc_record(ct, &rc, first, env);
	if (!r)
		r = dft_ct_rc_explore(ct, &rc, first, env, rspec, status);
	memcpy(ct->hung, rc.hung, sizeof(ct->hung));
	if (rc.major) {
		dft_ct_unmount(&rc);
		if (dft_dm_remove(rc.name, true))
			r = dft_ct_err("%s: cannot remove: %s", rc.name, dft_dm_last_error());
	}
	free(env[0]);
	free(env[1]);
	free(env[2]);
	dft_ct_free(&rc);
	return r;
}

/*
 * --recovery N: the first states whose check is recorded and explored.
 * Each costs a recording and up to --recovery-states checks, so not all:
 * N of those that passed (a failing one is a finding already), spread
 * evenly over the plan, which is in epoch order, so that the recoveries of
 * early and late crashes are both tried.
 */
static int dft_ct_recovery(struct dft_ct *ct)
{
	struct dft_plan *plan = &ct->plan;
	unsigned int *pass, i, p = 0, n;
	bool *failed;
	int r = 0;

	if (!ct->recovery)
		return 0;
	pass = calloc(plan->nr + 1, sizeof(*pass));
	failed = calloc(plan->nr + 1, sizeof(*failed));
	if (!pass || !failed)
		r = dft_ct_err("out of memory");
	for (i = 0; !r && i < ct->nr_fail; i++)
		failed[ct->fail[i].st - plan->st] = true;
	for (i = 0; !r && i < plan->nr; i++)
		if (!failed[i])
			pass[p++] = i;
	n = p < ct->recovery ? p : ct->recovery;
	for (i = 0; !r && i < n; i++)
		r = dft_ct_rc_run(ct, &plan->st[pass[(uint64_t)i * p / n]], NULL, NULL);
	free(pass);
	free(failed);
	return r;
}

/* Delta debugging's test: the failing state with only @set of its writes lost. */
struct dft_ct_dd {
	struct dft_ct *ct;
	struct dft_ct_fail *f;
	struct dft_spec spec;		/* the state's, for its tears */
};

static int dft_ct_dd_test(void *ctx, const uint64_t *set, size_t n)
{
	struct dft_ct_dd *d = ctx;
	struct dft_crash c = { d->f->st->point, d->f->st->marks, d->spec.tear, d->spec.nr_tear };
	char *spec = dft_spec_lose(&d->ct->rec, &c, set, n);
	int r;

	if (!spec)
		return -ENOMEM;
	r = dft_ct_check(d->ct, spec, c.marks);
	free(spec);
	d->ct->dd_checks++;
	dft_ct_progress(d->ct, "minimising the failure of epoch %u: %zu lost writes, %u checks",
			d->f->st->epoch, n, d->ct->dd_checks);
	return r < 0 ? -EIO : r > 0;
}

/* Shrink @f's lost writes to the fewest that still fail, within --minimise checks. */
static int dft_ct_minimise(struct dft_ct *ct, struct dft_ct_fail *f)
{
	struct dft_ct_dd d = { .ct = ct, .f = f };
	struct dft_ddmin dd = { .test = dft_ct_dd_test, .ctx = &d, .budget = ct->minimise };
	const char *err = "out of memory";
	int r;

	r = dft_spec_parse(f->st->spec, &d.spec, &err);
	f->min = malloc((f->nr_lost ? f->nr_lost : 1) * sizeof(*f->min));
	if (r || !f->min) {
		dft_spec_free(&d.spec);
		return dft_ct_err("%s: %s", f->st->spec, err);
	}
	memcpy(f->min, f->lost, f->nr_lost * sizeof(*f->min));
	f->nr_min = f->nr_lost;
	r = dft_ddmin(&dd, f->min, &f->nr_min);
	f->tests = dd.tests;
	f->exhausted = dd.exhausted;
	f->minimised = !r;
	if (!r) {
		struct dft_crash c = { f->st->point, f->st->marks, d.spec.tear, d.spec.nr_tear };

		f->min_spec = dft_spec_lose(&ct->rec, &c, f->min, f->nr_min);
	}
	dft_spec_free(&d.spec);
	if (r == -ENOMEM || (!r && !f->min_spec))
		dft_err("out of memory");
	return r || !f->min_spec ? -1 : 0;
}

/*
 * The writes that explain @f: the minimal lost set (or the lost writes,
 * unminimised); when it is empty the state fails with every write up to
 * its crash point kept, and the writes after the point are named instead.
 */
static int dft_ct_why(struct dft_ct *ct, struct dft_ct_fail *f)
{
	const uint64_t *src = f->minimised ? f->min : f->lost;
	size_t n = f->minimised ? f->nr_min : f->nr_lost, i;
	uint64_t w = f->st->point;

	f->after_point = !n;
	if (!n)
		n = ct->rec.nr_w - w < DFT_CT_AFTER ? ct->rec.nr_w - w : DFT_CT_AFTER;
	if (n > DFT_CT_NAMED)
		n = DFT_CT_NAMED;
	f->why = calloc(n ? n : 1, sizeof(*f->why));
	if (!f->why)
		return dft_ct_err("out of memory");
	for (i = 0; i < n; i++)
		f->why[i].w = f->after_point ? w + 1 + i : src[i];
	f->nr_why = n;
	return 0;
}

/* Name the files that hold the explained writes, in the keep=all state. */
static int dft_ct_map(struct dft_ct *ct)
{
	struct dft_fsmap_req *req;
	unsigned int i, j, n = 0;
	const struct dft_rw *rw;
	int r = 0;

	for (i = 0; i < ct->nr_fail; i++)
		n += ct->fail[i].nr_why;
	if (!n)
		return 0;
	req = calloc(n, sizeof(*req));
	if (!req)
		return dft_ct_err("out of memory");
	for (i = 0, n = 0; i < ct->nr_fail; i++) {
		for (j = 0; j < ct->fail[i].nr_why; j++, n++) {
			rw = &ct->rec.w[ct->fail[i].why[j].w - 1];
			req[n].sector = rw->sector;
			req[n].nr = rw->nr;
		}
	}
	if (dft_ct_send(ct, NULL, "view keep=all") || dft_ct_drop_caches(ct))
		r = -1;
	if (!r && dft_fsmap(ct->dev, req, n, ct->map_note, sizeof(ct->map_note)) == -ENOMEM)
		r = dft_ct_err("out of memory");
	for (i = 0, n = 0; !r && i < ct->nr_fail; i++)
		for (j = 0; j < ct->fail[i].nr_why; j++, n++)
			memcpy(ct->fail[i].why[j].files, req[n].files, sizeof(req[n].files));
	free(req);
	return r;
}

/* Shrink and explain the first failure of each epoch, then name the files. */
static int dft_ct_explain(struct dft_ct *ct)
{
	unsigned int i, epoch = UINT_MAX;
	struct dft_ct_fail *f;

	/* the plan is in epoch order, and so are the failures */
	for (i = 0; i < ct->nr_fail; i++) {
		f = &ct->fail[i];
		if (f->st->epoch == epoch)
			continue;
		epoch = f->st->epoch;
		f->explained = true;
		if (ct->minimise && dft_ct_minimise(ct, f))
			return -1;
		if (dft_ct_why(ct, f))
			return -1;
	}
	dft_ct_progress(ct, "%s", "");
	return dft_ct_map(ct);
}

/* The control, every state (of the shard), then the accounts of the failures. */
static int dft_ct_all(struct dft_ct *ct)
{
	if (dft_ct_control(ct) || dft_ct_explore(ct) || dft_ct_recovery(ct) || dft_ct_explain(ct))
		return -1;
	dft_ct_report(ct);
	return dft_ct_picture(ct);
}

/*
 * --save: the control first (a check that fails without a crash would fail
 * every state on every machine), then the run into the directory.
 */
static int dft_ct_save_run(struct dft_ct *ct)
{
	if (dft_ct_control(ct))
		return -1;
	if (dft_plan_build(&ct->rec, &ct->cfg, &ct->plan))
		return dft_ct_err("out of memory");
	return dft_ct_save(ct, ct->o->ct_save);
}

/* --load: the saved writes replayed into a recording, which must list as the saved one. */
static int dft_ct_from_saved(struct dft_ct *ct)
{
	struct dft_record saved = { 0 };
	char why[256];
	int r;

	r = dft_ct_replay(ct, ct->o->ct_load, &saved);
	if (!r)
		r = dft_ct_read(ct);
	if (!r && !dft_record_same(&saved, &ct->rec, why, sizeof(why)))
		r = dft_ct_err("%s: the saved writes, replayed, did not record as saved: %s",
			       ct->o->ct_load, why);
	dft_record_free(&saved);
	return r;
}

/* --state: the one state, on a recording made again. */
static int dft_ct_one(struct dft_ct *ct)
{
	const char *spec = ct->o->ct_state, *err = "out of memory";
	unsigned int marks = 0;
	struct dft_spec s;
	uint64_t point;
	int r;

	r = dft_spec_parse(spec, &s, &err);
	point = r ? 0 : dft_spec_point(&s, ct->rec.nr_w);
	if (point <= ct->rec.nr_w)
		marks = dft_spec_marks(&ct->rec, &s);
	dft_spec_free(&s);
	if (r)
		return dft_ct_err("--state: %s", err);
	/* a workload that does not repeat itself records other writes or marks */
	if (point > ct->rec.nr_w || marks > ct->rec.nr_m)
		return dft_ct_err("the state keeps write %llu after %u marks, but the workload recorded %llu writes and %zu marks this time: it does not repeat itself",
				  (unsigned long long)point, marks,
				  (unsigned long long)ct->rec.nr_w, ct->rec.nr_m);
	if (ct->o->ct_rstate) {
		struct dft_state first = { .spec = (char *)spec, .point = point, .marks = marks };

		if (dft_ct_rc_run(ct, &first, ct->o->ct_rstate, &r))
			return -1;
	} else {
		r = dft_ct_check(ct, spec, marks);
	}
	if (r < 0)
		return -1;
	ct->checked = 1;
	ct->failed = !!r;
	dft_ct_one_report(ct, spec, ct->o->ct_rstate, r);
	return 0;
}

/* A cache option as the target reads it; 0, or a usage error. */
static int dft_ct_check_cache(const struct dft_cmd *cmd, const char *key, uint64_t v)
{
	const char *why;
	char word[64];

	snprintf(word, sizeof(word), "%s=%llu", key, (unsigned long long)v);
	if (dft_cache_option_check(word, &why))
		return dft_usage_err(cmd, "--%s %llu: %s", key, (unsigned long long)v, why);
	return 0;
}

/* --shard I/N: the states i with i % N == I. */
static int dft_ct_shard(const struct dft_cmd *cmd, const char *arg, struct dft_ct *ct)
{
	unsigned int i, n;
	char end;

	if (sscanf(arg, "%u/%u%c", &i, &n, &end) != 2 || !n || i >= n || n > DFT_CT_LIMIT)
		return dft_usage_err(cmd, "--shard '%s': I/N, with 0 <= I < N <= %u", arg,
				     DFT_CT_LIMIT);
	ct->shard = i;
	ct->shards = n;
	/* shards may run at once on one machine, each on a scratch device of its own */
	snprintf(ct->name_buf, sizeof(ct->name_buf), "%s-%u", DFT_CT_NAME, i);
	ct->name = ct->name_buf;
	return 0;
}

/* What --save, --load and --shard go with; and a saved run's options, from its manifest. */
static int dft_ct_saved_opts(const struct dft_cmd *cmd, struct dft_opts *o, struct dft_ct *ct)
{
	if (o->ct_shard && !o->ct_load)
		return dft_usage_err(cmd, "--shard needs --load: the saved run it checks a share of");
	if (o->ct_save && o->ct_load)
		return dft_usage_err(cmd, "--save and --load: one or the other");
	if ((o->ct_save || o->ct_load) && o->ct_recovery)
		return dft_usage_err(cmd, "--recovery is not saved: it picks its first states from the verdicts of all of them");
	if (o->ct_save && o->ct_state)
		return dft_usage_err(cmd, "--save records for other machines; --state checks one state here");
	if (o->ct_shard && dft_ct_shard(cmd, o->ct_shard, ct))
		return DFT_EXIT_USAGE;
	if (!o->ct_load)
		return 0;
	if (o->ct_setup || o->ct_workload || o->ct_check || o->ct_entry || o->ct_fs ||
	    o->catalog || o->ct_have_settle || o->ct_have_subset_max || o->ct_have_samples ||
	    o->ct_have_seed || o->ct_max_states || o->ct_have_minimise || o->ct_have_limit ||
	    o->ct_have_unit || o->step_timeout != DFT_STEP_TIMEOUT)
		return dft_usage_err(cmd, "--load: the run's commands and options are those saved in %s/manifest",
				     o->ct_load);
	return dft_ct_load_manifest(ct, o, o->ct_load) ? DFT_EXIT_USAGE : 0;
}

static int dft_ct_check_opts(const struct dft_cmd *cmd, const struct dft_opts *o,
			     struct dft_ct *ct)
{
	const char *why = "out of memory";
	struct dft_spec s;
	int r;

	if (!o->ct_setup || !o->ct_workload || !o->ct_check)
		return dft_usage_err(cmd, "--setup, --workload and --check are needed");
	if (o->ct_have_subset_max && o->ct_subset_max > DFT_CT_SUBSET_MAX)
		return dft_usage_err(cmd, "--subset-max: at most %u (2^N states an epoch)",
				     DFT_CT_SUBSET_MAX);
	if ((o->ct_have_samples && o->ct_samples > DFT_CT_LIMIT) ||
	    (o->ct_have_minimise && o->ct_minimise > DFT_CT_LIMIT) ||
	    o->ct_max_states > 100 * DFT_CT_LIMIT)
		return dft_usage_err(cmd, "--samples, --minimise: at most %u; --max-states: %u",
				     DFT_CT_LIMIT, 100 * DFT_CT_LIMIT);
	if ((o->ct_have_limit && dft_ct_check_cache(cmd, "limit", o->ct_limit)) ||
	    (o->ct_have_unit && dft_ct_check_cache(cmd, "unit", o->ct_unit)))
		return DFT_EXIT_USAGE;
	if (o->ct_state) {
		r = dft_spec_parse(o->ct_state, &s, &why);
		dft_spec_free(&s);
		if (r)
			return dft_usage_err(cmd, "--state '%s': %s", o->ct_state, why);
	}
	if (o->ct_rstate && !o->ct_state)
		return dft_usage_err(cmd, "--recovery-state needs --state: the state it recovers");
	if (o->ct_rstate) {
		r = dft_spec_parse(o->ct_rstate, &s, &why);
		dft_spec_free(&s);
		if (r)
			return dft_usage_err(cmd, "--recovery-state '%s': %s", o->ct_rstate, why);
	}
	if (o->ct_recovery > 100 * DFT_CT_LIMIT || o->ct_rc_max > 100 * DFT_CT_LIMIT)
		return dft_usage_err(cmd, "--recovery, --recovery-states: at most %u",
				     100 * DFT_CT_LIMIT);
	ct->recovery = o->ct_recovery;
	ct->rc_max = o->ct_rc_max ? o->ct_rc_max : 50;
	ct->cfg.subset_max = o->ct_have_subset_max ? o->ct_subset_max : 8;
	ct->cfg.samples = o->ct_have_samples ? o->ct_samples : 8;
	ct->cfg.seed = o->ct_have_seed ? o->ct_seed : 1;
	ct->cfg.max_states = o->ct_max_states ? o->ct_max_states : 2000;
	ct->minimise = o->ct_have_minimise ? o->ct_minimise : 64;
	return 0;
}

/* Create the fault device with the cache on @disk. */
static int dft_ct_create(struct dft_ct *ct)
{
	const struct dft_opts *o = ct->o;
	char params[256];
	uint64_t bytes;
	struct stat stt;
	struct dft_dev dev;
	int fd, n, r;

	fd = open(ct->disk, O_RDONLY);
	if (fd < 0 || fstat(fd, &stt) || !S_ISBLK(stt.st_mode) ||
	    ioctl(fd, BLKGETSIZE64, &bytes)) {
		r = fd >= 0 && !S_ISBLK(stt.st_mode) ? ENOTBLK : errno;
		dft_err("%s: not a block device I can open: %s", ct->disk, strerror(r));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	/* a saved run's disk is restored at the start of DEV: its views are that size */
	if (ct->sectors && ct->sectors > bytes >> 9)
		return dft_ct_err("%s: smaller than the saved run's disk (%llu sectors)", ct->disk,
				  (unsigned long long)ct->sectors);
	if (ct->sectors)
		bytes = ct->sectors << 9;
	else
		ct->sectors = bytes >> 9;
	n = snprintf(params, sizeof(params), "%u:%u 0 0 %d cache", major(stt.st_rdev),
		     minor(stt.st_rdev), 1 + o->ct_have_limit + o->ct_have_unit);
	if (o->ct_have_limit)
		n += snprintf(params + n, sizeof(params) - n, " limit=%llu",
			      (unsigned long long)o->ct_limit);
	if (o->ct_have_unit)
		snprintf(params + n, sizeof(params) - n, " unit=%llu",
			 (unsigned long long)o->ct_unit);
	r = dft_dm_create(ct->name, bytes >> 9, params);
	if (r) {
		dft_dev_err(ct->name, r);
		return -1;
	}
	r = dft_dm_get(ct->name, false, &dev);
	if (r) {
		dft_dm_remove(ct->name, true);
		dft_dev_err(ct->name, r);
		return -1;
	}
	ct->major = dev.major;
	ct->minor = dev.minor;
	dft_dm_put(&dev);
	snprintf(ct->dev, sizeof(ct->dev), "/dev/mapper/%s", ct->name);
	return 0;
}

static void dft_ct_free(struct dft_ct *ct)
{
	unsigned int i;

	for (i = 0; i < ct->nr_fail; i++) {
		free(ct->fail[i].tail);
		free(ct->fail[i].lost);
		free(ct->fail[i].min);
		free(ct->fail[i].min_spec);
		free(ct->fail[i].why);
	}
	free(ct->fail);
	for (i = 0; i < ct->rc.nr_fail; i++) {
		free(ct->rc.fail[i].spec);
		free(ct->rc.fail[i].tail);
	}
	free(ct->rc.fail);
	free(ct->ep_failed);
	free(ct->ep_checked);
	free(ct->saved);
	dft_catalog_free(&ct->cat);
	dft_plan_free(&ct->plan);
	dft_record_free(&ct->rec);
}

/* --merge: one report from the shards' --json reports. */
static int dft_ct_merge_files(int argc, char **argv, const char *svg)
{
	char **text = calloc(argc, sizeof(*text)), err[600];
	int i, r = 0;
	size_t len;

	if (!text)
		return dft_ct_err("out of memory");
	for (i = 0; !r && i < argc; i++)
		if (!(text[i] = dft_ct_slurp(argv[i], &len)))
			r = -1;
	if (!r) {
		r = dft_ct_merge((const char *const *)argv, (const char *const *)text, argc,
				 stdout, svg, err, sizeof(err));
		if (r < 0)
			dft_err("--merge: %s", err);
	}
	for (i = 0; i < argc; i++)
		free(text[i]);
	free(text);
	return r < 0 ? DFT_EXIT_USAGE : r ? DFT_EXIT_FAIL : DFT_EXIT_OK;
}

DFT_HANDLER(dft_cmd_crashtest)
{
	struct dft_ct ct = { .o = o, .disk = argv[0], .name = DFT_CT_NAME };
	int r;

	if (o->ct_merge)
		return dft_ct_merge_files(argc, argv, o->ct_svg);
	if (argc != 1)
		return dft_usage_err(cmd, "one DEV; JSON reports only with --merge");
	r = dft_ct_entry_load(cmd, o, &ct) ? DFT_EXIT_USAGE : 0;
	if (!r)
		r = dft_ct_saved_opts(cmd, o, &ct);
	if (!r)
		r = dft_ct_check_opts(cmd, o, &ct);
	if (r) {
		dft_catalog_free(&ct.cat);
		free(ct.saved);
		return r;
	}
	clock_gettime(CLOCK_MONOTONIC, &ct.t0);
	snprintf(ct.mnt, sizeof(ct.mnt), "/tmp/dmfault-crashtest.XXXXXX");
	if (!mkdtemp(ct.mnt)) {
		dft_err("mkdtemp: %s", strerror(errno));
		return DFT_EXIT_USAGE;
	}
	snprintf(ct.out, sizeof(ct.out), "%s.out", ct.mnt);
	if ((o->ct_load && dft_ct_restore(&ct, o->ct_load)) || dft_ct_create(&ct)) {
		rmdir(ct.mnt);
		dft_ct_free(&ct);
		return DFT_EXIT_USAGE;
	}
	r = o->ct_load ? dft_ct_from_saved(&ct) : dft_ct_record(&ct);
	if (!r && o->ct_state)
		r = dft_ct_one(&ct);
	else if (!r)
		r = o->ct_save ? dft_ct_save_run(&ct) : dft_ct_all(&ct);
	dft_ct_progress(&ct, "%s", "");
	dft_ct_unmount(&ct);
	if (dft_dm_remove(ct.name, true))
		dft_err("%s: cannot remove: %s", ct.name, dft_dm_last_error());
	rmdir(ct.mnt);
	unlink(ct.out);
	dft_ct_free(&ct);
	if (r)
		return DFT_EXIT_USAGE;
	return ct.failed || ct.rc.failed ? DFT_EXIT_FAIL : DFT_EXIT_OK;
}
