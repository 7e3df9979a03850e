// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host tests of the fault target's rule text (drivers/md/dm-fault-parse.c,
 * compiled unchanged against the shim): every key, the checks between keys,
 * malformed input, and the printed form parsing back to the same rule.
 */
#include "../../drivers/md/dm-fault-rule.h"
#include "ktap.h"

static int parse(const char *text, struct fault_rule_cfg *cfg, const char **err)
{
	struct fault_rule_err e = { };
	int r;

	r = fault_rule_cfg_init(cfg);
	if (r)
		return r;
	r = fault_rule_cfg_parse(cfg, text, &e);
	*err = e.reason;
	return r;
}

/* Parse, print, parse the print, print again: both prints agree. */
static void roundtrip(const char *text)
{
	struct fault_rule_cfg a, b;
	char pa[512], pb[512];
	const char *err;
	int r;

	r = parse(text, &a, &err);
	ktap_check(!r, "'%s' rejected: %s", text, err ? err : "?");
	if (r) {
		fault_rule_cfg_destroy(&a);
		return;
	}
	fault_rule_cfg_format(&a, pa, sizeof(pa));
	r = parse(pa, &b, &err);
	ktap_check(!r, "printed '%s' rejected: %s", pa, err ? err : "?");
	fault_rule_cfg_format(&b, pb, sizeof(pb));
	ktap_check(!strcmp(pa, pb), "'%s' printed '%s' then '%s'", text, pa, pb);
	fault_rule_cfg_destroy(&a);
	fault_rule_cfg_destroy(&b);
}

static void test_roundtrip(void)
{
	static const char * const rules[] = {
		"error",
		"error:op=read,p=1%,seed=1",
		"error:op=read+flush,sectors=8-15,status=enospc,p=0.1%,times=5,seed=1",
		"drop:size=4k-64k,interval=3,seed=2",
		"drop:op=write+flush+discard+write-zeroes,up=0,down=180",
		"corrupt:op=write,bits=3,p=1/3,seed=3",
		"corrupt:byte=255,offset=17",
		"delay:op=write,delay=2ms,jitter=500us,dist=exp,enabled=0,seed=4",
		"delay:delay=1500ns",
		"delay:jitter=2s",
		"stall:op=read,timeout=300ms",
		"torn:keep=8,status=ok",
		"torn:op=fua",
		"error:id=7,skip=3,after=5,verbose=2,space=4096",
		"error:status=medium",
		"error:status=enolink",
		"error:p=1e-6",
		"error:op=read,p=3%,streams=percpu,seed=424242",
		"drop:p=50%,interval=2,verbose=1,streams=percpu",
		/* table_fuzz: any+fua was printed as op=any, which reads back without fua */
		"error:op=read+any+fua",
	};
	struct fault_rule_cfg cfg;
	const char *err;
	char out[512];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rules); i++)
		roundtrip(rules[i]);
	if (!parse("error:op=read+any+fua,seed=1", &cfg, &err)) {
		fault_rule_cfg_format(&cfg, out, sizeof(out));
		KTAP_EXPECT(!strncmp(out, "error:op=any+fua,", 17));
	}
	fault_rule_cfg_destroy(&cfg);
	/* the default stream prints nothing: a table line prints as it always has */
	if (!parse("error:op=read,p=3%,streams=shared,seed=424242", &cfg, &err)) {
		fault_rule_cfg_format(&cfg, out, sizeof(out));
		KTAP_EXPECT_STR_EQ(out, "error:op=read,p=3%,seed=424242");
	}
	fault_rule_cfg_destroy(&cfg);
	if (!parse("error:streams=percpu,op=read,seed=1,p=3%", &cfg, &err)) {
		fault_rule_cfg_format(&cfg, out, sizeof(out));
		KTAP_EXPECT_STR_EQ(out, "error:op=read,p=3%,streams=percpu,seed=1");
		KTAP_EXPECT(cfg.attr.flags & DMF_STREAMS_PERCPU);
	}
	fault_rule_cfg_destroy(&cfg);
}

static void test_fields(void)
{
	struct fault_rule_cfg c;
	const char *err;

	KTAP_EXPECT_INT_EQ(parse("error:op=read+fua,sectors=10-20,size=1k-2m", &c, &err), 0);
	KTAP_EXPECT_INT_EQ(c.action, FAULT_ACT_ERROR);
	KTAP_EXPECT(c.opmask == (BIT(FAULT_OP_READ) | FAULT_OPM_FUA));
	KTAP_EXPECT_U64_EQ(c.first, 10);
	KTAP_EXPECT_U64_EQ(c.last, 20);
	KTAP_EXPECT_U64_EQ(c.min_bytes, 1024);
	KTAP_EXPECT_U64_EQ(c.max_bytes, 2 << 20);
	KTAP_EXPECT(c.attr.prob.num == 1 && c.attr.prob.den == 1);
	fault_rule_cfg_destroy(&c);

	KTAP_EXPECT_INT_EQ(parse("drop", &c, &err), 0);
	KTAP_EXPECT(c.opmask == FAULT_OPM_WRITES);
	fault_rule_cfg_destroy(&c);

	KTAP_EXPECT_INT_EQ(parse("corrupt", &c, &err), 0);
	KTAP_EXPECT(c.opmask == BIT(FAULT_OP_READ));
	KTAP_EXPECT_INT_EQ(c.byte, -1);
	fault_rule_cfg_destroy(&c);

	KTAP_EXPECT_INT_EQ(parse("delay:delay=10,jitter=250us,dist=exp", &c, &err), 0);
	KTAP_EXPECT_U64_EQ(c.delay_ns, 10000000);
	KTAP_EXPECT_U64_EQ(c.jitter_ns, 250000);
	KTAP_EXPECT_INT_EQ(c.dist, FAULT_DIST_EXP);
	fault_rule_cfg_destroy(&c);

	KTAP_EXPECT_INT_EQ(parse("error:size=64k-", &c, &err), 0);
	KTAP_EXPECT_U64_EQ(c.min_bytes, 65536);
	KTAP_EXPECT_U64_EQ(c.max_bytes, U32_MAX);
	fault_rule_cfg_destroy(&c);

	KTAP_EXPECT_INT_EQ(parse("error:sectors=42", &c, &err), 0);
	KTAP_EXPECT(c.first == 42 && c.last == 42);
	fault_rule_cfg_destroy(&c);
}

static void test_rejects(void)
{
	static const struct {
		const char *text;
		const char *error;
	} bad[] = {
		{ "", "Unknown rule action" },
		{ "explode", "Unknown rule action" },
		{ "error:", "Rule arguments are key=value" },
		{ "error:p", "Rule arguments are key=value" },
		{ "error:=5", "Rule arguments are key=value" },
		{ "error:p=", "Rule arguments are key=value" },
		{ "error:colour=red", "Unknown rule key" },
		{ "error:p=101", "Invalid value in rule" },
		{ "error:streams=cpu", "Invalid value in rule" },
		{ "error:streams=PERCPU", "Invalid value in rule" },
		{ "error:p=-1", "Invalid value in rule" },
		{ "error:op=reed", "Invalid value in rule" },
		{ "error:op=", "Rule arguments are key=value" },
		{ "error:sectors=9-3", "Invalid value in rule" },
		{ "error:sectors=1-", "Invalid value in rule" },
		{ "error:sectors=99999999999999999999", "Invalid value in rule" },
		{ "error:size=5x", "Invalid value in rule" },
		{ "error:size=4g", "Invalid value in rule" },
		{ "error:id=0", "Invalid value in rule" },
		{ "error:status=ok", "error needs a failing status" },
		{ "error:status=bogus", "Invalid value in rule" },
		{ "error:up=5", "up= needs down=" },
		{ "error:enabled=2", "Invalid value in rule" },
		{ "drop:op=read", "drop applies to write, flush, discard and write-zeroes only" },
		{ "torn:op=read", "torn applies to writes only" },
		{ "corrupt:op=read+write", "corrupt needs op=read or op=write" },
		{ "corrupt:bits=2,byte=1", "corrupt takes bits= or byte=, not both" },
		{ "corrupt:bits=0", "Invalid value in rule" },
		{ "corrupt:byte=256", "Invalid value in rule" },
		{ "delay", "delay needs delay= or jitter=" },
		{ "delay:delay=5h", "Invalid value in rule" },
		{ "delay:delay=86401s", "Invalid value in rule" },
		{ "delay:delay=1ms,dist=normal", "Invalid value in rule" },
		{ "torn:keep=-1", "Invalid value in rule" },
		{ "error:times=-2", "Invalid value in rule" },
		{ "error:interval=0", "Invalid value in rule" },
	};
	struct fault_rule_cfg c;
	const char *err;
	unsigned int i;
	char big[400];

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int r = parse(bad[i].text, &c, &err);

		ktap_check(r == -EINVAL, "'%s' gave %d", bad[i].text, r);
		ktap_check(err && !strcmp(err, bad[i].error), "'%s': error '%s', want '%s'",
			   bad[i].text, err ? err : "(none)", bad[i].error);
		fault_rule_cfg_destroy(&c);
	}
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "error:", 6);
	KTAP_EXPECT_INT_EQ(parse(big, &c, &err), -EINVAL);
	KTAP_EXPECT_STR_EQ(err, "Rule too long");
	fault_rule_cfg_destroy(&c);
}

/* The refusal points at the part of the text it is about. */
static void test_error_position(void)
{
	static const struct {
		const char *text, *part, *reason;
	} t[] = {
		{ "frob:p=1", "frob", "Unknown rule action" },
		{ "error:op=read,colour=red,p=1", "colour=red", "Unknown rule key" },
		{ "error:p=1%,times=-2", "times=-2", "Invalid value in rule" },
		{ "delay:delay=1ms,x", "x", "Rule arguments are key=value" },
		{ "corrupt:bits=1,byte=2", "corrupt:bits=1,byte=2",
		  "corrupt takes bits= or byte=, not both" },
	};
	struct fault_rule_cfg c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct fault_rule_err e = { };
		int r;

		fault_rule_cfg_init(&c);
		r = fault_rule_cfg_parse(&c, t[i].text, &e);
		ktap_check(r == -EINVAL && e.reason && !strcmp(e.reason, t[i].reason) &&
			   e.len == strlen(t[i].part) &&
			   !strncmp(t[i].text + e.pos, t[i].part, e.len),
			   "'%s': refused at '%.*s' (%s), want '%s'", t[i].text, (int)e.len,
			   t[i].text + e.pos, e.reason ? e.reason : "-", t[i].part);
		fault_rule_cfg_destroy(&c);
	}
}

static void test_durations(void)
{
	char buf[32];
	u64 ns;

	KTAP_EXPECT_INT_EQ(fault_parse_duration("7", &ns), 0);
	KTAP_EXPECT_U64_EQ(ns, 7000000);
	KTAP_EXPECT_INT_EQ(fault_parse_duration("3s", &ns), 0);
	KTAP_EXPECT_U64_EQ(ns, 3000000000ULL);
	KTAP_EXPECT_INT_EQ(fault_parse_duration("86400s", &ns), 0);
	KTAP_EXPECT_INT_EQ(fault_parse_duration("", &ns), -EINVAL);
	KTAP_EXPECT_INT_EQ(fault_parse_duration("ms", &ns), -EINVAL);
	KTAP_EXPECT_INT_EQ(fault_parse_duration("1.5ms", &ns), -EINVAL);
	KTAP_EXPECT_INT_EQ(fault_parse_duration("99999999999999999999999", &ns), -EINVAL);
	fault_format_duration(1500, buf, sizeof(buf));
	KTAP_EXPECT_STR_EQ(buf, "1500ns");
	fault_format_duration(2000000000, buf, sizeof(buf));
	KTAP_EXPECT_STR_EQ(buf, "2s");
	fault_format_duration(0, buf, sizeof(buf));
	KTAP_EXPECT_STR_EQ(buf, "0ms");
}

/* The exponential sampler: mean within 2 % and the tail where it belongs. */
static void test_exp_sample(void)
{
	const u64 mean = 1000000, n = 200000;
	u64 i, sum = 0, over3 = 0, x;

	for (i = 0; i < n; i++) {
		u64 z = (i + 1) * 0x9e3779b97f4a7c15ULL;

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		x = fault_exp_sample(z ^ (z >> 31), mean);
		sum += x;
		over3 += x > 3 * mean;
		ktap_check(x <= 32 * mean, "sample %llu over the cap", (unsigned long long)x);
	}
	/* mean 1; P(X > 3) = e^-3 = 0.0498 */
	ktap_check(sum / n > mean * 98 / 100 && sum / n < mean * 102 / 100,
		   "mean %llu", (unsigned long long)(sum / n));
	ktap_check(over3 > n * 45 / 1000 && over3 < n * 55 / 1000, "tail %llu of %llu",
		   (unsigned long long)over3, (unsigned long long)n);
	KTAP_EXPECT_U64_EQ(fault_exp_sample(0, 10), 320);
}

/* The cache options: each key where it is allowed, the limits, round trip. */
static void test_cache_cfg(void)
{
	static const struct {
		const char *word;
		unsigned int keys;
		const char *reason;	/* NULL: accepted */
	} t[] = {
		{ "limit=1m", FAULT_CKEY_ALL, NULL },
		{ "limit=64k", FAULT_CKEY_ALL, NULL },
		{ "limit=63k", FAULT_CKEY_ALL, "Invalid cache limit" },
		{ "limit=16777216g", FAULT_CKEY_ALL, NULL },
		{ "limit=17179869184g", FAULT_CKEY_ALL, "Invalid cache limit" },
		{ "limit=1t", FAULT_CKEY_ALL, "Invalid cache limit" },
		{ "limit=1m", FAULT_CKEY_LOSE, "Unknown cache option" },
		{ "lose=sectors", FAULT_CKEY_ALL, NULL },
		{ "lose=maybe", FAULT_CKEY_ALL, "Unknown crash policy" },
		{ "seed=0x10", FAULT_CKEY_ALL, NULL },
		{ "seed=18446744073709551616", FAULT_CKEY_ALL, "Invalid crash seed" },
		{ "seed=-1", FAULT_CKEY_ALL, "Invalid crash seed" },
		{ "after=flush:3", FAULT_CKEY_ALL, NULL },
		{ "after=bytes:1m", FAULT_CKEY_ALL, NULL },
		{ "after=none", FAULT_CKEY_ALL, NULL },
		{ "after=none:3", FAULT_CKEY_ALL, "Crash trigger is" },
		{ "after=flush:0", FAULT_CKEY_ALL, "Crash trigger is" },
		{ "after=write", FAULT_CKEY_ALL, "Crash trigger is" },
		{ "after=write:18446744073709551616", FAULT_CKEY_ALL, "Crash trigger is" },
		{ "after=reads:3", FAULT_CKEY_ALL, "Unknown crash trigger" },
		{ "after=flush:3", FAULT_CKEY_LOSE, "Unknown cache option" },
		{ "lose", FAULT_CKEY_ALL, "key=value" },
		{ "=all", FAULT_CKEY_ALL, "key=value" },
		{ "lose=", FAULT_CKEY_ALL, "key=value" },
		{ "lose=all\x01", FAULT_CKEY_ALL, "Unknown crash policy" },
		{ "seed=1111111111111111111111111111111111111111111111111111111111111111",
		  FAULT_CKEY_ALL, "too long" },
	};
	struct fault_cache_cfg cfg, back;
	char buf[128], *w, *save;
	const char *why;
	unsigned int i;
	int r;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		fault_cache_cfg_init(&cfg);
		why = NULL;
		r = fault_cache_cfg_parse(&cfg, t[i].word, t[i].keys, &why);
		if (!t[i].reason) {
			ktap_check(!r, "'%s' refused: %s", t[i].word, why);
			continue;
		}
		ktap_check(r == -EINVAL && why && strstr(why, t[i].reason),
			   "'%s': %d '%s', expected '%s'", t[i].word, r, why ? why : "",
			   t[i].reason);
	}

	/* what format prints parses back to the same options */
	fault_cache_cfg_init(&cfg);
	KTAP_EXPECT_INT_EQ(fault_cache_cfg_parse(&cfg, "limit=2m", FAULT_CKEY_ALL, &why), 0);
	KTAP_EXPECT_INT_EQ(fault_cache_cfg_parse(&cfg, "after=bytes:4k", FAULT_CKEY_ALL, &why), 0);
	KTAP_EXPECT_INT_EQ(fault_cache_cfg_parse(&cfg, "lose=writes", FAULT_CKEY_ALL, &why), 0);
	KTAP_EXPECT_INT_EQ(fault_cache_cfg_parse(&cfg, "seed=77", FAULT_CKEY_ALL, &why), 0);
	fault_cache_cfg_format(&cfg, FAULT_CKEY_ALL, buf, sizeof(buf));
	KTAP_EXPECT_STR_EQ(buf, " limit=2097152 after=bytes:4096 lose=writes seed=77");
	fault_cache_cfg_init(&back);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		KTAP_EXPECT_INT_EQ(fault_cache_cfg_parse(&back, w, FAULT_CKEY_ALL, &why), 0);
	KTAP_EXPECT(!memcmp(&cfg, &back, sizeof(cfg)));
	fault_cache_cfg_init(&cfg);
	KTAP_EXPECT_INT_EQ(fault_cache_cfg_format(&cfg, FAULT_CKEY_ALL, buf, sizeof(buf)), 0);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_roundtrip),
	KTAP_CASE(test_fields),
	KTAP_CASE(test_rejects),
	KTAP_CASE(test_error_position),
	KTAP_CASE(test_durations),
	KTAP_CASE(test_exp_sample),
	KTAP_CASE(test_cache_cfg),
};

int main(void)
{
	return ktap_run("rule", cases, ARRAY_SIZE(cases));
}
