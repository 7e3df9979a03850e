// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for the dm-fault decision engine (lib/dmf-engine.c),
 * compiled unchanged against tools/kshim: probability parsing and
 * printing, attribute parsing, reproducibility, failure rates, interval,
 * times and space (exact under threads), counters, the calls an injector
 * filters or forces itself, the stack filter, logging (the engine's and an
 * injector's own) and the -ENOMEM path.  KTAP output.
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>

#include <dmf/engine.h>

#include "dmf_ref.h"
#include "ktap.h"

#define NTHREADS	8
#define WHY_LEN		256

/* A deterministic generator for test inputs (splitmix64, not the engine's). */
static u64 rng_state = 0x2545f4914f6cdd1dULL;

static u64 rnd(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static u64 rnd_below(u64 n)
{
	return (u64)(((unsigned __int128)rnd() * n) >> 64);
}

static u64 pow10u(int k)
{
	u64 v = 1;

	while (k-- > 0)
		v *= 10;
	return v;
}

/* Draws taken so far, from the shared stream and on all CPUs together. */
static long drawn(struct dmf_attr *a)
{
	long n = atomic64_read(&a->stream->pos);
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu_ptr(a->stats, cpu)->draws - ((u64)cpu << DMF_STREAM_SHIFT);
	return n;
}

/* Initialise @a and apply "key=value,..." from @cfg; the test fails if it cannot. */
static bool attr_new(struct dmf_attr *a, const char *name, const char *cfg)
{
	char buf[256], *s = buf, *pair, *val;
	int r;

	r = dmf_attr_init(a, name);
	if (!ktap_check(!r, "dmf_attr_init: %d", r))
		return false;
	snprintf(buf, sizeof(buf), "%s", cfg);
	while ((pair = strsep(&s, ","))) {
		if (!*pair)
			continue;
		val = strchr(pair, '=');
		if (!ktap_check(val, "bad test config \"%s\"", cfg))
			return false;
		*val++ = '\0';
		r = dmf_attr_parse_kv(a, pair, val);
		if (!ktap_check(!r, "config %s=%s: %d", pair, val, r))
			return false;
	}
	return true;
}

static unsigned long run_calls(struct dmf_attr *a, unsigned long n, u64 size)
{
	unsigned long failed = 0;

	while (n--)
		failed += dmf_should_fail(a, size);
	return failed;
}

static bool counters_are(const struct dmf_attr *a, u64 evaluated, u64 passed, u64 injected)
{
	struct dmf_counters c;

	dmf_attr_counters(a, &c);
	return ktap_check(c.evaluated == evaluated && c.passed == passed &&
			  c.injected == injected,
			  "counters %llu/%llu/%llu, want %llu/%llu/%llu",
			  c.evaluated, c.passed, c.injected, evaluated, passed, injected);
}

/* Probability parsing */

static const struct {
	const char *in;
	u64 num, den;
} prob_good[] = {
	{ "5", 1, 20 }, { "0.1%", 1, 1000 }, { "1e-6", 1, 1000000 },
	{ "1/1000", 1, 1000 }, { "100", 1, 1 }, { "100%", 1, 1 }, { "0", 0, 1 },
	{ "0%", 0, 1 }, { "0/5", 0, 1 }, { "1/1", 1, 1 }, { "2.5E-3", 1, 400 },
	{ "1e-3%", 1, 100000 }, { ".5", 1, 200 }, { "1e-18", 1, DMF_PROB_MAX_DEN },
	{ "10e-1", 1, 1 }, { "5%", 1, 20 }, { "50", 1, 2 }, { "0.5", 1, 200 },
	{ "5.", 1, 20 }, { "1E0", 1, 1 }, { "1e+0", 1, 1 }, { "0.25e0", 1, 4 },
	{ "2/4", 1, 2 }, { "3/9", 1, 3 }, { "2/2000000000000000000", 1, DMF_PROB_MAX_DEN },
	{ "999999999999999999/1000000000000000000", 999999999999999999ULL, DMF_PROB_MAX_DEN },
	{ "18446744073709551615/18446744073709551615", 1, 1 },
	{ "0.0000000000000001%", 1, DMF_PROB_MAX_DEN }, { "000005", 1, 20 },
	{ "1e-0000000006", 1, 1000000 }, { "100.000", 1, 1 },
	{ "1.00000000000000000000000000", 1, 100 }, { "0e0", 0, 1 }, { "0.0%", 0, 1 },
	{ "100000000000000000000e-20", 1, 1 }, { "0.000001e6%", 1, 100 },
	{ "2e-18", 1, 500000000000000000ULL }, { "12.5", 1, 8 }, { "33.3333", 333333, 1000000 },
	{ "99.9999999999999999", 999999999999999999ULL, DMF_PROB_MAX_DEN },
	{ "0/5000000000000000000", 0, 1 }, { "000/18446744073709551615", 0, 1 },
};

static void test_prob_parse_accepts(void)
{
	char why[WHY_LEN];
	struct dmf_prob p;
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(prob_good); i++) {
		memset(&p, 0x5a, sizeof(p));
		r = dmf_prob_parse(prob_good[i].in, &p);
		ktap_check(!r && p.num == prob_good[i].num && p.den == prob_good[i].den,
			   "\"%s\": %d %llu/%llu, want %llu/%llu", prob_good[i].in, r, p.num,
			   p.den, prob_good[i].num, prob_good[i].den);
		ktap_check(!r && dmf_ref_prob_valid(&p, why, sizeof(why)), "\"%s\": %s",
			   prob_good[i].in, why);
	}
}

static const struct {
	const char *in;
	int err;
} prob_bad[] = {
	{ "", -EINVAL }, { NULL, -EINVAL }, { "-5", -EINVAL }, { "abc", -EINVAL },
	{ "5x", -EINVAL }, { "1/0", -EINVAL }, { "2/1", -ERANGE }, { "101", -ERANGE },
	{ "1e1", -ERANGE }, { "1e-19", -ERANGE }, { "1e-999999", -ERANGE },
	{ "99999999999999999999999", -ERANGE }, { "1//2", -EINVAL }, { "1/2/3", -EINVAL },
	{ "%", -EINVAL }, { "e5", -EINVAL }, { "1e", -EINVAL }, { "1e+", -EINVAL },
	{ " 5", -EINVAL }, { "5 ", -EINVAL }, { "0.000000000000000001", -ERANGE },
	{ ".", -EINVAL }, { "5%%", -EINVAL }, { "/", -EINVAL }, { "1/", -EINVAL },
	{ "/2", -EINVAL }, { "+5", -EINVAL }, { "0x10", -EINVAL }, { "1e-5/2", -EINVAL },
	{ "100.0000000000000001", -ERANGE }, { "1.5e-18", -ERANGE }, { "inf", -EINVAL },
	{ "nan", -EINVAL }, { "1,5", -EINVAL }, { "1.2.3", -EINVAL }, { "1e5e5", -EINVAL },
	{ "5%e1", -EINVAL }, { "1/3%", -EINVAL }, { "-0", -EINVAL }, { "0/0", -EINVAL },
	{ "1e-", -EINVAL }, { "1e--5", -EINVAL }, { ".e5", -EINVAL }, { "1 /2", -EINVAL },
	{ "18446744073709551616/18446744073709551617", -ERANGE },
	{ "1/1000000000000000001", -ERANGE },
	{ "1e1001", -ERANGE }, { "100.5", -ERANGE }, { "1.0000000000000000001e0", -ERANGE },
	{ "0.9999999999999999999999e0", -ERANGE },
};

static void test_prob_parse_rejects(void)
{
	struct dmf_prob p, before;
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(prob_bad); i++) {
		memset(&p, 0x5a, sizeof(p));
		before = p;
		r = dmf_prob_parse(prob_bad[i].in, &p);
		ktap_check(r == prob_bad[i].err, "\"%s\": %d, want %d",
			   prob_bad[i].in ? prob_bad[i].in : "(null)", r, prob_bad[i].err);
		ktap_check(!memcmp(&p, &before, sizeof(p)), "\"%s\" changed the result",
			   prob_bad[i].in ? prob_bad[i].in : "(null)");
	}
}

/* Check one input against the reference; if accepted, the value's invariants. */
static bool prob_check_input(const char *s)
{
	char why[WHY_LEN], out[64];
	struct dmf_prob p;
	int r;

	memset(&p, 0, sizeof(p));
	r = dmf_prob_parse(s, &p);
	if (!ktap_check(dmf_ref_prob_agrees(s, r, &p, why, sizeof(why)), "%s", why))
		return false;
	if (r)
		return true;
	return ktap_check(dmf_ref_prob_valid(&p, why, sizeof(why)), "\"%s\": %s", s, why) &&
	       ktap_check(dmf_ref_prob_roundtrip(&p, out, sizeof(out), why, sizeof(why)),
			  "\"%s\": %s", s, why);
}

/* Every string of up to 5 characters over an alphabet of the grammar's symbols. */
static void test_prob_parse_exhaustive(void)
{
	static const char alpha[] = "0159.eE-+%/";
	const int na = sizeof(alpha) - 1;
	char s[8];
	int len, i, idx[8];

	for (len = 1; len <= 5; len++) {
		memset(idx, 0, sizeof(idx));
		for (;;) {
			for (i = 0; i < len; i++)
				s[i] = alpha[idx[i]];
			s[len] = '\0';
			if (!prob_check_input(s) && ktap_failed_checks() > KTAP_MAX_DIAG)
				return;
			for (i = 0; i < len && ++idx[i] == na; i++)
				idx[i] = 0;
			if (i == len)
				break;
		}
	}
}

/* Append a run of @n digits, mostly zeros or nines at the edges of precision. */
static char *gen_digits(char *s, int n)
{
	int style = rnd_below(4);

	while (n-- > 0) {
		switch (style) {
		case 0:
			*s++ = '0' + rnd_below(10);
			break;
		case 1:
			*s++ = rnd_below(4) ? '0' : '0' + rnd_below(10);
			break;
		case 2:
			*s++ = rnd_below(4) ? '9' : '0' + rnd_below(10);
			break;
		default:
			*s++ = n ? '0' : '1' + rnd_below(9);
			break;
		}
	}
	return s;
}

static int gen_len(void)
{
	static const int lens[] = { 0, 1, 1, 2, 3, 5, 17, 18, 19, 20, 21, 25, 40 };

	return lens[rnd_below(ARRAY_SIZE(lens))];
}

/* Random text close to the grammar: most is valid, some is subtly not. */
static void gen_prob_text(char *s)
{
	if (rnd_below(4) == 0) {
		s = gen_digits(s, gen_len());
		*s++ = '/';
		s = gen_digits(s, gen_len());
	} else {
		s = gen_digits(s, gen_len());
		if (rnd_below(2)) {
			*s++ = '.';
			s = gen_digits(s, gen_len());
		}
		if (rnd_below(2)) {
			*s++ = rnd_below(2) ? 'e' : 'E';
			if (rnd_below(3))
				*s++ = rnd_below(3) ? '-' : '+';
			s = gen_digits(s, rnd_below(8) ? rnd_below(3) : rnd_below(6));
		}
		if (rnd_below(2))
			*s++ = '%';
	}
	if (rnd_below(20) == 0)
		*s++ = " x/.%e\n"[rnd_below(7)];
	*s = '\0';
}

static void test_prob_parse_reference(void)
{
	char s[256];
	int i;

	for (i = 0; i < 300000; i++) {
		gen_prob_text(s);
		if (!prob_check_input(s) && ktap_failed_checks() > KTAP_MAX_DIAG)
			return;
	}
}

static void test_prob_set(void)
{
	static const struct {
		u64 num, den;
		int err;
		u64 rnum, rden;
	} t[] = {
		{ 0, 0, -ERANGE, 0, 0 }, { 1, 0, -ERANGE, 0, 0 }, { 2, 1, -ERANGE, 0, 0 },
		{ 1, DMF_PROB_MAX_DEN + 1, -ERANGE, 0, 0 },
		{ 0, DMF_PROB_MAX_DEN + 1, -ERANGE, 0, 0 },
		{ U64_MAX, U64_MAX, -ERANGE, 0, 0 },
		{ 1, DMF_PROB_MAX_DEN, 0, 1, DMF_PROB_MAX_DEN },
		{ 6, 8, 0, 3, 4 }, { 5, 5, 0, 1, 1 }, { 0, 7, 0, 0, 1 },
		{ DMF_PROB_MAX_DEN, DMF_PROB_MAX_DEN, 0, 1, 1 },
		{ 576460752303423488ULL / 2, 576460752303423488ULL, 0, 1, 2 },
	};
	char why[WHY_LEN];
	struct dmf_prob p, before;
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		memset(&p, 0x33, sizeof(p));
		before = p;
		r = dmf_prob_set(&p, t[i].num, t[i].den);
		ktap_check(r == t[i].err, "set %llu/%llu: %d, want %d", t[i].num, t[i].den, r,
			   t[i].err);
		if (t[i].err) {
			ktap_check(!memcmp(&p, &before, sizeof(p)), "set %llu/%llu changed it",
				   t[i].num, t[i].den);
			continue;
		}
		ktap_check(p.num == t[i].rnum && p.den == t[i].rden, "set %llu/%llu: %llu/%llu",
			   t[i].num, t[i].den, p.num, p.den);
		ktap_check(dmf_ref_prob_valid(&p, why, sizeof(why)), "%s", why);
		ktap_check(dmf_prob_is_zero(&p) == !t[i].num, "is_zero %llu/%llu", p.num, p.den);
	}
}

/* The threshold is floor(num * 2^64 / den), exactly. */
static void test_prob_threshold(void)
{
	static const u64 dens[] = { 2, 3, 7, 10, 1000, 3 * 7 * 11 * 13, 1ULL << 59,
				    999999999999999989ULL, DMF_PROB_MAX_DEN };
	char why[WHY_LEN];
	struct dmf_prob p;
	size_t i;
	int j;

	for (i = 0; i < ARRAY_SIZE(dens); i++) {
		u64 nums[] = { 0, 1, dens[i] / 2, dens[i] - 1, dens[i] };

		for (j = 0; j < 5; j++) {
			KTAP_EXPECT_INT_EQ(dmf_prob_set(&p, nums[j], dens[i]), 0);
			ktap_check(dmf_ref_prob_valid(&p, why, sizeof(why)), "%s", why);
		}
	}
	for (j = 0; j < 200000; j++) {
		u64 den = 1 + rnd_below(rnd_below(2) ? DMF_PROB_MAX_DEN : 1000000);

		KTAP_EXPECT_INT_EQ(dmf_prob_set(&p, rnd_below(den + 1), den), 0);
		if (!ktap_check(dmf_ref_prob_valid(&p, why, sizeof(why)), "%s", why))
			break;
	}
	dmf_prob_set(&p, 1, 1);
	KTAP_EXPECT_U64_EQ(p.thresh, U64_MAX);
	dmf_prob_set(&p, 1, 2);
	KTAP_EXPECT_U64_EQ(p.thresh, 1ULL << 63);
	dmf_prob_set(&p, 1, 3);
	KTAP_EXPECT_U64_EQ(p.thresh, 0x5555555555555555ULL);
}

/* p = 1 fails every call, p = 0 none, and otherwise exactly the draws below thresh. */
static void test_prob_decides_by_threshold(void)
{
	static const char * const probs[] = { "1/3", "50%", "1e-3", "999999/1000000",
					      "1/2", "0.0001%" };
	struct dmf_attr a, twin;
	size_t i;
	int j;

	if (!attr_new(&a, "p1", "p=100%,seed=7"))
		return;
	KTAP_EXPECT_INT_EQ(run_calls(&a, 100000, 0), 100000);
	KTAP_EXPECT_INT_EQ(drawn(&a), 0);	/* p = 1 draws nothing */
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "p", "0"), 0);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 100000, 0), 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "p", "1e-18"), 0);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 100000, 0), 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "p", "999999999999999999/1000000000000000000"), 0);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 100000, 0), 100000);
	dmf_attr_destroy(&a);

	for (i = 0; i < ARRAY_SIZE(probs); i++) {
		char cfg[64];

		snprintf(cfg, sizeof(cfg), "p=%s,seed=%zu", probs[i], i * 1000003);
		if (!attr_new(&a, "a", cfg) || !attr_new(&twin, "twin", cfg))
			return;
		for (j = 0; j < 20000; j++) {
			bool want = dmf_attr_draw(&twin) < a.prob.thresh;

			if (!ktap_check(dmf_should_fail(&a, 0) == want, "p=%s call %d", probs[i],
					j))
				break;
		}
		dmf_attr_destroy(&a);
		dmf_attr_destroy(&twin);
	}
}

/* Probability printing */

static void test_prob_format(void)
{
	static const struct {
		u64 num, den;
		const char *out;
	} t[] = {
		{ 0, 1, "0%" }, { 1, 1, "100%" }, { 1, 20, "5%" }, { 1, 2, "50%" },
		{ 1, 1000, "0.1%" }, { 1, 1000000, "0.0001%" }, { 1, 400, "0.25%" },
		{ 3, 8, "37.5%" }, { 1, DMF_PROB_MAX_DEN, "0.0000000000000001%" },
		{ 999999999999999999ULL, DMF_PROB_MAX_DEN, "99.9999999999999999%" },
		{ 1, 3, "1/3" }, { 2, 3, "2/3" }, { 1, 7, "1/7" },
		{ 1, 1ULL << 59, "1/576460752303423488" },
		{ 1, 1ULL << 18, "0.0003814697265625%" }, { 1, 1ULL << 19, "1/524288" },
		{ 1, 3814697265625ULL, "0.0000000000262144%" },		/* 5^18 */
		{ 1, 19073486328125ULL, "1/19073486328125" },		/* 5^19 */
		{ 1, 999999999999999989ULL, "1/999999999999999989" },
	};
	char buf[64], small[5], why[WHY_LEN];
	struct dmf_prob p;
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		KTAP_EXPECT_INT_EQ(dmf_prob_set(&p, t[i].num, t[i].den), 0);
		n = dmf_prob_format(&p, buf, sizeof(buf));
		ktap_check(!strcmp(buf, t[i].out) && n == (int)strlen(t[i].out),
			   "%llu/%llu: \"%s\" (%d), want \"%s\"", t[i].num, t[i].den, buf, n,
			   t[i].out);
		ktap_check(dmf_ref_prob_roundtrip(&p, buf, sizeof(buf), why, sizeof(why)),
			   "%s", why);
	}
	/* truncation is snprintf()'s */
	dmf_prob_set(&p, 1, 1000000);
	n = dmf_prob_format(&p, small, sizeof(small));
	KTAP_EXPECT_INT_EQ(n, 7);
	KTAP_EXPECT_STR_EQ(small, "0.00");
	dmf_prob_set(&p, 1, 7);
	n = dmf_prob_format(&p, small, sizeof(small));
	KTAP_EXPECT_INT_EQ(n, 3);
	KTAP_EXPECT_STR_EQ(small, "1/7");
}

static bool prob_roundtrip(u64 num, u64 den)
{
	char buf[64], why[WHY_LEN];
	struct dmf_prob p;

	return ktap_check(!dmf_prob_set(&p, num, den), "set %llu/%llu", num, den) &&
	       ktap_check(dmf_ref_prob_roundtrip(&p, buf, sizeof(buf), why, sizeof(why)),
			  "%s", why);
}

static void test_prob_format_roundtrip(void)
{
	u64 num, den, d2, d5;
	int i;

	for (den = 1; den <= 300; den++)
		for (num = 0; num <= den; num++)
			if (!prob_roundtrip(num, den))
				return;
	/* every 2^a * 5^b that fits: the edge between percentages and fractions */
	for (d2 = 1; d2 <= DMF_PROB_MAX_DEN; d2 *= 2)
		for (d5 = d2; d5 <= DMF_PROB_MAX_DEN; d5 *= 5) {
			if (!prob_roundtrip(1, d5) || !prob_roundtrip(d5 - 1, d5) ||
			    !prob_roundtrip(rnd_below(d5 + 1), d5))
				return;
			if (d5 > DMF_PROB_MAX_DEN / 5)
				break;
		}
	for (i = 0; i < 200000; i++) {
		den = 1 + rnd_below(i & 1 ? DMF_PROB_MAX_DEN : pow10u(1 + rnd_below(18)));
		if (!prob_roundtrip(rnd_below(den + 1), den))
			return;
	}
}

/* Attribute life cycle */

static void test_attr_init_defaults(void)
{
	struct dmf_attr a, b;
	char buf[128];

	if (!attr_new(&a, "defaults", "") || !attr_new(&b, "other", ""))
		return;
	KTAP_EXPECT(a.prob.num == 0 && a.prob.den == 1);
	KTAP_EXPECT_U64_EQ(a.interval, 1);
	KTAP_EXPECT_INT_EQ(a.times, -1);
	KTAP_EXPECT_INT_EQ(a.space, 0);
	KTAP_EXPECT_INT_EQ(a.verbose, 0);
	KTAP_EXPECT_INT_EQ(a.flags, 0);
	KTAP_EXPECT_STR_EQ(a.name, "defaults");
	KTAP_EXPECT(a.stats);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), -1);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), 0);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.count), 0);
	KTAP_EXPECT_INT_EQ(drawn(&a), 0);
	KTAP_EXPECT(a.seed != b.seed);		/* random seeds: equal once in 2^64 */
	KTAP_EXPECT_INT_EQ(run_calls(&a, 1000, 4096), 0);
	counters_are(&a, 1000, 0, 0);
	dmf_attr_format(&a, buf, sizeof(buf));
	ktap_check(!strncmp(buf, "p=0%,seed=", 10), "defaults format as \"%s\"", buf);
	dmf_attr_destroy(&a);
	KTAP_EXPECT(!a.stats);
	dmf_attr_destroy(&a);			/* a second destroy is harmless */
	dmf_attr_destroy(&b);
}

static void test_attr_init_enomem(void)
{
	long live = shim_allocs_live(), failed = shim_allocs_failed();
	struct dmf_attr a, b;

	shim_fail_alloc_after(0);
	memset(&a, 0x77, sizeof(a));
	KTAP_EXPECT_INT_EQ(dmf_attr_init(&a, "nomem"), -ENOMEM);
	KTAP_EXPECT(!a.stats);
	dmf_attr_destroy(&a);			/* safe after a failed init */
	KTAP_EXPECT_INT_EQ(shim_allocs_failed(), failed + 1);

	/* the per-CPU block, then the stream: the first is freed if the second fails */
	shim_fail_alloc_after(1);
	KTAP_EXPECT_INT_EQ(dmf_attr_init(&a, "half"), -ENOMEM);
	KTAP_EXPECT(!a.stats && !a.stream);
	KTAP_EXPECT_INT_EQ(shim_allocs_failed(), failed + 2);
	KTAP_EXPECT_INT_EQ(shim_allocs_live(), live);

	shim_fail_alloc_after(2);
	KTAP_EXPECT_INT_EQ(dmf_attr_init(&a, "first"), 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_init(&b, "second"), -ENOMEM);
	KTAP_EXPECT_INT_EQ(shim_allocs_failed(), failed + 3);
	shim_fail_alloc_after(-1);
	KTAP_EXPECT_INT_EQ(shim_allocs_live(), live + 2);
	dmf_attr_destroy(&b);
	dmf_attr_destroy(&a);
	KTAP_EXPECT_INT_EQ(shim_allocs_live(), live);

	/* and after the budget is lifted, init works again */
	KTAP_EXPECT_INT_EQ(dmf_attr_init(&a, "again"), 0);
	dmf_attr_destroy(&a);
}

/* dmf_attr_parse_kv() */

struct kv_case {
	const char *key, *val;
	int err;
};

static void kv_cases(const struct kv_case *t, size_t n)
{
	struct dmf_ref_snap before;
	struct dmf_attr a;
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		if (!attr_new(&a, "kv", "p=1/3,interval=3,times=9,space=100,seed=5"))
			return;
		run_calls(&a, 7, 1);
		dmf_ref_snap(&a, &before);
		r = dmf_attr_parse_kv(&a, t[i].key, t[i].val);
		ktap_check(r == t[i].err, "%s=\"%s\": %d, want %d", t[i].key, t[i].val, r,
			   t[i].err);
		if (r)
			ktap_check(dmf_ref_unchanged(&a, &before),
				   "%s=\"%s\" failed but changed it", t[i].key, t[i].val);
		dmf_attr_destroy(&a);
	}
}

static void test_parse_kv_errors(void)
{
	static const struct kv_case t[] = {
		{ "p", "", -EINVAL }, { "p", "abc", -EINVAL }, { "p", "101", -ERANGE },
		{ "p", "5\n", -EINVAL }, { "probability", "2/1", -ERANGE },
		{ "interval", "0", -EINVAL }, { "interval", "-1", -EINVAL },
		{ "interval", " 7", -EINVAL }, { "interval", "7 ", -EINVAL },
		{ "interval", "0x10", -EINVAL }, { "interval", "18446744073709551616", -EINVAL },
		{ "interval", "", -EINVAL }, { "interval", "7\n\n", -EINVAL },
		{ "interval", "1.5", -EINVAL }, { "times", "-2", -EINVAL },
		{ "times", "9223372036854775808", -EINVAL }, { "times", "abc", -EINVAL },
		{ "times", "", -EINVAL }, { "times", "1.5", -EINVAL }, { "times", "--1", -EINVAL },
		{ "times", "+-1", -EINVAL }, { "space", "-1", -EINVAL },
		{ "space", "-4096", -EINVAL }, { "space", "4k", -EINVAL },
		{ "space", "9223372036854775808", -EINVAL }, { "seed", "-1", -EINVAL },
		{ "seed", "0x", -EINVAL }, { "seed", "18446744073709551616", -EINVAL },
		{ "seed", "0x1g", -EINVAL }, { "seed", "08", -EINVAL }, { "seed", "", -EINVAL },
		{ "verbose", "3", -EINVAL }, { "verbose", "-1", -EINVAL },
		{ "verbose", "", -EINVAL }, { "streams", "", -EINVAL },
		{ "streams", "PerCPU", -EINVAL }, { "streams", "percpu ", -EINVAL },
		{ "streams", "cpu", -EINVAL }, { "streams", "1", -EINVAL }, { "", "1", -ENOENT }, { "P", "5", -ENOENT },
		{ "prob", "5", -ENOENT }, { "Interval", "1", -ENOENT },
		{ "interval ", "1", -ENOENT }, { "seed\n", "1", -ENOENT }, { "x", "1", -ENOENT },
		{ "stacktrace-depth", "4", -ENOENT }, { "task-filter", "1", -ENOENT },
	};

	kv_cases(t, ARRAY_SIZE(t));
}

static void test_parse_kv_values(void)
{
	static const struct kv_case ok[] = {
		{ "p", "5", 0 }, { "probability", "1/3", 0 }, { "interval", "1", 0 },
		{ "interval", "+7", 0 }, { "interval", "7\n", 0 },
		{ "interval", "18446744073709551615", 0 }, { "times", "-1", 0 },
		{ "times", "0", 0 }, { "times", "+5", 0 }, { "times", "5\n", 0 },
		{ "times", "9223372036854775807", 0 }, { "times", "-0", 0 }, { "space", "0", 0 },
		{ "space", "4096", 0 }, { "space", "9223372036854775807", 0 },
		{ "seed", "0", 0 }, { "seed", "18446744073709551615", 0 },
		{ "seed", "0xffffffffffffffff", 0 }, { "verbose", "2", 0 },
		{ "streams", "shared", 0 }, { "streams", "percpu", 0 },
	};
	struct dmf_attr a;

	kv_cases(ok, ARRAY_SIZE(ok));
	if (!attr_new(&a, "kv", "p=1/3,interval=3"))
		return;
	run_calls(&a, 5, 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "probability", "0.1%"), 0);
	KTAP_EXPECT(a.prob.num == 1 && a.prob.den == 1000);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "p", "1e-6"), 0);
	KTAP_EXPECT(a.prob.num == 1 && a.prob.den == 1000000);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "interval", "+7\n"), 0);
	KTAP_EXPECT_U64_EQ(a.interval, 7);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.count), 0);		/* restarts the interval */
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "times", "12"), 0);
	KTAP_EXPECT_INT_EQ(a.times, 12);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), 12);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "times", "-1"), 0);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), -1);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "space", "65536"), 0);
	KTAP_EXPECT_INT_EQ(a.space, 65536);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), 65536);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "verbose", "1"), 0);
	KTAP_EXPECT_INT_EQ(a.verbose, 1);
	a.verbose = 0;
	run_calls(&a, 7, 0);
	KTAP_EXPECT(drawn(&a) > 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "seed", "0x10"), 0);	/* base 0 */
	KTAP_EXPECT_U64_EQ(a.seed, 16);
	KTAP_EXPECT(a.flags & DMF_SEED_SET);
	KTAP_EXPECT_INT_EQ(drawn(&a), 0);		/* rewinds the generator */
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "seed", "010"), 0);
	KTAP_EXPECT_U64_EQ(a.seed, 8);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "seed", "18446744073709551615\n"), 0);
	KTAP_EXPECT_U64_EQ(a.seed, U64_MAX);
	/* streams: the flag, kept apart from the seed's, and a rewind */
	KTAP_EXPECT_STR_EQ(dmf_attr_streams_name(&a), "shared");
	dmf_attr_draw(&a);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.stream->pos), 1);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "streams", "percpu"), 0);
	KTAP_EXPECT(a.flags == (DMF_SEED_SET | DMF_STREAMS_PERCPU));
	KTAP_EXPECT_STR_EQ(dmf_attr_streams_name(&a), "percpu");
	KTAP_EXPECT_INT_EQ(drawn(&a), 0);
	dmf_attr_draw(&a);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.stream->pos), 0);	/* CPU 0's own stream */
	KTAP_EXPECT_INT_EQ(drawn(&a), 1);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "streams", "shared"), 0);
	KTAP_EXPECT(a.flags == DMF_SEED_SET);
	KTAP_EXPECT_INT_EQ(drawn(&a), 0);
	dmf_attr_destroy(&a);
}

/* dmf_attr_parse_legacy() */

static void test_parse_legacy_good(void)
{
	static const struct {
		const char *in;
		u64 interval, num, den;
		s64 space, times;
	} t[] = {
		{ "1,5,0,-1", 1, 1, 20, 0, -1 },
		{ "100,0.1%,4096,10", 100, 1, 1000, 4096, 10 },
		{ "3,1/3,0,0", 3, 1, 3, 0, 0 },
		{ "1,1e-6,0,5", 1, 1, 1000000, 0, 5 },
		{ "+2,100,1\n,7\n", 2, 1, 1, 1, 7 },
		/* the kernel takes interval 0 as 1 */
		{ "0,5,0,1", 1, 1, 20, 0, 1 },
		/* the longest field that fits: 47 characters */
		{ "1,00000000000000000000000000000000000000000000005,0,1", 1, 1, 20, 0, 1 },
	};
	struct dmf_attr a;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		if (!attr_new(&a, "legacy", "p=1/7,interval=9,times=3,space=8,verbose=2,seed=77"))
			return;
		a.verbose = 0;
		run_calls(&a, 20, 1);
		KTAP_EXPECT_INT_EQ(dmf_attr_parse_legacy(&a, t[i].in), 0);
		ktap_check(a.interval == t[i].interval && a.prob.num == t[i].num &&
			   a.prob.den == t[i].den && a.space == t[i].space && a.times == t[i].times,
			   "\"%s\" read as %llu,%llu/%llu,%lld,%lld", t[i].in, a.interval,
			   a.prob.num, a.prob.den, a.space, a.times);
		/* state restarts from the new configuration */
		KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), t[i].times);
		KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), t[i].space);
		KTAP_EXPECT_INT_EQ(atomic64_read(&a.count), 0);
		KTAP_EXPECT_INT_EQ(drawn(&a), 0);
		/* what the legacy string does not name stays */
		KTAP_EXPECT_U64_EQ(a.seed, 77);
		KTAP_EXPECT(a.flags == DMF_SEED_SET);
		dmf_attr_destroy(&a);
	}
}

static void test_parse_legacy_bad(void)
{
	static const struct {
		const char *in;
		int err;
	} t[] = {
		{ "1,5,0", -EINVAL }, { "1,5,0,-1,7", -EINVAL }, { ",,,", -EINVAL },
		{ "1,5,-3,1", -EINVAL }, { "-1,5,0,1", -EINVAL }, { "", -EINVAL },
		{ "1,5,0,-2", -EINVAL }, { "1,abc,0,1", -EINVAL }, { "1,101,0,1", -ERANGE },
		{ "1, 5,0,1", -EINVAL }, { "1,5,0,1,", -EINVAL }, { ",1,5,0,1", -EINVAL },
		{ "1;5;0;1", -EINVAL }, { "1,5,0,", -EINVAL }, { "1,5,,1", -EINVAL },
		{ "1,2/1,0,1", -ERANGE }, { "1,5,0,1 ", -EINVAL }, { "x,5,0,1", -EINVAL },
		{ "1,0.000000000000000000000000000000000000000000000005,0,1", -EINVAL },
		{ "1,000000000000000000000000000000000000000000000005,0,1", -EINVAL },
		{ "1,5,0,99999999999999999999", -EINVAL },
	};
	struct dmf_ref_snap before;
	struct dmf_attr a;
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		if (!attr_new(&a, "legacy", "p=1/7,interval=9,times=3,space=8,seed=77"))
			return;
		run_calls(&a, 20, 1);
		dmf_ref_snap(&a, &before);
		r = dmf_attr_parse_legacy(&a, t[i].in);
		ktap_check(r == t[i].err, "\"%s\": %d, want %d", t[i].in, r, t[i].err);
		ktap_check(dmf_ref_unchanged(&a, &before), "\"%s\" failed but changed it",
			   t[i].in);
		dmf_attr_destroy(&a);
	}
}

/* Interval 0 in the kernel's syntax: taken as 1; refused in ours. */
static void test_kernel_interval_zero(void)
{
	struct dmf_attr a;

	if (!attr_new(&a, "i0", "p=1/7,interval=9"))
		return;
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "interval", "0"), -EINVAL);
	KTAP_EXPECT_INT_EQ(a.interval, 9);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kernel_interval(&a, "x"), -EINVAL);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kernel_interval(&a, "-1"), -EINVAL);
	KTAP_EXPECT_INT_EQ(a.interval, 9);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kernel_interval(&a, "0"), 0);
	KTAP_EXPECT_INT_EQ(a.interval, 1);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "p", "100"), 0);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 10, 1), 10);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_legacy(&a, "0,100,0,-1"), 0);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 10, 1), 10);
	dmf_attr_destroy(&a);
}

/* dmf_attr_format() */

static void test_attr_format(void)
{
	static const char full[] =
		"p=1/3,interval=7,times=5,space=4096,verbose=2,streams=percpu,"
		"seed=18446744073709551615";
	char buf[160], why[WHY_LEN];
	struct dmf_attr a, b;
	size_t len;
	int n;

	if (!attr_new(&a, "fmt", "seed=42"))
		return;
	n = dmf_attr_format(&a, buf, sizeof(buf));
	KTAP_EXPECT_STR_EQ(buf, "p=0%,seed=42");
	KTAP_EXPECT_INT_EQ(n, strlen("p=0%,seed=42"));
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "times", "0"), 0);
	dmf_attr_format(&a, buf, sizeof(buf));
	KTAP_EXPECT_STR_EQ(buf, "p=0%,times=0,seed=42");
	/* the default stream prints nothing */
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "streams", "shared"), 0);
	dmf_attr_format(&a, buf, sizeof(buf));
	KTAP_EXPECT_STR_EQ(buf, "p=0%,times=0,seed=42");
	dmf_attr_destroy(&a);

	if (!attr_new(&a, "fmt", full))
		return;
	if (!attr_new(&b, "fmt", "")) {
		dmf_attr_destroy(&a);
		return;
	}
	n = dmf_attr_format(&a, buf, sizeof(buf));
	KTAP_EXPECT_STR_EQ(buf, full);
	KTAP_EXPECT_INT_EQ(n, strlen(full));
	ktap_check(dmf_ref_attr_roundtrip(&a, &b, why, sizeof(why)), "%s", why);

	/* a short buffer: scnprintf() semantics, a prefix of the full text */
	for (len = 1; len <= sizeof(full) + 1; len++) {
		memset(buf, 'X', sizeof(buf));
		n = dmf_attr_format(&a, buf, len);
		if (!ktap_check(n == (int)min_t(size_t, len - 1, strlen(full)) &&
				strlen(buf) == (size_t)n && !strncmp(buf, full, n) &&
				buf[len] == 'X', "len %zu: %d \"%s\"", len, n, buf))
			break;
	}
	KTAP_EXPECT_INT_EQ(dmf_attr_format(&a, buf, 0), 0);
	KTAP_EXPECT(buf[0] == 'p');
	dmf_attr_destroy(&a);
	dmf_attr_destroy(&b);
}

static void test_attr_format_roundtrip(void)
{
	char why[WHY_LEN];
	struct dmf_attr a, b;
	int i;

	for (i = 0; i < 20000; i++) {
		u64 den = 1 + rnd_below(rnd_below(2) ? DMF_PROB_MAX_DEN : 1000);

		if (!attr_new(&a, "rt", "") || !attr_new(&b, "rt", ""))
			return;
		dmf_prob_set(&a.prob, rnd_below(den + 1), den);
		a.interval = rnd_below(3) ? 1 + rnd_below(10) : 1 + rnd_below(U64_MAX);
		a.times = rnd_below(3) ? -1 : (s64)rnd_below(S64_MAX);
		a.space = rnd_below(2) ? 0 : (s64)rnd_below(S64_MAX);
		a.verbose = rnd_below(3);
		a.flags = rnd_below(2) ? DMF_STREAMS_PERCPU : 0;
		a.seed = rnd();
		if (!ktap_check(dmf_ref_attr_roundtrip(&a, &b, why, sizeof(why)), "%s", why))
			i = 1 << 30;
		dmf_attr_destroy(&a);
		dmf_attr_destroy(&b);
	}
}

/* Reproducibility */

static const char * const repro_cfgs[] = {
	"p=30%", "p=1e-3,interval=3", "p=50%,times=1000", "p=1/7,space=100000,interval=2",
	"p=99.99%",
};

#define REPRO_CALLS	100000

static void record(struct dmf_attr *a, u8 *out, int n, u64 size)
{
	int i;

	for (i = 0; i < n; i++)
		out[i] = dmf_should_fail(a, size);
}

static void test_reproducible(void)
{
	static u8 x[REPRO_CALLS], y[REPRO_CALLS];
	struct dmf_attr a, b;
	char cfg[128], num[24];
	size_t i;
	u64 seed;

	for (i = 0; i < ARRAY_SIZE(repro_cfgs); i++) {
		seed = rnd();
		snprintf(cfg, sizeof(cfg), "%s,seed=%llu", repro_cfgs[i], seed);
		if (!attr_new(&a, "a", cfg) || !attr_new(&b, "b", cfg))
			return;
		record(&a, x, REPRO_CALLS, 7);
		record(&b, y, REPRO_CALLS, 7);
		ktap_check(!memcmp(x, y, sizeof(x)), "%s: same seed, different faults", cfg);

		/* dmf_attr_reset() replays */
		dmf_attr_reset(&a);
		record(&a, y, REPRO_CALLS, 7);
		ktap_check(!memcmp(x, y, sizeof(x)), "%s: reset does not replay", cfg);

		/* setting the same seed again rewinds the generator */
		dmf_attr_reset(&a);
		record(&a, y, 1000, 7);
		dmf_attr_reset(&a);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)seed);
		KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "seed", num), 0);
		record(&a, y, REPRO_CALLS, 7);
		ktap_check(!memcmp(x, y, sizeof(x)), "%s: seed= again does not replay", cfg);

		/* another seed, other faults */
		dmf_attr_reset(&b);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)seed + 1);
		KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&b, "seed", num), 0);
		record(&b, y, REPRO_CALLS, 7);
		ktap_check(memcmp(x, y, sizeof(x)), "%s: seeds %llu and %llu agree", cfg, seed,
			   seed + 1);
		dmf_attr_destroy(&a);
		dmf_attr_destroy(&b);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The generator: no repeats, balanced bits and nibbles. */
static void test_draws(void)
{
	const int n = 1 << 20;
	u64 *d = calloc(n, sizeof(*d));
	unsigned long bits[64] = { 0 }, nib[16] = { 0 };
	struct dmf_attr a;
	int i, j;

	if (!ktap_check(d, "no memory") || !attr_new(&a, "draws", "seed=3")) {
		free(d);
		return;
	}
	for (i = 0; i < n; i++) {
		d[i] = dmf_attr_draw(&a);
		for (j = 0; j < 64; j++)
			bits[j] += d[i] >> j & 1;
		nib[d[i] >> 60]++;
	}
	KTAP_EXPECT_INT_EQ(drawn(&a), n);
	for (j = 0; j < 64; j++)	/* 5 sigma of Binomial(2^20, 1/2) is 2560 */
		ktap_check(fabs(bits[j] - n / 2.0) < 2560, "bit %d set %lu times", j, bits[j]);
	for (j = 0; j < 16; j++)	/* 5 sigma of Binomial(2^20, 1/16) is 1210 */
		ktap_check(fabs(nib[j] - n / 16.0) < 1210, "top nibble %d: %lu", j, nib[j]);
	qsort(d, n, sizeof(*d), cmp_u64);
	for (i = 1, j = 0; i < n; i++)
		j += d[i] == d[i - 1];
	ktap_check(!j, "%d of %d draws repeat", j, n);
	dmf_attr_destroy(&a);
	free(d);
}

struct drawer {
	struct dmf_attr *a;
	pthread_barrier_t *start;
	u64 *out;
	int cpu;		/* the shim CPU it draws on; 0 is where a thread starts */
	int n;
};

static void *draw_thread(void *arg)
{
	struct drawer *d = arg;
	int i;

	shim_set_cpu(d->cpu);
	pthread_barrier_wait(d->start);
	for (i = 0; i < d->n; i++)
		d->out[i] = dmf_attr_draw(d->a);
	return NULL;
}

/*
 * The one stream: concurrent callers on every CPU share no draw and
 * together take exactly its first N.
 */
static void test_draws_threads(void)
{
	const int per = 100000, n = NTHREADS * per;
	u64 *seq = calloc(n, sizeof(*seq)), *par = calloc(n, sizeof(*par));
	struct drawer d[NTHREADS];
	pthread_t tid[NTHREADS];
	pthread_barrier_t start;
	struct dmf_attr a;
	int i;

	if (!ktap_check(seq && par, "no memory") || !attr_new(&a, "draws", "seed=77"))
		goto out;
	for (i = 0; i < n; i++)
		seq[i] = dmf_attr_draw(&a);
	dmf_attr_reset(&a);
	shim_race_delay = 200;
	pthread_barrier_init(&start, NULL, NTHREADS);
	for (i = 0; i < NTHREADS; i++) {
		d[i] = (struct drawer){ .a = &a, .start = &start, .out = par + i * per,
				     .cpu = i % SHIM_NR_CPUS, .n = per };
		if (pthread_create(&tid[i], NULL, draw_thread, &d[i]))
			abort();
	}
	for (i = 0; i < NTHREADS; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&start);
	shim_race_delay = 0;
	KTAP_EXPECT_INT_EQ(drawn(&a), n);
	qsort(seq, n, sizeof(*seq), cmp_u64);
	qsort(par, n, sizeof(*par), cmp_u64);
	ktap_check(!memcmp(seq, par, n * sizeof(*seq)),
		   "threads drew other values than the first %d", n);
	dmf_attr_destroy(&a);
out:
	free(seq);
	free(par);
}

/*
 * One stream a CPU: callers pinned to CPUs of their own, drawing at the
 * same time, each get exactly what a lone caller on that CPU gets, and no
 * value twice.  Clearing the counters leaves the streams where they are.
 */
static void test_draws_per_cpu(void)
{
	const int per = 50000, n = SHIM_NR_CPUS * per;
	u64 *alone = calloc(n, sizeof(u64)), *par = calloc(n, sizeof(u64)), next;
	struct drawer d[SHIM_NR_CPUS];
	pthread_t tid[SHIM_NR_CPUS];
	pthread_barrier_t start;
	struct dmf_attr a;
	int i, cpu, rep = 0;

	if (!ktap_check(alone && par, "no memory") ||
	    !attr_new(&a, "draws", "seed=99,streams=percpu"))
		goto out;
	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++) {
		shim_set_cpu(cpu);
		for (i = 0; i < per; i++)
			alone[cpu * per + i] = dmf_attr_draw(&a);
	}
	shim_set_cpu(0);
	KTAP_EXPECT_INT_EQ(drawn(&a), n);
	/* CPU 1's stream does not start where CPU 0's does */
	ktap_check(alone[0] != alone[per], "CPUs 0 and 1 drew the same first value");
	dmf_attr_reset(&a);
	pthread_barrier_init(&start, NULL, SHIM_NR_CPUS);
	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++) {
		d[cpu] = (struct drawer){ .a = &a, .start = &start, .out = par + cpu * per,
				       .cpu = cpu, .n = per };
		if (pthread_create(&tid[cpu], NULL, draw_thread, &d[cpu]))
			abort();
	}
	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++)
		pthread_join(tid[cpu], NULL);
	pthread_barrier_destroy(&start);
	ktap_check(!memcmp(alone, par, n * sizeof(u64)),
		   "pinned callers drew other values than lone ones");
	/* the counters are cleared, the position is kept */
	dmf_attr_clear_counters(&a);
	next = dmf_attr_draw(&a);
	dmf_attr_reset(&a);
	for (i = 0; i <= per; i++)
		alone[0] = dmf_attr_draw(&a);
	KTAP_EXPECT_U64_EQ(next, alone[0]);
	qsort(par, n, sizeof(u64), cmp_u64);
	for (i = 1; i < n; i++)
		rep += par[i] == par[i - 1];
	ktap_check(!rep, "%d of %d draws repeat across CPUs", rep, n);
	dmf_attr_destroy(&a);
out:
	free(alone);
	free(par);
}

/*
 * The one stream replays wherever the caller runs: a caller that moves to
 * another CPU at every draw gets what one that stays on CPU 0 gets, and
 * that is the stream of positions 0, 1, 2, ...; with streams=percpu the
 * same moves give other draws.
 */
static void test_draws_any_cpu(void)
{
	const int n = 4096;
	u64 *still = calloc(n, sizeof(u64)), *moved = calloc(n, sizeof(u64));
	struct dmf_attr a, b;
	int i, same = 0;

	if (!ktap_check(still && moved, "no memory") || !attr_new(&a, "draws", "seed=424242"))
		goto out;
	for (i = 0; i < n; i++)
		still[i] = dmf_attr_draw(&a);
	dmf_attr_reset(&a);
	for (i = 0; i < n; i++) {
		shim_set_cpu(i * 7 / 3 % SHIM_NR_CPUS);
		moved[i] = dmf_attr_draw(&a);
	}
	shim_set_cpu(0);
	ktap_check(!memcmp(still, moved, n * sizeof(u64)),
		   "a caller moving between CPUs drew other values");
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.stream->pos), n);
	if (attr_new(&b, "draws", "seed=424242,streams=percpu")) {
		for (i = 0; i < n; i++) {
			shim_set_cpu(i * 7 / 3 % SHIM_NR_CPUS);
			same += dmf_attr_draw(&b) == still[i];
		}
		shim_set_cpu(0);
		ktap_check(same < n / 2, "streams=percpu: %d of %d moved draws as on one CPU",
			   same, n);
		dmf_attr_destroy(&b);
	}
	dmf_attr_destroy(&a);
out:
	free(still);
	free(moved);
}

/* Measured failure rates within 5 sigma of the binomial mean. */
static void test_failure_rate(void)
{
	static const struct {
		const char *p;
		double prob;
		unsigned long calls;
	} t[] = {
		{ "50%", 0.5, 1000000 }, { "1%", 0.01, 1000000 }, { "0.01%", 0.0001, 4000000 },
		{ "1/3", 1.0 / 3, 1000000 }, { "1e-5", 1e-5, 4000000 },
	};
	static const u64 seeds[] = { 1, 0xdeadbeef, 12345678901234567ULL };
	struct dmf_attr a;
	char cfg[96];
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		for (j = 0; j < ARRAY_SIZE(seeds); j++) {
			double mean = t[i].calls * t[i].prob;
			double sigma = sqrt(mean * (1 - t[i].prob));
			unsigned long got;

			snprintf(cfg, sizeof(cfg), "p=%s,seed=%llu", t[i].p, seeds[j]);
			if (!attr_new(&a, "rate", cfg))
				return;
			got = run_calls(&a, t[i].calls, 0);
			ktap_check(fabs(got - mean) <= 5 * sigma,
				   "%s: %lu of %lu failed, want %.0f +- %.0f", cfg, got,
				   t[i].calls, mean, 5 * sigma);
			counters_are(&a, t[i].calls, t[i].calls, got);
			dmf_attr_destroy(&a);
		}
	}
}

/* interval, times, space */

static void test_interval_exact(void)
{
	static const u64 intervals[] = { 1, 2, 3, 7, 1000 };
	struct dmf_attr a;
	char cfg[64];
	size_t i;
	unsigned long n, calls, want;
	bool f;

	for (i = 0; i < ARRAY_SIZE(intervals); i++) {
		snprintf(cfg, sizeof(cfg), "p=100%%,interval=%llu", intervals[i]);
		if (!attr_new(&a, "interval", cfg))
			return;
		calls = 20 * intervals[i] + 5;
		for (n = 1; n <= calls; n++) {
			f = dmf_should_fail(&a, 0);
			if (!ktap_check(f == !(n % intervals[i]), "%s: call %lu gave %d", cfg, n,
					f))
				break;
		}
		want = calls / intervals[i];
		counters_are(&a, calls, calls, want);
		dmf_attr_destroy(&a);
	}

	/* with a probability, only every 4th call draws, and only those can fail */
	if (!attr_new(&a, "interval", "p=50%,interval=4,seed=11"))
		return;
	for (n = 1; n <= 40000; n++) {
		f = dmf_should_fail(&a, 0);
		if (!ktap_check(!f || n % 4 == 0, "call %lu failed off the interval", n))
			break;
	}
	KTAP_EXPECT_INT_EQ(drawn(&a), 10000);
	/* a new interval restarts the count */
	dmf_should_fail(&a, 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "interval", "2"), 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "p", "100"), 0);
	KTAP_EXPECT(!dmf_should_fail(&a, 0));
	KTAP_EXPECT(dmf_should_fail(&a, 0));
	dmf_attr_destroy(&a);
}

static void test_times_exact(void)
{
	struct dmf_attr a;
	int n;

	if (!attr_new(&a, "times", "p=100%,times=5"))
		return;
	for (n = 1; n <= 1000; n++)
		if (!ktap_check(dmf_should_fail(&a, 0) == (n <= 5), "call %d", n))
			break;
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), 0);
	counters_are(&a, 1000, 5, 5);	/* exhausted calls do not pass */
	dmf_attr_reset(&a);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 1000, 0), 5);

	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "times", "0"), 0);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 1000, 0), 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "times", "-1"), 0);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 1000, 0), 1000);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), -1);

	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "p", "1/2"), 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "times", "17"), 0);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 10000, 0), 17);
	dmf_attr_destroy(&a);
}

struct hammer {
	struct dmf_attr *a;
	pthread_barrier_t *start;
	unsigned long calls;
	u64 size;
	int cpu;		/* -1: the shim's choice */
	unsigned long failed;
	unsigned long passed_after_fault;
	bool saw_fault;
};

static void *hammer_thread(void *arg)
{
	struct hammer *h = arg;
	unsigned long i;

	if (h->cpu >= 0)
		shim_set_cpu(h->cpu);
	pthread_barrier_wait(h->start);
	for (i = 0; i < h->calls; i++) {
		if (dmf_should_fail(h->a, h->size)) {
			h->failed++;
			h->saw_fault = true;
		} else if (h->saw_fault) {
			h->passed_after_fault++;
		}
	}
	return NULL;
}

/* Run @nthreads hammers of @calls each; returns the total of faults seen. */
static unsigned long hammer(struct dmf_attr *a, int nthreads, unsigned long calls, u64 size,
			    bool pin, struct hammer *h)
{
	pthread_t tid[NTHREADS];
	pthread_barrier_t start;
	unsigned long failed = 0;
	int i;

	shim_race_delay = 200;
	pthread_barrier_init(&start, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		h[i] = (struct hammer){ .a = a, .start = &start, .calls = calls, .size = size,
					.cpu = pin ? i % SHIM_NR_CPUS : -1 };
		if (pthread_create(&tid[i], NULL, hammer_thread, &h[i]))
			abort();
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(tid[i], NULL);
		failed += h[i].failed;
	}
	pthread_barrier_destroy(&start);
	shim_race_delay = 0;
	return failed;
}

static void test_times_threads(void)
{
	static const char * const cfgs[] = { "p=50%,times=1000", "p=100%,times=12345",
					     "p=1/3,interval=3,times=777", "p=100%,times=1" };
	static const s64 times[] = { 1000, 12345, 777, 1 };
	struct hammer h[NTHREADS];
	struct dmf_counters c;
	struct dmf_attr a;
	unsigned long got;
	size_t i;
	int round;

	for (i = 0; i < ARRAY_SIZE(cfgs); i++) {
		if (!attr_new(&a, "times", cfgs[i]))
			return;
		for (round = 0; round < 5; round++) {
			dmf_attr_reset(&a);
			dmf_attr_clear_counters(&a);
			got = hammer(&a, NTHREADS, 40000, 0, false, h);
			ktap_check(got == (unsigned long)times[i], "%s round %d: %lu faults",
				   cfgs[i], round, got);
			KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), 0);
			/* passed is not exact here: a call may pass before times runs out */
			dmf_attr_counters(&a, &c);
			ktap_check(c.evaluated == NTHREADS * 40000UL && c.injected == got &&
				   c.passed >= got, "counters %llu/%llu/%llu", c.evaluated,
				   c.passed, c.injected);
		}
		dmf_attr_destroy(&a);
	}
}

static void test_space_exact(void)
{
	struct dmf_attr a;
	int n;

	if (!attr_new(&a, "space", "p=100%,space=10000"))
		return;
	/* as the kernel: a call passes while more than its size is left */
	for (n = 1; n <= 300; n++)
		if (!ktap_check(dmf_should_fail(&a, 100) == (n >= 100), "call %d", n))
			break;
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), 100);

	/* a smaller request passes again while it fits */
	KTAP_EXPECT(!dmf_should_fail(&a, 99));
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), 1);
	KTAP_EXPECT(dmf_should_fail(&a, 1));
	KTAP_EXPECT(!dmf_should_fail(&a, 0));
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), 1);

	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "space", "1000"), 0);
	KTAP_EXPECT(!dmf_should_fail(&a, 600));
	KTAP_EXPECT(dmf_should_fail(&a, 600));
	KTAP_EXPECT(!dmf_should_fail(&a, 100));
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), 300);

	/* space is not consumed by calls that cannot fail */
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "space", "1000"), 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "p", "0"), 0);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 10, 10), 0);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), 1000);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "p", "100"), 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "times", "0"), 0);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 10, 10), 0);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), 1000);

	/* space 0 turns the budget off */
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "times", "-1"), 0);
	KTAP_EXPECT_INT_EQ(dmf_attr_parse_kv(&a, "space", "0"), 0);
	KTAP_EXPECT_INT_EQ(run_calls(&a, 10, 1ULL << 40), 10);
	dmf_attr_destroy(&a);
}

static void test_space_threads(void)
{
	static const struct {
		s64 space;
		u64 size;
	} t[] = { { 1000000, 64 }, { 1000001, 64 }, { 999999, 4096 }, { 65, 64 }, { 64, 64 } };
	struct hammer h[NTHREADS];
	struct dmf_attr a;
	unsigned long got, want, after;
	char cfg[64];
	size_t i;
	int j;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		want = t[i].space > (s64)t[i].size ? (t[i].space - 1) / t[i].size : 0;
		snprintf(cfg, sizeof(cfg), "p=100%%,space=%lld", t[i].space);
		if (!attr_new(&a, "space", cfg))
			return;
		got = hammer(&a, NTHREADS, 5000, t[i].size, false, h);
		after = 0;
		for (j = 0; j < NTHREADS; j++)
			after += h[j].passed_after_fault;
		ktap_check(NTHREADS * 5000UL - got == want, "%s size %llu: %lu passed, want %lu",
			   cfg, t[i].size, NTHREADS * 5000UL - got, want);
		KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), t[i].space - want * t[i].size);
		ktap_check(!after, "%s: %lu calls passed after a fault", cfg, after);
		dmf_attr_destroy(&a);
	}

	/* a budget that lasts: every call takes its bytes, none is lost */
	if (!attr_new(&a, "space", "p=100%,space=1099511627776"))
		return;
	got = hammer(&a, NTHREADS, 200000, 3, false, h);
	KTAP_EXPECT_INT_EQ(got, 0);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), (1LL << 40) - NTHREADS * 200000LL * 3);
	dmf_attr_destroy(&a);
}

/* Counters */

static void test_counters_single(void)
{
	struct dmf_attr a;
	int i;

	if (!attr_new(&a, "counters", "p=0"))
		return;
	run_calls(&a, 10, 0);
	counters_are(&a, 10, 0, 0);			/* p = 0 stops first */
	dmf_attr_parse_kv(&a, "p", "100");
	dmf_attr_parse_kv(&a, "times", "3");
	run_calls(&a, 10, 0);
	counters_are(&a, 20, 3, 3);			/* then times runs out */
	dmf_attr_parse_kv(&a, "times", "-1");
	dmf_attr_parse_kv(&a, "interval", "2");
	run_calls(&a, 10, 0);
	counters_are(&a, 30, 13, 8);			/* interval: passed, not injected */
	dmf_attr_parse_kv(&a, "interval", "1");
	dmf_attr_parse_kv(&a, "space", "100");
	run_calls(&a, 10, 10);
	counters_are(&a, 40, 23, 9);			/* space: 9 pass, the 10th fails */

	for (i = 0; i < 10; i++)
		dmf_count_filtered(&a);
	counters_are(&a, 50, 23, 9);			/* the injector's filter stops it */
	dmf_attr_parse_kv(&a, "p", "0");
	for (i = 0; i < 10; i++)
		dmf_force_fail(&a);
	counters_are(&a, 60, 33, 19);			/* forced: passed and injected */

	dmf_attr_clear_counters(&a);
	counters_are(&a, 0, 0, 0);
	dmf_attr_destroy(&a);
}

static void test_counters_threads(void)
{
	struct hammer h[NTHREADS];
	struct dmf_counters c;
	struct dmf_attr a;
	unsigned long got;
	int cpu;

	if (!attr_new(&a, "counters", "p=37%,seed=5"))
		return;
	got = hammer(&a, NTHREADS, 100000, 0, true, h);
	counters_are(&a, NTHREADS * 100000UL, NTHREADS * 100000UL, got);
	KTAP_EXPECT_INT_EQ(drawn(&a), NTHREADS * 100000L);
	/* two threads on each CPU: the per-CPU parts are summed */
	for_each_possible_cpu(cpu)
		KTAP_EXPECT_U64_EQ(per_cpu_ptr(a.stats, cpu)->evaluated,
				   NTHREADS / SHIM_NR_CPUS * 100000UL);
	dmf_attr_counters(&a, &c);
	KTAP_EXPECT(c.injected > 0 && c.injected < c.passed);
	dmf_attr_clear_counters(&a);
	counters_are(&a, 0, 0, 0);
	dmf_attr_destroy(&a);
}

/* What an injector filters or forces itself (the allocator hooks' task filter, fail-nth) */

static void test_count_filtered(void)
{
	struct dmf_attr a;
	int i;

	if (!attr_new(&a, "filtered", "p=100%,interval=2,times=5,space=100"))
		return;
	for (i = 0; i < 10; i++)
		dmf_count_filtered(&a);
	counters_are(&a, 10, 0, 0);
	/* nothing but the counters: no interval, times, space or draw */
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.count), 0);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), 5);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), 100);
	KTAP_EXPECT_INT_EQ(drawn(&a), 0);
	dmf_attr_destroy(&a);
}

static void test_force_fail(void)
{
	struct dmf_attr a;
	int i;

	if (!attr_new(&a, "forced", "p=0,times=0"))
		return;
	/* whatever p and times say */
	for (i = 0; i < 10; i++)
		dmf_force_fail(&a);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), 0);
	KTAP_EXPECT_INT_EQ(drawn(&a), 0);
	counters_are(&a, 10, 10, 10);

	/* a forced fault uses up one of times, never below 0, as the kernel's fail-nth */
	dmf_attr_parse_kv(&a, "times", "3");
	for (i = 0; i < 2; i++)
		dmf_force_fail(&a);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), 1);
	for (i = 0; i < 3; i++)
		dmf_force_fail(&a);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), 0);
	dmf_attr_parse_kv(&a, "times", "-1");
	dmf_force_fail(&a);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.times_left), -1);

	/* and leaves interval, space and the generator where they were */
	dmf_attr_parse_kv(&a, "p", "100");
	dmf_attr_parse_kv(&a, "interval", "3");
	dmf_attr_parse_kv(&a, "space", "10");
	dmf_force_fail(&a);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.count), 0);
	KTAP_EXPECT_INT_EQ(atomic64_read(&a.space_left), 10);
	KTAP_EXPECT_INT_EQ(drawn(&a), 0);
	dmf_attr_destroy(&a);
}

/*
 * A probability changed while threads decide: each decision sees the old
 * value or the new one (p = 0 or p = 1 here, so no draw can hide a torn
 * read), and dmf_prob_is_zero() agrees with what it reads.
 */
static bool publish_stop;

static void *publish_reader(void *arg)
{
	struct dmf_attr *a = arg;

	while (!__atomic_load_n(&publish_stop, __ATOMIC_RELAXED))
		dmf_should_fail(a, 0);
	return NULL;
}

static void test_prob_publish(void)
{
	struct dmf_prob zero, one, third;
	struct dmf_counters c;
	pthread_t tid[4];
	struct dmf_attr a;
	int i;

	if (!attr_new(&a, "publish", "p=0"))
		return;
	KTAP_EXPECT_INT_EQ(dmf_prob_set(&zero, 0, 1), 0);
	KTAP_EXPECT_INT_EQ(dmf_prob_set(&one, 1, 1), 0);
	KTAP_EXPECT_INT_EQ(dmf_prob_set(&third, 1, 3), 0);
	dmf_prob_publish(&a.prob, &third);
	KTAP_EXPECT(a.prob.num == 1 && a.prob.den == 3 && a.prob.thresh == third.thresh);
	KTAP_EXPECT(!dmf_prob_is_zero(&a.prob) && dmf_prob_is_zero(&zero));
	/* thresh alone tells the extremes: only 0 maps to 0, only 1 to U64_MAX */
	KTAP_EXPECT_INT_EQ(dmf_prob_set(&third, 1, DMF_PROB_MAX_DEN), 0);
	KTAP_EXPECT(third.thresh > 0);
	KTAP_EXPECT_INT_EQ(dmf_prob_set(&third, DMF_PROB_MAX_DEN - 1, DMF_PROB_MAX_DEN), 0);
	KTAP_EXPECT(third.thresh < U64_MAX);

	dmf_prob_publish(&a.prob, &zero);
	publish_stop = false;
	for (i = 0; i < 4; i++)
		if (pthread_create(&tid[i], NULL, publish_reader, &a))
			abort();
	for (i = 0; i < 20000; i++)
		dmf_prob_publish(&a.prob, i & 1 ? &zero : &one);
	__atomic_store_n(&publish_stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < 4; i++)
		pthread_join(tid[i], NULL);
	dmf_attr_counters(&a, &c);
	/* p = 1 never draws: a draw would mean a thresh that was neither */
	KTAP_EXPECT_INT_EQ(drawn(&a), 0);
	KTAP_EXPECT(c.injected == c.passed);
	dmf_attr_destroy(&a);
}

/* Stack filter */

static void test_stack_filter(void)
{
	static const unsigned long stack[] = { 0x1000, 0x2000, 0x3000, 0x4000 };
	static const struct {
		unsigned int depth;
		struct dmf_range req0, req5, rej0, rej7;
		bool passes;
	} t[] = {
		{ 4, { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, true },		/* no ranges */
		{ 4, { 0x2000, 0x2001 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, true },	/* hit */
		{ 4, { 0x2001, 0x3000 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, false },	/* miss */
		{ 4, { 0x1fff, 0x2000 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, false },	/* end excl. */
		{ 4, { 0x4000, 0x4001 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, true },	/* last entry */
		{ 4, { 0, 0 }, { 0x3000, 0x3fff }, { 0, 0 }, { 0, 0 }, true },	/* 6th slot */
		{ 4, { 0x2000, 0x2000 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, true },	/* empty range */
		{ 4, { 0x3000, 0x2000 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, true },	/* inverted */
		{ 4, { 0x2000, 0x2001 }, { 0, 0 }, { 0x3000, 0x3001 }, { 0, 0 }, false },
		{ 4, { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0x1000, 0x1001 }, false },	/* reject */
		{ 4, { 0, 0 }, { 0, 0 }, { 0x5000, 0x6000 }, { 0, 0 }, true },	/* no reject */
		{ 2, { 0x3000, 0x3001 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, false },	/* too deep */
		{ 2, { 0, 0 }, { 0, 0 }, { 0x3000, 0x3001 }, { 0, 0 }, true },
		{ 100, { 0x4000, 0x4001 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, true },
		{ 0, { 0x9000, 0x9001 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, true },	/* disabled */
		{ 0, { 0, 0 }, { 0, 0 }, { 0x1000, 0x5000 }, { 0, 0 }, true },
	};
	unsigned long deep[DMF_STACK_DEPTH_MAX + 1] = { };
	struct dmf_stack_filter f;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		memset(&f, 0, sizeof(f));
		f.depth = t[i].depth;
		f.require[0] = t[i].req0;
		f.require[5] = t[i].req5;
		f.reject[0] = t[i].rej0;
		f.reject[7] = t[i].rej7;
		ktap_check(dmf_stack_allows(&f, stack, ARRAY_SIZE(stack)) == t[i].passes,
			   "case %zu", i);
	}
	/* fewer entries than depth: only those */
	memset(&f, 0, sizeof(f));
	f.depth = 4;
	f.require[0] = (struct dmf_range){ 0x4000, 0x4001 };
	KTAP_EXPECT(!dmf_stack_allows(&f, stack, 3));
	KTAP_EXPECT(dmf_stack_allows(&f, stack, 4));
	/* no entry at all: no require range met, no reject range hit */
	KTAP_EXPECT(!dmf_stack_allows(&f, stack, 0));
	f.require[0] = (struct dmf_range){ 0, 0 };
	f.reject[0] = (struct dmf_range){ 0x1000, 0x1001 };
	KTAP_EXPECT(dmf_stack_allows(&f, stack, 0));
	/* depth is capped at DMF_STACK_DEPTH_MAX */
	deep[DMF_STACK_DEPTH_MAX - 1] = 0x7000;
	deep[DMF_STACK_DEPTH_MAX] = 0x8000;
	memset(&f, 0, sizeof(f));
	f.depth = 1000;
	f.require[0] = (struct dmf_range){ 0x7000, 0x7001 };
	KTAP_EXPECT(dmf_stack_allows(&f, deep, ARRAY_SIZE(deep)));
	f.require[0] = (struct dmf_range){ 0x8000, 0x8001 };
	KTAP_EXPECT(!dmf_stack_allows(&f, deep, ARRAY_SIZE(deep)));
}

/* Logging */

/* n decisions, each fault logged with the engine's line, as the dm target does */
static void run_logged(struct dmf_attr *a, unsigned long n)
{
	while (n--)
		if (dmf_should_fail(a, 0))
			dmf_log_fault(a);
}

static void test_verbose_log(void)
{
	unsigned long printed, stacks;
	struct dmf_attr a;

	shim_quiet = true;
	if (!attr_new(&a, "vtest", "p=100%,seed=4242,verbose=0"))
		goto out;
	printed = shim_printk_count;
	run_logged(&a, 100);
	KTAP_EXPECT_INT_EQ(shim_printk_count - printed, 0);

	a.verbose = 1;
	stacks = shim_dump_stack_count;
	run_logged(&a, 100);
	KTAP_EXPECT_INT_EQ(shim_printk_count - printed, DEFAULT_RATELIMIT_BURST);
	KTAP_EXPECT_INT_EQ(shim_dump_stack_count, stacks);
	ktap_check(strstr(shim_printk_last, "dmf: vtest: injecting fault") &&
		   strstr(shim_printk_last, "seed 4242"), "logged \"%s\"", shim_printk_last);

	/* the next interval logs again, verbose 2 with a stack */
	shim_jiffies_offset += DEFAULT_RATELIMIT_INTERVAL + 1;
	a.verbose = 2;
	run_logged(&a, 100);
	KTAP_EXPECT_INT_EQ(shim_printk_count - printed, 2 * DEFAULT_RATELIMIT_BURST);
	KTAP_EXPECT_INT_EQ(shim_dump_stack_count - stacks, DEFAULT_RATELIMIT_BURST);
	dmf_attr_destroy(&a);

	/* an attribute without a name */
	if (!attr_new(&a, NULL, "p=100%,verbose=1"))
		goto out;
	run_logged(&a, 1);
	ktap_check(strstr(shim_printk_last, "dmf: ?: injecting"), "logged \"%s\"",
		   shim_printk_last);
	dmf_attr_destroy(&a);

	/* the decision itself logs nothing, a forced fault neither: the caller does */
	if (!attr_new(&a, "own", "p=100%,verbose=2"))
		goto out;
	shim_jiffies_offset += DEFAULT_RATELIMIT_INTERVAL + 1;
	printed = shim_printk_count;
	stacks = shim_dump_stack_count;
	KTAP_EXPECT_INT_EQ(run_calls(&a, 10, 0), 10);
	dmf_force_fail(&a);
	KTAP_EXPECT_INT_EQ(shim_printk_count, printed);
	KTAP_EXPECT_INT_EQ(shim_dump_stack_count, stacks);
	counters_are(&a, 11, 11, 11);
	dmf_attr_destroy(&a);
out:
	shim_quiet = false;
}

/* The shim's kstrtox must be the kernel's for the parse_kv tests to mean anything. */
static void test_shim_kstrtox(void)
{
	static const struct {
		const char *s;
		unsigned int base;
		int err;
		unsigned long long v;
	} u[] = {
		{ "0", 10, 0, 0 }, { "18446744073709551615", 10, 0, U64_MAX },
		{ "18446744073709551616", 10, -ERANGE, 0 }, { "0x", 0, -EINVAL, 0 },
		{ "0x", 16, -EINVAL, 0 }, { "0X", 0, -EINVAL, 0 }, { "0 ", 0, -EINVAL, 0 },
		{ "1+", 0, -EINVAL, 0 }, { " 2", 0, -EINVAL, 0 }, { "0x0z", 0, -EINVAL, 0 },
		{ "0z", 0, -EINVAL, 0 }, { "a", 0, -EINVAL, 0 }, { "8", 8, -EINVAL, 0 },
		{ "a", 10, -EINVAL, 0 }, { "g", 16, -EINVAL, 0 }, { "-0", 0, -EINVAL, 0 },
		{ "-1", 10, -EINVAL, 0 }, { "-+1", 10, -EINVAL, 0 }, { "0\n0", 10, -EINVAL, 0 },
		{ "0\n", 0, 0, 0 }, { "\n", 10, -EINVAL, 0 }, { "+", 10, -EINVAL, 0 },
		{ "+1", 10, 0, 1 }, { "0xffffffffffffffff", 16, 0, U64_MAX },
		{ "ffffffffffffffff", 16, 0, U64_MAX }, { "10000000000000000", 16, -ERANGE, 0 },
		{ "01777777777777777777777", 8, 0, U64_MAX },
		{ "2000000000000000000000", 8, -ERANGE, 0 },
		{ "0777", 0, 0, 0777 }, { "0x1F", 0, 0, 0x1f }, { "0xg", 0, -EINVAL, 0 },
		{ "1\n\n", 10, -EINVAL, 0 }, { "", 10, -EINVAL, 0 },
	};
	static const struct {
		const char *s;
		int err;
		long long v;
	} l[] = {
		{ "-9223372036854775808", 0, S64_MIN }, { "9223372036854775807", 0, S64_MAX },
		{ "9223372036854775808", -ERANGE, 0 }, { "-9223372036854775809", -ERANGE, 0 },
		{ "-0", 0, 0 }, { "-", -EINVAL, 0 }, { "+-1", -EINVAL, 0 }, { "-+1", -EINVAL, 0 },
		{ "--1", -EINVAL, 0 }, { "-1\n", 0, -1 }, { "+1", 0, 1 },
		{ "-18446744073709551616", -ERANGE, 0 },
	};
	unsigned long long uv;
	long long lv;
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(u); i++) {
		uv = 12345;
		r = kstrtoull(u[i].s, u[i].base, &uv);
		ktap_check(r == u[i].err && uv == (r ? 12345 : u[i].v),
			   "kstrtoull(\"%s\", %u): %d %llu", u[i].s, u[i].base, r, uv);
	}
	for (i = 0; i < ARRAY_SIZE(l); i++) {
		lv = 12345;
		r = kstrtoll(l[i].s, 10, &lv);
		ktap_check(r == l[i].err && lv == (r ? 12345 : l[i].v),
			   "kstrtoll(\"%s\"): %d %lld", l[i].s, r, lv);
	}
}

/* Last: every test released what it took and nothing warned. */
static void test_no_leaks(void)
{
	KTAP_EXPECT_INT_EQ(shim_allocs_live(), 0);
	KTAP_EXPECT_INT_EQ(shim_warnings, 0);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_prob_parse_accepts),
	KTAP_CASE(test_prob_parse_rejects),
	KTAP_CASE(test_prob_parse_exhaustive),
	KTAP_CASE(test_prob_parse_reference),
	KTAP_CASE(test_prob_set),
	KTAP_CASE(test_prob_threshold),
	KTAP_CASE(test_prob_decides_by_threshold),
	KTAP_CASE(test_prob_format),
	KTAP_CASE(test_prob_format_roundtrip),
	KTAP_CASE(test_attr_init_defaults),
	KTAP_CASE(test_attr_init_enomem),
	KTAP_CASE(test_parse_kv_errors),
	KTAP_CASE(test_parse_kv_values),
	KTAP_CASE(test_parse_legacy_good),
	KTAP_CASE(test_parse_legacy_bad),
	KTAP_CASE(test_kernel_interval_zero),
	KTAP_CASE(test_attr_format),
	KTAP_CASE(test_attr_format_roundtrip),
	KTAP_CASE(test_reproducible),
	KTAP_CASE(test_draws),
	KTAP_CASE(test_draws_threads),
	KTAP_CASE(test_draws_per_cpu),
	KTAP_CASE(test_draws_any_cpu),
	KTAP_CASE(test_failure_rate),
	KTAP_CASE(test_interval_exact),
	KTAP_CASE(test_times_exact),
	KTAP_CASE(test_times_threads),
	KTAP_CASE(test_space_exact),
	KTAP_CASE(test_space_threads),
	KTAP_CASE(test_counters_single),
	KTAP_CASE(test_counters_threads),
	KTAP_CASE(test_count_filtered),
	KTAP_CASE(test_force_fail),
	KTAP_CASE(test_prob_publish),
	KTAP_CASE(test_stack_filter),
	KTAP_CASE(test_verbose_log),
	KTAP_CASE(test_shim_kstrtox),
	KTAP_CASE(test_no_leaks),
};

int main(void)
{
	return ktap_run("dmf-engine", cases, ARRAY_SIZE(cases));
}
