// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host unit tests for crashtest's crash-state explorer
 * (tools/dmfault/crash/record.c and explore.c): reading "record list" replies,
 * epochs, durability and marks, the states of an epoch (prefixes, omit-one,
 * every subset or samples, torn writes) with dedupe and the cap, state
 * specs read by the target's own parser, and delta debugging with a fake
 * check.  KTAP output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash/crash.h"
#include "ktap.h"

static const struct dft_explore_cfg dflt = {
	.subset_max = 8, .samples = 8, .seed = 1, .max_states = 2000,
};

/*
 * A recording from a short description, as one page of "record list":
 *   w  a write of 16 sectors (two units of 8), s  of 8 sectors (one unit),
 *   u  8 sectors across two units, F  a FUA write of 16 sectors,
 *   d  a discard of 16 sectors, |  a flush point after the last write,
 *   E  the end mark, M  a mark labelled step<N> (N: the writes so far).
 * Write n is at sector 64 n.
 */
static int rec_build(struct dft_record *rec, const char *desc)
{
	struct dft_buf b = { 0 };
	unsigned int n = 0, nw = 0, nf = 0, nm = 0;
	const char *p, *err = NULL;
	uint64_t next = 1;
	int r;

	for (p = desc; *p; p++) {
		nw += !!strchr("wsuFd", *p);
		nf += *p == '|';
		nm += *p == 'E' || *p == 'M';
	}
	dft_buf_add(&b, "writes=%u flushes=%u marks=%u unit=8 overflow=0\n", nw, nf, nm);
	for (p = desc; *p; p++) {
		if (*p == '|')
			dft_buf_add(&b, "f %u\n", n);
		else if (*p == 'E')
			dft_buf_add(&b, "m %u " DFT_END_MARK "\n", n);
		else if (*p == 'M')
			dft_buf_add(&b, "m %u step%u\n", n, n);
		else if (strchr("wsuFd", *p))
			n++, dft_buf_add(&b, "w %u %u %u %s\n", n, 64 * n + (*p == 'u' ? 4 : 0),
					 *p == 's' || *p == 'u' ? 8 : 16,
					 *p == 'F' ? "fua" : *p == 'd' ? "discard" : "write");
	}
	dft_buf_add(&b, "end\n");
	memset(rec, 0, sizeof(*rec));
	r = dft_record_page(rec, b.text, 1, &next, &err);
	if (!r)
		r = dft_record_done(rec, &err);
	ktap_check(!r && !next, "record '%s': %d %s", desc, r, err ? err : "");
	dft_buf_free(&b);
	return r;
}

static bool plan_has(const struct dft_plan *plan, const char *spec)
{
	unsigned int i;

	for (i = 0; i < plan->nr; i++)
		if (!strcmp(plan->st[i].spec, spec))
			return true;
	return false;
}

/* A state with this view, whatever its marks. */
static bool plan_has_view(const struct dft_plan *plan, const char *view)
{
	unsigned int i;

	for (i = 0; i < plan->nr; i++)
		if (dft_spec_view_len(plan->st[i].spec) == strlen(view) &&
		    !strncmp(plan->st[i].spec, view, strlen(view)))
			return true;
	return false;
}

static unsigned int plan_count(const struct dft_plan *plan, unsigned int epoch,
			       enum dft_state_kind kind)
{
	unsigned int i, n = 0;

	for (i = 0; i < plan->nr; i++)
		n += plan->st[i].epoch == epoch && plan->st[i].kind == kind;
	return n;
}

/* Two pages, flush points (0 and repeats ignored), marks, kinds and epochs. */
static void test_record_pages(void)
{
	static const char *const page1 =
		"writes=4 flushes=4 marks=2 unit=8 overflow=0 newkey=5\n"
		"f 0\nm 0 start\nw 1 0 8 write\nw 2 8 16 fua\nf 2\nf 2\n";
	static const char *const page2 =
		"writes=4 flushes=4 marks=2 unit=8 overflow=0\n"
		"w 3 100 8 discard\nm 3 dmfault-end\nw 4 0 8 zeroes\nf 4\nend\n";
	struct dft_record rec = { 0 };
	const char *err = NULL;
	uint64_t next = 0;

	/* a reply cut short has no last line */
	KTAP_EXPECT_INT_EQ(dft_record_page(&rec, page1, 1, &next, &err), -EPROTO);
	dft_record_free(&rec);
	/* the same reply as a first page that says where the next starts */
	KTAP_EXPECT_INT_EQ(dft_record_page(&rec, "writes=4 flushes=4 marks=2 unit=8 overflow=0\n"
					   "f 0\nm 0 start\nw 1 0 8 write\nw 2 8 16 fua\nf 2\n"
					   "f 2\nnext 3\n", 1, &next, &err), 0);
	KTAP_EXPECT_U64_EQ(next, 3);
	KTAP_EXPECT_INT_EQ(dft_record_page(&rec, page2, 3, &next, &err), 0);
	KTAP_EXPECT_U64_EQ(next, 0);
	KTAP_EXPECT_INT_EQ(dft_record_done(&rec, &err), 0);
	KTAP_EXPECT_U64_EQ(rec.nr_w, 4);
	KTAP_EXPECT_U64_EQ(rec.unit, 8);
	KTAP_EXPECT_U64_EQ(rec.nr_bar, 2);
	KTAP_EXPECT_U64_EQ(rec.bar[0], 2);
	KTAP_EXPECT_U64_EQ(rec.bar[1], 4);
	KTAP_EXPECT_U64_EQ(rec.end, 3);
	KTAP_EXPECT_INT_EQ(rec.nr_epochs, 2);
	KTAP_EXPECT_INT_EQ(rec.w[0].epoch, 0);
	KTAP_EXPECT_INT_EQ(rec.w[1].epoch, 0);
	KTAP_EXPECT_INT_EQ(rec.w[2].epoch, 1);
	KTAP_EXPECT_INT_EQ(rec.w[1].kind, DFT_RW_FUA);
	KTAP_EXPECT_INT_EQ(rec.w[2].kind, DFT_RW_DISCARD);
	KTAP_EXPECT_INT_EQ(rec.w[3].kind, DFT_RW_ZEROES);
	KTAP_EXPECT_U64_EQ(rec.w[2].sector, 100);
	KTAP_EXPECT_STR_EQ(dft_step(&rec, 1), "start");
	KTAP_EXPECT_STR_EQ(dft_step(&rec, 3), "start");
	KTAP_EXPECT_STR_EQ(dft_step(&rec, 4), DFT_END_MARK);
	dft_record_free(&rec);
}

/* Replies that must be refused, each for a reason. */
static void test_record_malformed(void)
{
	static const char *const bad[] = {
		"",
		"w 1 0 8 write\nend\n",
		"writes=1 flushes=0 marks=0 unit=8\nw 1 0 8 write\nend\n",
		"writes=1 flushes=0 marks=0 unit=0 overflow=0\nw 1 0 8 write\nend\n",
		"writes=1 flushes=0 marks=0 unit=8 overflow=0\nw 2 0 8 write\nend\n",
		"writes=1 flushes=0 marks=0 unit=8 overflow=0\nw 1 0 8 read\nend\n",
		"writes=1 flushes=0 marks=0 unit=8 overflow=0\nw 1 0 0 write\nend\n",
		"writes=1 flushes=0 marks=0 unit=8 overflow=0\nw 1 x 8 write\nend\n",
		"writes=1 flushes=0 marks=0 unit=8 overflow=0\nw 1 0 8 write\n",
		"writes=1 flushes=0 marks=0 unit=8 overflow=0\nw 1 0 8 write\nend\nw 2 0 8 write\n",
		"writes=1 flushes=1 marks=0 unit=8 overflow=0\nf 1\nw 1 0 8 write\nend\n",
		"writes=2 flushes=2 marks=0 unit=8 overflow=0\nw 1 0 8 write\nw 2 0 8 write\n"
		"f 2\nf 1\nend\n",
		"writes=2 flushes=0 marks=0 unit=8 overflow=0\nw 1 0 8 write\nend\n",
		"writes=1 flushes=0 marks=1 unit=8 overflow=0\nw 1 0 8 write\n"
		"m 1 a23456789012345678901234567890123\nend\n",
		"writes=1 flushes=0 marks=0 unit=8 overflow=0\nnext 1\n",
		"writes=1 flushes=0 marks=0 unit=8 overflow=0\nw 1 0 8 write\nx 1\nend\n",
	};
	struct dft_record rec;
	const char *err;
	uint64_t next;
	unsigned int i;
	int r;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&rec, 0, sizeof(rec));
		err = NULL;
		r = dft_record_page(&rec, bad[i], 1, &next, &err);
		ktap_check(r == -EPROTO && err, "reply %u refused (%d)", i, r);
		dft_record_free(&rec);
	}
	/* a page that changes the header; a recording with no end mark */
	memset(&rec, 0, sizeof(rec));
	r = dft_record_page(&rec, "writes=2 flushes=0 marks=0 unit=8 overflow=0\n"
			    "w 1 0 8 write\nnext 2\n", 1, &next, &err);
	KTAP_EXPECT_INT_EQ(r, 0);
	r = dft_record_page(&rec, "writes=3 flushes=0 marks=0 unit=8 overflow=0\n"
			    "w 2 0 8 write\nend\n", 2, &next, &err);
	KTAP_EXPECT_INT_EQ(r, -EPROTO);
	dft_record_free(&rec);
	r = dft_record_page(&rec, "writes=1 flushes=0 marks=1 unit=8 overflow=1\n"
			    "w 1 0 8 write\nm 1 -\nend\n", 1, &next, &err);
	KTAP_EXPECT_INT_EQ(r, 0);
	KTAP_EXPECT(rec.overflow);
	KTAP_EXPECT(!dft_step(&rec, 2));
	KTAP_EXPECT_INT_EQ(dft_record_done(&rec, &err), -EPROTO);
	dft_record_free(&rec);
}

/* Flushed writes are durable only past their flush point, FUA writes once done. */
static void test_durable(void)
{
	struct dft_record rec;

	/* writes 1-2, flush point 2, write 3 FUA, write 4, end after 4 */
	if (rec_build(&rec, "ww|FwE"))
		return;
	KTAP_EXPECT_U64_EQ(dft_durable_upto(&rec, 2), 0);
	KTAP_EXPECT_U64_EQ(dft_durable_upto(&rec, 3), 2);
	KTAP_EXPECT(!dft_is_durable(&rec, 1, 2));
	KTAP_EXPECT(dft_is_durable(&rec, 1, 3));
	KTAP_EXPECT(dft_is_durable(&rec, 3, 3));
	KTAP_EXPECT(!dft_is_durable(&rec, 3, 2));
	KTAP_EXPECT(!dft_is_durable(&rec, 4, 4));
	KTAP_EXPECT_INT_EQ(rec.nr_epochs, 2);
	dft_record_free(&rec);
}

/*
 * An epoch of three writes that are not FUA after one of one write: every
 * subset of the three, each omit-one and prefix, and the exact duplicates.
 * The end mark follows write 4: a prefix to 4 is after it, a state lost at
 * the end of the epoch before it, so keep=1-4 is checked both ways.
 */
static void test_subsets_and_dedupe(void)
{
	static const uint64_t masks[8][3] = {
		{ 2, 3, 4 }, { 3, 4 }, { 2, 4 }, { 4 }, { 2, 3 }, { 3 }, { 2 }, { 0 },
	};
	static const unsigned int nlost[8] = { 3, 2, 2, 1, 2, 1, 1, 0 };
	struct dft_crash end = { .point = 4, .marks = 0 };
	struct dft_plan plan = { 0 };
	struct dft_record rec;
	unsigned int i;
	char *spec;

	if (rec_build(&rec, "w|sssE"))
		return;
	KTAP_EXPECT_INT_EQ(dft_plan_build(&rec, &dflt, &plan), 0);
	for (i = 0; i < 8; i++) {
		spec = dft_spec_lose(&rec, &end, masks[i], nlost[i]);
		ktap_check(plan_has(&plan, spec), "subset %u: %s is checked", i, spec);
		free(spec);
	}
	/* epoch 0: keep=none, keep=1 and its torn write; 3 of 6 candidates were the same */
	KTAP_EXPECT_INT_EQ(plan.ep[0].states, 3);
	KTAP_EXPECT_U64_EQ(plan.ep[0].dups, 3);
	KTAP_EXPECT(plan_has(&plan, "keep=1 tear=1:1"));
	/* epoch 1: 4 prefixes + 3 omit-one + 8 subsets, 8 of them new */
	KTAP_EXPECT_U64_EQ(plan.ep[1].candidates, 15);
	KTAP_EXPECT_INT_EQ(plan.ep[1].states, 8);
	KTAP_EXPECT_U64_EQ(plan.ep[1].dups, 7);
	KTAP_EXPECT_U64_EQ(plan.dups, 10);
	KTAP_EXPECT_U64_EQ(plan.capped, 0);
	KTAP_EXPECT_INT_EQ(plan.nr, 11);
	KTAP_EXPECT(plan_has(&plan, "keep=1,3-4 marks=0"));
	KTAP_EXPECT(plan_has(&plan, "keep=1-2,4 marks=0"));
	KTAP_EXPECT(plan_has(&plan, "keep=1-4 marks=0"));
	KTAP_EXPECT(plan_has(&plan, "keep=1-4"));
	KTAP_EXPECT(plan_has(&plan, "keep=1,3"));
	KTAP_EXPECT_INT_EQ(plan_count(&plan, 1, DFT_ST_PREFIX), 3);
	KTAP_EXPECT_INT_EQ(plan_count(&plan, 1, DFT_ST_OMIT), 2);
	KTAP_EXPECT_INT_EQ(plan_count(&plan, 1, DFT_ST_SUBSET), 3);
	dft_plan_free(&plan);
	dft_record_free(&rec);
}

/*
 * No state loses a FUA write or a flushed one, or keeps a write past its
 * point; a FUA write is torn only in flight: as the state's crash point.
 */
static void test_fua_never_lost(void)
{
	struct dft_plan plan = { 0 };
	struct dft_spec s;
	struct dft_record rec;
	const char *err;
	unsigned int i, bad = 0, omit = 0, fua_torn = 0;
	uint64_t w;

	if (rec_build(&rec, "wFw|wFwwd|FwE"))
		return;
	KTAP_EXPECT_INT_EQ(dft_plan_build(&rec, &dflt, &plan), 0);
	KTAP_EXPECT(plan.nr > 20);
	for (i = 0; i < plan.nr; i++) {
		if (dft_spec_parse(plan.st[i].spec, &s, &err)) {
			bad++;
			continue;
		}
		for (w = 1; w <= rec.nr_w; w++) {
			if (w <= plan.st[i].point && dft_is_durable(&rec, w, plan.st[i].point))
				bad += !dft_spec_keeps(&s, w);
			if (w > plan.st[i].point)
				bad += dft_spec_keeps(&s, w);
		}
		if (s.nr_tear && rec.w[s.tear[0].w - 1].kind == DFT_RW_FUA) {
			bad += s.tear[0].w != plan.st[i].point;
			fua_torn++;
		}
		omit += plan.st[i].kind == DFT_ST_OMIT;
		dft_spec_free(&s);
	}
	KTAP_EXPECT_INT_EQ(bad, 0);
	/* FUA writes 2, 5 and 9, each torn in flight after the writes before it */
	KTAP_EXPECT_INT_EQ(fua_torn, 3);
	KTAP_EXPECT(plan_has(&plan, "keep=1-5 tear=5:1"));
	/* epochs 1-3, 4-8 and 9-10: none omits FUA write 5 or 9 */
	KTAP_EXPECT(!plan_has_view(&plan, "keep=1-4,6-8"));
	KTAP_EXPECT(!plan_has_view(&plan, "keep=1-8,10"));
	KTAP_EXPECT(plan_has(&plan, "keep=1-3,5-8"));
	KTAP_EXPECT_INT_EQ(plan.ep[1].fua, 1);
	/* 1 of epoch 0, 4, 6 and 7 of epoch 1: the others equal a prefix */
	KTAP_EXPECT_INT_EQ(omit, 4);
	dft_plan_free(&plan);
	dft_record_free(&rec);
}

/* A prefix whose last write spans two units is torn too, FUA or not; one unit is not. */
static void test_torn(void)
{
	struct dft_explore_cfg cfg = dflt;
	struct dft_plan plan = { 0 };
	struct dft_record rec;

	cfg.seed = 7;
	if (rec_build(&rec, "|wsuFdE"))
		return;
	KTAP_EXPECT_INT_EQ(dft_plan_build(&rec, &cfg, &plan), 0);
	KTAP_EXPECT(plan_has(&plan, "keep=1 tear=1:7"));
	KTAP_EXPECT(!plan_has_view(&plan, "keep=1-2 tear=2:7"));
	KTAP_EXPECT(plan_has(&plan, "keep=1-3 tear=3:7"));
	/* the FUA write, in flight: the writes before it kept */
	KTAP_EXPECT(plan_has(&plan, "keep=1-4 tear=4:7"));
	/* torn while in flight: before the end mark that follows write 5 */
	KTAP_EXPECT(plan_has(&plan, "keep=1-5 tear=5:7 marks=0"));
	KTAP_EXPECT_INT_EQ(plan_count(&plan, 0, DFT_ST_TORN), 4);
	dft_plan_free(&plan);
	dft_record_free(&rec);
}

/* More writes than --subset-max: seeded samples, the same for a seed, not for another. */
static void test_samples(void)
{
	struct dft_explore_cfg cfg = dflt;
	struct dft_plan a = { 0 }, b = { 0 }, c = { 0 };
	struct dft_record rec;
	unsigned int i, same = 0, other = 0, n = 0;

	if (rec_build(&rec, "ssssssssssssE"))
		return;
	KTAP_EXPECT_INT_EQ(dft_plan_build(&rec, &cfg, &a), 0);
	KTAP_EXPECT_INT_EQ(dft_plan_build(&rec, &cfg, &b), 0);
	cfg.seed = 2;
	KTAP_EXPECT_INT_EQ(dft_plan_build(&rec, &cfg, &c), 0);
	/* 13 prefixes + 12 omit-one + 8 samples */
	KTAP_EXPECT_U64_EQ(a.ep[0].candidates, 33);
	for (i = 0; i < a.nr; i++) {
		if (a.st[i].kind != DFT_ST_SUBSET)
			continue;
		n++;
		same += plan_has(&b, a.st[i].spec);
		other += plan_has(&c, a.st[i].spec);
	}
	KTAP_EXPECT(n >= 6 && n <= 8);
	KTAP_EXPECT_INT_EQ(same, n);
	ktap_check(other < n, "seed 2 gives other samples (%u of %u the same)", other, n);
	dft_plan_free(&a);
	dft_plan_free(&b);
	dft_plan_free(&c);
	dft_record_free(&rec);
}

/* The cap: shared by the epochs, some of each kind in a capped epoch, all counted. */
static void test_cap(void)
{
	struct dft_explore_cfg cfg = dflt;
	struct dft_plan plan = { 0 };
	struct dft_record rec;
	uint64_t sum = 0;
	unsigned int k;

	cfg.max_states = 50;
	if (rec_build(&rec, "ssssss|ssssss|ssssss|ssssss|ssssss|ssssss|ssssss|ssssss|s|sssssE"))
		return;
	KTAP_EXPECT_INT_EQ(dft_plan_build(&rec, &cfg, &plan), 0);
	KTAP_EXPECT_INT_EQ(plan.nr_epochs, 10);
	ktap_check(plan.nr <= 50 && plan.nr >= 45, "%u states for a cap of 50", plan.nr);
	for (k = 0; k < plan.nr_epochs; k++) {
		ktap_check(plan.ep[k].states >= (k == 8 ? 1 : 4), "epoch %u: %u states", k,
			   plan.ep[k].states);
		KTAP_EXPECT_U64_EQ(plan.ep[k].states + plan.ep[k].dups + plan.ep[k].capped,
				   plan.ep[k].candidates);
		sum += plan.ep[k].capped;
	}
	KTAP_EXPECT_U64_EQ(sum, plan.capped);
	KTAP_EXPECT(plan.capped > 500);
	/* a capped epoch of six writes: prefixes, omit-one and subsets all present */
	KTAP_EXPECT(plan_count(&plan, 2, DFT_ST_PREFIX) >= 1);
	KTAP_EXPECT(plan_count(&plan, 2, DFT_ST_OMIT) >= 1);
	KTAP_EXPECT(plan_count(&plan, 2, DFT_ST_SUBSET) >= 1);
	/* the epoch of one write has 5 candidates, two states at most: all fit */
	KTAP_EXPECT_U64_EQ(plan.ep[8].capped, 0);
	dft_plan_free(&plan);
	dft_record_free(&rec);
}

/* Specs: parsed, canonical, refused. */
static void test_spec(void)
{
	static const char *const bad[] = {
		"", "keep=", "keep=x", "keep=3-1", "keep=1,1", "keep=2-4,3", "keep=0",
		"keep=1 tear=2:1", "tear=1:1", "keep=1 tear=1", "keep=1 tear=1:1,1:2",
		"keep=1 drop=2", "keep=1 tear=1:1 x", "keep=none tear=1:1",
		"keep=1-3,5 tear=5:1,2:1", "keep=1,", "keep=1--2", "keep=1 marks=x",
		"keep=1 marks=1 tear=1:1", "keep=1 marks=", "keep=1 marks=1 marks=2",
	};
	static const uint64_t lost[] = { 2, 4 };
	struct dft_buf b = { 0 };
	struct dft_spec s;
	const char *err;
	unsigned int i;
	char *spec;

	KTAP_EXPECT_INT_EQ(dft_spec_parse("keep=1-3,5,9-10 tear=2:1,5:9", &s, &err), 0);
	KTAP_EXPECT_U64_EQ(s.nr_r, 3);
	KTAP_EXPECT(dft_spec_keeps(&s, 2) && dft_spec_keeps(&s, 5) && dft_spec_keeps(&s, 10));
	KTAP_EXPECT(!dft_spec_keeps(&s, 4) && !dft_spec_keeps(&s, 8) && !dft_spec_keeps(&s, 11));
	KTAP_EXPECT_U64_EQ(dft_spec_point(&s, 99), 10);
	KTAP_EXPECT_U64_EQ(s.tear[0].w, 2);
	KTAP_EXPECT_U64_EQ(s.tear[1].seed, 9);
	dft_spec_free(&s);
	KTAP_EXPECT_INT_EQ(dft_spec_parse("keep=all", &s, &err), 0);
	KTAP_EXPECT(s.all && dft_spec_keeps(&s, 12345));
	KTAP_EXPECT_U64_EQ(dft_spec_point(&s, 99), 99);
	dft_spec_free(&s);
	KTAP_EXPECT_INT_EQ(dft_spec_parse("keep=none", &s, &err), 0);
	KTAP_EXPECT(!dft_spec_keeps(&s, 1) && !dft_spec_point(&s, 9));
	dft_spec_free(&s);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ktap_check(dft_spec_parse(bad[i], &s, &err) == -EPROTO, "'%s' refused", bad[i]);
		dft_spec_free(&s);
	}
	for (i = 0, dft_buf_add(&b, "keep=1 tear="); i < 65; i++)
		dft_buf_add(&b, "%s1:%u", i ? "," : "", i);
	KTAP_EXPECT_INT_EQ(dft_spec_parse(b.text, &s, &err), -EPROTO);
	dft_spec_free(&s);
	dft_buf_free(&b);
	spec = dft_spec_lose(NULL, &(struct dft_crash){ .point = 5 }, lost, 2);
	KTAP_EXPECT_STR_EQ(spec, "keep=1,3,5");
	free(spec);
	spec = dft_spec_lose(NULL, &(struct dft_crash){ .point = 0 }, NULL, 0);
	KTAP_EXPECT_STR_EQ(spec, "keep=none");
	free(spec);
	spec = dft_spec_lose(NULL, &(struct dft_crash){ 4, 0, &(struct dft_tear){ 3, 42 }, 1 },
			     lost, 2);
	KTAP_EXPECT_STR_EQ(spec, "keep=1,3 tear=3:42");
	free(spec);
	KTAP_EXPECT_INT_EQ(dft_spec_parse("keep=1-3 tear=2:1 marks=2", &s, &err), 0);
	KTAP_EXPECT(s.have_marks && s.marks == 2 && s.nr_tear == 1);
	dft_spec_free(&s);
	KTAP_EXPECT_U64_EQ(dft_spec_view_len("keep=1 tear=1:1 marks=3"), strlen("keep=1 tear=1:1"));
	KTAP_EXPECT_U64_EQ(dft_spec_view_len("keep=1"), 6);
}

/*
 * The marks a check is told of: a prefix crashes after the marks that follow
 * its last write, a state that loses writes at the end of its epoch before
 * them; marks= is written only when it differs from what the view implies.
 */
static void test_marks(void)
{
	struct dft_plan plan = { 0 };
	struct dft_record rec;
	struct dft_spec s;
	const char *err;
	unsigned int i;
	char *spec;

	/* write 1, mark step1, flush point 1, writes 2-3, mark step3, the end mark */
	if (rec_build(&rec, "wM|wwME"))
		return;
	KTAP_EXPECT_INT_EQ(dft_marks_below(&rec, 1), 0);
	KTAP_EXPECT_INT_EQ(dft_marks_below(&rec, 2), 1);
	KTAP_EXPECT_INT_EQ(dft_marks_below(&rec, 4), 3);
	KTAP_EXPECT_INT_EQ(dft_plan_build(&rec, &dflt, &plan), 0);
	for (i = 0; i < plan.nr; i++) {
		if (!strcmp(plan.st[i].spec, "keep=1,3 marks=1"))
			KTAP_EXPECT(plan.st[i].kind == DFT_ST_OMIT && plan.st[i].marks == 1);
		if (!strcmp(plan.st[i].spec, "keep=1-3"))
			KTAP_EXPECT(plan.st[i].kind == DFT_ST_PREFIX && plan.st[i].marks == 3);
	}
	KTAP_EXPECT(plan_has(&plan, "keep=1,3 marks=1"));
	KTAP_EXPECT(plan_has(&plan, "keep=1-3"));
	KTAP_EXPECT(plan_has(&plan, "keep=1-3 marks=1"));
	KTAP_EXPECT_INT_EQ(dft_spec_parse("keep=1-2", &s, &err), 0);
	KTAP_EXPECT_INT_EQ(dft_spec_marks(&rec, &s), 1);
	dft_spec_free(&s);
	KTAP_EXPECT_INT_EQ(dft_spec_parse("keep=all", &s, &err), 0);
	KTAP_EXPECT_INT_EQ(dft_spec_marks(&rec, &s), 3);
	dft_spec_free(&s);
	spec = dft_spec_lose(&rec, &(struct dft_crash){ .point = 3, .marks = 3 }, NULL, 0);
	KTAP_EXPECT_STR_EQ(spec, "keep=1-3");
	free(spec);
	KTAP_EXPECT_STR_EQ(rec.m[0].label, "step1");
	dft_plan_free(&plan);
	dft_record_free(&rec);
}

/* What a state lost that was not durable: the set delta debugging works on. */
static void test_spec_lost(void)
{
	struct dft_record rec;
	struct dft_spec s;
	uint64_t *lost;
	const char *err;
	size_t n;

	/* 1-2 | 3 FUA, 4, 5 */
	if (rec_build(&rec, "ww|FwwE"))
		return;
	KTAP_EXPECT_INT_EQ(dft_spec_parse("keep=1,4", &s, &err), 0);
	KTAP_EXPECT_INT_EQ(dft_spec_lost(&rec, &s, 5, &lost, &n), 0);
	/* 2 is flushed and 3 is FUA: both durable, so only 5 */
	KTAP_EXPECT_U64_EQ(n, 1);
	KTAP_EXPECT(n == 1 && lost[0] == 5);
	free(lost);
	/* at point 2 the flush had not completed: 2 is lost, 3-5 never were written */
	KTAP_EXPECT_INT_EQ(dft_spec_lost(&rec, &s, 2, &lost, &n), 0);
	KTAP_EXPECT(n == 1 && lost[0] == 2);
	free(lost);
	dft_spec_free(&s);
	dft_record_free(&rec);
}

/* The fake check: fails when every write of want[] is lost. */
struct oracle {
	const uint64_t *want;
	size_t nr_want;
	unsigned int calls;
	int error;
};

static int oracle_test(void *ctx, const uint64_t *set, size_t n)
{
	struct oracle *o = ctx;
	size_t i, j, hit = 0;

	o->calls++;
	if (o->error)
		return o->error;
	for (i = 0; i < o->nr_want; i++)
		for (j = 0; j < n; j++)
			hit += set[j] == o->want[i];
	return hit == o->nr_want;
}

static size_t ddmin_run(const uint64_t *want, size_t nw, unsigned int budget, uint64_t *set,
			struct dft_ddmin *dd, struct oracle *o, int *r)
{
	size_t n = 20, i;

	for (i = 0; i < n; i++)
		set[i] = i + 1;
	*o = (struct oracle){ .want = want, .nr_want = nw };
	*dd = (struct dft_ddmin){ .test = oracle_test, .ctx = o, .budget = budget };
	*r = dft_ddmin(dd, set, &n);
	return n;
}

/* A culprit pair among 20 lost writes, one culprit, none, a budget, an error. */
static void test_ddmin(void)
{
	static const uint64_t pair[] = { 3, 17 }, one[] = { 12 };
	struct dft_ddmin dd;
	struct oracle o;
	uint64_t set[20];
	size_t n;
	int r;

	n = ddmin_run(pair, 2, 64, set, &dd, &o, &r);
	KTAP_EXPECT_INT_EQ(r, 0);
	ktap_check(n == 2 && set[0] == 3 && set[1] == 17, "the pair found: %zu writes", n);
	ktap_check(dd.tests == o.calls && dd.tests <= 64 && !dd.exhausted, "%u tests",
		   dd.tests);
	n = ddmin_run(one, 1, 64, set, &dd, &o, &r);
	ktap_check(!r && n == 1 && set[0] == 12, "the culprit found: %zu writes", n);
	/* fails with nothing lost: one test, the empty set */
	n = ddmin_run(NULL, 0, 64, set, &dd, &o, &r);
	ktap_check(!r && n == 0 && dd.tests == 1, "nothing lost fails: %zu, %u", n, dd.tests);
	/* out of budget: a set that still fails, though not minimal */
	n = ddmin_run(pair, 2, 3, set, &dd, &o, &r);
	KTAP_EXPECT(!r && dd.exhausted && dd.tests == 3);
	KTAP_EXPECT(n > 2 && oracle_test(&o, set, n) == 1);
	o.error = -EIO;
	n = 20;
	dd.budget = 64;
	KTAP_EXPECT_INT_EQ(dft_ddmin(&dd, set, &n), -EIO);
}

static const struct ktap_case explore_cases[] = {
	KTAP_CASE(test_record_pages),
	KTAP_CASE(test_record_malformed),
	KTAP_CASE(test_durable),
	KTAP_CASE(test_subsets_and_dedupe),
	KTAP_CASE(test_fua_never_lost),
	KTAP_CASE(test_torn),
	KTAP_CASE(test_samples),
	KTAP_CASE(test_cap),
	KTAP_CASE(test_spec),
	KTAP_CASE(test_marks),
	KTAP_CASE(test_spec_lost),
	KTAP_CASE(test_ddmin),
};

int main(void)
{
	return ktap_run("explore", explore_cases, ARRAY_SIZE(explore_cases));
}
