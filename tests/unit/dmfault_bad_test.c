// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for dmfault badblocks (tools/dmfault/dev/badfile.c, base/msg.c and
 * the bad word of parse.c): a list as badblocks(8) writes it read and
 * refused line by line, blocks merged into sector ranges, ranges packed
 * into "bad add" messages that the target's own parser takes, and the
 * status word of the map.  KTAP output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/dev.h"
#include "ktap.h"

/* Read @text as a list of a device of @nr_blocks blocks. */
static int read_list(const char *text, uint64_t nr_blocks, struct dft_badlist *bl, char *err,
		     size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	memset(bl, 0, sizeof(*bl));
	err[0] = '\0';
	if (!f)
		return -errno;
	r = dft_badlist_read(f, "list", nr_blocks, bl, err, len);
	fclose(f);
	return r;
}

#define NOT_NUMBER	" (one a line, in decimal)"
#define PAST_END	" of the device (1000 blocks)"
#define A37		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static void test_read(void)
{
	static const struct {
		const char *text;
		const char *err;	/* NULL: read */
	} cases[] = {
		{ "", NULL },
		{ "\n\n\t\n", NULL },
		{ "5\n7\n", NULL },
		{ "  5 \t\r\n\n7", NULL },
		{ "5\nx\n", "list:2: 'x' is not a block number" NOT_NUMBER },
		{ "5\n\n-1\n", "list:3: '-1' is not a block number" NOT_NUMBER },
		{ "5 6\n", "list:1: '5 6' is not a block number" NOT_NUMBER },
		{ "0x10\n", "list:1: '0x10' is not a block number" NOT_NUMBER },
		{ "+4\n", "list:1: '+4' is not a block number" NOT_NUMBER },
		{ "# comment\n", "list:1: '# comment' is not a block number" NOT_NUMBER },
		{ "1\n1000\n", "list:2: block 1000 is past the end" PAST_END },
		{ "18446744073709551616\n",
		  "list:1: block 18446744073709551616 is past the end" PAST_END },
		{ A37 "aaaaaaaaaaaaaaaaaaaaaaa\n",
		  "list:1: '" A37 "...' is not a block number" NOT_NUMBER },
	};
	struct dft_badlist bl;
	char err[256];
	unsigned int i;
	int r;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		r = read_list(cases[i].text, 1000, &bl, err, sizeof(err));
		if (cases[i].err)
			ktap_check(r == -EINVAL && !strcmp(err, cases[i].err),
				   "case %u: %d '%s', want '%s'", i, r, err, cases[i].err);
		else
			ktap_check(!r, "case %u: %d %s", i, r, err);
		dft_badlist_free(&bl);
	}
	r = read_list("  5 \t\r\n\n7", 1000, &bl, err, sizeof(err));
	KTAP_EXPECT_INT_EQ(r, 0);
	ktap_check(bl.nr == 2 && bl.blocks[0] == 5 && bl.blocks[1] == 7 && bl.lines == 3,
		   "blocks 5 and 7 from three lines");
	dft_badlist_free(&bl);
}

/* The ranges of @text's blocks, as "first-last ..." */
static void ranges_of(const char *text, uint64_t bs, char *out, size_t len)
{
	struct dft_range *rg;
	struct dft_badlist bl;
	char err[256];
	size_t n, i, o = 0;

	out[0] = '\0';
	if (read_list(text, UINT64_MAX, &bl, err, sizeof(err)) ||
	    dft_badlist_ranges(&bl, bs, &rg, &n)) {
		snprintf(out, len, "error");
		dft_badlist_free(&bl);
		return;
	}
	for (i = 0; i < n; i++)
		o += snprintf(out + o, len - o, "%s%llu-%llu", i ? " " : "",
			      (unsigned long long)rg[i].first, (unsigned long long)rg[i].last);
	free(rg);
	dft_badlist_free(&bl);
}

static void test_ranges(void)
{
	static const struct {
		const char *list;
		uint64_t bs;
		const char *ranges;
	} cases[] = {
		{ "", 1024, "" },
		{ "0\n", 1024, "0-1" },
		{ "3\n4\n5\n9\n", 1024, "6-11 18-19" },
		{ "9\n5\n3\n4\n4\n", 1024, "6-11 18-19" },
		{ "1\n2\n", 512, "1-2" },
		{ "1\n3\n", 4096, "8-15 24-31" },
		{ "2305843009213693951\n", 4096,
		  "18446744073709551608-18446744073709551615" },
		{ "2305843009213693952\n", 4096, "error" },
	};
	char out[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		ranges_of(cases[i].list, cases[i].bs, out, sizeof(out));
		ktap_check(!strcmp(out, cases[i].ranges), "case %u: '%s', want '%s'", i, out,
			   cases[i].ranges);
	}
}

static void test_range_word(void)
{
	struct dft_range r = { 7, 7 };
	char w[48];

	dft_bad_range_word(&r, w, sizeof(w));
	KTAP_EXPECT_STR_EQ(w, "7");
	r.last = 14;
	dft_bad_range_word(&r, w, sizeof(w));
	KTAP_EXPECT_STR_EQ(w, "7+8");
	r = (struct dft_range){ 0, UINT64_MAX - 1 };
	dft_bad_range_word(&r, w, sizeof(w));
	KTAP_EXPECT_STR_EQ(w, "0+18446744073709551615");
}

/* The target's parser on @msg: its reason, "ok", and the word it names. */
static const char *check(const char *msg, char *word)
{
	const char *why = NULL;

	return dft_msg_check(msg, word, 128, &why) ? why : "ok";
}

static void test_msg_check(void)
{
	static const char *const good[] = {
		"bad add 0", "bad add mode=sticky status=eio 0-7 9+2 100",
		"bad add mode=heal wr_fail=3 5", "bad remove 0-7", "bad clear", "bad count",
		"bad enable", "bad disable", "bad partial on", "bad partial off", "bad query 12",
		"bad list", "bad list 4096",
	};
	char word[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		ktap_check(!strcmp(check(good[i], word), "ok"), "'%s' taken: %s", good[i],
			   check(good[i], word));
	KTAP_EXPECT_STR_EQ(check("bad add 1 5-1 3", word),
			   "invalid range: <sector>, <first>-<last> or <first>+<count>");
	KTAP_EXPECT_STR_EQ(word, "5-1");
	KTAP_EXPECT_STR_EQ(check("bad add 0+0", word),
			   "invalid range: <sector>, <first>-<last> or <first>+<count>");
	KTAP_EXPECT_STR_EQ(word, "0+0");
	KTAP_EXPECT_STR_EQ(check("bad add 18446744073709551615+2", word),
			   "invalid range: <sector>, <first>-<last> or <first>+<count>");
	KTAP_EXPECT_STR_EQ(check("bad add mode=x 1", word),
			   "mode= takes heal, sticky, read or write");
	KTAP_EXPECT_STR_EQ(word, "mode=x");
	KTAP_EXPECT_STR_EQ(check("bad add status=ok 1", word),
			   "status= takes an error status, as a rule's");
	KTAP_EXPECT_STR_EQ(check("bad add mode=sticky wr_fail=2 1", word),
			   "wr_fail= is for mode=heal");
	KTAP_EXPECT_STR_EQ(word, "");
	KTAP_EXPECT_STR_EQ(check("bad add mode=sticky", word),
			   "expected a range: <sector>, <first>-<last> or <first>+<count>");
	KTAP_EXPECT_STR_EQ(check("bad remove mode=sticky 1", word),
			   "bad remove takes ranges only");
	KTAP_EXPECT_STR_EQ(check("bad partial maybe", word),
			   "expected 'bad add|remove|clear|query|count|list|enable|disable|partial'");
	KTAP_EXPECT_STR_EQ(check("bad query x", word),
			   "expected 'bad add|remove|clear|query|count|list|enable|disable|partial'");
}

/* Every batch is bounded, taken by the parser, and the batches hold every range once. */
static void test_batches(void)
{
	struct dft_buf b = { 0 };
	struct dft_range *rg;
	size_t nr = 100000, done = 0, n, msgs = 0, i;
	char word[128], *s, *tok;
	unsigned long long first, count;
	bool ok = true;

	rg = calloc(nr, sizeof(*rg));
	if (!rg)
		return ktap_skip("out of memory");
	for (i = 0; i < nr; i++)
		rg[i] = (struct dft_range){ 4 * i * 1000, 4 * i * 1000 + (i % 3) };
	while (done < nr && ok) {
		n = dft_bad_batch(&b, "bad add mode=sticky", rg + done, nr - done, 4096);
		ok = n && b.len <= 4096 && !strcmp(check(b.text, word), "ok");
		s = b.text + strlen("bad add mode=sticky");
		for (i = 0; ok && (tok = strsep(&s, " ")) != NULL;) {
			if (!*tok)
				continue;
			count = 1;
			ok = sscanf(tok, "%llu+%llu", &first, &count) >= 1 &&
			     first == rg[done + i].first &&
			     first + count - 1 == rg[done + i].last;
			i++;
		}
		ok = ok && i == n;
		done += n;
		msgs++;
	}
	ktap_check(ok && done == nr, "%zu of %zu ranges in %zu bounded messages", done, nr, msgs);
	ktap_check(msgs > 100, "%zu messages of 4 KiB", msgs);
	n = dft_bad_batch(&b, "bad add", rg + 5, 1, 4);
	ktap_check(n == 1 && !strcmp(b.text, "bad add 20000+3"), "one range past the bound: %s",
		   b.text);
	dft_buf_free(&b);
	free(rg);
}

/* 1,000,000 lines, every other block: read, merged and batched. */
static void test_million(void)
{
	struct dft_buf b = { 0 };
	struct dft_badlist bl;
	struct dft_range *rg;
	size_t len = 0, nr, done = 0, msgs = 0, n, i;
	char *text, err[256];
	int r;

	text = malloc(16 * 1000000);
	if (!text)
		return ktap_skip("out of memory");
	for (i = 0; i < 1000000; i++)
		len += sprintf(text + len, "%zu\n", 2 * i);
	r = read_list(text, 2000000, &bl, err, sizeof(err));
	KTAP_EXPECT_INT_EQ(r, 0);
	r = dft_badlist_ranges(&bl, 1024, &rg, &nr);
	KTAP_EXPECT_INT_EQ(r, 0);
	ktap_check(nr == 1000000 && rg[999999].first == 3999996 && rg[999999].last == 3999997,
		   "a million apart ranges, the last 3999996-3999997");
	while (!r && done < nr) {
		n = dft_bad_batch(&b, "bad add", rg + done, nr - done, 65536);
		if (!n)
			break;
		done += n;
		msgs++;
	}
	ktap_check(done == nr && msgs > 100 && msgs < 400, "%zu messages of 64 KiB", msgs);
	dft_buf_free(&b);
	free(rg);
	dft_badlist_free(&bl);
	free(text);
}

static void test_bad_word(void)
{
	static const char *const bad[] = {
		"", "x", "on", "on:0", "on:0:1:2:3:4", "yes:0:1:2:3:4:5", "on:2:1:2:3:4:5",
		"on:0:1:2:3:-4:5", "on:0:1:2:3:4:18446744073709551616", "on::1:2:3:4:5",
		"on:0:1:2:3:4:5x",
	};
	struct dft_bad_stat b;
	unsigned int i;

	KTAP_EXPECT_INT_EQ(dft_parse_bad("-", &b), 1);
	KTAP_EXPECT_INT_EQ(dft_parse_bad("off:1:1:2:3:4:5", &b), 0);
	ktap_check(!b.enabled && b.partial, "off, partial");
	for (i = 0; i < DFT_NR_BAD; i++)
		ktap_check(b.v[i] == i + 1, "field %s is %llu", dft_bad_stat_name(i),
			   (unsigned long long)b.v[i]);
	KTAP_EXPECT_INT_EQ(dft_parse_bad("on:0:1:2:3:4:5:99", &b), 0);
	ktap_check(b.enabled && !b.partial && b.v[DFT_B_HEALS] == 5, "on, fields after ignored");
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ktap_check(dft_parse_bad(bad[i], &b) == -EINVAL, "'%s' refused", bad[i]);
	KTAP_EXPECT_STR_EQ(dft_bad_stat_name(DFT_B_RANGES), "ranges");
	KTAP_EXPECT_STR_EQ(dft_bad_stat_name(DFT_B_HEALS), "heals");
}

#define INFO_HEAD "1 read:1:4096:0:0 0 2"

static void test_info_bad(void)
{
	struct dft_stats st;
	const char *err;
	int r;

	r = dft_parse_info(INFO_HEAD " - on:0:3:24:100:7:1", &st, &err);
	ktap_check(!r && st.cache && !strcmp(st.cache, "-") && st.bad &&
		   !strcmp(st.bad, "on:0:3:24:100:7:1"), "the bad word after the cache word");
	dft_stats_free(&st);
	r = dft_parse_info(INFO_HEAD " - -", &st, &err);
	ktap_check(!r && st.bad && !strcmp(st.bad, "-"), "no map: '-'");
	dft_stats_free(&st);
	r = dft_parse_info(INFO_HEAD " -", &st, &err);
	ktap_check(r == -EINVAL && !strcmp(err, "bad-block map word missing"),
		   "no bad word: refused");
	dft_stats_free(&st);
	r = dft_parse_info(INFO_HEAD " - off:1:0:0:0:0:0 newer words", &st, &err);
	ktap_check(!r && st.bad && !strcmp(st.bad, "off:1:0:0:0:0:0"),
		   "words after the bad word (a newer target) are left alone");
	dft_stats_free(&st);
}

static const struct ktap_case dft_cases[] = {
	KTAP_CASE(test_read),
	KTAP_CASE(test_ranges),
	KTAP_CASE(test_range_word),
	KTAP_CASE(test_msg_check),
	KTAP_CASE(test_batches),
	KTAP_CASE(test_million),
	KTAP_CASE(test_bad_word),
	KTAP_CASE(test_info_bad),
};

int main(void)
{
	return ktap_run("dmfault_bad", dft_cases, ARRAY_SIZE(dft_cases));
}
