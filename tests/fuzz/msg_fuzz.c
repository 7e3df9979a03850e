// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the messages of a fault device (fault_msg_parse()
 * in drivers/md/dm-fault-args.c, with the cache options of dm-fault-
 * parse.c: the files the module compiles, built unchanged against
 * tools/kshim):
 *
 *  - the input is the message's words, split at blanks as dmsetup message
 *    passes them;
 *  - a refusal is -EINVAL with a reason that is not empty, and names a
 *    message only when its first word is one of ours, and keeps the words
 *    its log line names;
 *  - an accepted message is a whole one (not the "rule" or "cache" of a
 *    refusal), its rule text is one of the words, the cache options given
 *    are the ones the message takes and in range;
 *  - an accepted message prints (its words from fault_msg_name(), the id,
 *    the rule, the options given) to words that read back to the same
 *    message and print the same again;
 *  - the first word in upper case reads the same (words are matched in
 *    any case), refused for the same reason.
 *
 * A broken invariant aborts; libFuzzer saves the input as crash-<sha1>.
 * With -DDMF_FUZZ_STANDALONE, fuzz-main.c's main() replays the files given.
 */
#include <stdint.h>

#include "../../drivers/md/dm-fault-args.h"

#define FZ_MAX_TEXT	4096
#define FZ_MAX_ARGS	64

#include "fuzz-words.h"

static void __noreturn fz_fail(const char *what, const char *detail)
{
	fprintf(stderr, "msg_fuzz: input \"%s\": %s: %s\n", fz_input, what, detail);
	abort();
}

static unsigned int fz_keys(enum fault_msg_cmd cmd)
{
	if (cmd == FAULT_MSG_CACHE_ON)
		return FAULT_CKEY_LIMIT | FAULT_CKEY_UNIT;
	if (cmd == FAULT_MSG_CRASH)
		return FAULT_CKEY_LOSE | FAULT_CKEY_SEED | FAULT_CKEY_AFTER;
	return 0;
}

static bool fz_has_id(enum fault_msg_cmd cmd)
{
	return cmd == FAULT_MSG_RULE_REPLACE || cmd == FAULT_MSG_RULE_REMOVE ||
	       cmd == FAULT_MSG_RULE_ENABLE || cmd == FAULT_MSG_RULE_DISABLE;
}

/*
 * A refusal keeps the words its log line names: the first of a message
 * not ours, the id of a release, the second and last of a rule message.
 */
static void fz_refusal(const struct fault_msg *m, unsigned int argc, char **argv)
{
	unsigned int flags = fault_msg_flags(m->cmd);

	if (m->cmd == FAULT_MSG_NONE && argc && m->word != argv[0])
		fz_fail("refusal of no message of ours", "does not name its first word");
	if ((flags & FAULT_MSGF_RULE) && (m->form != argv[1] || m->word != argv[argc - 1]))
		fz_fail("refusal of a rule message", "does not name its second and last words");
	if ((flags & FAULT_MSGF_ID) && m->word != argv[1])
		fz_fail("refusal of a release", "does not name its id");
	if (m->word && m->cmd != FAULT_MSG_NONE && !(flags & (FAULT_MSGF_RULE | FAULT_MSGF_ID)))
		fz_fail("refusal", "names a word its log line does not");
}

/*
 * A view the parser took reads again with the ranges at hand: ascending,
 * disjoint, from 1; a refusal then is only for a torn write not kept.
 */
static void fz_view(const struct fault_msg *m)
{
	static struct fault_range ranges[FAULT_VIEW_RANGES];
	static struct fault_tear tears[FAULT_VIEW_TEARS];
	struct fault_view v = { .ranges = ranges, .tears = tears };
	const char *why = NULL;
	unsigned int i;

	if (fault_view_parse(&v, m->keep, m->tear, &why)) {
		if (!why || strcmp(why, "A torn write must be kept"))
			fz_fail("view refused with its ranges", why ? why : "no reason");
		return;
	}
	for (i = 0; i < v.nr_ranges; i++)
		if (!ranges[i].first || ranges[i].last < ranges[i].first ||
		    (i && ranges[i].first <= ranges[i - 1].last))
			fz_fail("view", "ranges not ascending and disjoint");
	for (i = 1; i < v.nr_tears; i++)
		if (v.tears[i].write <= v.tears[i - 1].write)
			fz_fail("view", "torn writes not ascending");
}

/* A bad message's fields: ranges only where they belong, each a word that parses. */
static void fz_bad(const struct fault_msg *m, unsigned int argc, char **argv)
{
	bool ranges = m->cmd == FAULT_MSG_BAD_ADD || m->cmd == FAULT_MSG_BAD_REMOVE;
	const struct fault_bad_attr *a = &m->bad;
	unsigned int i;
	u64 first, last;

	if (ranges != !!m->nr_ranges)
		fz_fail("accepted", "ranges where none belong, or none");
	for (i = 0; i < m->nr_ranges; i++)
		if (m->ranges + i < argv || m->ranges + i >= argv + argc ||
		    fault_bad_range_parse(m->ranges[i], &first, &last) || last < first)
			fz_fail("accepted", "a range that is not a word, or does not parse");
	if (m->sector && m->cmd != FAULT_MSG_BAD_QUERY && m->cmd != FAULT_MSG_BAD_LIST)
		fz_fail("accepted", "a sector where none belongs");
	if (m->on && m->cmd != FAULT_MSG_BAD_PARTIAL)
		fz_fail("accepted", "partial on where it does not belong");
	if (m->cmd == FAULT_MSG_BAD_ADD &&
	    (a->mode >= FAULT_NR_BAD_MODES || a->status == FAULT_STS_OK ||
	     a->status >= FAULT_NR_STATUS || (a->wr_fail && a->mode != FAULT_BAD_HEAL)))
		fz_fail("accepted", "a bad range's kind that cannot be");
}

static void fz_check(const struct fault_msg *m, unsigned int argc, char **argv)
{
	const struct fault_cache_cfg *c = &m->cache;
	unsigned int i;

	if (m->cmd == FAULT_MSG_NONE || m->cmd == FAULT_MSG_RULE || m->cmd == FAULT_MSG_CACHE ||
	    m->cmd == FAULT_MSG_BAD || m->cmd >= FAULT_NR_MSGS)
		fz_fail("accepted", "not a whole message");
	if ((m->cmd == FAULT_MSG_RULE_ADD || m->cmd == FAULT_MSG_RULE_REPLACE) != !!m->rule)
		fz_fail("accepted", "a rule text where none belongs, or none");
	for (i = 0; m->rule && i < argc && argv[i] != m->rule; i++)
		;
	if (m->rule && i == argc)
		fz_fail("accepted", "a rule text that is not one of the words");
	if (m->keys & ~fz_keys(m->cmd))
		fz_fail("accepted", "options the message does not take");
	if (m->id && !fz_has_id(m->cmd) && m->cmd != FAULT_MSG_RELEASE)
		fz_fail("accepted", "an id the message does not take");
	if ((m->keys & FAULT_CKEY_LIMIT) && c->limit < FAULT_CACHE_LIMIT_MIN)
		fz_fail("accepted", "a cache limit below 64k");
	if (c->lose >= FAULT_NR_LOSE || c->after > FAULT_NR_TRIGGERS ||
	    (c->after == FAULT_NR_TRIGGERS && m->cmd != FAULT_MSG_CRASH))
		fz_fail("accepted", "an unknown policy or trigger");
	if (c->after != FAULT_TRIG_NONE && c->after != FAULT_NR_TRIGGERS && !c->after_n)
		fz_fail("accepted", "a trigger at 0");
	if ((m->keys & FAULT_CKEY_UNIT) && c->unit &&
	    (c->unit < 512 || c->unit > FAULT_CACHE_UNIT_MAX || (c->unit & (c->unit - 1))))
		fz_fail("accepted", "a tearing unit that is not a power of two from 512 to 1m");
	if ((m->cmd == FAULT_MSG_RECORD_LIST) != !!m->from)
		fz_fail("accepted", "a first write where none belongs, or none");
	if (m->label && (m->cmd != FAULT_MSG_MARK || !*m->label ||
			 strlen(m->label) > FAULT_MARK_LABEL_MAX))
		fz_fail("accepted", "a label where none belongs, or a bad one");
	if ((m->cmd == FAULT_MSG_VIEW) != !!m->keep || (m->tear && !m->keep))
		fz_fail("accepted", "a view's words where none belong, or none");
	if (m->keep)
		fz_view(m);
	fz_bad(m, argc, argv);
}

/* The message's words, the options given in a fixed order. */
static void fz_format(const struct fault_msg *m, char *buf, size_t len)
{
	const struct fault_cache_cfg *c = &m->cache;
	unsigned int i;
	int n;

	n = snprintf(buf, len, "%s", fault_msg_name(m->cmd));
	if (fz_has_id(m->cmd) || m->id)
		n += snprintf(buf + n, len - n, " %u", m->id);
	if (m->rule)
		n += snprintf(buf + n, len - n, " %s", m->rule);
	if (m->keys & FAULT_CKEY_LIMIT)
		n += snprintf(buf + n, len - n, " limit=%llu", c->limit);
	if (m->keys & FAULT_CKEY_LOSE)
		n += snprintf(buf + n, len - n, " lose=%s", fault_lose_name(c->lose));
	if (m->keys & FAULT_CKEY_SEED)
		n += snprintf(buf + n, len - n, " seed=%llu", c->seed);
	if ((m->keys & FAULT_CKEY_AFTER) && c->after == FAULT_TRIG_NONE)
		n += snprintf(buf + n, len - n, " after=none");
	else if (m->keys & FAULT_CKEY_AFTER)
		n += snprintf(buf + n, len - n, " after=%s:%llu", fault_trigger_name(c->after),
			      c->after_n);
	if (m->keys & FAULT_CKEY_UNIT)
		n += snprintf(buf + n, len - n, " unit=%u", c->unit);
	if (m->from)
		n += snprintf(buf + n, len - n, " %llu", m->from);
	if (m->label)
		n += snprintf(buf + n, len - n, " %s", m->label);
	if (m->keep)
		n += snprintf(buf + n, len - n, " keep=%s", m->keep);
	if (m->tear)
		n += snprintf(buf + n, len - n, " tear=%s", m->tear);
	if (m->cmd == FAULT_MSG_BAD_ADD) {
		buf[n++] = ' ';
		n += fault_bad_attr_format(&m->bad, buf + n, len - n);
	}
	for (i = 0; i < m->nr_ranges; i++)
		n += snprintf(buf + n, len - n, " %s", m->ranges[i]);
	if (m->cmd == FAULT_MSG_BAD_QUERY || m->cmd == FAULT_MSG_BAD_LIST)
		n += snprintf(buf + n, len - n, " %llu", m->sector);
	if (m->cmd == FAULT_MSG_BAD_PARTIAL)
		n += snprintf(buf + n, len - n, " %s", m->on ? "on" : "off");
}

static bool fz_same_str(const char *a, const char *b)
{
	return !a == !b && (!a || !strcmp(a, b));
}

static bool fz_same_bad(const struct fault_msg *a, const struct fault_msg *b)
{
	unsigned int i;

	if (a->nr_ranges != b->nr_ranges || a->sector != b->sector || a->on != b->on ||
	    (a->cmd == FAULT_MSG_BAD_ADD && (a->bad.mode != b->bad.mode ||
	     a->bad.status != b->bad.status || a->bad.wr_fail != b->bad.wr_fail)))
		return false;
	for (i = 0; i < a->nr_ranges; i++)
		if (strcmp(a->ranges[i], b->ranges[i]))
			return false;
	return true;
}

static bool fz_same(const struct fault_msg *a, const struct fault_msg *b)
{
	const struct fault_cache_cfg *x = &a->cache, *y = &b->cache;

	return fz_same_bad(a, b) && a->cmd == b->cmd && a->id == b->id && a->keys == b->keys &&
	       !a->rule == !b->rule && (!a->rule || !strcmp(a->rule, b->rule)) &&
	       x->limit == y->limit && x->lose == y->lose && x->seed == y->seed &&
	       x->after == y->after && x->after_n == y->after_n && x->unit == y->unit &&
	       a->from == b->from && fz_same_str(a->label, b->label) &&
	       fz_same_str(a->keep, b->keep) && fz_same_str(a->tear, b->tear);
}

/* Parse the words of @s, split in place: the parser's return, 1 if too many. */
static int fz_parse(char *s, struct fault_msg *m, char **argv, unsigned int *argc,
		    char **error)
{
	*error = NULL;
	*argc = fz_split(s, argv, FZ_MAX_ARGS);
	if (*argc > FZ_MAX_ARGS)
		return 1;
	return fault_msg_parse(m, *argc, argv, error);
}

/* The first word in upper case reads as it did. */
static void fz_upper(unsigned int argc, char **argv, int r, const struct fault_msg *m,
		     const char *why)
{
	struct fault_msg u;
	char *error = NULL;
	char *w = argc ? argv[0] : NULL;
	int ru;

	for (; w && *w; w++)
		*w = toupper((unsigned char)*w);
	ru = fault_msg_parse(&u, argc, argv, &error);
	if (ru != r || u.cmd != m->cmd || (r && error != why))
		fz_fail("first word in upper case read otherwise", error ? error : "accepted");
	if (!r && !fz_same(m, &u))
		fz_fail("first word in upper case, another message", "");
}

static void fz_one(const char *in)
{
	static char s[FZ_MAX_TEXT + 1], pa[FZ_MAX_TEXT + 512], pb[FZ_MAX_TEXT + 512];
	static char copy[FZ_MAX_TEXT + 512];
	static char *argv[FZ_MAX_ARGS + 1], *argv2[FZ_MAX_ARGS + 1];
	struct fault_msg a, b;
	unsigned int argc, argc2;
	char *error;
	int r;

	strcpy(s, in);
	r = fz_parse(s, &a, argv, &argc, &error);
	if (r == 1)
		return;
	if (r && (r != -EINVAL || !error || !*error))
		fz_fail("refusal", error ? error : "no reason");
	if (a.cmd >= FAULT_NR_MSGS || (r && !argc && a.cmd != FAULT_MSG_NONE))
		fz_fail("refusal", "names no message it could be");
	if (r)
		fz_refusal(&a, argc, argv);
	if (!r) {
		fz_check(&a, argc, argv);
		fz_format(&a, pa, sizeof(pa));
		strcpy(copy, pa);
		r = fz_parse(copy, &b, argv2, &argc2, &error);
		if (r == 1)	/* the printed keys took it past the words a test splits */
			return;
		if (r)
			fz_fail("printed message refused", error ? error : pa);
		if (!fz_same(&a, &b))
			fz_fail("printed message reads back differently", pa);
		fz_format(&b, pb, sizeof(pb));
		if (strcmp(pa, pb))
			fz_fail("printed twice differently", pb);
	}
	fz_upper(argc, argv, r, &a, error);
}
