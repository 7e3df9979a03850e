// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for dmfault's parsers (tools/dmfault/base/parse.c, json.c): the
 * fault target's INFO and TABLE status, the log and rule list replies,
 * kernel log records and debugfs counters, well-formed and malformed (every
 * malformed input must give an error, never a crash: run under ASan/UBSan).
 * KTAP output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "ktap.h"

#define INFO_OPS "6 read:1:4096:0:0 write:2:8192:1:4096 flush:0:0:0:0 discard:0:0:0:0 " \
		 "write-zeroes:0:0:0:0 other:0:0:0:0"

static void test_info(void)
{
	static const char *const bad[] = {
		"", "x", "-1", "2 read:1:2:3:4", "1 read:1:2:3", "1 read:1:2:3:4:5",
		"1 read:a:2:3:4", "1 read:1:2:3:4", "1 read:1:2:3:4 2 1:1:1:1",
		"1 read:1:2:3:4 1 0x1:1:1:1", "1 read:1:2:3:4 1 1:1:1", "1 read:1:2:3:4 1 1:1:1:1:1",
		"99999999999 read:1:2:3:4", "1 :1:2:3:4 0", "1 read:18446744073709551616:0:0:0 0",
		"1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:1:2:3:4 0", "100 read:1:1:1:1 0",
		"1 read:1:2:3:4 99999999", "1 read:1:2:3:4 x", "1 read::2:3:4 0", "1 read:1:2:3:-4 0",
		"1 read:1:2:3:4 1 4294967296:0:0:0", "1 read:1:2:3:4 1 1:1:1:1:error:1",
		"1 read:1:2:3:4 1 1:1:1:1:error:1:7:8", "1 read:1:2:3:4 1 1:1:1:1::1:7",
		"1 read:1:2:3:4 1 1:1:1:1:error:2:7", "1 read:1:2:3:4 1 1:1:1:1:error:1:x",
		"1 read:1:2:3:4 1 1:1:1:1:error:1:", "1 read:1:2:3:4 0 x", "1 read:1:2:3:4 0 -1",
		"1 read:1:2:3:4 0 x -",
	};
	const char *err = NULL;
	struct dft_stats st;
	unsigned int i;
	int r;

	r = dft_parse_info(INFO_OPS " 2 1:10:5:1:error:1:7 3:0:0:0:drop:0:18446744073709551615 2 - -",
			   &st, &err);
	ktap_check(!r && st.nr_ops == 6 && st.nr_rules == 2, "info: ops and rules counted");
	ktap_check(!r && !strcmp(st.rules[0].action, "error") && st.rules[0].enabled == 1 &&
		   st.rules[0].seed == 7 && st.rules[0].injected == 1 &&
		   !strcmp(st.rules[1].action, "drop") && st.rules[1].enabled == 0 &&
		   st.rules[1].seed == UINT64_MAX, "info: a rule's action, flag and seed");
	ktap_check(!r && st.held == 2 && !strcmp(st.cache, "-") && !strcmp(st.bad, "-"),
		   "info: the held count, no cache mode, no bad-block map");
	ktap_check(!r && !strcmp(st.ops[1].name, "write") && st.ops[1].bios == 2 &&
		   st.ops[1].bytes == 8192 && st.ops[1].failed == 1 && st.ops[1].failed_bytes == 4096,
		   "info: an op entry");
	ktap_check(!r && st.rules[0].id == 1 && st.rules[0].seen == 10 && st.rules[0].matched == 5 &&
		   st.rules[1].id == 3, "info: a rule's id and counters");
	dft_stats_free(&st);
	r = dft_parse_info(INFO_OPS " 0 0 wb:64:3:1 on:0:1:8:2:1:0", &st, &err);
	ktap_check(!r && !st.held && !strcmp(st.cache, "wb:64:3:1") &&
		   !strcmp(st.bad, "on:0:1:8:2:1:0"),
		   "info: the cache mode's and the map's fields, kept as words");
	dft_stats_free(&st);
	r = dft_parse_info(INFO_OPS " 0 2 on:1:2 - x 7", &st, &err);
	ktap_check(!r && st.held == 2 && !strcmp(st.cache, "on:1:2") && !strcmp(st.bad, "-"),
		   "info: words after the map's word (a newer target) are left alone");
	dft_stats_free(&st);
	r = dft_parse_info(INFO_OPS " 2 1:10:5:1 3:0:0:0 0 - -", &st, &err);
	ktap_check(r == -EINVAL && err && !strcmp(err, "bad rule entry"),
		   "info: a rule entry of four fields is refused: %s", err ? err : "no error");
	dft_stats_free(&st);
	r = dft_parse_info(INFO_OPS " 0", &st, &err);
	ktap_check(r == -EINVAL && err && !strcmp(err, "held count missing"),
		   "info: no held count: %s", err ? err : "no error");
	dft_stats_free(&st);
	r = dft_parse_info(INFO_OPS " 0 1", &st, &err);
	ktap_check(r == -EINVAL && err && !strcmp(err, "cache word missing"),
		   "info: no cache word: %s", err ? err : "no error");
	dft_stats_free(&st);
	r = dft_parse_info(INFO_OPS " 0 1 -", &st, &err);
	ktap_check(r == -EINVAL && err && !strcmp(err, "bad-block map word missing"),
		   "info: no map word: %s", err ? err : "no error");
	dft_stats_free(&st);
	r = dft_parse_info(INFO_OPS " 0 0 - -", &st, &err);
	ktap_check(!r && st.nr_rules == 0, "info: no rules");
	dft_stats_free(&st);
	r = dft_parse_info("  " INFO_OPS "  0  3  wt:1:2  - ", &st, &err);
	ktap_check(!r && st.nr_ops == 6 && st.held == 3 && !strcmp(st.cache, "wt:1:2"),
		   "info: extra spaces around the held count and the cache mode");
	dft_stats_free(&st);
	r = dft_parse_info("1 read:18446744073709551615:0:0:0 0 0 - -", &st, &err);
	ktap_check(!r && st.ops[0].bios == UINT64_MAX, "info: the largest counter");
	dft_stats_free(&st);
	r = dft_parse_info(NULL, &st, &err);
	ktap_check(r == -EINVAL && err, "info: NULL is malformed");
	dft_stats_free(&st);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = NULL;
		r = dft_parse_info(bad[i], &st, &err);
		ktap_check(r == -EINVAL && err, "info: malformed '%s' -> %s", bad[i],
			   err ? err : "no error");
		dft_stats_free(&st);
	}
}

/* Many rules: the status of a full rule set parses. */
static void test_info_many_rules(void)
{
	struct dft_buf b = { 0 };
	const char *err = NULL;
	struct dft_stats st;
	unsigned int i;
	int r;

	dft_buf_add(&b, "%s 300", INFO_OPS);
	for (i = 0; i < 300; i++)
		dft_buf_add(&b, " %u:%u:1:1:error:1:%u", i + 1, i, i);
	dft_buf_add(&b, " 0 - -");
	r = dft_parse_info(b.text, &st, &err);
	ktap_check(!r && st.nr_rules == 300 && st.rules[299].id == 300 &&
		   st.rules[299].seen == 299 && st.rules[8].seed == 8 && !st.held,
		   "info: 300 rules");
	dft_stats_free(&st);
	dft_buf_free(&b);
}

static void test_table_status(void)
{
	static const char *const bad[] = {
		"", "2510 0", "251:x 0", "251:0", "251:0 0 2 a", "251:0 0 1 a b", "251:0 0 x",
		":0 0", "251: 0", "251:0 -1", "251:0 0 99999999 a", "251:0:1 0",
		"251:0 0 0 2 cache", "251:0 0 0 1 cache x", "251:0 0 0 0", "251:0 0 1 a 1",
	};
	struct dft_table_status ts;
	const char *err = NULL;
	unsigned int i;
	int r;

	r = dft_parse_table_status("251:0 0", &ts, &err);
	ktap_check(!r && ts.major == 251 && ts.minor == 0 && ts.offset == 0 && !ts.nr_rules,
		   "table status: no rules");
	dft_table_status_free(&ts);
	r = dft_parse_table_status("8:16 2048 2 error:id=1,p=1% drop:id=2,p=100%", &ts, &err);
	ktap_check(!r && ts.offset == 2048 && ts.nr_rules == 2 &&
		   !strcmp(ts.rules[1], "drop:id=2,p=100%"), "table status: rules");
	dft_table_status_free(&ts);
	r = dft_parse_table_status("8:16 0 1 drop 3 cache limit=1048576 lose=writes", &ts, &err);
	ktap_check(!r && ts.nr_rules == 1 && ts.features &&
		   !strcmp(ts.features, "cache limit=1048576 lose=writes"),
		   "table: the feature words after the rules");
	dft_table_status_free(&ts);
	r = dft_parse_table_status("8:16 0 0", &ts, &err);
	ktap_check(!r && !ts.nr_rules, "table status: a zero rule count");
	dft_table_status_free(&ts);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = NULL;
		r = dft_parse_table_status(bad[i], &ts, &err);
		ktap_check(r == -EINVAL && err, "table status: malformed '%s' -> %s", bad[i],
			   err ? err : "no error");
		dft_table_status_free(&ts);
	}
}

/* The compatibility targets' tables: only the disk and the offset are read. */
static void test_compat_table(void)
{
	static const char *const bad[] = { "", "252", "252:1", "252:1 x", "x:1 0" };
	struct dft_table_status ts;
	const char *err = NULL;
	unsigned int i;
	int r;

	r = dft_parse_compat_table("fault-flakey", "252:16 8 0 180 1 drop_writes", &ts, &err);
	ktap_check(!r && ts.major == 252 && ts.minor == 16 && ts.offset == 8 && !ts.nr_rules,
		   "flakey: disk and offset");
	r = dft_parse_compat_table("delay", "252:16 0 0 252:32 0 50", &ts, &err);
	ktap_check(!r && ts.major == 252 && ts.minor == 16 && !ts.offset, "delay: the first disk");
	r = dft_parse_compat_table("fault-error", "", &ts, &err);
	ktap_check(!r && !ts.major && !ts.minor, "error: no disk");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = NULL;
		r = dft_parse_compat_table("fault-delay", bad[i], &ts, &err);
		ktap_check(r == -EINVAL && err, "compat table: malformed '%s' -> %s", bad[i],
			   err ? err : "no error");
	}
}

static void test_log_reply(void)
{
	static const char *const bad[] = {
		"12.345678 read 0 4096 1\n", "12.34 read 0 4096 1 error\n",
		"x.000000 read 0 4096 1 error\n", "12.000000 read abc 4096 1 error\n",
		"12.000000 read 0 4096 -1 error\n", "12 read 0 4096 1 error\n",
		".000001 read 0 4096 1 error\n", "12.0000001 read 0 4096 1 error\n",
		"12.000000 read 0 4096 4294967296 error\n",
		"18446744073709551615.000000 read 0 1 1 error\n",
	};
	struct dft_log_entry *e;
	const char *err = NULL;
	unsigned int n, i;
	int r;

	r = dft_parse_log_reply("12.345678 read 0 4096 1 error\n13.000001 write 8 512 2 drop\n",
				&e, &n, &err);
	ktap_check(!r && n == 2 && e[0].usec == 12345678 && !strcmp(e[0].time, "12.345678") &&
		   !strcmp(e[0].op, "read") && e[0].bytes == 4096 && e[0].rule == 1 &&
		   !strcmp(e[1].action, "drop") && e[1].sector == 8, "log reply: two entries");
	free(e);
	r = dft_parse_log_reply("", &e, &n, &err);
	ktap_check(!r && !n && !e, "log reply: empty");
	r = dft_parse_log_reply("1.000000 read 0 1 1 error extra\n", &e, &n, &err);
	ktap_check(!r && n == 1, "log reply: a newer target's extra field");
	free(e);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = NULL;
		r = dft_parse_log_reply(bad[i], &e, &n, &err);
		ktap_check(r == -EINVAL && err && !e && !n, "log reply: malformed '%.*s' -> %s",
			   (int)strcspn(bad[i], "\n"), bad[i], err ? err : "no error");
	}
}

static void test_rule_info(void)
{
	static const char *const bad[] = {
		"error", "error:op=read", ":id=1", "error:id=0", "error:id=x", "error:id=",
		"error:id=99999999999", "",
	};
	struct dft_rule_info ri;
	unsigned int i;
	int r;

	r = dft_parse_rule("error:id=3,op=read,p=1%,seed=1", &ri);
	ktap_check(!r && ri.id == 3 && !strcmp(ri.action, "error") && ri.enabled,
		   "rule: id, action, enabled");
	r = dft_parse_rule("drop:id=2,enabled=0,p=100%", &ri);
	ktap_check(!r && ri.id == 2 && !ri.enabled, "rule: disabled");
	r = dft_parse_rule("delay:id=12,delay=1ms,enabled=0x,seed=3", &ri);
	ktap_check(!r && ri.id == 12 && ri.enabled, "rule: enabled=0x is not enabled=0");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		r = dft_parse_rule(bad[i], &ri);
		ktap_check(r == -EINVAL, "rule: malformed '%s'", bad[i]);
	}
}

static void test_kmsg(void)
{
	char rec[] = "4,123,456789,-;device-mapper: fault: t0: rule add: Unknown rule key\n"
		     " SUBSYSTEM=block\n";
	char bad1[] = "abc", bad2[] = "4,1;x", bad3[] = "x,1,2,-;y";
	const char *text;
	uint64_t usec;
	int level, r;

	r = dft_parse_kmsg(rec, &level, &usec, &text);
	ktap_check(!r && level == 4 && usec == 456789 &&
		   !strcmp(text, "device-mapper: fault: t0: rule add: Unknown rule key"),
		   "kmsg: a record with a continuation line");
	ktap_check(dft_parse_kmsg(bad1, &level, &usec, &text) == -EINVAL, "kmsg: no ';'");
	ktap_check(dft_parse_kmsg(bad2, &level, &usec, &text) == -EINVAL, "kmsg: short header");
	ktap_check(dft_parse_kmsg(bad3, &level, &usec, &text) == -EINVAL, "kmsg: bad priority");
	ktap_check(dft_kernel_problem("WARNING: CPU: 0 PID: 1 at mm/slub.c:1 x") != NULL,
		   "kmsg: a WARNING is a kernel problem");
	ktap_check(dft_kernel_problem("BUG: KASAN: use-after-free in x") != NULL,
		   "kmsg: KASAN is a kernel problem");
	ktap_check(!dft_kernel_problem("device-mapper: fault: t0: rule add: Unknown rule key"),
		   "kmsg: a dm warning is not");
}

static void test_counters(void)
{
	static const char file[] = "seen 12\nevaluated 5\npassed 2\ninjected 3\n";
	uint64_t v = 0;

	ktap_check(!dft_find_counter(file, "injected", &v) && v == 3, "counter: injected 3");
	ktap_check(!dft_find_counter(file, "seen", &v) && v == 12, "counter: the first line");
	ktap_check(!dft_find_counter("injected 18446744073709551615", "injected", &v) &&
		   v == UINT64_MAX, "counter: the largest, no newline");
	ktap_check(dft_find_counter("not_injected 5", "injected", &v) == -ENOENT,
		   "counter: a longer name does not match");
	ktap_check(dft_find_counter("injectedness 5\ninjected 6", "injected", &v) == 0 && v == 6,
		   "counter: skips a prefix match");
	ktap_check(dft_find_counter("x injected 5", "injected", &v) == -ENOENT,
		   "counter: a name inside a line does not match");
	ktap_check(dft_find_counter("injected x", "injected", &v) == -ENOENT,
		   "counter: no number");
	ktap_check(dft_find_counter("injected 3x", "injected", &v) == -ENOENT,
		   "counter: a number with junk after it");
	ktap_check(dft_find_counter("injected \n", "injected", &v) == -ENOENT,
		   "counter: an empty value");
	ktap_check(dft_find_counter("", "injected", &v) == -ENOENT, "counter: missing");
}

static void test_json(void)
{
	struct dft_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	dft_json_quote(f, "a\"b\\\n\x01\t\x7f");
	fclose(f);
	ktap_check(!strcmp(buf, "\"a\\\"b\\\\\\n\\u0001\\t\\u007f\""), "json: escaping (%s)", buf);
	free(buf);

	f = open_memstream(&buf, &len);
	dft_json_init(&j, f, false);
	dft_json_begin(&j, NULL, '{');
	dft_json_begin(&j, "devices", '[');
	dft_json_begin(&j, NULL, '{');
	dft_json_str(&j, "name", "t0");
	dft_json_u64(&j, "size", UINT64_MAX);
	dft_json_bool(&j, "ok", true);
	dft_json_null(&j, "seed");
	dft_json_num(&j, "time", "12.345678");
	dft_json_begin(&j, "rules", '[');
	dft_json_end(&j, ']');
	dft_json_end(&j, '}');
	dft_json_end(&j, ']');
	dft_json_end(&j, '}');
	dft_json_finish(&j);
	fclose(f);
	ktap_check(!strcmp(buf, "{\n  \"devices\": [\n    {\n      \"name\": \"t0\",\n"
			   "      \"size\": 18446744073709551615,\n      \"ok\": true,\n"
			   "      \"seed\": null,\n      \"time\": 12.345678,\n      \"rules\": []\n"
			   "    }\n  ]\n}\n"), "json: a pretty document");
	free(buf);

	f = open_memstream(&buf, &len);
	dft_json_init(&j, f, true);
	dft_json_begin(&j, NULL, '{');
	dft_json_double(&j, "rate", 1.5);
	dft_json_double(&j, "nan", 0.0 / 0.0);
	dft_json_begin(&j, "ops", '{');
	dft_json_end(&j, '}');
	dft_json_end(&j, '}');
	dft_json_finish(&j);
	fclose(f);
	ktap_check(!strcmp(buf, "{\"rate\":1.500,\"nan\":null,\"ops\":{}}\n"),
		   "json: a compact document");
	free(buf);
}

/* The cache word: every field by name, "-", and malformed words. */
static void test_cache_word(void)
{
	static const char *const bad[] = {
		"", ":1:2:3:4:5:6:7:8:9:10:11:12:13", "on", "on:1:2:3:4:5:6:7:8:9:10:11:12",
		"on:1:2:3:4:5:6:7:8:9:10:11:12:x", "on:1:2:3:4:5:6:7:8:9:10:11:12:-1",
		"on:1:2:3:4:5:6:7:8:9:10:11:12:18446744073709551616",
	};
	struct dft_cache_stat c;
	unsigned int i;

	KTAP_EXPECT_INT_EQ(dft_parse_cache("-", &c), 1);
	KTAP_EXPECT_INT_EQ(dft_parse_cache("crashed:1:2:3:4:5:6:7:8:9:10:11:12:13", &c), 0);
	KTAP_EXPECT_STR_EQ(c.state, "crashed");
	for (i = 0; i < DFT_NR_CACHE; i++)
		ktap_check(c.v[i] == i + 1, "field %s is %llu", dft_cache_stat_name(i),
			   (unsigned long long)c.v[i]);
	KTAP_EXPECT_INT_EQ(dft_parse_cache("on:1:2:3:4:5:6:7:8:9:10:11:12:13:99", &c), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ktap_check(dft_parse_cache(bad[i], &c) == -EINVAL, "'%s' refused", bad[i]);
}

static const struct ktap_case dft_cases[] = {
	KTAP_CASE(test_info),
	KTAP_CASE(test_info_many_rules),
	KTAP_CASE(test_table_status),
	KTAP_CASE(test_compat_table),
	KTAP_CASE(test_log_reply),
	KTAP_CASE(test_rule_info),
	KTAP_CASE(test_kmsg),
	KTAP_CASE(test_counters),
	KTAP_CASE(test_json),
	KTAP_CASE(test_cache_word),
};

int main(void)
{
	return ktap_run("dmfault_parse", dft_cases, ARRAY_SIZE(dft_cases));
}
