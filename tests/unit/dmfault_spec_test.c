// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for dmfault's option-to-table builder (tools/dmfault/base/spec.c)
 * and its window on the target's parser (rule.c): sizes, readable rule
 * specs translated and then checked by the target's parser, the word named
 * on a refusal, and the table line.  KTAP output.  That the tool and the
 * target agree on every rule is verdict_test's job.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "ktap.h"

static void test_sizes(void)
{
	static const struct {
		const char *in;
		int r;
		uint64_t bytes;
	} t[] = {
		{ "4096", 0, 4096 }, { "4k", 0, 4096 }, { "4K", 0, 4096 }, { "1m", 0, 1 << 20 },
		{ "1M", 0, 1 << 20 }, { "1g", 0, 1ULL << 30 }, { "1G", 0, 1ULL << 30 },
		{ "0", 0, 0 }, { "18446744073709551615", 0, UINT64_MAX },
		{ "17179869183g", 0, UINT64_MAX - (1ULL << 30) + 1 },
		{ "1.5M", -EINVAL, 0 }, { "8s", -EINVAL, 0 }, { "1GiB", -EINVAL, 0 },
		{ "1GB", -EINVAL, 0 }, { "1T", -EINVAL, 0 }, { "", -EINVAL, 0 }, { "k", -EINVAL, 0 },
		{ "12q", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { " 1", -EINVAL, 0 },
		{ "18446744073709551616", -EINVAL, 0 }, { "17179869184g", -EINVAL, 0 },
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
		{ "drop", "write:after=60s", "drop:op=write,after=60", NULL },
		{ "error", "up=30s,down=90", "error:up=30,down=90", NULL },
		{ "error", "up=1500ms,down=3000ms", NULL, "up=1500ms" },
		{ "error", "read:range=1M-2M", "error:op=read,sectors=2048-4095", NULL },
		{ "error", "range=0+4k", "error:sectors=0-7", NULL },
		{ "error", "size=4k-1m", "error:size=4k-1m", NULL },
		{ "error", "size=4k-", "error:size=4k-", NULL },
		{ "delay", "delay=1500us,jitter=2", "delay:delay=1500us,jitter=2", NULL },
		{ "delay", "any:delay=1s,dist=exp", "delay:op=any,delay=1s,dist=exp", NULL },
		{ "stall", "write:timeout=30s", "stall:op=write,timeout=30s", NULL },
		{ "error", "every=3,seed=0x10,disabled", "error:interval=3,seed=0x10,enabled=0", NULL },
		{ "corrupt", "read:bits=2,1e-6", "corrupt:op=read,bits=2,p=1e-6", NULL },
		{ "torn", "write:keep=random,1/3", "torn:op=write,keep=random,p=1/3", NULL },
		/* what the target refuses, the tool refuses: the kernel's word */
		{ "error", "newkey=1", NULL, "newkey=1" },
		{ "future", "write:1%", NULL, "future" },
		{ "error", "read:150%", NULL, "p=150%" },
		{ "error", "read:1e-30", NULL, "p=1e-30" },
		{ "error", "sectors=5-1", NULL, "sectors=5-1" },
		{ "error", "status=frob", NULL, "status=frob" },
		{ "error", "delay=2d", NULL, "delay=2d" },
		{ "corrupt", "read+write:bits=1", NULL, "" },
		{ "corrupt", "bits=1,byte=2", NULL, "" },
		{ "torn", "flush", NULL, "" },
		/* what only the translation knows */
		{ "error", "read:5", NULL, "5" },
		{ "error", "reads:1%", NULL, "reads" },
		{ "error", "range=1-2", NULL, "range=1-2" },
		{ "error", "range=4k-4k", NULL, "range=4k-4k" },
		{ "error", "range=4k", NULL, "range=4k" },
		{ "error", "read:,", NULL, "read:," },
		{ "error", "bogus", NULL, "bogus" },
		{ "error", "=1", NULL, "=1" },
		{ "error", "p=", NULL, "p=" },
		{ "error", "read:op=write,op", NULL, "op" },
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
			ktap_check(r == -EINVAL && !strcmp(err.word, t[i].word) &&
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

/* The word named is the kernel parser's: an item, the action, or "" for all. */
static void test_check(void)
{
	static const struct {
		const char *rule, *word;
	} t[] = {
		{ "error:p=1%,colour=red", "colour=red" },
		{ "frob:x=1", "frob" },
		{ "error:up=5", "" },
		{ "error:p=1% ", "" },
	};
	static char long_rule[400];
	struct dft_rule_err err;
	unsigned int i;
	int r;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		memset(&err, 0, sizeof(err));
		r = dft_rule_check(t[i].rule, &err);
		ktap_check(r == -EINVAL && !strcmp(err.word, t[i].word) && err.reason,
			   "check '%s': refused at '%s' (got %d at '%s': %s)", t[i].rule,
			   t[i].word, r, err.word, err.reason ? err.reason : "-");
	}
	ktap_check(!dft_rule_check("error:op=read,p=1%", &err), "a good rule passes");
	memset(long_rule, 'x', sizeof(long_rule) - 1);
	memcpy(long_rule, "error:seed=", 11);
	r = dft_rule_check(long_rule, &err);
	ktap_check(r == -EINVAL && !strcmp(err.reason, "Rule too long"),
		   "an over-long rule is refused with the target's reason");
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
	KTAP_CASE(test_ops_and_statuses),
	KTAP_CASE(test_specs),
	KTAP_CASE(test_check),
	KTAP_CASE(test_table),
};

int main(void)
{
	return ktap_run("dmfault_spec", dft_cases, ARRAY_SIZE(dft_cases));
}
