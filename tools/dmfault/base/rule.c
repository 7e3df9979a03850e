// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: rules are checked with the fault target's own parser, so the
 * tool accepts exactly what the kernel accepts and refuses it with the
 * kernel's reason.  The parser (drivers/md/dm-fault-parse.c) and the engine
 * under it (lib/dmf-engine.c) are compiled unchanged against tools/kshim.
 */
#include "dm-fault-rule.h"
#include "base/rule.h"

/* The word is left empty when the whole rule is at fault. */
static int dft_rule_fail(struct dft_rule_err *err, const char *text, size_t pos, size_t len,
			 const char *reason)
{
	if (!pos && len == strlen(text))
		len = 0;
	if (len >= sizeof(err->word))
		len = sizeof(err->word) - 1;
	memcpy(err->word, text + pos, len);
	err->word[len] = '\0';
	err->reason = reason;
	return -EINVAL;
}

/**
 * dft_rule_check - check a rule as the target will read it
 * @rule: "<action>[:<key>=<value>,...]"
 * @err: on failure, the part of @rule that is wrong ("" for all of it) and
 *       the target's reason
 *
 * White space cannot be in a rule: the table line is split at it, so the
 * target would see two arguments.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int dft_rule_check(const char *rule, struct dft_rule_err *err)
{
	struct fault_rule_err kerr = { };
	struct fault_rule_cfg cfg;
	const char *p;
	int r;

	for (p = rule; *p; p++)
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			return dft_rule_fail(err, rule, 0, strlen(rule),
					     "a rule cannot contain white space");
	r = fault_rule_cfg_init(&cfg);
	if (r)
		return r;
	r = fault_rule_cfg_parse(&cfg, rule, &kerr);
	fault_rule_cfg_destroy(&cfg);
	if (r)
		return dft_rule_fail(err, rule, kerr.pos, kerr.len, kerr.reason);
	return 0;
}

/**
 * dft_parse_size - a size as the target reads one: 4096, 4k, 1m, 1g
 * @s: the text
 * @bytes: the size in bytes
 *
 * Return: 0 or -EINVAL.
 */
int dft_parse_size(const char *s, uint64_t *bytes)
{
	u64 v;

	if (fault_parse_size(s, U64_MAX, &v))
		return -EINVAL;
	*bytes = v;
	return 0;
}

bool dft_is_status_name(const char *s)
{
	enum fault_sts st;

	return !fault_parse_status(s, &st);
}

/* "read", "read+write", "any": an op= value the target reads. */
bool dft_is_op_list(const char *s)
{
	unsigned int mask;
	char tmp[128];

	if (strlen(s) >= sizeof(tmp))
		return false;
	strcpy(tmp, s);
	return !fault_parse_ops(tmp, &mask);
}

/* A duration as the target reads one: 10 (ms), 10ms, 250us, 1500ns, 2s. */
int dft_parse_duration(const char *s, uint64_t *ns)
{
	u64 v;
	int r;

	r = fault_parse_duration(s, &v);
	if (!r)
		*ns = v;
	return r;
}

/*
 * A cache option word ("lose=sectors") as the target reads it: 0, or -1 with
 * *why the target's reason.
 */
int dft_cache_option_check(const char *word, const char **why)
{
	struct fault_cache_cfg cfg;

	fault_cache_cfg_init(&cfg);
	return fault_cache_cfg_parse(&cfg, word, FAULT_CKEY_ALL, why) ? -1 : 0;
}

/**
 * dft_view_parse - read a crash state with the target's own parser
 * @keep: the value of keep=
 * @tear: the value of tear=, or NULL
 * @s: filled in (s->r malloc()ed) on success
 * @why: on failure, the target's reason
 *
 * crashtest checks a --state before it spends a recording on it, and reads
 * the states it builds, with the grammar the "view" message is read with.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int dft_view_parse(const char *keep, const char *tear, struct dft_spec *s, const char **why)
{
	struct fault_tear tears[FAULT_VIEW_TEARS];
	struct fault_view v = { .tears = tears };
	unsigned int i;

	memset(s, 0, sizeof(*s));
	v.ranges = calloc(FAULT_VIEW_RANGES, sizeof(*v.ranges));
	if (!v.ranges)
		return -ENOMEM;
	if (fault_view_parse(&v, keep, tear, why)) {
		free(v.ranges);
		return -EINVAL;
	}
	s->all = v.all;
	s->nr_r = v.nr_ranges;
	s->r = malloc((v.nr_ranges ? v.nr_ranges : 1) * sizeof(*s->r));
	for (i = 0; s->r && i < v.nr_ranges; i++)
		s->r[i] = (struct dft_range){ v.ranges[i].first, v.ranges[i].last };
	for (i = 0; i < v.nr_tears && i < DFT_TEARS_MAX; i++)
		s->tear[i] = (struct dft_tear){ v.tears[i].write, v.tears[i].seed };
	s->nr_tear = i;
	free(v.ranges);
	return s->r ? 0 : -ENOMEM;
}

#define DFT_SAME(a, b)	_Static_assert((int)(a) == (int)(b), #a " is not " #b)
DFT_SAME(DFT_C_BLOCKS, FAULT_CS_BLOCKS);
DFT_SAME(DFT_C_BYTES, FAULT_CS_BYTES);
DFT_SAME(DFT_C_HWM, FAULT_CS_HIGH_WATER);
DFT_SAME(DFT_C_LIMIT, FAULT_CS_LIMIT);
DFT_SAME(DFT_C_WRITES, FAULT_CS_WRITES);
DFT_SAME(DFT_C_FLUSHES, FAULT_CS_FLUSHES);
DFT_SAME(DFT_C_FUA, FAULT_CS_FUA);
DFT_SAME(DFT_C_FORCED, FAULT_CS_FORCED);
DFT_SAME(DFT_C_WRITTEN_BACK, FAULT_CS_WRITTEN_BACK);
DFT_SAME(DFT_C_CRASHES, FAULT_CS_CRASHES);
DFT_SAME(DFT_C_LOST_WRITES, FAULT_CS_LOST_WRITES);
DFT_SAME(DFT_C_LOST_SECTORS, FAULT_CS_LOST_SECTORS);
DFT_SAME(DFT_NR_CACHE, FAULT_NR_CACHE_STATS);
DFT_SAME(DFT_TEARS_MAX, FAULT_VIEW_TEARS);
DFT_SAME(DFT_B_RANGES, FAULT_BS_RANGES);
DFT_SAME(DFT_B_SECTORS, FAULT_BS_SECTORS);
DFT_SAME(DFT_B_LOOKUPS, FAULT_BS_LOOKUPS);
DFT_SAME(DFT_B_HITS, FAULT_BS_HITS);
DFT_SAME(DFT_B_HEALS, FAULT_BS_HEALS);
DFT_SAME(DFT_NR_BAD, FAULT_NR_BAD_STATS);

/* The name of the bad word's counter @i, as the target's stats reply has it. */
const char *dft_bad_stat_name(unsigned int i)
{
	return fault_bad_stat_name(i);
}

/* The name of the cache word's counter @i, as the target's stats reply has it. */
const char *dft_cache_stat_name(unsigned int i)
{
	return fault_cache_stat_name(i);
}

/* "at 'WORD' in 'RULE'", or "in 'RULE'" when the whole rule is at fault. */
const char *dft_rule_where(const struct dft_rule_err *err, const char *rule, char *buf,
			   size_t len)
{
	if (err->word[0])
		snprintf(buf, len, "at '%s' in '%s'", err->word, rule);
	else
		snprintf(buf, len, "in '%s'", rule);
	return buf;
}
