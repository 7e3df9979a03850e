// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of what a fault table says after "<dev> <offset>" and what a
 * message to a fault device asks for (drivers/md/dm-fault-args.c with the
 * cache options of dm-fault-parse.c, compiled unchanged against the shim):
 * the parsed description, the reasons of refusals (the texts dmsetup and
 * the kernel log show), and the cache feature printed back as the status
 * TABLE line prints it.
 */
#include "../../drivers/md/dm-fault-args.h"
#include "ktap.h"
#include "words.h"

#define MAX_ARGS	32

static unsigned int split(const char *text, char *buf, size_t len, char **argv)
{
	return words_split(text, buf, len, argv, MAX_ARGS);
}

/* Read a table's words as fault_ctr() does, without adding the rules. */
static int table(const char *text, struct fault_table_args *ta, char **error)
{
	static char buf[512];
	char *argv[MAX_ARGS];
	struct dm_arg_set as;

	*error = NULL;
	as.argc = split(text, buf, sizeof(buf), argv);
	as.argv = argv;
	return fault_table_parse_rules(ta, &as, error) ?:
	       fault_table_parse_features(ta, &as, error);
}

static int msg(const char *text, struct fault_msg *m, char **error)
{
	/* static: the message points into both (rule text, ranges) */
	static char buf[512];
	static char *argv[MAX_ARGS];

	*error = NULL;
	return fault_msg_parse(m, split(text, buf, sizeof(buf), argv), argv, error);
}

/* @text is taken, with @nr rules, and its cache feature prints as @want. */
static void table_same(const char *text, unsigned int nr, const char *want)
{
	struct fault_table_args ta;
	char out[256] = "", *error = NULL;

	if (!ktap_check(!table(text, &ta, &error), "'%s' refused: %s", text,
			 error ? error : "?"))
		return;
	if (ta.cache)
		fault_cache_feature_format(&ta.cache_cfg, out, sizeof(out));
	ktap_check(ta.nr_rules == nr && !strcmp(out, want), "'%s': %u rules, '%s', want %u, '%s'",
		   text, ta.nr_rules, out, nr, want);
}

/* table_fuzz: "0 1 cache" printed the options' buffer unset. */
static void test_table(void)
{
	table_same("", 0, "");
	table_same("0", 0, "");
	table_same("2 error drop:op=write", 2, "");
	table_same("0 1 cache", 0, " 1 cache");
	table_same("1 error 1 CACHE", 1, " 1 cache");
	table_same("0 5 cache seed=7 lose=writes after=flush:3 limit=1m", 0,
		   " 5 cache limit=1048576 after=flush:3 lose=writes seed=7");
	table_same("0 2 cache limit=64m", 0, " 1 cache");
}

static void test_table_refused(void)
{
	static const char * const cases[][2] = {
		{ "257 error", "Invalid number of rules" },
		{ "4294967296 error", "Invalid number of rules" },
		{ "x", "Invalid number of rules" },
		{ "2 error", "Rule count does not match the rules given" },
		{ "1 error error", "Rule count does not match the rules given" },
		{ "0 7 cache a b c d e f", "Invalid number of feature args" },
		{ "0 2 cache", "Invalid number of feature args" },
		{ "0 1 frob", "Unknown feature (cache)" },
		{ "0 2 cache bogus=1", "Unknown cache option" },
		{ "0 2 cache limit=1k", "Invalid cache limit (64k or more, units k, m, g)" },
		{ "0 2 cache after=flush:0",
		  "Crash trigger is <flush|write|bytes>:<count of 1 or more>" },
		{ "0 1 cache limit=1m", "Words after the feature args" },
	};
	struct fault_table_args ta;
	unsigned int i;
	char *error;
	int r;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		r = table(cases[i][0], &ta, &error);
		ktap_check(r == -EINVAL && error && !strcmp(error, cases[i][1]),
			   "'%s': %d '%s', want '%s'", cases[i][0], r, error ? error : "(none)",
			   cases[i][1]);
	}
}

static void test_msg(void)
{
	struct fault_msg m;
	char *error;

	KTAP_EXPECT_INT_EQ(msg("rule add error:op=read", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_RULE_ADD && !strcmp(m.rule, "error:op=read"));
	KTAP_EXPECT_INT_EQ(msg("RULE Replace 3 drop", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_RULE_REPLACE && m.id == 3 && !strcmp(m.rule, "drop"));
	KTAP_EXPECT_INT_EQ(msg("rule disable 2", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_RULE_DISABLE && m.id == 2);
	KTAP_EXPECT_INT_EQ(msg("release", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_RELEASE && !m.id);
	KTAP_EXPECT_INT_EQ(msg("cache on limit=1m", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_CACHE_ON && m.keys == FAULT_CKEY_LIMIT &&
		    m.cache.limit == 1 << 20);
	KTAP_EXPECT_INT_EQ(msg("crash", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_CRASH && !m.keys && m.cache.after == FAULT_NR_TRIGGERS);
	KTAP_EXPECT_INT_EQ(msg("lost", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_LOST);
	KTAP_EXPECT_INT_EQ(msg("cache on unit=4k", &m, &error), 0);
	KTAP_EXPECT(m.keys == FAULT_CKEY_UNIT && m.cache.unit == 4096);
	KTAP_EXPECT_INT_EQ(msg("mark commit-3", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_MARK && !strcmp(m.label, "commit-3"));
	KTAP_EXPECT_INT_EQ(msg("mark", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_MARK && !m.label);
	KTAP_EXPECT_INT_EQ(msg("record", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_RECORD);
	KTAP_EXPECT_INT_EQ(msg("record list 1025", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_RECORD_LIST && m.from == 1025);
	KTAP_EXPECT_INT_EQ(msg("view keep=1-4,7 tear=4:9", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_VIEW && !strcmp(m.keep, "1-4,7") && !strcmp(m.tear, "4:9"));
}

/* A view's ranges and tears as the cache reads them, and what it refuses then. */
static void test_view(void)
{
	static struct fault_range ranges[FAULT_VIEW_RANGES];
	struct fault_tear tears[FAULT_VIEW_TEARS];
	struct fault_view v = { .ranges = ranges, .tears = tears };
	const char *why = NULL;

	KTAP_EXPECT_INT_EQ(fault_view_parse(&v, "1-4,7,9-12", "3:5,9:0x10", &why), 0);
	KTAP_EXPECT(v.ranges == ranges && !v.all && v.nr_ranges == 3 && v.nr_tears == 2);
	KTAP_EXPECT(ranges[0].first == 1 && ranges[0].last == 4 && ranges[1].first == 7 &&
		    ranges[1].last == 7 && ranges[2].first == 9 && ranges[2].last == 12);
	KTAP_EXPECT(v.tears[0].write == 3 && v.tears[0].seed == 5 && v.tears[1].write == 9 &&
		    v.tears[1].seed == 16);
	KTAP_EXPECT_INT_EQ(fault_view_parse(&v, "none", NULL, &why), 0);
	KTAP_EXPECT(!v.all && !v.nr_ranges && !v.nr_tears);
	KTAP_EXPECT_INT_EQ(fault_view_parse(&v, "all", "5:1", &why), 0);
	KTAP_EXPECT(v.all && v.nr_tears == 1);
	/* only with the ranges at hand: a torn write must be kept */
	KTAP_EXPECT_INT_EQ(fault_view_parse(&v, "1-4", "5:1", &why), -EINVAL);
	KTAP_EXPECT_STR_EQ(why, "A torn write must be kept");
	KTAP_EXPECT_INT_EQ(fault_view_parse(&v, "none", "1:1", &why), -EINVAL);
	KTAP_EXPECT_STR_EQ(why, "A torn write must be kept");
	/* the counting pass stores nothing and still checks the order */
	v.ranges = NULL;
	KTAP_EXPECT_INT_EQ(fault_view_parse(&v, "1-4", "5:1", &why), 0);
	v.tears = NULL;
	KTAP_EXPECT_INT_EQ(fault_view_parse(&v, "1-4,7", "2:1,3:1,7:2", &why), 0);
	KTAP_EXPECT(v.nr_ranges == 2 && v.nr_tears == 3 && !v.ranges && !v.tears);
	KTAP_EXPECT_INT_EQ(fault_view_parse(&v, "all", "3:1,2:1", &why), -EINVAL);
	KTAP_EXPECT_STR_EQ(why, "Torn writes must be in ascending order");
	KTAP_EXPECT_INT_EQ(fault_view_parse(&v, "all", "3:1,3:2", &why), -EINVAL);
	KTAP_EXPECT_STR_EQ(why, "Torn writes must be in ascending order");
}

/*
 * What a refusal's log line is made of: the message's FAULT_MSGF_* flags
 * that choose its form, and the words it names (NULL: none).
 */
static void test_msg_refusal_words(void)
{
	static const unsigned int forms = FAULT_MSGF_RULE | FAULT_MSGF_ID | FAULT_MSGF_TAKES;
	static const struct {
		const char *text;
		enum fault_msg_cmd cmd;
		unsigned int flags;
		const char *word, *form;
	} cases[] = {
		{ "frobnicate x", FAULT_MSG_NONE, 0, "frobnicate", NULL },
		{ "rule", FAULT_MSG_NONE, 0, "rule", NULL },
		{ "Stats x y", FAULT_MSG_NONE, 0, "Stats", NULL },
		{ "release 1 2", FAULT_MSG_NONE, 0, "release", NULL },
		{ "rule enable", FAULT_MSG_RULE, FAULT_MSGF_RULE, "enable", "enable" },
		{ "rule frob 1 2", FAULT_MSG_RULE, FAULT_MSGF_RULE, "2", "frob" },
		{ "rule REMOVE x", FAULT_MSG_RULE_REMOVE, FAULT_MSGF_RULE, "x", "REMOVE" },
		{ "rule replace y error", FAULT_MSG_RULE_REPLACE, FAULT_MSGF_RULE, "error",
		  "replace" },
		{ "release 0", FAULT_MSG_RELEASE, FAULT_MSGF_ID, "0", NULL },
		{ "recover now", FAULT_MSG_RECOVER, FAULT_MSGF_TAKES, NULL, NULL },
		{ "lost 1", FAULT_MSG_LOST, FAULT_MSGF_TAKES, NULL, NULL },
		{ "mark a b", FAULT_MSG_MARK, FAULT_MSGF_TAKES, NULL, NULL },
		{ "log 1", FAULT_MSG_NONE, 0, "log", NULL },
		{ "bad frob", FAULT_MSG_BAD, 0, NULL, NULL },
		{ "cache of", FAULT_MSG_CACHE, 0, NULL, NULL },
		{ "crash lose=maybe", FAULT_MSG_CRASH, 0, NULL, NULL },
		{ "record list 0", FAULT_MSG_RECORD_LIST, 0, NULL, NULL },
	};
	struct fault_msg m;
	unsigned int i, flags;
	char *error;
	int r;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		r = msg(cases[i].text, &m, &error);
		flags = fault_msg_flags(m.cmd) & forms;
		ktap_check(r == -EINVAL && m.cmd == cases[i].cmd && flags == cases[i].flags &&
			   !m.word == !cases[i].word && (!m.word || !strcmp(m.word, cases[i].word)) &&
			   !m.form == !cases[i].form && (!m.form || !strcmp(m.form, cases[i].form)),
			   "'%s': %d %s %#x '%s' '%s', want %s %#x '%s' '%s'", cases[i].text, r,
			   fault_msg_name(m.cmd), flags, m.word ? m.word : "(null)",
			   m.form ? m.form : "(null)", fault_msg_name(cases[i].cmd), cases[i].flags,
			   cases[i].word ? cases[i].word : "(null)",
			   cases[i].form ? cases[i].form : "(null)");
	}
}

#define BAD_USAGE	"expected 'bad add|remove|clear|query|count|list|enable|disable|partial'"
#define BAD_RANGE	"expected a range: <sector>, <first>-<last> or <first>+<count>"
#define BAD_INVALID	"invalid range: <sector>, <first>-<last> or <first>+<count>"

/* What is refused, the message it is taken for (for the warning) and why. */
static void test_msg_refused(void)
{
	static const struct {
		const char *text;
		enum fault_msg_cmd cmd;
		const char *why;
	} cases[] = {
		{ "", FAULT_MSG_NONE, "Empty message" },
		{ "frobnicate", FAULT_MSG_NONE, "Unrecognised message" },
		{ "rule", FAULT_MSG_NONE, "Unrecognised message" },
		{ "stats x", FAULT_MSG_NONE, "Unrecognised message" },
		{ "release 1 2", FAULT_MSG_NONE, "Unrecognised message" },
		{ "rule enable", FAULT_MSG_RULE, "Invalid rule message" },
		{ "rule add a b", FAULT_MSG_RULE, "Invalid rule message" },
		{ "rule remove x", FAULT_MSG_RULE_REMOVE, "Invalid rule id" },
		{ "release 0", FAULT_MSG_RELEASE, "Invalid rule id" },
		{ "cache", FAULT_MSG_CACHE,
		  "expected 'cache on [limit=<size>] [unit=<size>]' or 'cache off'" },
		{ "cache off now", FAULT_MSG_CACHE,
		  "expected 'cache on [limit=<size>] [unit=<size>]' or 'cache off'" },
		{ "cache on unit=3k", FAULT_MSG_CACHE_ON,
		  "Invalid tearing unit (0, or a power of two from 512 to 1m)" },
		{ "cache on unit=256", FAULT_MSG_CACHE_ON,
		  "Invalid tearing unit (0, or a power of two from 512 to 1m)" },
		{ "cache on unit=2m", FAULT_MSG_CACHE_ON,
		  "Invalid tearing unit (0, or a power of two from 512 to 1m)" },
		{ "cache on lose=all", FAULT_MSG_CACHE_ON, "Unknown cache option" },
		{ "crash limit=1m", FAULT_MSG_CRASH, "Unknown cache option" },
		{ "crash lose=some", FAULT_MSG_CRASH,
		  "Unknown crash policy (all, none, writes, sectors)" },
		{ "crash seed=12x", FAULT_MSG_CRASH, "Invalid crash seed" },
		{ "mark now later", FAULT_MSG_MARK,
		  "takes one label of up to 32 letters, digits and ._:-" },
		{ "mark a/b", FAULT_MSG_MARK, "takes one label of up to 32 letters, digits and ._:-" },
		{ "mark 0123456789abcdef0123456789abcdefX", FAULT_MSG_MARK,
		  "takes one label of up to 32 letters, digits and ._:-" },
		{ "recover now", FAULT_MSG_RECOVER, "takes no arguments" },
		{ "record now", FAULT_MSG_RECORD,
		  "expected 'record' or 'record list <from>' (a write number from 1)" },
		{ "record list 0", FAULT_MSG_RECORD_LIST,
		  "expected 'record' or 'record list <from>' (a write number from 1)" },
		{ "record list", FAULT_MSG_RECORD_LIST,
		  "expected 'record' or 'record list <from>' (a write number from 1)" },
		{ "view", FAULT_MSG_VIEW, "expected 'view keep=<list> [tear=<write>:<seed>,...]'" },
		{ "view keep=1 keep=2", FAULT_MSG_VIEW,
		  "expected 'view keep=<list> [tear=<write>:<seed>,...]'" },
		{ "view tear=1:2", FAULT_MSG_VIEW,
		  "expected 'view keep=<list> [tear=<write>:<seed>,...]'" },
		{ "view keep=0", FAULT_MSG_VIEW,
		  "keep= is all, none or <n>[-<m>][,...] of write numbers from 1" },
		{ "view keep=3-2", FAULT_MSG_VIEW,
		  "keep= is all, none or <n>[-<m>][,...] of write numbers from 1" },
		{ "view keep=1,", FAULT_MSG_VIEW,
		  "keep= is all, none or <n>[-<m>][,...] of write numbers from 1" },
		{ "view keep=1-", FAULT_MSG_VIEW,
		  "keep= is all, none or <n>[-<m>][,...] of write numbers from 1" },
		{ "view keep=+1", FAULT_MSG_VIEW,
		  "keep= is all, none or <n>[-<m>][,...] of write numbers from 1" },
		{ "view keep=18446744073709551616", FAULT_MSG_VIEW,
		  "keep= is all, none or <n>[-<m>][,...] of write numbers from 1" },
		{ "view keep=2,1", FAULT_MSG_VIEW, "Kept writes must be in ascending order" },
		{ "view keep=1-3,3", FAULT_MSG_VIEW, "Kept writes must be in ascending order" },
		{ "view keep=all tear=1", FAULT_MSG_VIEW, "tear= is <write>:<seed>[,...]" },
		{ "view keep=all tear=1:", FAULT_MSG_VIEW, "tear= is <write>:<seed>[,...]" },
		{ "view keep=all tear=1:x", FAULT_MSG_VIEW, "tear= is <write>:<seed>[,...]" },
		{ "view keep=all tear=2:1,1:1", FAULT_MSG_VIEW,
		  "Torn writes must be in ascending order" },
		{ "bad", FAULT_MSG_BAD, BAD_USAGE },
		{ "bad frob", FAULT_MSG_BAD, BAD_USAGE },
		{ "bad clear now", FAULT_MSG_BAD, BAD_USAGE },
		{ "bad query", FAULT_MSG_BAD, BAD_USAGE },
		{ "bad query 5-6", FAULT_MSG_BAD_QUERY, BAD_USAGE },
		{ "bad list 1 2", FAULT_MSG_BAD_LIST, BAD_USAGE },
		{ "bad partial maybe", FAULT_MSG_BAD_PARTIAL, BAD_USAGE },
		{ "bad add", FAULT_MSG_BAD_ADD, BAD_RANGE },
		{ "bad add mode=read", FAULT_MSG_BAD_ADD, BAD_RANGE },
		{ "bad add 10-5", FAULT_MSG_BAD_ADD, BAD_INVALID },
		{ "bad add 5+0", FAULT_MSG_BAD_ADD, BAD_INVALID },
		{ "bad add 18446744073709551616", FAULT_MSG_BAD_ADD, BAD_INVALID },
		{ "bad add +5", FAULT_MSG_BAD_ADD, BAD_INVALID },
		{ "bad add 5 x", FAULT_MSG_BAD_ADD, BAD_INVALID },
		{ "bad add 5 mode=read", FAULT_MSG_BAD_ADD, BAD_INVALID },
		{ "bad add mode=loud 5", FAULT_MSG_BAD_ADD, "mode= takes heal, sticky, read or write" },
		{ "bad add status=ok 5", FAULT_MSG_BAD_ADD, "status= takes an error status, as a rule's" },
		{ "bad add status=nope 5", FAULT_MSG_BAD_ADD,
		  "status= takes an error status, as a rule's" },
		{ "bad add wr_fail=-1 5", FAULT_MSG_BAD_ADD,
		  "wr_fail= takes a count of writes, 0 to 4294967295" },
		{ "bad add wr_fail=4294967296 5", FAULT_MSG_BAD_ADD,
		  "wr_fail= takes a count of writes, 0 to 4294967295" },
		{ "bad add colour=red 5", FAULT_MSG_BAD_ADD, "expected mode=, status= or wr_fail=" },
		{ "bad add mode=write wr_fail=2 5", FAULT_MSG_BAD_ADD, "wr_fail= is for mode=heal" },
		{ "bad remove status=eio 5", FAULT_MSG_BAD_REMOVE, "bad remove takes ranges only" },
	};
	struct fault_msg m;
	unsigned int i;
	char *error;
	int r;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		r = msg(cases[i].text, &m, &error);
		ktap_check(r == -EINVAL && m.cmd == cases[i].cmd && error &&
			   !strcmp(error, cases[i].why), "'%s': %d %s '%s', want %s '%s'",
			   cases[i].text, r, fault_msg_name(m.cmd), error ? error : "(none)",
			   fault_msg_name(cases[i].cmd), cases[i].why);
	}
}

/* The bad-block messages: keys, ranges and the one-word forms. */
static void test_bad(void)
{
	struct fault_msg m;
	u64 first, last;
	char *error;

	KTAP_EXPECT_INT_EQ(msg("bad add mode=sticky status=eio 5 10-20 30+4", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_BAD_ADD && m.nr_ranges == 3 &&
		    m.bad.mode == FAULT_BAD_STICKY && m.bad.status == FAULT_STS_IOERR &&
		    !strcmp(m.ranges[0], "5") && !strcmp(m.ranges[2], "30+4"));
	KTAP_EXPECT_INT_EQ(msg("BAD add 7", &m, &error), 0);
	KTAP_EXPECT(m.bad.mode == FAULT_BAD_HEAL && m.bad.status == FAULT_STS_MEDIUM &&
		    !m.bad.wr_fail && m.nr_ranges == 1);
	KTAP_EXPECT_INT_EQ(msg("bad add wr_fail=4294967295 7", &m, &error), 0);
	KTAP_EXPECT(m.bad.wr_fail == 4294967295U);
	KTAP_EXPECT_INT_EQ(msg("bad remove 1 2-3", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_BAD_REMOVE && m.nr_ranges == 2);
	KTAP_EXPECT_INT_EQ(msg("bad query 18446744073709551615", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_BAD_QUERY && m.sector == U64_MAX);
	KTAP_EXPECT_INT_EQ(msg("bad list", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_BAD_LIST && !m.sector);
	KTAP_EXPECT_INT_EQ(msg("bad list 4096", &m, &error), 0);
	KTAP_EXPECT(m.sector == 4096);
	KTAP_EXPECT_INT_EQ(msg("bad partial on", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_BAD_PARTIAL && m.on);
	KTAP_EXPECT_INT_EQ(msg("bad partial OFF", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_BAD_PARTIAL && !m.on);
	KTAP_EXPECT_INT_EQ(msg("bad disable", &m, &error), 0);
	KTAP_EXPECT(m.cmd == FAULT_MSG_BAD_DISABLE);

	KTAP_EXPECT_INT_EQ(fault_bad_range_parse("18446744073709551615", &first, &last), 0);
	KTAP_EXPECT(first == U64_MAX && last == U64_MAX);
	KTAP_EXPECT_INT_EQ(fault_bad_range_parse("18446744073709551614+2", &first, &last), 0);
	KTAP_EXPECT(first == U64_MAX - 1 && last == U64_MAX);
	KTAP_EXPECT_INT_EQ(fault_bad_range_parse("18446744073709551614+3", &first, &last),
			   -EINVAL);
	KTAP_EXPECT_INT_EQ(fault_bad_range_parse("4-4", &first, &last), 0);
	KTAP_EXPECT(first == 4 && last == 4);
	KTAP_EXPECT_INT_EQ(fault_bad_range_parse("0x10", &first, &last), -EINVAL);
	KTAP_EXPECT_INT_EQ(fault_bad_range_parse("1-", &first, &last), -EINVAL);
	KTAP_EXPECT_INT_EQ(fault_bad_range_parse("1+-2", &first, &last), -EINVAL);
	KTAP_EXPECT_INT_EQ(fault_bad_range_parse("1-2-3", &first, &last), -EINVAL);
}

/* crash keeps the cache's policy and seed unless it names its own */
static void test_crash_apply(void)
{
	struct fault_cache_cfg cfg;
	struct fault_msg m;
	char *error;

	fault_cache_cfg_init(&cfg);
	cfg.seed = 9;
	cfg.lose = FAULT_LOSE_WRITES;
	cfg.after = FAULT_TRIG_FLUSH;
	cfg.after_n = 4;
	KTAP_EXPECT_INT_EQ(msg("crash lose=sectors", &m, &error), 0);
	fault_cache_cfg_apply(&cfg, &m.cache, m.keys | FAULT_CKEY_AFTER);
	KTAP_EXPECT(cfg.lose == FAULT_LOSE_SECTORS && cfg.seed == 9 &&
		    cfg.after == FAULT_NR_TRIGGERS);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_table),
	KTAP_CASE(test_table_refused),
	KTAP_CASE(test_msg),
	KTAP_CASE(test_msg_refused),
	KTAP_CASE(test_msg_refusal_words),
	KTAP_CASE(test_view),
	KTAP_CASE(test_crash_apply),
	KTAP_CASE(test_bad),
};

int main(void)
{
	return ktap_run("table_msg", cases, ARRAY_SIZE(cases));
}
