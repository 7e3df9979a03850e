// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest's account of what it found (cmd_crash.c does the run):
 * the FAIL lines aside, each explained failure with what its check said,
 * the writes that explain it, their files and the command that repeats it;
 * the first crash during the recovery of each first state that has one,
 * with both states; a table with a row per epoch; one last line with the
 * rate.  Or all of it as one JSON object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crash/crash.h"

static double dft_ct_seconds(const struct dft_ct *ct)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - ct->t0.tv_sec) + (t.tv_nsec - ct->t0.tv_nsec) / 1e9;
}

/* Shell-quote @s into @b. */
static void dft_ct_quote(struct dft_buf *b, const char *s)
{
	dft_buf_add(b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			dft_buf_add(b, "'\\''");
		else
			dft_buf_add(b, "%c", *s);
	}
	dft_buf_add(b, "'");
}

/*
 * The command that records again and checks only @spec (and, if not NULL,
 * the state @rspec of its check's recording); malloc()ed, or NULL.
 */
static char *dft_ct_repro(const struct dft_ct *ct, const char *spec, const char *rspec)
{
	const struct dft_opts *o = ct->o;
	struct dft_buf b = { 0 };

	dft_buf_add(&b, "dmfault crashtest");
	if (o->ct_entry && o->catalog) {
		dft_buf_add(&b, " --catalog ");
		dft_ct_quote(&b, o->catalog);
	}
	if (o->ct_entry) {
		dft_buf_add(&b, " --entry ");
		dft_ct_quote(&b, o->ct_entry);
		dft_buf_add(&b, " --fs ");
		dft_ct_quote(&b, ct->fs);
	} else {
		dft_buf_add(&b, " --setup ");
		dft_ct_quote(&b, o->ct_setup);
		dft_buf_add(&b, " --workload ");
		dft_ct_quote(&b, o->ct_workload);
		dft_buf_add(&b, " --check ");
		dft_ct_quote(&b, o->ct_check);
	}
	if (o->ct_have_settle)
		dft_buf_add(&b, " --settle %u", o->ct_settle);
	if (o->ct_have_limit)
		dft_buf_add(&b, " --limit %llu", (unsigned long long)o->ct_limit);
	if (o->ct_have_unit)
		dft_buf_add(&b, " --unit %llu", (unsigned long long)o->ct_unit);
	if (o->step_timeout != DFT_STEP_TIMEOUT)
		dft_buf_add(&b, " --step-timeout %u", o->step_timeout);
	dft_buf_add(&b, " --state ");
	dft_ct_quote(&b, spec);
	if (rspec) {
		dft_buf_add(&b, " --recovery-state ");
		dft_ct_quote(&b, rspec);
	}
	dft_buf_add(&b, " ");
	dft_ct_quote(&b, ct->disk);
	if (b.oom)
		dft_buf_free(&b);
	return b.text;
}

/* The last @max lines of @text, each indented. */
static void dft_ct_print_lines(const char *text, unsigned int max, const char *indent)
{
	const char *p = text + strlen(text);
	unsigned int n = 0;

	while (p > text && p[-1] == '\n')
		p--;
	while (p > text && n < max)
		if (*--p == '\n' && ++n == max)
			p++;
	while (*p) {
		size_t len = strcspn(p, "\n");

		printf("%s%.*s\n", indent, (int)len, p);
		p += len + !!p[len];
	}
}

/* "write 41: sector 2048+8 write, epoch 3, step row-7: /db" */
static void dft_ct_print_write(const struct dft_ct *ct, const struct dft_ct_why *why)
{
	const struct dft_rw *rw = &ct->rec.w[why->w - 1];
	const char *step = dft_step(&ct->rec, why->w);

	printf("    write %llu: sector %llu+%llu %s", (unsigned long long)why->w,
	       (unsigned long long)rw->sector, (unsigned long long)rw->nr,
	       dft_rw_kind_name(rw->kind));
	/* past the end mark: no explored epoch, no step of the workload */
	if (why->w > ct->rec.end)
		printf(", after the workload (the unmount)");
	else
		printf(", epoch %u%s%s", rw->epoch, step ? ", step " : "", step ? step : "");
	printf("%s%s\n", why->files[0] ? ": " : "", why->files);
}

/* What the shrinking of @f found, in words. */
static void dft_ct_print_minimal(const struct dft_ct_fail *f)
{
	size_t n = f->minimised ? f->nr_min : f->nr_lost;

	if (f->after_point)
		printf("  it fails with every write up to the crash point kept%s; the writes after it, which the crash lost:\n",
		       f->nr_lost ? " (delta debugging)" : "");
	else if (f->minimised)
		printf("  minimal: %zu lost write%s, after %u check%s%s: %s\n", n, n == 1 ? "" : "s",
		       f->tests, f->tests == 1 ? "" : "s",
		       f->exhausted ? " (--minimise ran out: maybe not minimal)" : "", f->min_spec);
	else
		printf("  lost (not minimised, --minimise 0): %zu write%s\n", n, n == 1 ? "" : "s");
}

/* The account of an explained failure. */
static void dft_ct_print_fail(const struct dft_ct *ct, const struct dft_ct_fail *f)
{
	size_t n = f->minimised ? f->nr_min : f->nr_lost;
	unsigned int i;
	char *repro;

	printf("\nepoch %u: %s fails (%s state, crash after write %llu, %zu lost write%s not yet durable; check exited %d)\n",
	       f->st->epoch, f->st->spec, dft_state_kind_name(f->st->kind),
	       (unsigned long long)f->st->point, f->nr_lost, f->nr_lost == 1 ? "" : "s",
	       f->status);
	if (f->tail && *f->tail) {
		printf("  the check said:\n");
		dft_ct_print_lines(f->tail, DFT_CT_SHOW, "    ");
	}
	dft_ct_print_minimal(f);
	for (i = 0; i < f->nr_why; i++)
		dft_ct_print_write(ct, &f->why[i]);
	if (!f->after_point && n > f->nr_why)
		printf("    and %zu more\n", n - f->nr_why);
	if (*ct->map_note && f->nr_why)
		printf("    (no files named: %s)\n", ct->map_note);
	repro = dft_ct_repro(ct, f->min_spec ? f->min_spec : f->st->spec, NULL);
	printf("  reproduce:\n  %s\n", repro ? repro : "(out of memory)");
	free(repro);
}

/* The account of a crash during recovery: both states, the check's words, the command. */
static void dft_ct_print_rfail(const struct dft_ct *ct, const struct dft_ct_rfail *f)
{
	char *repro = dft_ct_repro(ct, f->first->spec, f->spec);

	printf("\nepoch %u: %s passes (%s state), but a crash during its check's recovery fails:\n",
	       f->first->epoch, f->first->spec, dft_state_kind_name(f->first->kind));
	printf("  recovery epoch %u: %s (%s state, crash after the check's write %llu; check exited %d)\n",
	       f->epoch, f->spec, dft_state_kind_name(f->kind), (unsigned long long)f->point,
	       f->status);
	if (f->tail && *f->tail) {
		printf("  the check said:\n");
		dft_ct_print_lines(f->tail, DFT_CT_SHOW, "    ");
	}
	printf("  reproduce:\n  %s\n", repro ? repro : "(out of memory)");
	free(repro);
}

static void dft_ct_summary(const struct dft_ct *ct)
{
	const struct dft_epoch *ep;
	unsigned int k;
	double t = dft_ct_seconds(ct);

	printf("\n%-6s %8s %6s %8s %8s %7s%s\n", "EPOCH", "WRITES", "FUA", "STATES", "SKIPPED",
	       "FAILED", ct->shards ? "  CHECKED" : "");
	for (k = 0; k < ct->plan.nr_epochs; k++) {
		ep = &ct->plan.ep[k];
		printf("%-6u %8llu %6llu %8u %8llu %7u", k,
		       (unsigned long long)(ep->last + 1 - ep->first), (unsigned long long)ep->fua,
		       ep->states, (unsigned long long)(ep->dups + ep->capped), ct->ep_failed[k]);
		if (ct->shards)
			printf(" %8u", ct->ep_checked[k]);
		printf("\n");
	}
	if (ct->dd_checks)
		printf("%u more check%s to minimise failures\n", ct->dd_checks,
		       ct->dd_checks == 1 ? "" : "s");
	if (ct->recovery)
		printf("recovery: %u first states, their checks wrote %llu writes; %u states checked (skipped: %llu the same as another, %llu past --recovery-states), %u failed\n",
		       ct->rc.firsts, (unsigned long long)ct->rc.writes, ct->rc.checked,
		       (unsigned long long)ct->rc.dups, (unsigned long long)ct->rc.capped,
		       ct->rc.failed);
	printf("%u states checked in %.0f s (%.1f per minute), %u failed\n",
	       ct->checked + ct->rc.checked, t,
	       t > 0 ? (ct->checked + ct->rc.checked) * 60 / t : 0.0, ct->failed + ct->rc.failed);
}

/* A write of a failure's account, as JSON. */
static void dft_ct_json_write(struct dft_json *j, const struct dft_ct *ct,
			      const struct dft_ct_why *why)
{
	const struct dft_rw *rw = &ct->rec.w[why->w - 1];
	const char *step = dft_step(&ct->rec, why->w);

	dft_json_begin(j, NULL, '{');
	dft_json_u64(j, "write", why->w);
	dft_json_u64(j, "sector", rw->sector);
	dft_json_u64(j, "sectors", rw->nr);
	dft_json_str(j, "kind", dft_rw_kind_name(rw->kind));
	dft_json_u64(j, "epoch", rw->epoch);
	if (step && why->w <= ct->rec.end)
		dft_json_str(j, "step", step);
	else
		dft_json_null(j, "step");
	dft_json_str(j, "files", why->files);
	dft_json_end(j, '}');
}

static void dft_ct_json_u64s(struct dft_json *j, const char *key, const uint64_t *v, size_t n)
{
	size_t i;

	dft_json_begin(j, key, '[');
	for (i = 0; i < n; i++)
		dft_json_u64(j, NULL, v[i]);
	dft_json_end(j, ']');
}

/* The explained part of a failure: minimal, after_point, files. */
static void dft_ct_json_why(struct dft_json *j, const struct dft_ct *ct,
			    const struct dft_ct_fail *f)
{
	unsigned int i;

	if (f->minimised) {
		dft_json_str(j, "minimal_spec", f->min_spec);
		dft_json_u64(j, "minimise_checks", f->tests);
		dft_json_bool(j, "minimise_exhausted", f->exhausted);
		dft_ct_json_u64s(j, "minimal_lost", f->min, f->nr_min);
	}
	dft_json_begin(j, f->after_point ? "after_point" : "minimal", '[');
	for (i = 0; i < f->nr_why; i++)
		dft_ct_json_write(j, ct, &f->why[i]);
	dft_json_end(j, ']');
	if (f->after_point)
		dft_json_null(j, "minimal");
	dft_json_begin(j, "files", '[');
	for (i = 0; i < f->nr_why; i++)
		if (f->why[i].files[0])
			dft_json_str(j, NULL, f->why[i].files);
	dft_json_end(j, ']');
}

static void dft_ct_json_fail(struct dft_json *j, const struct dft_ct *ct,
			     const struct dft_ct_fail *f)
{
	char *repro = dft_ct_repro(ct, f->min_spec ? f->min_spec : f->st->spec, NULL);

	dft_json_begin(j, NULL, '{');
	dft_json_str(j, "spec", f->st->spec);
	dft_json_u64(j, "epoch", f->st->epoch);
	dft_json_str(j, "kind", dft_state_kind_name(f->st->kind));
	dft_json_u64(j, "point", f->st->point);
	dft_json_u64(j, "check_exit", f->status);
	dft_json_str(j, "output", f->tail ? f->tail : "");
	dft_ct_json_u64s(j, "lost", f->lost, f->nr_lost);
	if (f->explained)
		dft_ct_json_why(j, ct, f);
	else
		dft_json_null(j, "minimal");
	dft_json_str(j, "repro", repro ? repro : "");
	dft_json_u64(j, "state", f->st - ct->plan.st);
	free(repro);
	/* a shard's: what --merge gives for a failure that one run would not explain */
	if (*ct->run) {
		repro = dft_ct_repro(ct, f->st->spec, NULL);
		dft_json_str(j, "repro_state", repro ? repro : "");
		free(repro);
	}
	dft_json_end(j, '}');
}

/* The recovery explorations, as JSON: counts, and each failure with both states. */
static void dft_ct_json_recovery(struct dft_json *j, const struct dft_ct *ct)
{
	const struct dft_ct_rfail *f;
	unsigned int i;
	char *repro;

	dft_json_begin(j, "recovery", '{');
	dft_json_u64(j, "first_states", ct->rc.firsts);
	dft_json_u64(j, "writes", ct->rc.writes);
	dft_json_u64(j, "checked", ct->rc.checked);
	dft_json_u64(j, "failed", ct->rc.failed);
	dft_json_u64(j, "duplicates", ct->rc.dups);
	dft_json_u64(j, "capped", ct->rc.capped);
	dft_json_begin(j, "failures", '[');
	for (i = 0; i < ct->rc.nr_fail; i++) {
		f = &ct->rc.fail[i];
		repro = dft_ct_repro(ct, f->first->spec, f->spec);
		dft_json_begin(j, NULL, '{');
		dft_json_str(j, "first_spec", f->first->spec);
		dft_json_u64(j, "first_epoch", f->first->epoch);
		dft_json_str(j, "first_kind", dft_state_kind_name(f->first->kind));
		dft_json_str(j, "spec", f->spec);
		dft_json_u64(j, "epoch", f->epoch);
		dft_json_str(j, "kind", dft_state_kind_name(f->kind));
		dft_json_u64(j, "point", f->point);
		dft_json_u64(j, "check_exit", f->status);
		dft_json_str(j, "output", f->tail ? f->tail : "");
		dft_json_str(j, "repro", repro ? repro : "");
		dft_json_end(j, '}');
		free(repro);
	}
	dft_json_end(j, ']');
	dft_json_end(j, '}');
}

static void dft_ct_json_epochs(struct dft_json *j, const struct dft_ct *ct)
{
	const struct dft_epoch *ep;
	unsigned int k;

	dft_json_begin(j, "epochs", '[');
	for (k = 0; k < ct->plan.nr_epochs; k++) {
		ep = &ct->plan.ep[k];
		dft_json_begin(j, NULL, '{');
		dft_json_u64(j, "epoch", k);
		dft_json_u64(j, "first", ep->first);
		dft_json_u64(j, "writes", ep->last + 1 - ep->first);
		dft_json_u64(j, "fua", ep->fua);
		dft_json_u64(j, "states", ep->states);
		dft_json_u64(j, "skipped", ep->dups + ep->capped);
		dft_json_u64(j, "duplicates", ep->dups);
		dft_json_u64(j, "capped", ep->capped);
		dft_json_u64(j, "checked", ct->ep_checked[k]);
		dft_json_u64(j, "failed", ct->ep_failed[k]);
		dft_json_end(j, '}');
	}
	dft_json_end(j, ']');
}

static void dft_ct_json(const struct dft_ct *ct)
{
	struct dft_json j;
	unsigned int i;

	dft_json_init(&j, stdout, false);
	dft_json_begin(&j, NULL, '{');
	dft_json_str(&j, "disk", ct->disk);
	dft_json_u64(&j, "writes", ct->rec.nr_w);
	dft_json_u64(&j, "workload_writes", ct->rec.end);
	dft_json_u64(&j, "flush_points", ct->rec.nr_bar);
	dft_json_u64(&j, "unit", ct->rec.unit);
	dft_ct_json_epochs(&j, ct);
	dft_json_begin(&j, "states", '{');
	dft_json_u64(&j, "checked", ct->checked);
	dft_json_u64(&j, "failed", ct->failed);
	dft_json_u64(&j, "duplicates", ct->plan.dups);
	dft_json_u64(&j, "capped", ct->plan.capped);
	dft_json_u64(&j, "minimise_checks", ct->dd_checks);
	dft_json_end(&j, '}');
	dft_json_begin(&j, "failures", '[');
	for (i = 0; i < ct->nr_fail; i++)
		dft_ct_json_fail(&j, ct, &ct->fail[i]);
	dft_json_end(&j, ']');
	if (*ct->map_note)
		dft_json_str(&j, "files_note", ct->map_note);
	if (ct->recovery)
		dft_ct_json_recovery(&j, ct);
	dft_json_double(&j, "seconds", dft_ct_seconds(ct));
	dft_json_u64(&j, "total", ct->checked + ct->rc.checked);
	dft_json_u64(&j, "failed", ct->failed + ct->rc.failed);
	if (*ct->run) {
		dft_json_str(&j, "run", ct->run);
		dft_json_begin(&j, "shard", '{');
		dft_json_u64(&j, "index", ct->shard);
		dft_json_u64(&j, "count", ct->shards ? ct->shards : 1);
		dft_json_end(&j, '}');
		dft_json_u64(&j, "state_total", ct->plan.nr);
	}
	dft_json_end(&j, '}');
	dft_json_finish(&j);
}

/* What the check said of the --state state, or of its --recovery-state @rspec. */
void dft_ct_one_report(const struct dft_ct *ct, const char *spec, const char *rspec, int r)
{
	char tail[DFT_CT_TAIL + 1];
	struct dft_json j;

	dft_file_tail(ct->out, tail, sizeof(tail));
	if (ct->o->json) {
		dft_json_init(&j, stdout, false);
		dft_json_begin(&j, NULL, '{');
		dft_json_str(&j, "disk", ct->disk);
		dft_json_str(&j, "state", spec);
		if (rspec)
			dft_json_str(&j, "recovery_state", rspec);
		dft_json_bool(&j, "ok", !r);
		dft_json_u64(&j, "check_exit", r);
		dft_json_str(&j, "output", r ? tail : "");
		dft_json_end(&j, '}');
		dft_json_finish(&j);
		return;
	}
	printf("%s %s", r ? "FAIL" : "ok", spec);
	if (rspec)
		printf(", recovery %s", rspec);
	if (*ct->hung)
		printf(": %s\n", ct->hung);
	else
		printf(": check exited %d\n", r);
	if (r)
		dft_ct_print_lines(tail, DFT_CT_SHOW, "  ");
}

/**
 * dft_ct_report - the account of an exploration, as text or JSON
 * @ct: after every state was checked and the failures explained
 */
void dft_ct_report(const struct dft_ct *ct)
{
	unsigned int i;

	if (ct->o->json) {
		dft_ct_json(ct);
		return;
	}
	for (i = 0; i < ct->nr_fail; i++)
		if (ct->fail[i].explained)
			dft_ct_print_fail(ct, &ct->fail[i]);
	/* they are in order of their first state: the first of each */
	for (i = 0; i < ct->rc.nr_fail; i++)
		if (!i || ct->rc.fail[i].first != ct->rc.fail[i - 1].first)
			dft_ct_print_rfail(ct, &ct->rc.fail[i]);
	dft_ct_summary(ct);
}

/**
 * dft_ct_picture - the picture of the exploration, for --svg
 * @ct: after dft_ct_report
 *
 * Return: 0, or -1 said why.
 */
int dft_ct_picture(const struct dft_ct *ct)
{
	struct dft_svg_epoch *ep;
	unsigned int k;
	char err[300];
	int r;

	if (!ct->o->ct_svg)
		return 0;
	ep = calloc(ct->plan.nr_epochs ? ct->plan.nr_epochs : 1, sizeof(*ep));
	if (!ep) {
		dft_err("out of memory");
		return -1;
	}
	for (k = 0; k < ct->plan.nr_epochs; k++)
		ep[k] = (struct dft_svg_epoch){ ct->ep_checked[k], ct->ep_failed[k],
						ct->plan.ep[k].dups + ct->plan.ep[k].capped };
	r = dft_ct_svg(ct->o->ct_svg, "dmfault crashtest: the states of each epoch", ep,
		       ct->plan.nr_epochs, err, sizeof(err));
	free(ep);
	if (r)
		dft_err("--svg: %s", err);
	return r ? -1 : 0;
}
