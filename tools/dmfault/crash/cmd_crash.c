// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest: record a workload once, then check the crash states it
 * can leave.
 *
 * run.c makes a fault device with the volatile write cache on DEV and
 * records the workload on it, with nothing reaching DEV; explore.c picks
 * the crash states of the recording worth checking, and each is shown on
 * the device and judged by --check (run.c).  So the workload runs once,
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
 * --recovery also checks a crash while the check recovers a state that
 * passed (recovery.c).  --save keeps the recorded run in a directory,
 * --load --shard checks a share of its states on another machine (save.c,
 * which checks what those options go with), and --merge makes one report
 * of the shards' reports (merge.c); crash_report.c gives the account.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crash/crash.h"
#include "dev/dev.h"

#define DFT_CT_SUBSET_MAX	20	/* 2^20 subsets in an epoch are already too many to check */

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
		dft_ct_verdict(ct, r);
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
