// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault crashtest's crash states, with no I/O: the states worth checking
 * on a recording (record.c), their canonical specs, and delta debugging of
 * a state that fails.  run.c does the I/O; the host unit tests run this
 * file as it is.
 *
 * A crash state keeps the writes durable at its crash point and any others
 * of those before it (record.c says which are durable), so every state
 * built here is one a real disk with a volatile write cache can leave.
 * The states of epoch k, on top of every write of earlier epochs: each
 * prefix of the epoch (a crash in it with nothing reordered), the epoch
 * with one write lost (crash at its end), all subsets of its writes that
 * are not FUA (or seeded samples of them when there are too many), and each
 * prefix whose last write is torn, FUA or not: a FUA write is durable once
 * it completes, but a crash while it is in flight may leave part of it, as
 * a drive writes atomically no more than its atomic write unit (often one
 * logical block).  Equal states have equal specs and are
 * checked once; a cap on the total is shared fairly among the epochs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crash/crash.h"

static const char *const dft_state_kind_names[DFT_NR_ST_KINDS] = {
	[DFT_ST_PREFIX] = "prefix",
	[DFT_ST_OMIT] = "omit",
	[DFT_ST_SUBSET] = "subset",
	[DFT_ST_TORN] = "torn",
};

const char *dft_state_kind_name(enum dft_state_kind kind)
{
	return kind < DFT_NR_ST_KINDS ? dft_state_kind_names[kind] : "?";
}

/* splitmix64's finaliser: the samples' bits, the same on every host */
static uint64_t dft_mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ---- view specs ----------------------------------------------------------------- */

/* A keep list being written: ascending writes, adjacent ones merged into ranges. */
struct dft_rg {
	struct dft_buf b;
	uint64_t first, last;		/* the open range; first 0: none */
	bool any;
};

static void dft_rg_close(struct dft_rg *rg)
{
	if (!rg->first)
		return;
	if (rg->first == rg->last)
		dft_buf_add(&rg->b, "%s%llu", rg->any ? "," : "", (unsigned long long)rg->first);
	else
		dft_buf_add(&rg->b, "%s%llu-%llu", rg->any ? "," : "",
			    (unsigned long long)rg->first, (unsigned long long)rg->last);
	rg->any = true;
	rg->first = 0;
}

static void dft_rg_add(struct dft_rg *rg, uint64_t first, uint64_t last)
{
	if (first > last)
		return;
	if (rg->first && first == rg->last + 1) {
		rg->last = last;
		return;
	}
	dft_rg_close(rg);
	rg->first = first;
	rg->last = last;
}

/* The spec, "keep=..." and the tears (sorted by write); NULL if out of memory. */
static char *dft_rg_spec(struct dft_rg *rg, const struct dft_tear *tear, unsigned int nr_tear)
{
	unsigned int i;

	dft_rg_close(rg);
	if (!rg->any)
		dft_buf_add(&rg->b, "none");
	for (i = 0; i < nr_tear; i++)
		dft_buf_add(&rg->b, "%s%llu:%llu", i ? "," : " tear=",
			    (unsigned long long)tear[i].w, (unsigned long long)tear[i].seed);
	if (rg->b.oom) {
		dft_buf_free(&rg->b);
		return NULL;
	}
	return rg->b.text;
}

/**
 * dft_spec_lose - the canonical spec of a crash that loses some writes
 * @rec: the recording, for the marks; NULL: no marks= word
 * @c: the crash: its point, the marks made before it, its torn writes
 *     (ascending by write; kept, so not in @lost)
 * @lost: ascending write numbers, all at most the point
 * @n: how many
 *
 * Every write up to the point is kept but @lost.  "marks=" is written only
 * when the marks differ from those made by the last kept write, the default
 * when a spec is read back.  One spelling per state, so that equal states
 * are found by comparing strings, and a spec printed for a failure reads the
 * same as the one checked.
 *
 * Return: a malloc()ed string, or NULL if out of memory.
 */
char *dft_spec_lose(const struct dft_record *rec, const struct dft_crash *c, const uint64_t *lost,
		    size_t n)
{
	struct dft_rg rg = { .first = 0 };
	uint64_t from = 1, last = c->point;
	size_t i;

	dft_buf_add(&rg.b, "keep=");
	for (i = 0; i < n && lost[i] <= c->point; i++) {
		dft_rg_add(&rg, from, lost[i] - 1);
		from = lost[i] + 1;
	}
	dft_rg_add(&rg, from, c->point);
	/* the last write kept: the point, unless lost */
	for (; i > 0 && last && lost[i - 1] == last; i--)
		last--;
	if (!dft_rg_spec(&rg, c->tear, c->nr_tear))
		return NULL;
	if (rec && c->marks != dft_marks_below(rec, last + 1))
		dft_buf_add(&rg.b, " marks=%u", c->marks);
	if (rg.b.oom)
		dft_buf_free(&rg.b);
	return rg.b.text;
}

/**
 * dft_spec_parse - read a state spec, as --state takes it
 * @text: "keep=<all|none|list> [tear=<w>:<seed>[,...]] [marks=<n>]"
 * @s: filled in; dft_spec_free() it, also after a failure
 * @err: on failure, what is wrong
 *
 * The view's words are read by the target's own parser (base/rule.c), so a spec
 * passes here exactly when the "view" message would take it.
 *
 * Return: 0, -EPROTO for a malformed spec, or -ENOMEM.
 */
int dft_spec_parse(const char *text, struct dft_spec *s, const char **err)
{
	char *buf = strdup(text), *w[4], *tear = NULL;
	bool have_marks = false;
	uint64_t marks = 0;
	unsigned int n, i = 1;
	int r;

	memset(s, 0, sizeof(*s));
	if (!buf)
		return -ENOMEM;
	n = dft_split_words(buf, w, 3);
	if (n >= 1 && n <= 3 && i < n && !strncmp(w[i], "tear=", 5))
		tear = w[i++] + 5;
	if (n >= 1 && n <= 3 && i < n && !strncmp(w[i], "marks=", 6)) {
		have_marks = !dft_parse_u64(w[i] + 6, &marks) && marks <= UINT32_MAX;
		i += have_marks;
	}
	if (!n || n > 3 || i != n || strncmp(w[0], "keep=", 5)) {
		*err = "a state is keep=<list> [tear=<write>:<seed>,...] [marks=<n>]";
		r = -EPROTO;
	} else {
		r = dft_view_parse(w[0] + 5, tear, s, err);
	}
	s->have_marks = have_marks;
	s->marks = marks;
	free(buf);
	return r == -EINVAL ? -EPROTO : r;
}

/* The view's part of a state spec: the words before marks=. */
size_t dft_spec_view_len(const char *text)
{
	const char *m = strstr(text, " marks=");

	return m ? (size_t)(m - text) : strlen(text);
}

void dft_spec_free(struct dft_spec *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}

bool dft_spec_keeps(const struct dft_spec *s, uint64_t w)
{
	size_t lo = 0, hi = s->nr_r, mid;

	if (s->all)
		return true;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->r[mid].last < w)
			lo = mid + 1;
		else if (s->r[mid].first > w)
			hi = mid;
		else
			return true;
	}
	return false;
}

/* The crash point a spec implies: its last kept write (keep=all: @writes). */
uint64_t dft_spec_point(const struct dft_spec *s, uint64_t writes)
{
	if (s->all)
		return writes;
	return s->nr_r ? s->r[s->nr_r - 1].last : 0;
}

/* The marks made before a state's crash: marks=, or those up to its last kept write. */
unsigned int dft_spec_marks(const struct dft_record *rec, const struct dft_spec *s)
{
	if (s->have_marks)
		return s->marks;
	return dft_marks_below(rec, dft_spec_point(s, rec->nr_w) + 1);
}

/**
 * dft_spec_lost - the writes a state loses that were not yet durable
 * @rec: the recording
 * @s: the state
 * @point: its crash point
 * @lost: set to a malloc()ed ascending array (NULL when empty)
 * @n: its length
 *
 * These are what delta debugging works on: a durable write is never lost,
 * and a write after the crash point never reached the disk in any state
 * with that point.
 *
 * Return: 0 or -ENOMEM.
 */
int dft_spec_lost(const struct dft_record *rec, const struct dft_spec *s, uint64_t point,
		  uint64_t **lost, size_t *n)
{
	uint64_t w, *grown;
	size_t cap = 0;

	*lost = NULL;
	*n = 0;
	for (w = 1; w <= point && w <= rec->nr_w; w++) {
		if (dft_spec_keeps(s, w) || dft_is_durable(rec, w, point))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(*lost, cap * sizeof(**lost));
			if (!grown) {
				free(*lost);
				*lost = NULL;
				return -ENOMEM;
			}
			*lost = grown;
		}
		(*lost)[(*n)++] = w;
	}
	return 0;
}

/* ---- the states to check --------------------------------------------------------- */

/* Specs seen, to check each state once: open addressing, FNV-1a. */
struct dft_strset {
	char **slot;
	size_t size, used;
};

static uint64_t dft_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static char **dft_strset_find(char **slot, size_t size, const char *s)
{
	size_t i = dft_hash(s) & (size - 1);

	while (slot[i] && strcmp(slot[i], s))
		i = (i + 1) & (size - 1);
	return &slot[i];
}

/* 1: added (@s now belongs to the plan), 0: already there, -ENOMEM. */
static int dft_strset_add(struct dft_strset *set, char *s)
{
	char **slot, **p;
	size_t i, size;

	if (2 * (set->used + 1) > set->size) {
		size = set->size ? 2 * set->size : 1024;
		slot = calloc(size, sizeof(*slot));
		if (!slot)
			return -ENOMEM;
		for (i = 0; i < set->size; i++)
			if (set->slot[i])
				*dft_strset_find(slot, size, set->slot[i]) = set->slot[i];
		free(set->slot);
		set->slot = slot;
		set->size = size;
	}
	p = dft_strset_find(set->slot, set->size, s);
	if (*p)
		return 0;
	*p = s;
	set->used++;
	return 1;
}

/*
 * The candidates of one kind, walked in order, or (when the cap leaves room
 * for only some) in bit-reversed order, so that any first part of the walk
 * is spread over the whole range instead of bunched at its start.
 */
struct dft_walk {
	uint64_t size, pos, span;
	unsigned int bits;
	bool spread;
};

static void dft_walk_init(struct dft_walk *wk, uint64_t size, bool spread)
{
	wk->size = size;
	wk->pos = 0;
	wk->bits = 0;
	wk->spread = spread;
	while (spread && (1ULL << wk->bits) < size)
		wk->bits++;
	wk->span = spread ? 1ULL << wk->bits : size;
}

static bool dft_walk_next(struct dft_walk *wk, uint64_t *idx)
{
	uint64_t i, x;
	unsigned int b;

	while (wk->pos < wk->span) {
		x = wk->pos++;
		i = x;
		if (wk->spread)
			for (i = 0, b = 0; b < wk->bits; b++)
				i |= ((x >> b) & 1) << (wk->bits - 1 - b);
		if (i < wk->size) {
			*idx = i;
			return true;
		}
	}
	return false;
}

/* What the plan is built with, one epoch at a time. */
struct dft_gen {
	const struct dft_record *rec;
	const struct dft_explore_cfg *cfg;
	struct dft_plan *plan;
	struct dft_strset seen;
	unsigned int k;			/* the epoch */
	uint64_t first, last;		/* its writes */
	uint64_t *nonfua, *tearable, *lost;	/* scratch, as long as the longest epoch */
	size_t nr_nonfua, nr_tearable;
};

/* Units of the tearing size a write touches. */
static uint64_t dft_units(const struct dft_record *rec, const struct dft_rw *rw)
{
	return (rw->sector + rw->nr - 1) / rec->unit - rw->sector / rec->unit + 1;
}

/*
 * Epoch @k's writes that are not FUA, and those a tear can split: those
 * over more than one unit, FUA writes among them (torn only in flight, as
 * the last write of a prefix).
 */
static void dft_gen_epoch_setup(struct dft_gen *g, unsigned int k)
{
	struct dft_epoch *ep = &g->plan->ep[k];
	const struct dft_rw *rw;
	uint64_t w;

	g->k = k;
	dft_epoch_span(g->rec, k, &ep->first, &ep->last);
	g->first = ep->first;
	g->last = ep->last;
	g->nr_nonfua = 0;
	g->nr_tearable = 0;
	ep->fua = 0;
	for (w = g->first; w <= g->last; w++) {
		rw = &g->rec->w[w - 1];
		if (dft_units(g->rec, rw) > 1)
			g->tearable[g->nr_tearable++] = w;
		if (rw->kind == DFT_RW_FUA)
			ep->fua++;
		else
			g->nonfua[g->nr_nonfua++] = w;
	}
}

static uint64_t dft_gen_count(const struct dft_gen *g, enum dft_state_kind kind)
{
	switch (kind) {
	case DFT_ST_PREFIX:
		return g->last - g->first + 2;
	case DFT_ST_OMIT:
		return g->nr_nonfua;
	case DFT_ST_SUBSET:
		if (g->nr_nonfua <= g->cfg->subset_max)
			return 1ULL << g->nr_nonfua;
		return g->cfg->samples;
	default:
		return g->nr_tearable;
	}
}

/*
 * Subset @idx: with few enough writes its bits say which are kept; else
 * sample @idx keeps each write by a bit of a hash of the seed, the epoch
 * and the sample, the same on every run.  FUA writes are always kept.
 */
static char *dft_gen_subset(struct dft_gen *g, uint64_t idx, const struct dft_crash *c)
{
	bool every = g->nr_nonfua <= g->cfg->subset_max;
	uint64_t bits = 0, h = dft_mix(dft_mix(dft_mix(g->cfg->seed) ^ g->k) ^ idx);
	size_t t, n = 0;

	for (t = 0; t < g->nr_nonfua; t++) {
		if (every)
			bits = t ? bits >> 1 : idx;
		else if (!(t % 64))
			bits = dft_mix(h ^ t / 64);
		else
			bits >>= 1;
		if (!(bits & 1))
			g->lost[n++] = g->nonfua[t];
	}
	return dft_spec_lose(g->rec, c, g->lost, n);
}

/*
 * The spec and crash of candidate @idx of @kind in the current epoch.  A
 * prefix is a crash just before the next write completed, after the marks
 * that followed its last write; the other kinds crash right after their
 * point (a torn write was still in flight), before the marks that follow it.
 */
static char *dft_gen_spec(struct dft_gen *g, enum dft_state_kind kind, uint64_t idx,
			  struct dft_crash *c)
{
	struct dft_tear t;
	char *spec;

	memset(c, 0, sizeof(*c));
	switch (kind) {
	case DFT_ST_PREFIX:
		c->point = g->first - 1 + idx;
		c->marks = dft_marks_below(g->rec, c->point + 1);
		return dft_spec_lose(g->rec, c, NULL, 0);
	case DFT_ST_OMIT:
		c->point = g->last;
		c->marks = dft_marks_below(g->rec, c->point);
		return dft_spec_lose(g->rec, c, &g->nonfua[idx], 1);
	case DFT_ST_SUBSET:
		c->point = g->last;
		c->marks = dft_marks_below(g->rec, c->point);
		return dft_gen_subset(g, idx, c);
	default:
		t.w = g->tearable[idx];
		t.seed = g->cfg->seed;
		c->point = t.w;
		c->marks = dft_marks_below(g->rec, t.w);
		c->tear = &t;
		c->nr_tear = 1;
		spec = dft_spec_lose(g->rec, c, NULL, 0);
		/* t is gone on return */
		c->tear = NULL;
		c->nr_tear = 0;
		return spec;
	}
}

/* Add candidate @idx of @kind: 1 added, 0 the same as one already there, -ENOMEM. */
static int dft_gen_add(struct dft_gen *g, enum dft_state_kind kind, uint64_t idx)
{
	struct dft_plan *plan = g->plan;
	struct dft_epoch *ep = &plan->ep[g->k];
	struct dft_crash c;
	struct dft_state *st;
	char *spec;
	int r;

	/* a power of two, or not yet allocated: grow */
	if (!(plan->nr & (plan->nr - 1))) {
		st = realloc(plan->st, (plan->nr ? 2 * plan->nr : 64) * sizeof(*st));
		if (!st)
			return -ENOMEM;
		plan->st = st;
	}
	spec = dft_gen_spec(g, kind, idx, &c);
	if (!spec)
		return -ENOMEM;
	r = dft_strset_add(&g->seen, spec);
	if (r <= 0) {
		free(spec);
		ep->dups += !r;
		plan->dups += !r;
		return r;
	}
	plan->st[plan->nr++] = (struct dft_state){ spec, g->k, kind, c.point, c.marks };
	ep->states++;
	return 1;
}

/*
 * At most @quota states of the current epoch: every candidate if they fit,
 * else the kinds in turn, one each, so that a cap leaves some of every kind;
 * the kind to start with turns with the epoch, so that one state an epoch
 * is not always a prefix.
 */
static int dft_gen_epoch(struct dft_gen *g, uint64_t quota)
{
	struct dft_epoch *ep = &g->plan->ep[g->k];
	bool spread = ep->candidates > quota, more = true;
	struct dft_walk wk[DFT_NR_ST_KINDS];
	unsigned int i, kind;
	uint64_t idx, took;
	int r;

	for (kind = 0; kind < DFT_NR_ST_KINDS; kind++)
		dft_walk_init(&wk[kind], dft_gen_count(g, kind), spread);
	while (more && ep->states < quota) {
		more = false;
		for (i = 0; i < DFT_NR_ST_KINDS; i++) {
			kind = spread ? (g->k + i) % DFT_NR_ST_KINDS : i;
			for (took = 0; (!spread || !took) && ep->states < quota; took++) {
				if (!dft_walk_next(&wk[kind], &idx))
					break;
				more = true;
				r = dft_gen_add(g, kind, idx);
				if (r < 0)
					return r;
			}
		}
	}
	ep->capped = ep->candidates - ep->states - ep->dups;
	g->plan->capped += ep->capped;
	return 0;
}

struct dft_share {
	uint64_t want;
	unsigned int i;
};

static int dft_share_cmp(const void *a, const void *b)
{
	const struct dft_share *x = a, *y = b;

	return x->want < y->want ? -1 : x->want > y->want;
}

/*
 * Split @budget over @n wants fairly (water filling): the smaller wants are
 * met in full, the rest share what is left equally.  A budget smaller than
 * @n gives one each to epochs spread evenly over the recording.
 */
static int dft_fair_share(const uint64_t *want, unsigned int n, uint64_t budget, uint64_t *got)
{
	struct dft_share *s;
	unsigned int i;
	uint64_t share;

	if (budget < n) {
		for (i = 0; i < budget; i++)
			got[i * n / budget] = 1;
		return 0;
	}
	s = calloc(n ? n : 1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		s[i] = (struct dft_share){ want[i], i };
	qsort(s, n, sizeof(*s), dft_share_cmp);
	for (i = 0; i < n; i++) {
		share = budget / (n - i);
		got[s[i].i] = s[i].want < share ? s[i].want : share;
		budget -= got[s[i].i];
	}
	free(s);
	return 0;
}

static int dft_gen_alloc(struct dft_gen *g)
{
	uint64_t len = g->rec->end + 1;

	g->plan->nr_epochs = g->rec->nr_epochs;
	g->plan->ep = calloc(g->plan->nr_epochs, sizeof(*g->plan->ep));
	g->nonfua = calloc(len, sizeof(*g->nonfua));
	g->tearable = calloc(len, sizeof(*g->tearable));
	g->lost = calloc(len, sizeof(*g->lost));
	return g->plan->ep && g->nonfua && g->tearable && g->lost ? 0 : -ENOMEM;
}

/*
 * Count every epoch's candidates, give each its fair part of the cap, then
 * build them in order; what an epoch leaves of its part (fewer distinct
 * states than it was given) goes to the next.
 */
static int dft_gen_all(struct dft_gen *g)
{
	struct dft_plan *plan = g->plan;
	uint64_t *want, *got, carry = 0, q;
	unsigned int k, kind;
	int r;

	want = calloc(plan->nr_epochs, sizeof(*want));
	got = calloc(plan->nr_epochs, sizeof(*got));
	r = want && got ? 0 : -ENOMEM;
	for (k = 0; !r && k < plan->nr_epochs; k++) {
		dft_gen_epoch_setup(g, k);
		for (kind = 0; kind < DFT_NR_ST_KINDS; kind++)
			plan->ep[k].candidates += dft_gen_count(g, kind);
		want[k] = plan->ep[k].candidates;
	}
	if (!r)
		r = dft_fair_share(want, plan->nr_epochs, g->cfg->max_states, got);
	for (k = 0; !r && k < plan->nr_epochs; k++) {
		dft_gen_epoch_setup(g, k);
		q = got[k] + carry;
		r = dft_gen_epoch(g, q);
		carry = q - plan->ep[k].states;
	}
	free(want);
	free(got);
	return r;
}

/**
 * dft_plan_build - the crash states to check, epoch by epoch
 * @rec: a recording after dft_record_done()
 * @cfg: how many subsets, samples and states
 * @plan: zeroed; filled with the states and the per-epoch counts;
 *        dft_plan_free() it, also after a failure
 *
 * Return: 0 or -ENOMEM.
 */
int dft_plan_build(const struct dft_record *rec, const struct dft_explore_cfg *cfg,
		   struct dft_plan *plan)
{
	struct dft_gen g = { .rec = rec, .cfg = cfg, .plan = plan };
	int r;

	r = dft_gen_alloc(&g);
	if (!r)
		r = dft_gen_all(&g);
	free(g.seen.slot);
	free(g.nonfua);
	free(g.tearable);
	free(g.lost);
	return r;
}

void dft_plan_free(struct dft_plan *plan)
{
	unsigned int i;

	for (i = 0; i < plan->nr; i++)
		free(plan->st[i].spec);
	free(plan->st);
	free(plan->ep);
	memset(plan, 0, sizeof(*plan));
}

/* ---- delta debugging ------------------------------------------------------------- */

/* One test within the budget: 1 fails, 0 passes (or no budget left), -errno. */
static int dft_dd_test(struct dft_ddmin *dd, const uint64_t *set, size_t n)
{
	if (dd->tests >= dd->budget) {
		dd->exhausted = true;
		return 0;
	}
	dd->tests++;
	return dd->test(dd->ctx, set, n);
}

/* @set without its part [a, b) into @out; its length. */
static size_t dft_dd_without(const uint64_t *set, size_t n, size_t a, size_t b, uint64_t *out)
{
	memcpy(out, set, a * sizeof(*set));
	memcpy(out + a, set + b, (n - b) * sizeof(*set));
	return n - (b - a);
}

/*
 * One round of ddmin with @set cut into *@parts parts: a part that fails
 * alone becomes the set (and parts go back to 2), else a complement that
 * fails does (one part fewer).  1 if the set shrank, 0 if not, -errno.
 */
static int dft_dd_round(struct dft_ddmin *dd, uint64_t *set, size_t *n, size_t *parts,
			uint64_t *tmp)
{
	size_t i, a, b, len;
	int r;

	for (i = 0; i < *parts && !dd->exhausted; i++) {
		a = i * *n / *parts;
		b = (i + 1) * *n / *parts;
		r = dft_dd_test(dd, set + a, b - a);
		if (r) {
			if (r > 0) {
				memmove(set, set + a, (b - a) * sizeof(*set));
				*n = b - a;
				*parts = 2;
			}
			return r;
		}
	}
	/* with two parts each complement is the other part, tested above */
	for (i = 0; *parts > 2 && i < *parts && !dd->exhausted; i++) {
		a = i * *n / *parts;
		b = (i + 1) * *n / *parts;
		len = dft_dd_without(set, *n, a, b, tmp);
		r = dft_dd_test(dd, tmp, len);
		if (r) {
			if (r > 0) {
				memcpy(set, tmp, len * sizeof(*set));
				*n = len;
				*parts = *parts - 1 > 2 ? *parts - 1 : 2;
			}
			return r;
		}
	}
	return 0;
}

/**
 * dft_ddmin - shrink a failing set of lost writes to a 1-minimal one
 * @dd: the test and its budget; tests and exhausted are set
 * @set: the lost writes of a state that fails, ascending; on return, the
 *       smallest set found that fails (every write of it is needed, unless
 *       the budget ran out first)
 * @n: its length, in and out
 *
 * Zeller's delta debugging: fewer writes to explain a failure by, and a
 * state to reproduce that differs from the one that passes by only them.
 * The empty set is tried first: a state that fails with nothing lost before
 * its crash point is not about reordering at all.
 *
 * Return: 0, or the test's -errno.
 */
int dft_ddmin(struct dft_ddmin *dd, uint64_t *set, size_t *n)
{
	size_t parts = 2;
	uint64_t *tmp;
	int r;

	dd->tests = 0;
	dd->exhausted = false;
	if (!*n)
		return 0;
	r = dft_dd_test(dd, set, 0);
	if (r)
		*n = r > 0 ? 0 : *n;
	if (r)
		return r < 0 ? r : 0;
	tmp = malloc(*n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	while (*n >= 2 && !dd->exhausted) {
		r = dft_dd_round(dd, set, n, &parts, tmp);
		if (r < 0)
			break;
		if (r)
			continue;
		if (parts >= *n)
			break;
		parts = 2 * parts < *n ? 2 * parts : *n;
	}
	free(tmp);
	return r < 0 ? r : 0;
}
