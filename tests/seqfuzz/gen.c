// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmf-seqfuzz: the lines of a sequence, from its seed alone.
 *
 * The generator keeps a model of what it asked for (which devices it
 * created, suspended, stacked, which rule ids it added) so that most lines
 * make sense, and never looks at what happened: the same seed gives the
 * same lines whatever the kernel did with them.  About one message in
 * four is a near miss (a word dropped, doubled, cut or swapped, a number
 * out of range) so that refusals are exercised as often as the paths
 * behind them.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "seqfuzz.h"

const char *const sf_type_names[SF_NR_TYPES] = {
	[SF_FAULT] = "fault", [SF_FLAKEY] = "fault-flakey", [SF_DELAY] = "fault-delay",
	[SF_ERROR] = "fault-error", [SF_DUST] = "fault-dust",
};

/* A line under construction; output past its end is cut, never overrun. */
struct sf_out {
	char *p;
	size_t len, at;
};

static void __printf(2, 3) put(struct sf_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->at >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->at, o->len - o->at, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->at += (size_t)n;
	if (o->at >= o->len)
		o->at = o->len - 1;
}

static const char *pick(struct sf_rng *r, const char *const *v, size_t n)
{
	return v[sf_below(r, n)];
}

#define PICK(r, v) pick(r, v, ARRAY_SIZE(v))

void sf_gen_init(struct sf_gen *g, uint64_t seed, const struct sf_disk *disks,
		 unsigned int nr_disks, bool alloc)
{
	memset(g, 0, sizeof(*g));
	g->rng.s = seed;
	g->disks = disks;
	g->nr_disks = nr_disks;
	g->alloc = alloc;
}

/* The size in sectors and logical block of what @below names. */
static void below_size(const struct sf_gen *g, int below, uint64_t *sectors, unsigned int *lbs)
{
	if (below < SF_DISKS) {
		*sectors = g->disks[below].sectors;
		*lbs = g->disks[below].lbs;
	} else {
		*sectors = g->dev[below - SF_DISKS].len;
		*lbs = g->dev[below - SF_DISKS].lbs;
	}
}

/* A sector count of a few blocks to the whole of @max, in units of @unit sectors. */
static uint64_t some_sectors(struct sf_rng *r, uint64_t max, uint64_t unit)
{
	uint64_t n = max / unit;

	if (!n)
		return unit;
	switch (sf_below(r, 4)) {
	case 0:
		return n * unit;
	case 1:
		return (1 + sf_below(r, n < 16 ? n : 16)) * unit;
	default:
		return (1 + sf_below(r, n)) * unit;
	}
}

static const char *const statuses[] = {
	"eio", "enospc", "etimedout", "medium", "enolink", "eopnotsupp", "eagain", "eilseq",
	"eremoteio", "enomem",
};

static void rule_ops(struct sf_gen *g, struct sf_out *o, const char *action)
{
	static const char *const any[] = {
		"read", "write", "fua", "flush", "discard", "write-zeroes", "other", "any",
		"read+write", "write+flush", "fua+flush+discard",
	};
	static const char *const writes[] = {
		"write", "fua", "flush", "discard", "write-zeroes", "write+flush+discard+write-zeroes",
	};

	if (!strcmp(action, "drop"))
		put(o, ",op=%s", PICK(&g->rng, writes));
	else if (!strcmp(action, "torn"))
		put(o, ",op=%s", sf_chance(&g->rng, 50) ? "write" : "fua");
	else if (!strcmp(action, "corrupt"))
		put(o, ",op=%s", sf_chance(&g->rng, 60) ? "read" : "write");
	else
		put(o, ",op=%s", PICK(&g->rng, any));
}

/* One rule of the target's grammar, for a device of @sectors sectors. */
static void gen_rule(struct sf_gen *g, struct sf_out *o, uint64_t sectors)
{
	static const char *const actions[] = {
		"error", "error", "drop", "corrupt", "delay", "stall", "torn",
	};
	static const char *const probs[] = {
		"0", "1%", "5%", "50%", "100%", "0.1%", "1e-3", "1/7",
	};
	struct sf_rng *r = &g->rng;
	const char *a = PICK(r, actions);
	size_t at;

	put(o, "%s", a);
	at = o->at;
	if (sf_chance(r, 70))
		rule_ops(g, o, a);
	if (sf_chance(r, 40)) {
		uint64_t first = sf_below(r, sectors);

		put(o, ",sectors=%" PRIu64 "-%" PRIu64, first,
		    first + sf_below(r, sectors - first));
	}
	if (sf_chance(r, 15))
		put(o, ",size=%uk-%s", 1u << sf_below(r, 8), sf_chance(r, 50) ? "" : "1m");
	put(o, ",p=%s", PICK(r, probs));
	if (sf_chance(r, 15))
		put(o, ",interval=%" PRIu64, 1 + sf_below(r, 8));
	if (sf_chance(r, 20))
		put(o, ",times=%" PRIu64, sf_below(r, 20));
	if (sf_chance(r, 10))
		put(o, ",space=%" PRIu64, sf_below(r, 1 << 20));
	if (sf_chance(r, 10))
		put(o, ",skip=%" PRIu64, sf_below(r, 10));
	if (sf_chance(r, 10))
		put(o, ",up=%" PRIu64 ",down=%" PRIu64, sf_below(r, 2), 1 + sf_below(r, 2));
	if (sf_chance(r, 5))
		put(o, ",after=%" PRIu64, sf_below(r, 2));
	if (sf_chance(r, 10))
		put(o, ",enabled=%d", (int)sf_below(r, 2));
	if (sf_chance(r, 10))
		put(o, ",streams=%s", sf_chance(r, 50) ? "percpu" : "shared");
	if (sf_chance(r, 5))
		put(o, ",verbose=1");
	put(o, ",seed=%" PRIu64, sf_below(r, 1000));

	if (!strcmp(a, "error") && sf_chance(r, 50))
		put(o, ",status=%s", PICK(r, statuses));
	else if (!strcmp(a, "torn"))
		put(o, ",keep=%s%s", sf_chance(r, 50) ? "random" : "1",
		    sf_chance(r, 30) ? ",status=ok" : "");
	else if (!strcmp(a, "corrupt"))
		put(o, sf_chance(r, 50) ? ",bits=%" PRIu64 : ",byte=%" PRIu64 ",offset=0",
		    1 + sf_below(r, 200));
	else if (!strcmp(a, "delay"))
		put(o, ",delay=%" PRIu64 "us,jitter=%" PRIu64 "us%s", sf_below(r, 20000),
		    sf_below(r, 5000), sf_chance(r, 30) ? ",dist=exp" : "");
	else if (!strcmp(a, "stall") && sf_chance(r, 85))
		put(o, ",timeout=%" PRIu64 "ms", 1 + sf_below(r, 300));
	/* "<action>:<key>=<value>,..." */
	if (at < o->at)
		o->p[at] = ':';
}

/* A fault table's words after "<dev> <offset>". */
static void gen_fault_args(struct sf_gen *g, struct sf_out *o, uint64_t sectors)
{
	struct sf_rng *r = &g->rng;
	unsigned int i, n = sf_chance(r, 30) ? 0 : (unsigned int)sf_below(r, 4);

	if (!n && sf_chance(r, 50))
		return;
	put(o, " %u", n);
	for (i = 0; i < n; i++) {
		put(o, " ");
		gen_rule(g, o, sectors);
	}
	if (sf_chance(r, 25)) {
		put(o, " %d cache", sf_chance(r, 50) ? 1 : 2);
		/* the second word, if the count says two */
		put(o, " %s", sf_chance(r, 50) ? "limit=1m" : "unit=4k");
	}
}

static void gen_compat_args(struct sf_gen *g, struct sf_out *o, enum sf_type t,
			    const char *dev, uint64_t off)
{
	static const char *const flakey_features[] = {
		"1 drop_writes", "1 error_writes", "1 error_reads", "5 corrupt_bio_byte 32 r 1 0",
		"5 corrupt_bio_byte 1 w 0 0", "2 random_read_corrupt 500000000", "",
	};
	static const char *const blksz[] = { "512", "4096", "1024", "8192" };
	struct sf_rng *r = &g->rng;

	switch (t) {
	case SF_FLAKEY:
		put(o, " %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %s", dev, off, sf_below(r, 3),
		    sf_below(r, 3), PICK(r, flakey_features));
		break;
	case SF_DELAY:
		put(o, " %s %" PRIu64 " %" PRIu64, dev, off, sf_below(r, 5));
		if (sf_chance(r, 30))
			put(o, " %s %" PRIu64 " %" PRIu64, dev, off, sf_below(r, 5));
		break;
	case SF_DUST:
		put(o, " %s %" PRIu64 " %s", dev, off, PICK(r, blksz));
		break;
	default:
		break;
	}
}

static int free_dev(struct sf_gen *g)
{
	int d = (int)sf_below(&g->rng, SF_DEVS), i;

	for (i = 0; i < SF_DEVS; i++, d = (d + 1) % SF_DEVS)
		if (!g->dev[d].exists)
			return d;
	return -1;
}

static int live_dev(struct sf_gen *g)
{
	int d = (int)sf_below(&g->rng, SF_DEVS), i;

	for (i = 0; i < SF_DEVS; i++, d = (d + 1) % SF_DEVS)
		if (g->dev[d].exists)
			return d;
	return -1;
}

/* Is a device stacked on @d (as the generator asked)? */
static bool has_upper(const struct sf_gen *g, int d)
{
	int i;

	for (i = 0; i < SF_DEVS; i++)
		if (g->dev[i].exists && g->dev[i].below == SF_DISKS + d)
			return true;
	return false;
}

/* A suspended device on @d's path (I/O to @d would wait for it), or -1. */
static int suspended_on_path(const struct sf_gen *g, int d)
{
	while (1) {
		if (g->dev[d].suspended)
			return d;
		if (g->dev[d].below < SF_DISKS)
			return -1;
		d = g->dev[d].below - SF_DISKS;
	}
}

/*
 * The largest logical block on @d's path as the devices below are now: a
 * device keeps the block it was loaded with when one below is reloaded
 * onto a disk of larger blocks, and its smaller I/O is then refused.
 */
static unsigned int path_lbs(const struct sf_gen *g, int d)
{
	unsigned int lbs = g->dev[d].lbs, below, n;
	uint64_t sectors;

	for (n = 0; n < SF_DEVS && g->dev[d].below >= 0; n++) {
		below_size(g, g->dev[d].below, &sectors, &below);
		if (below > lbs)
			lbs = below;
		if (g->dev[d].below < SF_DISKS)
			break;
		d = g->dev[d].below - SF_DISKS;
	}
	return lbs;
}

/*
 * "create" or "load": a table for device @d.  The line is
 * "<op> dmfzD <type> <len> <params>" where params are the table's words
 * after the type, with the disk below named dN or the device mN.
 */
static void gen_table(struct sf_gen *g, struct sf_out *o, const char *op, int d)
{
	static const unsigned int weights[SF_NR_TYPES] = { 60, 10, 10, 4, 16 };
	struct sf_rng *r = &g->rng;
	struct sf_gdev *gd = &g->dev[d];
	unsigned int w = (unsigned int)sf_below(r, 100), lbs;
	enum sf_type t = SF_FAULT;
	uint64_t size, off, len;
	char dev[16];
	int below, j;

	while (w >= weights[t]) {
		w -= weights[t];
		t++;
	}
	below = (int)sf_below(r, g->nr_disks);
	/* stack on a device made before this one, so that no table is its own below */
	j = (int)sf_below(r, SF_DEVS);
	if (sf_chance(r, 30) && j < d && g->dev[j].exists)
		below = SF_DISKS + j;
	below_size(g, below, &size, &lbs);
	if (below < SF_DISKS)
		snprintf(dev, sizeof(dev), "d%d", below);
	else
		snprintf(dev, sizeof(dev), "m%d", below - SF_DISKS);
	off = sf_chance(r, 50) ? 0 : sf_below(r, size / 2) / (lbs >> 9) * (lbs >> 9);
	len = some_sectors(r, size - off, lbs >> 9);
	if (sf_chance(r, 3))
		len += 1 + sf_below(r, 7);	/* not a whole logical block, or past the end */
	if (sf_chance(r, 3))
		off = size - sf_below(r, size < 8 ? size : 8);	/* at or near the end */

	put(o, "%s dmfz%d %s %" PRIu64, op, d, sf_type_names[t], len);
	if (t == SF_FAULT) {
		put(o, " %s %" PRIu64, dev, off);
		gen_fault_args(g, o, len);
	} else {
		gen_compat_args(g, o, t, dev, off);
	}

	/* a load takes effect at the next resume; the model takes it now */
	if (!strcmp(op, "create")) {
		gd->exists = true;
		gd->suspended = false;
	}
	gd->type = t;
	gd->below = t == SF_ERROR ? -1 : below;
	gd->off = off;
	gd->len = len;
	gd->lbs = lbs;
	gd->next_id = 1;
	gd->wr_len = 0;
}

static const char *const words[] = {
	"rule", "add", "bad", "cache", "on", "off", "crash", "mark", "view", "keep=all",
	"record", "list", "0", "1", "-1", "18446744073709551616", "4294967296", "x", "=",
	"error:p=1", "tear=1:2", "after=flush:1", "lose=sectors", "release", "all",
};

/* Make a near miss of @msg in place: one change of one word. */
static void near_miss(struct sf_gen *g, char *msg, size_t len)
{
	char copy[SF_LINE], *w[64], *save = NULL, *p;
	unsigned int n = 0, i, k;
	struct sf_out o = { msg, len, 0 };
	struct sf_rng *r = &g->rng;
	int how = (int)sf_below(r, 6);

	snprintf(copy, sizeof(copy), "%s", msg);
	for (p = strtok_r(copy, " ", &save); p && n < ARRAY_SIZE(w); p = strtok_r(NULL, " ", &save))
		w[n++] = p;
	if (!n)
		return;
	k = (unsigned int)sf_below(r, n);
	if (n == 1 && !how)
		how = 1;	/* a message of no words is no message */
	msg[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *sep = o.at ? " " : "";

		if (i != k) {
			put(&o, "%s%s", sep, w[i]);
			continue;
		}
		switch (how) {
		case 0:		/* dropped */
			break;
		case 1:		/* doubled */
			put(&o, "%s%s %s", sep, w[i], w[i]);
			break;
		case 2:		/* cut short */
			put(&o, "%s%.*s", sep, (int)(strlen(w[i]) / 2), w[i]);
			break;
		case 3:		/* swapped for another word */
			put(&o, "%s%s", sep, PICK(r, words));
			break;
		case 4:		/* a character added */
			put(&o, "%s%s%c", sep, w[i], ",=x9-:"[sf_below(r, 6)]);
			break;
		default:	/* a word added after it */
			put(&o, "%s%s %s", sep, w[i], PICK(r, words));
			break;
		}
	}
}

static void gen_range(struct sf_rng *r, struct sf_out *o, uint64_t sectors)
{
	uint64_t first = sf_below(r, sectors);

	switch (sf_below(r, 3)) {
	case 0:
		put(o, " %" PRIu64, first);
		break;
	case 1:
		put(o, " %" PRIu64 "-%" PRIu64, first, first + sf_below(r, sectors - first));
		break;
	default:
		put(o, " %" PRIu64 "+%" PRIu64, first, 1 + sf_below(r, 64));
		break;
	}
}

/* A message of the fault target's (every target takes them). */
static void gen_fault_msg(struct sf_gen *g, struct sf_out *o, int d)
{
	static const char *const crash_lose[] = { "", " lose=all", " lose=none", " lose=writes",
						  " lose=sectors" };
	static const char *const triggers[] = { "flush:1", "flush:3", "write:5", "bytes:64k",
						"none" };
	static const char *const bad_modes[] = { "", " mode=heal", " mode=sticky", " mode=read",
						 " mode=write" };
	struct sf_rng *r = &g->rng;
	struct sf_gdev *gd = &g->dev[d];
	uint64_t id = 1 + sf_below(r, gd->next_id + 1);

	switch (sf_below(r, 30)) {
	case 0: case 1: case 2: case 3:
		put(o, "rule add ");
		gen_rule(g, o, gd->len);
		gd->next_id++;
		break;
	case 4:
		put(o, "rule replace %" PRIu64 " ", id);
		gen_rule(g, o, gd->len);
		break;
	case 5: case 6:
		put(o, "rule remove %" PRIu64, id);
		break;
	case 7:
		put(o, "rule %s %" PRIu64, sf_chance(r, 50) ? "enable" : "disable", id);
		break;
	case 8:
		put(o, "rule list");
		break;
	case 9:
		put(o, sf_chance(r, 50) ? "stats" : "log");
		break;
	case 10:
		if (sf_chance(r, 50))
			put(o, "release");
		else
			put(o, "release %" PRIu64, id);
		break;
	case 11:
		put(o, "reset");
		break;
	case 12: case 13:
		put(o, "bad add%s%s%s", PICK(r, bad_modes),
		    sf_chance(r, 30) ? " wr_fail=1" : "", sf_chance(r, 20) ? " status=eio" : "");
		gen_range(r, o, gd->len);
		if (sf_chance(r, 30))
			gen_range(r, o, gd->len);
		break;
	case 14:
		put(o, "bad remove");
		gen_range(r, o, gd->len);
		break;
	case 15:
		switch (sf_below(r, 6)) {
		case 0:
			put(o, "bad clear");
			break;
		case 1:
			put(o, "bad query %" PRIu64, sf_below(r, gd->len));
			break;
		case 2:
			put(o, "bad count");
			break;
		case 3:
			put(o, "bad list %" PRIu64, sf_below(r, gd->len));
			break;
		case 4:
			put(o, "bad %s", sf_chance(r, 50) ? "enable" : "disable");
			break;
		default:
			put(o, "bad partial %s", sf_chance(r, 50) ? "on" : "off");
			break;
		}
		break;
	case 16: case 17:
		put(o, "cache on%s", sf_chance(r, 30) ? " limit=256k" : "");
		break;
	case 18:
		put(o, "cache off");
		break;
	case 19: case 20:
		if (sf_chance(r, 50))
			put(o, "crash%s seed=%" PRIu64, PICK(r, crash_lose), sf_below(r, 100));
		else
			put(o, "crash after=%s%s", PICK(r, triggers), PICK(r, crash_lose));
		break;
	case 21:
		if (sf_chance(r, 50))
			put(o, "mark");
		else
			put(o, "mark step%" PRIu64, sf_below(r, 10));
		break;
	case 22: case 23:
		put(o, "recover");
		break;
	case 24:
		put(o, "lost");
		break;
	case 25:
		put(o, "record");
		break;
	case 26:
		put(o, "record list %" PRIu64, 1 + sf_below(r, 4));
		break;
	case 27: {
		uint64_t a = 1 + sf_below(r, 8);

		if (sf_chance(r, 30))
			put(o, "view keep=%s", sf_chance(r, 50) ? "all" : "none");
		else
			put(o, "view keep=1-%" PRIu64 "%s", a,
			    sf_chance(r, 40) ? " tear=1:3" : "");
		break;
	}
	default:
		put(o, "stats");
		break;
	}
}

static void gen_dust_msg(struct sf_gen *g, struct sf_out *o, int d)
{
	static const char *const plain[] = {
		"enable", "disable", "countbadblocks", "clearbadblocks", "listbadblocks", "quiet",
	};
	struct sf_rng *r = &g->rng;
	uint64_t blocks = g->dev[d].len;

	switch (sf_below(r, 5)) {
	case 0: case 1:
		put(o, "addbadblock %" PRIu64, sf_below(r, blocks));
		if (sf_chance(r, 40))
			put(o, " %" PRIu64, sf_below(r, 3));
		break;
	case 2:
		put(o, "removebadblock %" PRIu64, sf_below(r, blocks));
		break;
	case 3:
		put(o, "queryblock %" PRIu64, sf_below(r, blocks));
		break;
	default:
		put(o, "%s", PICK(r, plain));
		break;
	}
}

static void gen_msg(struct sf_gen *g, struct sf_out *o, int d)
{
	char msg[SF_LINE];
	struct sf_out m = { msg, sizeof(msg), 0 };

	msg[0] = '\0';
	if (g->dev[d].type == SF_DUST && sf_chance(&g->rng, 60))
		gen_dust_msg(g, &m, d);
	else
		gen_fault_msg(g, &m, d);
	if (sf_chance(&g->rng, 25))
		near_miss(g, msg, sizeof(msg));
	put(o, "msg dmfz%d %s", d, msg);
}

/* "io dmfzD <kind> <offset> <length> <flags> <tag>", bytes */
static void gen_io(struct sf_gen *g, struct sf_out *o, int d)
{
	static const char *const kinds[] = {
		"read", "read", "read", "write", "write", "write", "fua", "flush", "discard",
		"zeroes",
	};
	struct sf_rng *r = &g->rng;
	struct sf_gdev *gd = &g->dev[d];
	uint64_t bytes = gd->len << 9, lbs, off, len;
	const char *kind = PICK(r, kinds);
	static const char *const flags[] = { "-", "-", "-", "-", "async", "nowait",
					      "async,nowait", "uring", "uring,nowait",
					      "async,uring,nowait" };
	const char *fl = PICK(r, flags);

	/* mostly I/O the path can take, sometimes what only the device's own block allows */
	lbs = sf_chance(r, 90) ? path_lbs(g, d) : gd->lbs;
	off = sf_below(r, bytes) / lbs * lbs;
	switch (sf_below(r, 4)) {
	case 0:
		len = lbs;
		break;
	case 1:
		len = (1 + sf_below(r, 16)) * lbs;
		break;
	case 2:
		len = (1 + sf_below(r, SF_MAX_IO / lbs)) * lbs;
		break;
	default:
		len = (1 + sf_below(r, 64)) * 4096;
		break;
	}
	if (sf_chance(r, 3))
		off += 512;		/* not on a logical block: EINVAL on 4k disks */
	if (off + len > bytes && sf_chance(r, 80))
		len = bytes > off ? (bytes - off) / lbs * lbs : lbs;
	if (!len)
		len = lbs;
	/* half the reads read back the device's last write, which the shadow knows */
	if (!strcmp(kind, "read") && gd->wr_len && sf_chance(r, 50)) {
		off = gd->wr_off;
		len = gd->wr_len;
	} else if (!strcmp(kind, "write") || !strcmp(kind, "fua") || !strcmp(kind, "zeroes")) {
		gd->wr_off = off;
		gd->wr_len = len;
	}
	put(o, "io dmfz%d %s %" PRIu64 " %" PRIu64 " %s %" PRIu64, d, kind, off, len, fl,
	    2 + sf_below(r, 0xfffffff0u));
}

static void gen_alloc(struct sf_gen *g, struct sf_out *o)
{
	static const char *const hooks[] = { "failslab", "fail_page_alloc" };
	static const char *const probs[] = { "0", "1%", "5%", "20%", "100%" };
	struct sf_rng *r = &g->rng;
	const char *h = PICK(r, hooks);

	switch (sf_below(r, 6)) {
	case 0:
		put(o, "alloc top fail-nth self %" PRIu64, 1 + sf_below(r, 40));
		break;
	case 1:
		put(o, "alloc %s probability %s", h, PICK(r, probs));
		break;
	case 2:
		put(o, "alloc %s times %" PRIu64, h, sf_below(r, 8));
		break;
	case 3:
		put(o, "alloc %s require-module %s", h, sf_chance(r, 50) ? "dm_fault" : "");
		break;
	case 4:
		put(o, "alloc top mark self");
		break;
	default:
		put(o, "alloc %s task-filter Y", h);
		break;
	}
}

/**
 * sf_gen_line - the next line of the sequence
 * @g: the generator
 * @line: where it goes
 * @len: its size (SF_LINE)
 */
void sf_gen_line(struct sf_gen *g, char *line, size_t len)
{
	struct sf_rng *r = &g->rng;
	struct sf_out o = { line, len, 0 };
	int d = live_dev(g), f = free_dev(g);
	unsigned int w = (unsigned int)sf_below(r, 100);

	line[0] = '\0';
	g->n++;
	if (d < 0 || (f >= 0 && w < 8)) {
		gen_table(g, &o, "create", f);
		return;
	}
	if (w < 14) {
		gen_table(g, &o, "load", d);
		return;
	}
	if (w < 20) {
		put(&o, "%s dmfz%d", g->dev[d].suspended ? "resume" : "suspend", d);
		if (!g->dev[d].suspended && sf_chance(r, 30))
			put(&o, " noflush");
		g->dev[d].suspended = !g->dev[d].suspended;
		return;
	}
	if (w < 23) {
		put(&o, "reload-self dmfz%d", d);
		return;
	}
	if (w < 27 && (!has_upper(g, d) || sf_chance(r, 20))) {
		put(&o, "remove dmfz%d", d);
		g->dev[d].exists = false;
		return;
	}
	if (w < 30 && g->alloc) {
		gen_alloc(g, &o);
		return;
	}
	if (w < 62) {
		gen_msg(g, &o, d);
		return;
	}
	f = suspended_on_path(g, d);
	if (f >= 0) {
		put(&o, "resume dmfz%d", f);
		g->dev[f].suspended = false;
		return;
	}
	gen_io(g, &o, d);
}
