// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for crashtest's merge of shard reports
 * (tools/dmfault/crash/merge.c) and its picture (svg.c): the counts summed,
 * the failures in the plan's order with only the first of each epoch
 * explained, the shards of other runs, a missing shard and one given twice
 * refused with the files named; and record.c's comparison of a replayed
 * recording with the saved one.  KTAP output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash/crash.h"
#include "ktap.h"

/*
 * A shard's report: run @run, shard @i of @n, epoch 0 with @c0 states
 * checked, epoch 1 with @c1, and the failures @fail (JSON objects).
 */
static char *shard(const char *run, unsigned int i, unsigned int n, unsigned int c0,
		   unsigned int c1, unsigned int failed, const char *fail, double secs)
{
	char *s;

	if (asprintf(&s, "{\"disk\": \"/dev/nullb0\", \"writes\": 30, \"workload_writes\": 20,"
		     " \"flush_points\": 4, \"unit\": 8, \"epochs\": ["
		     "{\"epoch\": 0, \"first\": 1, \"states\": 6, \"skipped\": 2, \"checked\": %u, \"failed\": %u},"
		     "{\"epoch\": 1, \"first\": 9, \"states\": 4, \"skipped\": 0, \"checked\": %u, \"failed\": 0}],"
		     " \"states\": {\"checked\": %u, \"failed\": %u, \"duplicates\": 2, \"capped\": 0,"
		     " \"minimise_checks\": 5}, \"failures\": [%s], \"seconds\": %.1f,"
		     " \"total\": %u, \"failed\": %u, \"run\": \"%s\","
		     " \"shard\": {\"index\": %u, \"count\": %u}, \"state_total\": 10}",
		     c0, failed, c1, c0 + c1, failed, fail, secs, c0 + c1, failed, run, i, n) < 0)
		return NULL;
	return s;
}

/* A failure of epoch 0, explained in its shard (minimal_spec) or not. */
#define FAIL(state, spec, explained) \
	"{\"spec\": \"" spec "\", \"epoch\": 0, \"kind\": \"omit\", \"point\": 5," \
	" \"check_exit\": 1, \"output\": \"lost \\\"x\\\"\\n\", \"lost\": [3]," \
	explained " \"repro\": \"dmfault crashtest --state 'min'\", \"state\": " #state "," \
	" \"repro_state\": \"dmfault crashtest --state '" spec "'\"}"
#define EXPLAINED	" \"minimal_spec\": \"keep=1-2\", \"minimise_checks\": 4, \"minimal\": [],"
#define UNEXPLAINED	" \"minimal\": null,"

/* Merge @n reports; the output in *@out (malloc()ed), the status returned. */
static int merge(char **text, unsigned int n, char **out, char *err, const char *svg)
{
	const char *names[] = { "a.json", "b.json", "c.json" };
	size_t len;
	FILE *f = open_memstream(out, &len);
	int r;

	r = dft_ct_merge(names, (const char *const *)text, n, f, svg, err, 300);
	fclose(f);
	return r;
}

static void test_merge_two_shards(void)
{
	char *text[2], *out = NULL, err[300] = "";
	const char *first, *second;
	int r;

	/* shard 0 checked states 0, 2, ...: 4 and 6 fail; shard 1 checked 1, 3, ...: 3 fails */
	text[0] = shard("abc", 0, 2, 3, 2, 2, FAIL(4, "keep=1-4", EXPLAINED) ","
			FAIL(6, "keep=1-5", UNEXPLAINED), 10.0);
	text[1] = shard("abc", 1, 2, 3, 2, 1, FAIL(3, "keep=1-3", EXPLAINED), 12.5);
	r = merge(text, 2, &out, err, NULL);
	ktap_check(r == 1, "merged, with failures: %d %s", r, err);
	ktap_check(out && strstr(out, "\"checked\": 10,\n    \"failed\": 3,"),
		   "the states checked and failed are summed: %s", out);
	ktap_check(out && strstr(out, "\"checked\": 6,\n      \"failed\": 3"),
		   "epoch 0's counts are summed");
	first = out ? strstr(out, "\"spec\": \"keep=1-3\"") : NULL;
	second = out ? strstr(out, "\"spec\": \"keep=1-4\"") : NULL;
	ktap_check(first && second && first < second && strstr(second, "keep=1-5"),
		   "the failures in the plan's order");
	ktap_check(first && strstr(first, "minimal_spec") < second,
		   "the first failure of the epoch keeps its account");
	ktap_check(second && !strstr(second, "minimal_spec") &&
		   strstr(second, "\"repro\": \"dmfault crashtest --state 'keep=1-4'\""),
		   "a later one is given without one, with its own state's command");
	ktap_check(out && !strstr(out, "repro_state") && strstr(out, "\"shards\": 2"),
		   "the shard's own fields are gone");
	ktap_check(out && strstr(out, "\"minimise_checks\": 4") && strstr(out, "\"seconds\": 12.5"),
		   "only the explained failure's checks count; the longest shard's seconds");
	ktap_check(out && strstr(out, "\"output\": \"lost \\\"x\\\"\\n\""),
		   "strings come out as they went in");
	free(out);
	free(text[0]);
	free(text[1]);
}

static void test_merge_refuses(void)
{
	char *text[3], *out = NULL, err[300] = "";
	int r;

	text[0] = shard("abc", 0, 2, 3, 2, 0, "", 1);
	text[1] = shard("def", 1, 2, 3, 2, 0, "", 1);
	text[2] = shard("abc", 0, 2, 3, 2, 0, "", 1);
	r = merge(text, 2, &out, err, NULL);
	ktap_check(r == -EINVAL && strstr(err, "a.json and b.json are shards of different runs"),
		   "two runs: %s", err);
	free(out);
	out = NULL;
	r = merge(text, 1, &out, err, NULL);
	ktap_check(r == -EINVAL && strstr(err, "shard 1/2 of run abc is missing"),
		   "a missing shard: %s", err);
	free(out);
	out = NULL;
	r = merge((char *[]){ text[0], text[2] }, 2, &out, err, NULL);
	ktap_check(r == -EINVAL && strstr(err, "shard 0/2 given twice: a.json and b.json"),
		   "a shard twice: %s", err);
	free(out);
	out = NULL;
	r = merge((char *[]){ "{\"disk\": \"x\"}" }, 1, &out, err, NULL);
	ktap_check(r == -EINVAL && strstr(err, "a.json: not the --json report of a shard"),
		   "a report that is not a shard's: %s", err);
	free(out);
	out = NULL;
	r = merge((char *[]){ "{\"disk\": \"x\"" }, 1, &out, err, NULL);
	ktap_check(r == -EINVAL && strstr(err, "a.json: not JSON"), "broken JSON: %s", err);
	free(out);
	free(text[0]);
	free(text[1]);
	free(text[2]);
}

static void test_merge_svg(void)
{
	char *text[1], *out = NULL, err[300] = "", path[] = "/tmp/dmf-merge-svg.XXXXXX";
	size_t len;
	char *svg;
	int fd = mkstemp(path);

	close(fd);
	text[0] = shard("abc", 0, 1, 6, 4, 1, FAIL(2, "keep=1-2", EXPLAINED), 1);
	ktap_check(merge(text, 1, &out, err, path) == 1, "merged one shard of one: %s", err);
	svg = calloc(1, 8192);
	fd = open(path, O_RDONLY);
	len = fd >= 0 && svg ? (size_t)read(fd, svg, 8191) : 0;
	if (fd >= 0)
		close(fd);
	ktap_check(len && strstr(svg, "<svg ") && strstr(svg, "</svg>"), "an SVG file");
	ktap_check(svg && strstr(svg, ">epoch 0: 6 checked, 5 passed, 1 failed, 2 skipped<"),
		   "epoch 0 in words");
	ktap_check(svg && strstr(svg, ">epoch 1: 4 checked, 4 passed, 0 failed, 0 skipped<"),
		   "epoch 1 in words");
	free(svg);
	free(out);
	free(text[0]);
	unlink(path);
}

/* One page of "record list", read to its end. */
static int rec_read(struct dft_record *rec, const char *page)
{
	const char *err = NULL;
	uint64_t next = 1;

	memset(rec, 0, sizeof(*rec));
	return dft_record_page(rec, page, 1, &next, &err) || dft_record_done(rec, &err);
}

static void test_record_same(void)
{
	static const char *const a = "writes=3 flushes=1 marks=1 unit=8 overflow=0\n"
		"w 1 0 8 write\nw 2 8 8 fua\nf 2\nw 3 64 16 write\nm 3 dmfault-end\nend";
	static const char *const other[] = {
		"writes=3 flushes=1 marks=1 unit=8 overflow=0\n"
		"w 1 0 8 write\nw 2 8 8 write\nf 2\nw 3 64 16 write\nm 3 dmfault-end\nend",
		"writes=3 flushes=1 marks=1 unit=8 overflow=0\n"
		"w 1 0 8 write\nw 2 8 8 fua\nw 3 64 16 write\nf 3\nm 3 dmfault-end\nend",
		"writes=3 flushes=1 marks=2 unit=8 overflow=0\n"
		"w 1 0 8 write\nm 1 acked-1\nw 2 8 8 fua\nf 2\nw 3 64 16 write\nm 3 dmfault-end\nend",
		"writes=3 flushes=1 marks=1 unit=1 overflow=0\n"
		"w 1 0 8 write\nw 2 8 8 fua\nf 2\nw 3 64 16 write\nm 3 dmfault-end\nend",
	};
	static const char *const why[] = { "write 2 is", "epoch 0, not", "mark 1 is", "unit" };
	struct dft_record x, y;
	char msg[256];
	unsigned int i;

	ktap_check(!rec_read(&x, a) && !rec_read(&y, a), "read");
	ktap_check(dft_record_same(&x, &y, msg, sizeof(msg)), "the same recording");
	/* a second flush with no write since the last adds no point */
	dft_record_free(&y);
	ktap_check(!rec_read(&y, "writes=3 flushes=3 marks=1 unit=8 overflow=0\nf 0\n"
			     "w 1 0 8 write\nw 2 8 8 fua\nf 2\nf 2\nw 3 64 16 write\n"
			     "m 3 dmfault-end\nend") && dft_record_same(&x, &y, msg, sizeof(msg)),
		   "more flushes at the same points: the same");
	dft_record_free(&y);
	for (i = 0; i < ARRAY_SIZE(other); i++) {
		ktap_check(!rec_read(&y, other[i]), "read %u", i);
		ktap_check(!dft_record_same(&x, &y, msg, sizeof(msg)) && strstr(msg, why[i]),
			   "difference %u found: %s", i, msg);
		dft_record_free(&y);
	}
	dft_record_free(&x);
}

static const struct ktap_case merge_cases[] = {
	KTAP_CASE(test_merge_two_shards),
	KTAP_CASE(test_merge_refuses),
	KTAP_CASE(test_merge_svg),
	KTAP_CASE(test_record_same),
};

int main(void)
{
	return ktap_run("merge", merge_cases, ARRAY_SIZE(merge_cases));
}
