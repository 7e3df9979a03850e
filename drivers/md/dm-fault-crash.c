// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-fault's volatile write cache: the power cut.
 *
 * A crash (the "crash" message, or a trigger after the n-th flush, write or
 * byte since "mark") keeps, by a policy and a seed, a subset of the writes
 * no flush covered, each whole or torn at the tearing unit (the logical
 * block of the disk below unless a larger unit is set), and writes back
 * what it keeps in write order, so that where two kept writes overlap the
 * newer one is on the disk.  The rest are lost and listed ("lost").  Then
 * every bio fails with EIO until "recover".  A FUA write is durable when
 * it completes: every crash keeps it.  A crash while recording writes
 * nothing: the recording stays, for "view".
 *
 * Calls go one way (see dm-fault-cache.h): dm-fault.c (the messages) and
 * dm-fault-cache.c (a trigger fired by a bio) call this file; it calls the
 * recording, dm-fault-record.c, and the store, dm-fault-cache-store.c.
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "dm-fault-cache.h"

#define DM_MSG_PREFIX "fault"

/* lost ranges a crash's reply lists; "lost" lists all that were kept */
#define FAULT_LOST_REPLY	32

/* Note lost sectors of write @w, merged with the last range of @w. */
static void fault_crash_lost(struct fault_cache *c, u64 w, sector_t sector, u64 nr)
{
	struct fault_lost *l = c->nr_lost ? &c->lost[c->nr_lost - 1] : NULL;

	c->st.lost_sectors += nr;
	if (l && l->write == w && l->sector + l->nr == sector) {
		l->nr += nr;
	} else if (c->nr_lost < FAULT_LOST_MAX) {
		l = &c->lost[c->nr_lost++];
		l->write = w;
		l->sector = sector;
		l->nr = nr;
	} else {
		c->lost_truncated = true;
	}
}

/* Does the policy keep unit @unit of write @w? */
static bool fault_crash_unit_kept(const struct fault_cache_cfg *cfg, const struct fault_cw *cw,
				  u64 w, u64 unit)
{
	if (cw->flags & FAULT_CW_FUA)
		return true;
	switch (cfg->lose) {
	case FAULT_LOSE_NONE:
		return true;
	case FAULT_LOSE_WRITES:
		return fault_crash_keeps(cfg->seed, w, 0);
	case FAULT_LOSE_SECTORS:
		/* a discard or write-zeroes is kept or lost whole */
		return fault_crash_keeps(cfg->seed, w, cw->page ? unit : 0);
	default:
		return false;
	}
}

/*
 * Apply the policy to one block: write back the runs of whole units it
 * keeps, note the rest.  Return: true if any sector was lost.
 */
static bool fault_crash_block(struct fault_cache *c, const struct fault_cache_cfg *cfg,
			      struct fault_wb *wb, struct fault_cw *cw)
{
	u64 w = cw->wseq > c->mark_wseq ? cw->wseq - c->mark_wseq : 0;
	unsigned int i = 0, n, run = 0;
	bool keep, lost = false;
	sector_t s;

	while (i <= cw->nr) {
		keep = false;
		n = 1;
		if (i < cw->nr) {
			s = cw->sector + i;
			/* to the end of the unit, or of the block */
			n = cw->page ? min_t(unsigned int, cw->nr - i, c->unit - s % c->unit) :
				cw->nr;
			keep = fault_crash_unit_kept(cfg, cw, w, s / c->unit);
		}
		if (!keep) {
			if (i > run)
				fault_wb_submit(c, wb, cw, run, i - run);
			if (i < cw->nr) {
				fault_crash_lost(c, w, cw->sector + i, n);
				lost = true;
			}
			run = i + n;
		}
		i += n;
	}
	return lost;
}

/*
 * The power fails: the blocks leave the cache, those the policy keeps are
 * written (in order, overlaps in separate batches), the rest are lost.
 * The state is already CRASHED, so no block comes in meanwhile.
 * Caller: c->mutex.
 */
void fault_cache_crash(struct fault_cache *c, const struct fault_cache_cfg *cfg)
{
	struct fault_cw *cw, *list;
	struct fault_wb *wb;
	u64 last_lost = U64_MAX;

	spin_lock(&c->lock);
	list = fault_cache_take_all(c);
	c->st.crashes++;
	spin_unlock(&c->lock);

	c->st.lost_writes = 0;
	c->st.lost_sectors = 0;
	c->nr_lost = 0;
	c->lost_truncated = false;
	wb = kmalloc(sizeof(*wb), GFP_NOIO | __GFP_NOFAIL);
	fault_wb_init(wb);
	for (cw = list; cw; cw = cw->next) {
		if (wb->nr == FAULT_WB_BATCH || fault_wb_overlaps(wb, cw)) {
			if (fault_wb_wait(wb))
				c->st.wb_errors++;
			fault_wb_init(wb);
		}
		wb->cw[wb->nr++] = cw;
		if (fault_crash_block(c, cfg, wb, cw) && cw->wseq != last_lost) {
			c->st.lost_writes++;
			last_lost = cw->wseq;
		}
	}
	if (fault_wb_wait(wb))
		c->st.wb_errors++;
	kfree(wb);
	fault_cw_free_list(c, list);
	DMINFO("%s: crash (lose=%s seed=%llu): lost %llu writes, %llu sectors",
	       fault_dev_name(c->fc), fault_lose_name(cfg->lose), cfg->seed,
	       c->st.lost_writes, c->st.lost_sectors);
}

/* A crash a trigger fired in map: the bio that fired it has completed. */
void fault_cache_crash_work(struct work_struct *w)
{
	struct fault_cache *c = container_of(w, struct fault_cache, crash_work);

	mutex_lock(&c->mutex);
	fault_cache_crash(c, &c->pending);
	mutex_unlock(&c->mutex);
}

/*
 * The totals, then up to @max lost ranges, one a line: the write's number
 * since the mark, its first lost sector and the count.  Caller: c->mutex.
 */
static void fault_cache_emit_lost(struct fault_cache *c, unsigned int max, char *result,
				  unsigned int maxlen)
{
	unsigned int sz = 0, i, n = min(c->nr_lost, max);

	DMEMIT("lost_writes=%llu lost_sectors=%llu ranges=%u%s\n", c->st.lost_writes,
	       c->st.lost_sectors, c->nr_lost, c->lost_truncated ? "+" : "");
	for (i = 0; i < n; i++)
		DMEMIT("%llu %llu+%llu\n", c->lost[i].write, (unsigned long long)c->lost[i].sector,
		       c->lost[i].nr);
	if (n < c->nr_lost)
		DMEMIT("...\n");
}

/**
 * fault_crash_msg - "crash [lose=<policy>] [seed=<n>] [after=<trigger>:<n>]"
 * @fc: the device
 * @m: the parsed message
 * @result: the reply: what the crash lost, or what the recording holds
 * @maxlen: its size
 *
 * A crash now, or one armed for a trigger (after=none disarms it).  While
 * recording, only now: the recording stays for the views.
 *
 * Return: 1 with a reply, 0 when armed, or -EINVAL.
 */
int fault_crash_msg(struct fault_c *fc, const struct fault_msg *m, char *result,
		    unsigned int maxlen)
{
	struct fault_cache *c = fault_cache_of(fc, m);
	struct fault_cache_cfg cfg;
	const char *error = NULL;
	bool now;
	int r = 0;

	if (!c)
		return -EINVAL;
	cfg = c->cfg;
	/* the policy and seed the cache has, unless named; no after=: now */
	fault_cache_cfg_apply(&cfg, &m->cache, m->keys | FAULT_CKEY_AFTER);
	now = cfg.after == FAULT_NR_TRIGGERS;
	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	if (c->rec && c->state != FAULT_CACHE_CRASHED) {
		if (now)
			r = fault_rec_crash(c, result, maxlen);
		else
			error = "a trigger needs the cache on, not recording";
		goto out;
	}
	spin_lock(&c->lock);
	if (c->state != FAULT_CACHE_ON) {
		error = fault_cache_state_name(c->state);
	} else if (!now) {
		/* armed (or disarmed): counted from the last mark */
		c->cfg.after = cfg.after;
		c->cfg.after_n = cfg.after_n;
		c->cfg.lose = cfg.lose;
		c->cfg.seed = cfg.seed;
	} else {
		c->state = FAULT_CACHE_CRASHED;
		c->cfg.after = FAULT_TRIG_NONE;
	}
	spin_unlock(&c->lock);
	if (!error && now) {
		fault_cache_crash(c, &cfg);
		fault_cache_emit_lost(c, FAULT_LOST_REPLY, result, maxlen);
		r = 1;
	}
out:
	mutex_unlock(&c->mutex);
	if (error && c->rec)
		DMWARN("%s: crash: %s", fault_dev_name(fc), error);
	else if (error)
		DMWARN("%s: crash: the cache is %s", fault_dev_name(fc), error);
	return error ? -EINVAL : r;
}

/**
 * fault_crash_msg_recover - "recover": the power is back
 * @fc: the device
 * @m: the parsed message
 * @result: unused: no reply
 * @maxlen: unused
 *
 * The cache is on again, empty; a recording and its views are let go.
 *
 * Return: 0, or -EINVAL when the cache has not crashed.
 */
int fault_crash_msg_recover(struct fault_c *fc, const struct fault_msg *m, char *result,
			    unsigned int maxlen)
{
	struct fault_cache *c = fault_cache_of(fc, m);
	int r = 0;

	if (!c)
		return -EINVAL;
	fault_cache_quiesce(c);
	mutex_lock(&c->mutex);
	if (c->rec && (c->state == FAULT_CACHE_CRASHED || c->state == FAULT_CACHE_VIEW))
		fault_rec_drop(c);
	if (c->state == FAULT_CACHE_CRASHED || (c->state == FAULT_CACHE_VIEW && !c->rec))
		fault_cache_set_state(c, FAULT_CACHE_ON);
	else
		r = -EINVAL;
	mutex_unlock(&c->mutex);
	if (r)
		DMWARN("%s: recover: the cache has not crashed", fault_dev_name(fc));
	return r;
}

/**
 * fault_crash_msg_lost - "lost": what the last crash lost
 * @fc: the device
 * @m: the parsed message
 * @result: the reply: the totals, then every lost range kept
 * @maxlen: its size
 *
 * Return: 1 with the reply, or -EINVAL without a cache.
 */
int fault_crash_msg_lost(struct fault_c *fc, const struct fault_msg *m, char *result,
			 unsigned int maxlen)
{
	struct fault_cache *c = fault_cache_of(fc, m);

	if (!c)
		return -EINVAL;
	mutex_lock(&c->mutex);
	fault_cache_emit_lost(c, FAULT_LOST_MAX, result, maxlen);
	mutex_unlock(&c->mutex);
	return 1;
}
