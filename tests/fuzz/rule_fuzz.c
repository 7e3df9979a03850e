// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the fault target's rule text (drivers/md/dm-fault-
 * parse.c, the file the module and the dmfault tool compile, built here
 * unchanged against tools/kshim):
 *
 *  - fault_rule_cfg_parse() either refuses with a reason and a span that
 *    lies inside the text, or accepts;
 *  - an accepted rule prints (fault_rule_cfg_format()) as one word that
 *    parses back to the same configuration, and prints the same again.
 *
 * A broken invariant aborts; libFuzzer saves the input as crash-<sha1>.
 * With -DDMF_FUZZ_STANDALONE, fuzz-main.c's main() replays the files given.
 */
#include <stdint.h>

#include "../../drivers/md/dm-fault-rule.h"

#define FZ_MAX_INPUT	70000

static void __noreturn fz_fail(const char *input, const char *what, const char *detail)
{
	fprintf(stderr, "rule_fuzz: input \"%s\": %s: %s\n", input, what, detail);
	abort();
}

static int fz_parse(const char *text, struct fault_rule_cfg *cfg, struct fault_rule_err *err)
{
	int r = fault_rule_cfg_init(cfg);

	if (r)
		return r;
	memset(err, 0, sizeof(*err));
	return fault_rule_cfg_parse(cfg, text, err);
}

/* The configuration as given, field by field (not the run-time state). */
static bool fz_same(const struct fault_rule_cfg *a, const struct fault_rule_cfg *b)
{
	const struct dmf_attr *x = &a->attr, *y = &b->attr;

	return a->id == b->id && a->enabled == b->enabled && a->opmask == b->opmask &&
	       a->first == b->first && a->last == b->last && a->min_bytes == b->min_bytes &&
	       a->max_bytes == b->max_bytes && a->up_s == b->up_s && a->down_s == b->down_s &&
	       a->after_s == b->after_s && a->skip == b->skip && a->action == b->action &&
	       a->status == b->status && a->bits == b->bits && a->byte == b->byte &&
	       a->offset == b->offset && a->delay_ns == b->delay_ns &&
	       a->jitter_ns == b->jitter_ns && (!a->jitter_ns || a->dist == b->dist) &&
	       a->timeout_ns == b->timeout_ns && a->keep == b->keep &&
	       x->prob.num == y->prob.num && x->prob.den == y->prob.den &&
	       x->interval == y->interval && x->times == y->times && x->space == y->space &&
	       x->verbose == y->verbose && x->seed == y->seed &&
	       /* the seed in use is printed, so it reads back as one given */
	       (x->flags & ~DMF_SEED_SET) == (y->flags & ~DMF_SEED_SET);
}

static void fz_rule(const char *text)
{
	struct fault_rule_cfg a, b;
	struct fault_rule_err err;
	char pa[512], pb[512];
	int r;

	r = fz_parse(text, &a, &err);
	if (r == -ENOMEM) {
		fault_rule_cfg_destroy(&a);
		return;
	}
	if (r) {
		if (r != -EINVAL || !err.reason || err.pos + err.len > strlen(text))
			fz_fail(text, "refusal", err.reason ? err.reason : "no reason");
		fault_rule_cfg_destroy(&a);
		return;
	}
	if (fault_rule_cfg_format(&a, pa, sizeof(pa)) >= (int)sizeof(pa) - 1)
		fz_fail(text, "printed rule does not fit", pa);
	if (strpbrk(pa, " \t\n"))
		fz_fail(text, "printed rule has white space", pa);
	r = fz_parse(pa, &b, &err);
	if (r)
		fz_fail(text, "printed rule refused", pa);
	if (!fz_same(&a, &b))
		fz_fail(text, "printed rule reads back differently", pa);
	fault_rule_cfg_format(&b, pb, sizeof(pb));
	if (strcmp(pa, pb))
		fz_fail(text, "printed twice differently", pb);
	fault_rule_cfg_destroy(&a);
	fault_rule_cfg_destroy(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char s[FZ_MAX_INPUT + 1];

	if (size > FZ_MAX_INPUT)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	fz_rule(s);
	return 0;
}
