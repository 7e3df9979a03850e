// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest --recovery and --recovery-state: a crash during
 * recovery.  A state that passed its check was recovered by that check
 * (the mount's journal replay, fsck's repairs); a second crash while it
 * runs leaves other states, which a check must pass too.  So the check of
 * a first state is recorded as a second recording, on a fault device of
 * its own stacked on the first, and the crash states of that recording are
 * checked with the same check, as the exploration checks the workload's.
 * The steps are run.c's; the first states are those the exploration
 * (cmd_crash.c) checked and saw pass.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash/crash.h"

#define DFT_CT_RC_NAME		DFT_CT_NAME "-rc"	/* the check's recording */

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
static void dft_ct_rc_done(struct dft_ct *ct, const struct dft_ct *rc,
			   const struct dft_state *first, const struct dft_state *st, int r)
{
	if (!ct->o->json && (r || ct->o->verbose)) {
		dft_ct_progress(ct, "%s", "");
		printf("%s epoch %u %s %s, recovery epoch %u %s %s: ", r ? "FAIL" : "ok",
		       first->epoch, dft_state_kind_name(first->kind), first->spec, st->epoch,
		       dft_state_kind_name(st->kind), st->spec);
		dft_ct_verdict(rc, r);
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
int dft_ct_rc_run(struct dft_ct *ct, const struct dft_state *first, const char *rspec,
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
int dft_ct_recovery(struct dft_ct *ct)
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
