// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest --merge: the report of a saved run from the --json
 * reports of its shards (crashtest --load DIR --shard I/N), as one run would
 * give it.
 *
 * Each shard checked the states i with i % N == I of the same plan, and
 * explained (shrank, named the files of) the first failure of each epoch
 * among its own.  One run explains the first failure of each epoch among
 * all of them: that one is also the first in its shard, so its account is
 * taken as it is; every later failure of the epoch is given without one,
 * as one run gives it.  Counts are summed; the seconds are the longest
 * shard's, the wall clock of shards run at once.  Shards of different runs
 * (the manifest's hash), a missing shard or one given twice are refused.
 *
 * The JSON is read into a small tree (strings decoded) and written again
 * with base/json.c; libc only besides, so the host unit tests link it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash/crash.h"

#define DFT_MG_DEPTH	32	/* nesting a report never reaches */

enum dft_jt { DFT_JT_NULL, DFT_JT_BOOL, DFT_JT_NUM, DFT_JT_STR, DFT_JT_ARR, DFT_JT_OBJ };

/* A JSON value; an array's or object's members are a list. */
struct dft_jv {
	enum dft_jt t;
	bool b;
	char *key;			/* a member of an object: its key */
	char *s;			/* a string (decoded) or a number (as written) */
	struct dft_jv *kid, *next;
};

struct dft_jp {
	const char *p;
	const char *why;
};

static void dft_jv_free(struct dft_jv *v)
{
	struct dft_jv *n;

	for (; v; v = n) {
		n = v->next;
		dft_jv_free(v->kid);
		free(v->key);
		free(v->s);
		free(v);
	}
}

static void dft_jp_ws(struct dft_jp *jp)
{
	jp->p += strspn(jp->p, " \t\r\n");
}

static unsigned int dft_jp_hex(const char *p)
{
	unsigned int v = 0, i;

	for (i = 0; i < 4; i++) {
		v <<= 4;
		if (p[i] >= '0' && p[i] <= '9')
			v |= p[i] - '0';
		else if ((p[i] | 0x20) >= 'a' && (p[i] | 0x20) <= 'f')
			v |= (p[i] | 0x20) - 'a' + 10;
		else
			return ~0U;
	}
	return v;
}

/* A string at jp->p (past its quote): decoded, malloc()ed, or NULL with jp->why. */
static char *dft_jp_str(struct dft_jp *jp)
{
	const char *p = jp->p;
	char *s = malloc(strlen(p) + 1), *d = s;
	unsigned int u;

	if (!s) {
		jp->why = "out of memory";
		return NULL;
	}
	for (; *p && *p != '"'; p++) {
		if (*p != '\\') {
			*d++ = *p;
			continue;
		}
		switch (*++p) {
		case 'n':
			*d++ = '\n';
			break;
		case 't':
			*d++ = '\t';
			break;
		case 'r':
			*d++ = '\r';
			break;
		case 'b':
			*d++ = '\b';
			break;
		case 'f':
			*d++ = '\f';
			break;
		case 'u':
			u = dft_jp_hex(p + 1);
			/* the reports escape control characters only */
			if (u > 0x7f)
				goto bad;
			*d++ = u;
			p += 4;
			break;
		case '"':
		case '\\':
		case '/':
			*d++ = *p;
			break;
		default:
			goto bad;
		}
	}
	if (*p != '"')
		goto bad;
	*d = '\0';
	jp->p = p + 1;
	return s;
bad:
	free(s);
	jp->why = "a string that is cut short or holds an escape it cannot read";
	return NULL;
}

static struct dft_jv *dft_jp_value(struct dft_jp *jp, unsigned int depth);

/* The members of an array or object, up to @close. */
static int dft_jp_members(struct dft_jp *jp, struct dft_jv *v, char close, unsigned int depth)
{
	struct dft_jv **tail = &v->kid, *m;
	char *key = NULL;

	dft_jp_ws(jp);
	if (*jp->p == close) {
		jp->p++;
		return 0;
	}
	for (;;) {
		dft_jp_ws(jp);
		if (close == '}') {
			if (*jp->p != '"') {
				jp->why = "an object's key is not a string";
				return -1;
			}
			jp->p++;
			key = dft_jp_str(jp);
			dft_jp_ws(jp);
			if (!key || *jp->p != ':') {
				jp->why = key ? "no ':' after a key" : jp->why;
				free(key);
				return -1;
			}
			jp->p++;
		}
		m = dft_jp_value(jp, depth + 1);
		if (!m) {
			free(key);
			return -1;
		}
		m->key = key;
		key = NULL;
		*tail = m;
		tail = &m->next;
		dft_jp_ws(jp);
		if (*jp->p == ',') {
			jp->p++;
			continue;
		}
		if (*jp->p == close) {
			jp->p++;
			return 0;
		}
		jp->why = "no ',' or end after a member";
		return -1;
	}
}

/* One value at jp->p: a tree, or NULL with jp->why. */
static struct dft_jv *dft_jp_value(struct dft_jp *jp, unsigned int depth)
{
	struct dft_jv *v = calloc(1, sizeof(*v));
	const char *p;
	size_t n;

	if (!v) {
		jp->why = "out of memory";
		return NULL;
	}
	dft_jp_ws(jp);
	p = jp->p;
	if (depth > DFT_MG_DEPTH) {
		jp->why = "nested too deep";
	} else if (*p == '{' || *p == '[') {
		v->t = *p == '{' ? DFT_JT_OBJ : DFT_JT_ARR;
		jp->p++;
		if (!dft_jp_members(jp, v, *p == '{' ? '}' : ']', depth))
			return v;
	} else if (*p == '"') {
		v->t = DFT_JT_STR;
		jp->p++;
		v->s = dft_jp_str(jp);
		if (v->s)
			return v;
	} else if (!strncmp(p, "true", 4) || !strncmp(p, "false", 5) || !strncmp(p, "null", 4)) {
		v->t = *p == 'n' ? DFT_JT_NULL : DFT_JT_BOOL;
		v->b = *p == 't';
		jp->p += *p == 'f' ? 5 : 4;
		return v;
	} else if ((n = strspn(p, "-+.eE0123456789")) > 0) {
		v->t = DFT_JT_NUM;
		v->s = strndup(p, n);
		jp->p += n;
		if (v->s)
			return v;
		jp->why = "out of memory";
	} else {
		jp->why = "not a JSON value";
	}
	dft_jv_free(v);
	return NULL;
}

static const struct dft_jv *dft_jv_get(const struct dft_jv *o, const char *key)
{
	const struct dft_jv *m;

	for (m = o && o->t == DFT_JT_OBJ ? o->kid : NULL; m; m = m->next)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

/* A member's unsigned number, or 0 if it is none. */
static uint64_t dft_jv_u64(const struct dft_jv *o, const char *key)
{
	const struct dft_jv *m = dft_jv_get(o, key);

	return m && m->t == DFT_JT_NUM ? strtoull(m->s, NULL, 10) : 0;
}

static const char *dft_jv_str(const struct dft_jv *o, const char *key)
{
	const struct dft_jv *m = dft_jv_get(o, key);

	return m && m->t == DFT_JT_STR ? m->s : NULL;
}

static void dft_jv_emit(struct dft_json *j, const char *key, const struct dft_jv *v);

/* The members of @v but those named in @skip (NULL-terminated). */
static void dft_jv_members(struct dft_json *j, const struct dft_jv *v, const char *const *skip)
{
	const struct dft_jv *m;
	const char *const *s;

	for (m = v->kid; m; m = m->next) {
		for (s = skip; s && *s && (!m->key || strcmp(*s, m->key)); s++)
			;
		if (!s || !*s)
			dft_jv_emit(j, m->key, m);
	}
}

/* Write @v as the member @key (NULL in an array). */
static void dft_jv_emit(struct dft_json *j, const char *key, const struct dft_jv *v)
{
	switch (v->t) {
	case DFT_JT_NULL:
		dft_json_null(j, key);
		break;
	case DFT_JT_BOOL:
		dft_json_bool(j, key, v->b);
		break;
	case DFT_JT_NUM:
		dft_json_num(j, key, v->s);
		break;
	case DFT_JT_STR:
		dft_json_str(j, key, v->s);
		break;
	default:
		dft_json_begin(j, key, v->t == DFT_JT_OBJ ? '{' : '[');
		dft_jv_members(j, v, NULL);
		dft_json_end(j, v->t == DFT_JT_OBJ ? '}' : ']');
	}
}

/* A shard's report. */
struct dft_mg_shard {
	const char *name;
	struct dft_jv *top;
	const char *run;
	uint64_t index, count;
};

/* A failure of some shard, with the index of its state in the plan. */
struct dft_mg_fail {
	const struct dft_jv *f;
	uint64_t state, epoch;
};

struct dft_mg {
	struct dft_mg_shard *sh;	/* by shard index once checked */
	unsigned int n;
	struct dft_mg_fail *fail;
	size_t nr_fail;
	char *err;
	size_t len;
};

static int dft_mg_err(struct dft_mg *mg, const char *fmt, ...) __printf(2, 3);

static int dft_mg_err(struct dft_mg *mg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(mg->err, mg->len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Read one shard's report and its run and shard fields. */
static int dft_mg_read(struct dft_mg *mg, struct dft_mg_shard *sh, const char *text)
{
	struct dft_jp jp = { .p = text };
	const struct dft_jv *s;

	sh->top = dft_jp_value(&jp, 0);
	if (!sh->top)
		return dft_mg_err(mg, "%s: not JSON: %s, at byte %zu", sh->name, jp.why,
				  (size_t)(jp.p - text));
	dft_jp_ws(&jp);
	s = dft_jv_get(sh->top, "shard");
	sh->run = dft_jv_str(sh->top, "run");
	sh->index = dft_jv_u64(s, "index");
	sh->count = dft_jv_u64(s, "count");
	if (*jp.p || !sh->run || !s || !sh->count || sh->index >= sh->count)
		return dft_mg_err(mg, "%s: not the --json report of a shard (crashtest --load DIR --shard I/N)",
				  sh->name);
	return 0;
}

/* One run, every shard of it once: put them in shard order. */
static int dft_mg_check(struct dft_mg *mg, struct dft_mg_shard *in)
{
	unsigned int i, k, n = in[0].count;

	for (i = 1; i < mg->n; i++) {
		if (strcmp(in[i].run, in[0].run))
			return dft_mg_err(mg, "%s and %s are shards of different runs (run %s, run %s)",
					  in[0].name, in[i].name, in[0].run, in[i].run);
		if (in[i].count != n)
			return dft_mg_err(mg, "%s and %s split the run in %llu and %llu shards",
					  in[0].name, in[i].name, (unsigned long long)n,
					  (unsigned long long)in[i].count);
	}
	for (i = 0; i < mg->n; i++)
		for (k = 0; k < i; k++)
			if (in[k].index == in[i].index)
				return dft_mg_err(mg, "shard %llu/%u given twice: %s and %s",
						  (unsigned long long)in[i].index, n, in[k].name,
						  in[i].name);
	for (k = 0; k < n; k++) {
		for (i = 0; i < mg->n && in[i].index != k; i++)
			;
		if (i == mg->n)
			return dft_mg_err(mg, "shard %u/%u of run %s is missing", k, n, in[0].run);
		mg->sh[k] = in[i];
	}
	return 0;
}

static int dft_mg_cmp(const void *a, const void *b)
{
	const struct dft_mg_fail *x = a, *y = b;

	return x->state < y->state ? -1 : x->state > y->state;
}

/* Every shard's failures, in the plan's order. */
static int dft_mg_failures(struct dft_mg *mg)
{
	const struct dft_jv *a, *f;
	unsigned int k;
	size_t n = 0;

	for (k = 0; k < mg->n; k++)
		for (a = dft_jv_get(mg->sh[k].top, "failures"), f = a ? a->kid : NULL; f;
		     f = f->next)
			n++;
	mg->fail = calloc(n ? n : 1, sizeof(*mg->fail));
	if (!mg->fail)
		return dft_mg_err(mg, "out of memory");
	for (k = 0; k < mg->n; k++) {
		a = dft_jv_get(mg->sh[k].top, "failures");
		for (f = a ? a->kid : NULL; f; f = f->next) {
			if (!dft_jv_get(f, "state") || !dft_jv_str(f, "repro_state"))
				return dft_mg_err(mg, "%s: a failure without its state's index or command",
						  mg->sh[k].name);
			mg->fail[mg->nr_fail++] = (struct dft_mg_fail){ f, dft_jv_u64(f, "state"),
									dft_jv_u64(f, "epoch") };
		}
	}
	qsort(mg->fail, mg->nr_fail, sizeof(*mg->fail), dft_mg_cmp);
	return 0;
}

/* Whether failure @i is the first of its epoch: the one a single run explains. */
static bool dft_mg_first(const struct dft_mg *mg, size_t i)
{
	return !i || mg->fail[i - 1].epoch != mg->fail[i].epoch;
}

/* A shard's failure as one run gives it: explained if first of its epoch, else not. */
static void dft_mg_emit_fail(struct dft_json *j, const struct dft_mg *mg, size_t i)
{
	static const char *const keep[] = { "spec", "epoch", "kind", "point", "check_exit",
					    "output", "lost", "state" };
	static const char *const skip[] = { "repro_state", NULL };
	const struct dft_jv *f = mg->fail[i].f, *m;
	size_t k;

	if (dft_mg_first(mg, i)) {
		dft_json_begin(j, NULL, '{');
		dft_jv_members(j, f, skip);
		dft_json_end(j, '}');
		return;
	}
	dft_json_begin(j, NULL, '{');
	for (k = 0; k < ARRAY_SIZE(keep); k++) {
		m = dft_jv_get(f, keep[k]);
		if (m)
			dft_jv_emit(j, keep[k], m);
	}
	dft_json_null(j, "minimal");
	dft_json_str(j, "repro", dft_jv_str(f, "repro_state"));
	dft_json_end(j, '}');
}

/* The epochs: the first shard's, with the states checked and failed of all. */
static void dft_mg_epochs(struct dft_json *j, const struct dft_mg *mg, struct dft_svg_epoch *svg)
{
	static const char *const skip[] = { "checked", "failed", NULL };
	const struct dft_jv *e, *x;
	unsigned int k, i, s;
	uint64_t checked, failed;

	dft_json_begin(j, "epochs", '[');
	e = dft_jv_get(mg->sh[0].top, "epochs");
	for (e = e ? e->kid : NULL, i = 0; e; e = e->next, i++) {
		checked = 0;
		failed = 0;
		for (k = 0; k < mg->n; k++) {
			x = dft_jv_get(mg->sh[k].top, "epochs");
			for (x = x ? x->kid : NULL, s = 0; x && s < i; s++)
				x = x->next;
			checked += dft_jv_u64(x, "checked");
			failed += dft_jv_u64(x, "failed");
		}
		dft_json_begin(j, NULL, '{');
		dft_jv_members(j, e, skip);
		dft_json_u64(j, "checked", checked);
		dft_json_u64(j, "failed", failed);
		dft_json_end(j, '}');
		svg[i] = (struct dft_svg_epoch){ checked, failed, dft_jv_u64(e, "skipped") };
	}
	dft_json_end(j, ']');
}

/* The states: checked and failed of all shards; the checks that shrank the explained failures. */
static void dft_mg_states(struct dft_json *j, const struct dft_mg *mg, const struct dft_jv *st)
{
	static const char *const skip[] = { "checked", "failed", "minimise_checks", NULL };
	uint64_t checked = 0, failed = 0, dd = 0;
	unsigned int k;
	size_t i;

	for (k = 0; k < mg->n; k++) {
		checked += dft_jv_u64(dft_jv_get(mg->sh[k].top, "states"), "checked");
		failed += dft_jv_u64(dft_jv_get(mg->sh[k].top, "states"), "failed");
	}
	for (i = 0; i < mg->nr_fail; i++)
		if (dft_mg_first(mg, i))
			dd += dft_jv_u64(mg->fail[i].f, "minimise_checks");
	dft_json_begin(j, "states", '{');
	dft_json_u64(j, "checked", checked);
	dft_json_u64(j, "failed", failed);
	dft_jv_members(j, st, skip);
	dft_json_u64(j, "minimise_checks", dd);
	dft_json_end(j, '}');
}

/* A number summed over the shards (@max: their largest), as the member @key. */
static void dft_mg_sum(struct dft_json *j, const struct dft_mg *mg, const char *key, bool max)
{
	double v = 0, x;
	unsigned int k;
	const struct dft_jv *m;

	for (k = 0; k < mg->n; k++) {
		m = dft_jv_get(mg->sh[k].top, key);
		x = m && m->t == DFT_JT_NUM ? strtod(m->s, NULL) : 0;
		v = max ? (x > v ? x : v) : v + x;
	}
	if (max)
		dft_json_double(j, key, v);
	else
		dft_json_u64(j, key, (uint64_t)v);
}

/* The merged report: the first shard's members, with what the others add to them. */
static void dft_mg_emit(struct dft_mg *mg, FILE *out, struct dft_svg_epoch *svg)
{
	const struct dft_jv *top = mg->sh[0].top, *m, *note = NULL;
	struct dft_json j;
	unsigned int k;
	size_t i;

	for (k = 0; k < mg->n && !note; k++)
		note = dft_jv_get(mg->sh[k].top, "files_note");
	dft_json_init(&j, out, false);
	dft_json_begin(&j, NULL, '{');
	for (m = top->kid; m; m = m->next) {
		if (!strcmp(m->key, "epochs")) {
			dft_mg_epochs(&j, mg, svg);
		} else if (!strcmp(m->key, "states")) {
			dft_mg_states(&j, mg, m);
		} else if (!strcmp(m->key, "failures")) {
			dft_json_begin(&j, "failures", '[');
			for (i = 0; i < mg->nr_fail; i++)
				dft_mg_emit_fail(&j, mg, i);
			dft_json_end(&j, ']');
			if (note)
				dft_jv_emit(&j, "files_note", note);
		} else if (!strcmp(m->key, "shard")) {
			dft_json_u64(&j, "shards", mg->n);
		} else if (!strcmp(m->key, "seconds")) {
			dft_mg_sum(&j, mg, "seconds", true);
		} else if (!strcmp(m->key, "total") || !strcmp(m->key, "failed")) {
			dft_mg_sum(&j, mg, m->key, false);
		} else if (strcmp(m->key, "files_note")) {
			dft_jv_emit(&j, m->key, m);
		}
	}
	dft_json_end(&j, '}');
	dft_json_finish(&j);
}

/**
 * dft_ct_merge - one report from the --json reports of a saved run's shards
 * @name: the reports' names, for the messages
 * @text: the reports
 * @n: how many; every shard of the run, once
 * @out: where the merged report goes, as JSON
 * @svg: if not NULL, the file for the picture of the merged exploration
 * @err: on failure, why (the files named)
 * @len: its size
 *
 * Return: 1 if a state failed, 0 if none did, -EINVAL if the reports are
 * not the shards of one run, each once, or another -errno; @err says which.
 */
int dft_ct_merge(const char *const *name, const char *const *text, unsigned int n, FILE *out,
		 const char *svg, char *err, size_t len)
{
	struct dft_mg mg = { .n = n, .err = err, .len = len };
	struct dft_mg_shard *in = calloc(n ? n : 1, sizeof(*in));
	struct dft_svg_epoch *ep = NULL;
	const struct dft_jv *e;
	unsigned int i, nr_ep = 0;
	uint64_t failed = 0;
	int r = 0;

	mg.sh = calloc(n ? n : 1, sizeof(*mg.sh));
	if (!in || !mg.sh)
		r = dft_mg_err(&mg, "out of memory");
	if (!r && !n)
		r = dft_mg_err(&mg, "no reports to merge");
	for (i = 0; !r && i < n; i++) {
		in[i].name = name[i];
		r = dft_mg_read(&mg, &in[i], text[i]);
	}
	if (!r)
		r = dft_mg_check(&mg, in);
	if (!r)
		r = dft_mg_failures(&mg);
	if (!r) {
		e = dft_jv_get(mg.sh[0].top, "epochs");
		for (e = e ? e->kid : NULL; e; e = e->next)
			nr_ep++;
		ep = calloc(nr_ep ? nr_ep : 1, sizeof(*ep));
		if (!ep)
			r = dft_mg_err(&mg, "out of memory");
	}
	if (!r) {
		dft_mg_emit(&mg, out, ep);
		if (svg)
			r = dft_ct_svg(svg, "dmfault crashtest: the states of each epoch, merged",
				       ep, nr_ep, err, len);
	}
	for (i = 0; !r && i < n; i++)
		failed += dft_jv_u64(in[i].top, "failed");
	if (!r)
		r = failed > 0;
	for (i = 0; in && i < n; i++)
		dft_jv_free(in[i].top);
	free(in);
	free(mg.sh);
	free(mg.fail);
	free(ep);
	return r;
}
