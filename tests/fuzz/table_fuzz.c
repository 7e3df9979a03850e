// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the fault target's table after "<dev> <offset>"
 * (drivers/md/dm-fault-args.c and dm-fault-parse.c, the files the module
 * compiles, built unchanged against tools/kshim):
 *
 *   [<#rules> <rule>... [<#features> cache [<key>=<value>...]]]
 *
 *  - the input is split at blanks as dm_split_args() splits it (no
 *    escapes) and read as fault_ctr() reads it: the rule count and words,
 *    each rule by the rule parser, then the feature group;
 *  - a refusal is -EINVAL with a reason that is not empty;
 *  - what is accepted is in range (at most FAULT_MAX_RULES rules, the
 *    rule words inside the input, a cache limit of 64k or more, a known
 *    crash policy and trigger);
 *  - an accepted table prints, as the status TABLE line prints it (the
 *    rules by fault_rule_cfg_format(), the feature group by
 *    fault_cache_feature_format()), to a line that reads back to the same
 *    rules and options and prints the same again.
 *
 * A broken invariant aborts; libFuzzer saves the input as crash-<sha1>.
 * With -DDMF_FUZZ_STANDALONE, fuzz-main.c's main() replays the files given.
 */
#include <stdint.h>

#include "../../drivers/md/dm-fault-args.h"

#define FZ_MAX_TEXT	8192
#define FZ_MAX_ARGS	300
#define FZ_LINE		(FAULT_MAX_RULES * 260 + 256)

#include "fuzz-words.h"

static void __noreturn fz_fail(const char *what, const char *detail)
{
	fprintf(stderr, "table_fuzz: input \"%s\": %s: %s\n", fz_input, what, detail);
	abort();
}

/*
 * Read the words of @s (split in place) as the constructor does.  Return
 * 1 for a line the harness does not take (too many words), 0 or -errno
 * with *@error set; the rules that read are printed into @rules, each
 * after a blank.
 */
static int fz_parse(char *s, struct fault_table_args *ta, char *rules, size_t len,
		    char **error)
{
	static char *argv[FZ_MAX_ARGS + 1];
	struct fault_rule_cfg cfg;
	struct fault_rule_err err;
	struct dm_arg_set as;
	unsigned int argc, i;
	size_t n = 0;
	int r;

	*error = NULL;
	rules[0] = '\0';
	argc = fz_split(s, argv, FZ_MAX_ARGS);
	if (argc > FZ_MAX_ARGS)
		return 1;
	as.argc = argc;
	as.argv = argv;
	r = fault_table_parse_rules(ta, &as, error);
	if (r)
		return r;
	if (ta->nr_rules > FAULT_MAX_RULES || (ta->nr_rules && (ta->rules < argv ||
	    ta->rules + ta->nr_rules > argv + argc)))
		fz_fail("accepted", "rule words out of range");
	for (i = 0; i < ta->nr_rules; i++) {
		memset(&err, 0, sizeof(err));
		r = fault_rule_cfg_init(&cfg);
		if (!r)
			r = fault_rule_cfg_parse(&cfg, ta->rules[i], &err);
		if (!r) {
			rules[n++] = ' ';
			n += fault_rule_cfg_format(&cfg, rules + n, len - n);
		}
		fault_rule_cfg_destroy(&cfg);
		if (r) {
			*error = (char *)(err.reason ? err.reason : "Cannot allocate rule");
			return r;
		}
	}
	return fault_table_parse_features(ta, &as, error);
}

static void fz_check(const struct fault_table_args *ta)
{
	const struct fault_cache_cfg *c = &ta->cache_cfg;

	if (!ta->cache) {
		if (ta->keys)
			fz_fail("accepted", "cache options without the cache");
		return;
	}
	if (c->limit < FAULT_CACHE_LIMIT_MIN)
		fz_fail("accepted", "a cache limit below 64k");
	if (c->lose >= FAULT_NR_LOSE || c->after >= FAULT_NR_TRIGGERS)
		fz_fail("accepted", "an unknown policy or trigger");
	if (c->after != FAULT_TRIG_NONE && !c->after_n)
		fz_fail("accepted", "a trigger at 0");
}

/* The line the status TABLE prints after "<dev> <offset>". */
static void fz_format(const struct fault_table_args *ta, const char *rules, char *buf,
		      size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (ta->nr_rules || ta->cache)
		n = snprintf(buf, len, "%u%s", ta->nr_rules, rules);
	if (ta->cache)
		fault_cache_feature_format(&ta->cache_cfg, buf + n, len - n);
}

static bool fz_same_cache(const struct fault_cache_cfg *a, const struct fault_cache_cfg *b)
{
	return a->limit == b->limit && a->lose == b->lose && a->seed == b->seed &&
	       a->after == b->after && a->after_n == b->after_n;
}

static void fz_one(const char *in)
{
	static char s[FZ_MAX_TEXT + 1], ra[FZ_LINE], rb[FZ_LINE];
	static char pa[FZ_LINE + 256], pb[FZ_LINE + 256], copy[FZ_LINE + 256];
	struct fault_table_args a, b;
	char *error;
	int r;

	strcpy(s, in);
	r = fz_parse(s, &a, ra, sizeof(ra), &error);
	if (r == 1 || r == -ENOMEM)
		return;
	if (r) {
		if (r != -EINVAL || !error || !*error)
			fz_fail("refusal", error ? error : "no reason");
		return;
	}
	fz_check(&a);
	fz_format(&a, ra, pa, sizeof(pa));
	strcpy(copy, pa);
	r = fz_parse(copy, &b, rb, sizeof(rb), &error);
	if (r)
		fz_fail("printed line refused", error ? error : pa);
	if (a.nr_rules != b.nr_rules || strcmp(ra, rb))
		fz_fail("printed line reads back to other rules", pa);
	if (a.cache != b.cache || (a.cache && !fz_same_cache(&a.cache_cfg, &b.cache_cfg)))
		fz_fail("printed line reads back to other cache options", pa);
	fz_format(&b, rb, pb, sizeof(pb));
	if (strcmp(pa, pb))
		fz_fail("printed twice differently", pb);
}
