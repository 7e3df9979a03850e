/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KTAP for host unit tests, printed as tools/testing/selftests/kselftest.h
 * prints it, then one summary line for CI:
 *
 *	TAP version 13
 *	1..N
 *	# <diagnostics of a failed check>
 *	ok 1 name
 *	not ok 2 name
 *	ok 3 name # SKIP reason
 *	# Totals: pass:P fail:F xfail:0 xpass:0 skip:S error:0
 *	P passed, F failed
 *
 * A test is a void function; every check in it that fails prints a "#"
 * line naming the file, line and values, and fails the test.
 *
 *	static void test_foo(void)
 *	{
 *		KTAP_EXPECT(x == 1);
 *		KTAP_EXPECT_INT_EQ(parse("5"), 0);
 *		ktap_check(out == want, "parse %s gave %d", in, out);
 *		if (!have_clang)
 *			return ktap_skip("no clang");
 *	}
 *
 *	static const struct ktap_case cases[] = { KTAP_CASE(test_foo), ... };
 *
 *	int main(void)
 *	{
 *		return ktap_run("suite", cases, ARRAY_SIZE(cases));
 *	}
 *
 * ktap_run() returns the exit status: 0 when nothing failed.
 */
#ifndef _DMF_TESTS_KTAP_H
#define _DMF_TESTS_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct ktap_case {
	const char *name;
	void (*run)(void);
};

/* The test's name is the function's, printed without a "test_" prefix. */
#define KTAP_CASE(fn)	{ #fn, fn }

/* Failed checks reported per test before the rest are only counted. */
#define KTAP_MAX_DIAG	20

static struct {
	unsigned long checks;	/* of the running test */
	unsigned long failed;	/* checks failed in the running test */
	bool skipped;
	char skip_reason[128];
} ktap_cur;

static __attribute__((unused, format(printf, 1, 2))) void ktap_print_msg(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Record one check; on failure print "# file:line: message". */
static __attribute__((unused, format(printf, 4, 5)))
bool __ktap_check(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	__atomic_add_fetch(&ktap_cur.checks, 1, __ATOMIC_RELAXED);
	if (ok)
		return true;
	if (__atomic_add_fetch(&ktap_cur.failed, 1, __ATOMIC_RELAXED) > KTAP_MAX_DIAG)
		return false;
	flockfile(stdout);
	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	funlockfile(stdout);
	return false;
}

/* A check with a message; returns the condition.  Thread safe. */
#define ktap_check(cond, fmt, ...) \
	__ktap_check(!!(cond), __FILE__, __LINE__, fmt, ##__VA_ARGS__)

#define KTAP_EXPECT(cond) ktap_check(cond, "expected %s", #cond)

#define KTAP_EXPECT_INT_EQ(a, b) ({						\
	long long __a = (a), __b = (b);						\
	ktap_check(__a == __b, "%s == %s: %lld != %lld", #a, #b, __a, __b);	\
})

#define KTAP_EXPECT_U64_EQ(a, b) ({						\
	unsigned long long __a = (a), __b = (b);				\
	ktap_check(__a == __b, "%s == %s: %llu != %llu", #a, #b, __a, __b);	\
})

#define KTAP_EXPECT_STR_EQ(a, b) ({						\
	const char *__a = (a), *__b = (b);					\
	ktap_check(__a && __b && !strcmp(__a, __b), "%s == %s: \"%s\" != \"%s\"",	\
		   #a, #b, __a ? __a : "(null)", __b ? __b : "(null)");		\
})

/* Mark the running test skipped; the caller returns. */
static __attribute__((unused, format(printf, 1, 2))) void ktap_skip(const char *fmt, ...)
{
	va_list ap;

	ktap_cur.skipped = true;
	va_start(ap, fmt);
	vsnprintf(ktap_cur.skip_reason, sizeof(ktap_cur.skip_reason), fmt, ap);
	va_end(ap);
}

static __attribute__((unused)) unsigned long ktap_failed_checks(void)
{
	return __atomic_load_n(&ktap_cur.failed, __ATOMIC_RELAXED);
}

static __attribute__((unused)) int ktap_run(const char *suite, const struct ktap_case *cases,
					    size_t n)
{
	unsigned int pass = 0, fail = 0, skip = 0;
	struct timespec t0, t1;
	size_t i;

	/* keep the order of stdout and stderr, and what was printed on a crash */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	printf("1..%zu\n", n);
	printf("# suite: %s\n", suite);
	for (i = 0; i < n; i++) {
		const char *name = cases[i].name;

		if (!strncmp(name, "test_", 5))
			name += 5;
		memset(&ktap_cur, 0, sizeof(ktap_cur));
		clock_gettime(CLOCK_MONOTONIC, &t0);
		cases[i].run();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("# %s: %lu checks, %.2f s\n", name, ktap_cur.checks,
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (ktap_cur.failed) {
			if (ktap_cur.failed > KTAP_MAX_DIAG)
				printf("# %lu more failed checks not shown\n",
				       ktap_cur.failed - KTAP_MAX_DIAG);
			printf("not ok %zu %s\n", i + 1, name);
			fail++;
		} else if (ktap_cur.skipped) {
			printf("ok %zu %s # SKIP %s\n", i + 1, name,
			       ktap_cur.skip_reason);
			skip++;
		} else {
			printf("ok %zu %s\n", i + 1, name);
			pass++;
		}
	}
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n", pass, fail, skip);
	printf("%u passed, %u failed\n", pass, fail);
	fflush(stdout);
	return fail ? 1 : 0;
}

#endif /* _DMF_TESTS_KTAP_H */
