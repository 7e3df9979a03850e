// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for dmfault's option-to-table builder (tools/dmfault/spec.c):
 * sizes, durations and probabilities, readable rule specs, the rule checker
 * with the word it names, and the table line.  KTAP output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmfault.h"
#include "ktap.h"

static void test_sizes(void)
{
	static const struct {
		const char *in;
		int r;
		uint64_t bytes;
	} t[] = {
		{ "4096", 0, 4096 }, { "4k", 0, 4096 }, { "4K", 0, 4096 }, { "4KiB", 0, 4096 },
		{ "1.5M", 0, 1572864 }, { "8s", 0, 4096 }, { "1GiB", 0, 1ULL << 30 },
		{ "1GB", 0, 1000000000 }, { "2kB", 0, 2000 }, { "1T", 0, 1ULL << 40 },
		{ "0", 0, 0 }, { "18446744073709551615", 0, UINT64_MAX },
		{ "1.3", -EINVAL, 0 }, { "", -EINVAL, 0 }, { "k", -EINVAL, 0 },
		{ "12q", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { " 1", -EINVAL, 0 },
		{ "1.", -EINVAL, 0 }, { "1.5.5M", -EINVAL, 0 },
		{ "18446744073709551616", -ERANGE, 0 }, { "17179869184G", -ERANGE, 0 },
		{ "0.0000000001k", -ERANGE, 0 },
	};
	unsigned int i;
	uint64_t v;
	int r;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		v = 0;
		r = dft_parse_size(t[i].in, &v);
		ktap_check(r == t[i].r && (r || v == t[i].bytes),
			   "size '%s' -> %d/%llu (got %d/%llu)", t[i].in, t[i].r,
			   (unsigned long long)t[i].bytes, r, (unsigned long long)v);
	}
}

static void test_durations(void)
{
	static const struct {
		const char *in;
		uint64_t unit;
		int r;
		uint64_t ns;
	} t[] = {
		{ "30", 1000000000ULL, 0, 30000000000ULL },
		{ "1.5s", 1000000000ULL, 0, 1500000000ULL },
		{ "500ms", 1000000000ULL, 0, 500000000ULL },
		{ "2m", 1000000000ULL, 0, 120000000000ULL },
		{ "1h", 1000000000ULL, 0, 3600000000000ULL },
		{ "250us", 1, 0, 250000 }, { "10", 1000000, 0, 10000000 },
		{ "1d", 1, 0, 86400000000000ULL }, { "1.5ns", 1, -EINVAL, 0 },
		{ "x", 1, -EINVAL, 0 }, { "-1", 1, -EINVAL, 0 }, { "1y", 1, -EINVAL, 0 },
		{ "", 1, -EINVAL, 0 }, { "99999999999999999h", 1, -ERANGE, 0 },
	};
	unsigned int i;
	uint64_t v;
	int r;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		v = 0;
		r = dft_parse_duration(t[i].in, t[i].unit, &v);
		ktap_check(r == t[i].r && (r || v == t[i].ns), "duration '%s' -> %d/%llu (got %d/%llu)",
			   t[i].in, t[i].r, (unsigned long long)t[i].ns, r, (unsigned long long)v);
	}
}

static void test_probabilities(void)
{
	static const struct {
		const char *in;
		int r;
	} t[] = {
		{ "5", 0 }, { "0.1%", 0 }, { "1e-6", 0 }, { "1/1000", 0 }, { "100%", 0 },
		{ "100", 0 }, { "0", 0 }, { "1e-6%", 0 }, { "1/1", 0 }, { "0/5", 0 },
		{ "101", -ERANGE }, { "2/1", -ERANGE }, { "2e0", -ERANGE }, { "1/0", -EINVAL },
		{ "abc", -EINVAL }, { "", -EINVAL }, { "inf", -EINVAL }, { "nan", -EINVAL },
		{ "0x1p-3", -EINVAL }, { "-1", -EINVAL }, { "5%%", -EINVAL }, { "1/", -EINVAL },
		{ "/3", -EINVAL }, { "1//3", -EINVAL },
	};
	unsigned int i;
	int r;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		r = dft_parse_prob(t[i].in);
		ktap_check(r == t[i].r, "probability '%s' -> %d (got %d)", t[i].in, t[i].r, r);
	}
}

static void test_ops_and_statuses(void)
{
	ktap_check(dft_is_op_list("read"), "op list: read");
	ktap_check(dft_is_op_list("read+write+write-zeroes+fua"), "op list: read+write+...");
	ktap_check(dft_is_op_list("any"), "op list: any");
	ktap_check(!dft_is_op_list(""), "op list: empty is not one");
	ktap_check(!dft_is_op_list("read+"), "op list: trailing +");
	ktap_check(!dft_is_op_list("reads"), "op list: reads is no op");
	ktap_check(dft_is_status_name("enospc") && dft_is_status_name("timeout"),
		   "status names and aliases");
	ktap_check(!dft_is_status_name("ENOSPC") && !dft_is_status_name("e"),
		   "status names are lower case and whole");
}

struct spec_case {
	const char *action;
	const char *spec;
	const char *rule;	/* NULL: must fail */
	const char *word;	/* the word named on failure */
};

static void test_specs(void)
{
	static const struct spec_case t[] = {
		{ "error", "read:1%", "error:op=read,p=1%", NULL },
		{ "error", "read:1%,enospc", "error:op=read,p=1%,status=enospc", NULL },
		{ "drop", "write", "drop:op=write", NULL },
		{ "error", NULL, "error", NULL },
		{ "error", "", "error", NULL },
		{ "error", "1%", "error:p=1%", NULL },
		{ "error", "1%,read", "error:p=1%,op=read", NULL },
		{ "error", "all:once", "error:op=any,times=1", NULL },
		{ "error", "read,write:0.5%", "error:op=read+write,p=0.5%", NULL },
		{ "drop", "write:after=1m", "drop:op=write,after=60", NULL },
		{ "error", "up=30s,down=1.5m", "error:up=30,down=90", NULL },
		{ "error", "read:range=1M-2M", "error:op=read,sectors=2048-4095", NULL },
		{ "error", "range=0+4k", "error:sectors=0-7", NULL },
		{ "error", "size=4k-1M", "error:size=4096-1048576", NULL },
		{ "error", "size=4k-", "error:size=4096-", NULL },
		{ "error", "size=512", "error:size=512", NULL },
		{ "delay", "delay=1.5ms,jitter=2", "delay:delay=1500us,jitter=2ms", NULL },
		{ "delay", "any:delay=1s,dist=exp", "delay:op=any,delay=1s,dist=exp", NULL },
		{ "stall", "write:timeout=30s", "stall:op=write,timeout=30s", NULL },
		{ "error", "every=3,seed=0x10,disabled", "error:interval=3,seed=0x10,enabled=0", NULL },
		{ "corrupt", "read:bits=2,1e-6", "corrupt:op=read,bits=2,p=1e-6", NULL },
		{ "torn", "write:keep=random,1/3", "torn:op=write,keep=random,p=1/3", NULL },
		{ "error", "newkey=1", "error:newkey=1", NULL },
		{ "future", "write:1%", "future:op=write,p=1%", NULL },
		{ "error", "read:5", NULL, "5" },
		{ "error", "reads:1%", NULL, "reads" },
		{ "error", "read:up=1.5s", NULL, "up=1.5s" },
		{ "error", "range=1-2", NULL, "range=1-2" },
		{ "error", "range=4k-4k", NULL, "range=4k-4k" },
		{ "error", "range=4k", NULL, "range=4k" },
		{ "error", "size=64k-4k", NULL, "size=64k-4k" },
		{ "error", "read:,", NULL, "read:," },
		{ "error", "bogus", NULL, "bogus" },
		{ "error", "read:150%", NULL, "150%" },
		{ "error", "sectors=5-1", NULL, "sectors=5-1" },
		{ "error", "status=frob", NULL, "status=frob" },
		{ "error", "=1", NULL, "=1" },
		{ "error", "p=", NULL, "p=" },
		{ "error", "delay=2d", NULL, "delay=2d" },
		{ "error", "read:op=write,op", NULL, "op" },
		{ "bad action", NULL, NULL, "bad action" },
		{ "", NULL, NULL, "" },
	};
	struct dft_rule_err err;
	struct dft_buf b;
	unsigned int i;
	int r;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		memset(&b, 0, sizeof(b));
		memset(&err, 0, sizeof(err));
		r = dft_rule_from_spec(t[i].action, t[i].spec, &b, &err);
		if (t[i].rule)
			ktap_check(!r && b.text && !strcmp(b.text, t[i].rule),
				   "--%s '%s' -> '%s' (got %d '%s': %s)", t[i].action,
				   t[i].spec ? t[i].spec : "", t[i].rule, r, b.text ? b.text : "",
				   r ? err.reason : "");
		else
			ktap_check(r == -EINVAL && !b.text && !strcmp(err.word, t[i].word) &&
				   err.reason, "--%s '%s' fails at '%s' (got %d at '%s': %s)",
				   t[i].action, t[i].spec ? t[i].spec : "", t[i].word, r, err.word,
				   err.reason ? err.reason : "-");
		dft_buf_free(&b);
	}
	/* appending to a buffer that already holds text */
	memset(&b, 0, sizeof(b));
	dft_buf_add(&b, "x ");
	r = dft_rule_from_spec("drop", "write", &b, &err);
	ktap_check(!r && !strcmp(b.text, "x drop:op=write"), "a rule is appended to the buffer");
	dft_buf_free(&b);
}

struct check_case {
	const char *rule;
	int loose, strict;	/* expected results */
	const char *word;	/* named by the first failing mode */
};

static void test_check(void)
{
	static char long_rule[400];
	static const struct check_case t[] = {
		{ "error:op=read", 0, 0, NULL },
		{ "error", 0, 0, NULL },
		{ "error:seed=0x1f,times=-1,space=5,verbose=2", 0, 0, NULL },
		{ "error:id=4,op=read+fua,sectors=0-7,size=4k-64k,up=1,down=2,after=3,skip=4,enabled=0,status=enospc,p=1%,interval=2", 0, 0, NULL },
		{ "corrupt:op=write,bits=3,offset=random", 0, 0, NULL },
		{ "delay:delay=10,jitter=500us,dist=exp", 0, 0, NULL },
		{ "", -EINVAL, -EINVAL, "" },
		{ "error op", -EINVAL, -EINVAL, "error op" },
		{ "error:", -EINVAL, -EINVAL, "" },
		{ "error:p", -EINVAL, -EINVAL, "p" },
		{ "error:=1", -EINVAL, -EINVAL, "=1" },
		{ "error:p=", -EINVAL, -EINVAL, "p=" },
		{ "error:p=1%,,seed=1", -EINVAL, -EINVAL, "" },
		{ "err!r:p=1", -EINVAL, -EINVAL, "err!r" },
		{ "error:sectors=9-1", -EINVAL, -EINVAL, "sectors=9-1" },
		{ "error:size=4T", -EINVAL, -EINVAL, "size=4T" },
		{ "error:size=4KB", -EINVAL, -EINVAL, "size=4KB" },
		{ "error:id=0", -EINVAL, -EINVAL, "id=0" },
		{ "error:times=-2", -EINVAL, -EINVAL, "times=-2" },
		{ "error:space=-1", -EINVAL, -EINVAL, "space=-1" },
		{ "error:interval=0", -EINVAL, -EINVAL, "interval=0" },
		{ "error:verbose=3", -EINVAL, -EINVAL, "verbose=3" },
		{ "error:enabled=2", -EINVAL, -EINVAL, "enabled=2" },
		{ "corrupt:bits=0", -EINVAL, -EINVAL, "bits=0" },
		{ "corrupt:byte=256", -EINVAL, -EINVAL, "byte=256" },
		{ "delay:delay=10m", -EINVAL, -EINVAL, "delay=10m" },
		{ "delay:dist=normal", -EINVAL, -EINVAL, "dist=normal" },
		{ "error:p=1%\t", -EINVAL, -EINVAL, "error:p=1%\t" },
		{ "frob:x=1", 0, -EINVAL, "frob" },
		{ "error:newkey=1", 0, -EINVAL, "newkey=1" },
		{ "drop:op=read", 0, -EINVAL, "op=read" },
		{ "torn:op=any", 0, -EINVAL, "op=any" },
		{ "error:up=5", 0, -EINVAL, "up=5" },
		{ "error:status=ok", 0, -EINVAL, "status=ok" },
		{ "delay:p=1%", 0, -EINVAL, "delay" },
	};
	struct dft_rule_err err;
	unsigned int i;
	int r1, r2;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		memset(&err, 0, sizeof(err));
		r1 = dft_rule_check(t[i].rule, false, &err);
		if (!r1) {
			memset(&err, 0, sizeof(err));
			r2 = dft_rule_check(t[i].rule, true, &err);
		} else {
			r2 = r1;
		}
		ktap_check(r1 == t[i].loose && r2 == t[i].strict &&
			   (!t[i].word || !strcmp(err.word, t[i].word)),
			   "check '%s': %d/%d at '%s' (got %d/%d at '%s': %s)", t[i].rule,
			   t[i].loose, t[i].strict, t[i].word ? t[i].word : "", r1, r2, err.word,
			   err.reason ? err.reason : "-");
	}
	memset(long_rule, 'x', sizeof(long_rule) - 1);
	memcpy(long_rule, "error:seed=", 11);
	r1 = dft_rule_check(long_rule, false, &err);
	ktap_check(r1 == -EINVAL && strlen(err.word) < sizeof(err.word) && err.reason,
		   "an over-long rule is refused, the word cut to fit");
}

static void test_table(void)
{
	static const char *const rules[] = { "error:op=read", "drop" };
	struct dft_table_args ta = { .dev = "8:16", .offset = 8, .len = 2048 };
	struct dft_buf b = { 0 };
	int r;

	r = dft_table_line(&ta, &b);
	ktap_check(!r && !strcmp(b.text, "0 2048 fault 8:16 8"), "table line without rules");
	dft_buf_free(&b);
	ta.nr_rules = 2;
	ta.rules = rules;
	r = dft_table_line(&ta, &b);
	ktap_check(!r && !strcmp(b.text, "0 2048 fault 8:16 8 2 error:op=read drop"),
		   "table line with rules");
	dft_buf_free(&b);
	r = dft_table_params(&ta, &b);
	ktap_check(!r && !strcmp(b.text, "8:16 8 2 error:op=read drop"), "table parameters");
	dft_buf_free(&b);
	ta.len = 0;
	ktap_check(dft_table_line(&ta, &b) == -EINVAL, "a zero length is refused");
	dft_buf_free(&b);
	ta.len = 1;
	ta.dev = "/dev/a b";
	ktap_check(dft_table_line(&ta, &b) == -EINVAL, "a device with white space is refused");
	dft_buf_free(&b);
}

static const struct ktap_case dft_cases[] = {
	KTAP_CASE(test_sizes),
	KTAP_CASE(test_durations),
	KTAP_CASE(test_probabilities),
	KTAP_CASE(test_ops_and_statuses),
	KTAP_CASE(test_specs),
	KTAP_CASE(test_check),
	KTAP_CASE(test_table),
};

int main(void)
{
	return ktap_run("dmfault_spec", dft_cases, ARRAY_SIZE(dft_cases));
}
