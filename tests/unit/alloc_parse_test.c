// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of what a write to a dmf_alloc knob says (mm/dmf-alloc-
 * parse.c, compiled unchanged against the shim): fail-nth, mark and unmark
 * pids, name lists and cache-filter.  Inputs alloc_fuzz found wrong are
 * kept here.
 */
#include "../../mm/dmf-alloc-parse.h"
#include "ktap.h"

/* "PID N" as written, or -EINVAL; pid and n in *@pid, *@n. */
static int nth(const char *val, int *pid, int *n)
{
	*pid = -1;
	*n = -1;
	return dmfa_nth_parse(val, pid, n);
}

static void test_nth_accepts(void)
{
	static const struct {
		const char *val;
		int pid, n;
	} ok[] = {
		{ "123 5", 123, 5 }, { "123 0", 123, 0 }, { "123 -0", 123, 0 },
		{ "-123", 123, 0 }, { "-+123", 123, 0 }, { "1\t2", 1, 2 },
		{ "007 010", 7, 10 }, { "2147483647 2147483647", 2147483647, 2147483647 },
		{ "1 \xa0 2", 1, 2 },
	};
	unsigned int i;
	int pid, n;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		ktap_check(!nth(ok[i].val, &pid, &n) && pid == ok[i].pid && n == ok[i].n,
			   "'%s': pid %d n %d, want %d %d", ok[i].val, pid, n, ok[i].pid,
			   ok[i].n);
	}
}

/*
 * alloc_fuzz: sscanf("%d %d") wrapped "4294967297 1" to pid 1 (init) and
 * "1 4294967297" to a count of 1; a number past INT_MAX is refused now.
 */
static void test_nth_refuses(void)
{
	static const char * const bad[] = {
		"4294967297 1", "1 4294967297", "2147483648 1", "1 2147483648",
		"18446744073709551617 1", "-4294967297", "0 1", "1 -3", "x", "1", "1 2 3",
		"12 3x", "+1 2", "1 +2", "1-2", "-0", "--5", "", "1 2,",
	};
	unsigned int i;
	int pid, n;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ktap_check(nth(bad[i], &pid, &n) == -EINVAL, "'%s' taken: pid %d n %d", bad[i],
			   pid, n);
}

/* The pids of a mark or unmark write, "PID" or "-PID" (negated), or the error. */
static void pids(const char *val, char *out, size_t len)
{
	const char *s = val;
	size_t at = 0;
	bool unmark;
	int pid, r;

	out[0] = '\0';
	while ((r = dmfa_pid_next(&s, &pid, &unmark)) > 0)
		at += snprintf(out + at, len - at, "%s%d", unmark ? "-" : "+", pid);
	if (r)
		snprintf(out + at, len - at, "!%d", r);
}

static void test_marks(void)
{
	static const char * const cases[][2] = {
		{ "123", "+123" },
		{ " -123 456,,789\t", "-123+456+789" },
		{ "", "" },
		{ "5 0 6", "+5!-22" },
		{ "2147483648", "!-22" },
		{ "0000000000000001", "!-22" },
		{ "-+7 x", "-7!-22" },
	};
	unsigned int i;
	char out[128];

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		pids(cases[i][0], out, sizeof(out));
		ktap_check(!strcmp(out, cases[i][1]), "'%s' read as '%s', want '%s'", cases[i][0],
			   out, cases[i][1]);
	}
}

static void test_names(void)
{
	char long_name[DMFA_NAME_LEN + 1];
	struct dmfa_names *n;

	n = dmfa_names_parse("dm-fault, dm-mod\tnull_blk", DMFA_NAMES_MAX, true);
	if (KTAP_EXPECT(!IS_ERR_OR_NULL(n) && n->nr == 3)) {
		KTAP_EXPECT_STR_EQ(n->name[0], "dm_fault");
		KTAP_EXPECT_STR_EQ(n->name[1], "dm_mod");
		KTAP_EXPECT_STR_EQ(n->name[2], "null_blk");
	}
	if (!IS_ERR_OR_NULL(n))
		kfree(n);
	n = dmfa_names_parse("a-b", DMFA_NAMES_MAX, false);
	if (KTAP_EXPECT(!IS_ERR_OR_NULL(n) && n->nr == 1))
		KTAP_EXPECT_STR_EQ(n->name[0], "a-b");
	if (!IS_ERR_OR_NULL(n))
		kfree(n);
	KTAP_EXPECT(!dmfa_names_parse(" ,\t", DMFA_NAMES_MAX, false));
	KTAP_EXPECT_INT_EQ(PTR_ERR(dmfa_names_parse("a b c", 2, false)), -ENOSPC);
	memset(long_name, 'x', DMFA_NAME_LEN);
	long_name[DMFA_NAME_LEN] = '\0';
	KTAP_EXPECT_INT_EQ(PTR_ERR(dmfa_names_parse(long_name, 4, false)), -EINVAL);
}

static void test_cache_filter(void)
{
	struct dmfa_names *n;

	KTAP_EXPECT_INT_EQ(PTR_ERR(dmfa_cache_filter_parse("Y", true)), -EINVAL);
	KTAP_EXPECT_INT_EQ(PTR_ERR(dmfa_cache_filter_parse("1", true)), -EINVAL);
	KTAP_EXPECT(!dmfa_cache_filter_parse("N", true));
	KTAP_EXPECT(!dmfa_cache_filter_parse("0", false));
	KTAP_EXPECT(!dmfa_cache_filter_parse("", true));
	KTAP_EXPECT_INT_EQ(PTR_ERR(dmfa_cache_filter_parse("names_cache", false)), -EOPNOTSUPP);
	n = dmfa_cache_filter_parse("names_cache kmalloc-64", true);
	if (KTAP_EXPECT(!IS_ERR_OR_NULL(n) && n->nr == 2))
		KTAP_EXPECT_STR_EQ(n->name[1], "kmalloc-64");
	if (!IS_ERR_OR_NULL(n))
		kfree(n);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_nth_accepts),
	KTAP_CASE(test_nth_refuses),
	KTAP_CASE(test_marks),
	KTAP_CASE(test_names),
	KTAP_CASE(test_cache_filter),
};

int main(void)
{
	return ktap_run("alloc_parse", cases, ARRAY_SIZE(cases));
}
